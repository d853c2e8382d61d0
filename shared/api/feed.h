#pragma once
// The proxy's live feed (`GET /v1/ws`, docs/api.md "The live feed") as typed
// values: the proxy publishes these structs (encoded here) and the console
// and the CLI decode each message here, once, so that no consumer reads the
// feed's JSON by hand.
//
// Every message is an envelope {"type", "seq", "ts", "data"}; `data` is one
// of the payloads below, by type: snapshot, metrics, smap, bmd, buckets,
// event, job, subscribed, error.

#include "bmd.h"
#include "cluster_event.h"
#include "job.h"
#include "node_stats.h"
#include "result.h"
#include "smap.h"
#include "wire.h"

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tessera::api {

// A bucket as the feed summarises it; the usage figures are present once
// every target has finished a usage scan.
struct BucketSummary {
    std::string name;
    std::string provider;
    std::optional<BucketProps> props;  // always sent by the proxy
    std::optional<std::uint64_t> objects;
    std::optional<std::uint64_t> bytes;
    std::int64_t usageScannedNs = 0;  // the oldest target scan the figures come from (0: unknown)
};

// Cluster totals of one metrics round: GET/PUT/HEAD/DEL summed over the
// targets that are not stale, `lst` as the proxy counts it.
struct ClusterTotals {
    std::array<OpRates, kOpKinds> ops{};
    int nodes = 0;
    int stale = 0;

    const OpRates& op(OpKind k) const { return ops[static_cast<std::size_t>(k)]; }
};

struct MetricsUpdate {
    std::int64_t tsMs = 0;  // when the proxy sent it (Unix ms)
    int intervalMs = 0;
    // The snapshot's copy of the latest round: current figures, but not a new tick.
    bool fromSnapshot = false;
    std::vector<NodeMetrics> nodes;
    ClusterTotals cluster;
};

struct FeedSnapshot {
    Smap smap;
    std::int64_t bmdVersion = 0;
    std::vector<BucketSummary> buckets;
    std::vector<JobStatus> jobs;           // the running ones
    std::optional<MetricsUpdate> metrics;  // none before the proxy's first round
    std::vector<ClusterEvent> events;      // oldest first
};

struct BmdUpdate {
    std::int64_t version = 0;
    std::vector<BucketSummary> buckets;
};

// The buckets' usage figures changed (a usage scan finished on the targets):
// every bucket, as in the snapshot, figures summed over the targets.
struct BucketsUpdate {
    std::vector<BucketSummary> buckets;
};

struct Subscribed {
    std::vector<std::string> topics;
    int intervalMs = 0;
};

struct FeedError {
    std::string message;
};

// A message type this console does not know (a newer proxy): skipped.
struct UnknownFeedMessage {};

using FeedPayload = std::variant<FeedSnapshot, MetricsUpdate, Smap, BmdUpdate, BucketsUpdate, ClusterEvent, JobStatus,
                                 Subscribed, FeedError, UnknownFeedMessage>;

struct FeedMessage {
    std::string type;
    std::int64_t seq = 0;   // 1, 2, ... per connection
    std::int64_t tsMs = 0;  // proxy wall clock
    FeedPayload payload;
};

// What a client sends on the feed to change its session: the topics it
// wants (metrics, smap, bmd, job, event) and/or the metrics interval.
struct FeedRequest {
    std::optional<std::vector<std::string>> subscribe;
    std::optional<std::int64_t> intervalMs;  // JSON: interval_ms
    bool operator==(const FeedRequest&) const = default;
};
void to_json(nlohmann::json& j, const FeedRequest& v);
void readFields(FieldReader& r, FeedRequest& v);

// The message types, as they appear on the wire.
namespace feed_type {
inline constexpr const char* kSnapshot = "snapshot";
inline constexpr const char* kMetrics = "metrics";
inline constexpr const char* kSmap = "smap";
inline constexpr const char* kBmd = "bmd";
inline constexpr const char* kBuckets = "buckets";
inline constexpr const char* kEvent = "event";
inline constexpr const char* kJob = "job";
inline constexpr const char* kSubscribed = "subscribed";
inline constexpr const char* kError = "error";
}  // namespace feed_type

// Encoders: the `data` of each message type.
void to_json(nlohmann::json& j, const BucketSummary& v);
void to_json(nlohmann::json& j, const ClusterTotals& v);
void to_json(nlohmann::json& j, const MetricsUpdate& v);  // tsMs and fromSnapshot are not part of it
void to_json(nlohmann::json& j, const FeedSnapshot& v);
void to_json(nlohmann::json& j, const BmdUpdate& v);
void to_json(nlohmann::json& j, const BucketsUpdate& v);
void to_json(nlohmann::json& j, const Subscribed& v);
void to_json(nlohmann::json& j, const FeedError& v);
// A whole message {"type","seq","ts","data"} appended to `out`, with `data`
// already encoded (the proxy encodes a payload once for every session and
// numbers it per session).
void appendFeedEnvelope(std::string& out, std::string_view type, std::int64_t seq, std::int64_t tsMs,
                        std::string_view dataJson);

// Cluster totals of one metrics round from the nodes' rates (GET/PUT/HEAD/DEL
// summed over the targets that are not stale, `lst` the proxy's own).
ClusterTotals clusterTotals(const std::vector<NodeMetrics>& nodes);

// BadRequest for text that is not a feed message (not JSON, no envelope,
// a known type whose data has the wrong shape).
Result<FeedMessage> decodeFeedMessage(std::string_view text);

// `GET /v1/jobs`: every job the proxy knows, oldest first.
Result<std::vector<JobStatus>> decodeJobList(std::string_view text);

}  // namespace tessera::api
