#pragma once
// The proxy's live feed (`GET /v1/ws`, docs/api.md "The live feed") as typed
// values: the JSON of each message is decoded here, once, into structs built
// from shared/api types, so that models and widgets never see JSON.

#include "api/cluster_event.h"
#include "api/job.h"
#include "api/node_stats.h"
#include "api/result.h"
#include "api/smap.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tessera::console {

// A bucket as the feed summarises it; the usage figures are present once
// every target has finished a usage scan.
struct BucketSummary {
    std::string name;
    std::string provider;
    std::optional<std::uint64_t> objects;
    std::optional<std::uint64_t> bytes;
};

// Cluster totals of one metrics round: GET/PUT/HEAD/DEL summed over the
// targets that are not stale, `lst` as the proxy counts it.
struct ClusterTotals {
    std::array<api::OpRates, api::kOpKinds> ops{};
    int nodes = 0;
    int stale = 0;

    const api::OpRates& op(api::OpKind k) const { return ops[static_cast<std::size_t>(k)]; }
};

struct MetricsUpdate {
    std::int64_t tsMs = 0;  // when the proxy sent it (Unix ms)
    int intervalMs = 0;
    // The snapshot's copy of the latest round: current figures, but not a new tick.
    bool fromSnapshot = false;
    std::vector<api::NodeMetrics> nodes;
    ClusterTotals cluster;
};

struct FeedSnapshot {
    api::Smap smap;
    std::int64_t bmdVersion = 0;
    std::vector<BucketSummary> buckets;
    std::vector<api::JobStatus> jobs;  // the running ones
    std::optional<MetricsUpdate> metrics;  // none before the proxy's first round
    std::vector<api::ClusterEvent> events;  // oldest first
};

struct BmdUpdate {
    std::int64_t version = 0;
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

using FeedPayload = std::variant<FeedSnapshot, MetricsUpdate, api::Smap, BmdUpdate, api::ClusterEvent,
                                 api::JobStatus, Subscribed, FeedError, UnknownFeedMessage>;

struct FeedMessage {
    std::string type;
    std::int64_t seq = 0;   // 1, 2, ... per connection
    std::int64_t tsMs = 0;  // proxy wall clock
    FeedPayload payload;
};

// BadRequest for text that is not a feed message (not JSON, no envelope,
// a known type whose data has the wrong shape).
api::Result<FeedMessage> decodeFeedMessage(std::string_view text);

// `GET /v1/jobs`: every job the proxy knows, oldest first.
api::Result<std::vector<api::JobStatus>> decodeJobList(std::string_view text);

} // namespace tessera::console
