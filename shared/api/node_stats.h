#pragma once
// Node statistics on the wire: the cumulative counters every node keeps
// (`GET /v1/daemon?what=node_stats`), and the rates derived from two of
// them (`metrics` on the WebSocket feed, `tessera show perf`). Counter names
// follow AIStore's (`get.n`, `get.size`, `get.ns`, `err.get.n`, ...).
//
// Rates and percentiles are always derived from two cumulative snapshots of
// the same node, so that every consumer (proxy feed, CLI, console) computes
// them the same way and none depends on when the node was last asked.

#include "result.h"

#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::api {

// Operation kinds a node counts. JSON/Prometheus names in kOpNames.
enum class OpKind : std::uint8_t { Get, Put, Head, Delete, List };
inline constexpr std::size_t kOpKinds = 5;
inline constexpr std::array<std::string_view, kOpKinds> kOpNames = {"get", "put", "head", "del", "lst"};
std::optional<OpKind> opKindFromName(std::string_view name);

// Latency histogram: fixed upper bounds (ns) in a 1-2-5 series from 50 µs to
// 50 s; the last bucket (index kLatencyBounds.size()) is +Inf. Coarse
// (percentiles are interpolated inside a bucket), but cheap, mergeable and
// the same on every node.
inline constexpr std::array<std::uint64_t, 19> kLatencyBounds = {
    50'000,        100'000,       200'000,        500'000,        1'000'000,     2'000'000,   5'000'000,
    10'000'000,    20'000'000,    50'000'000,     100'000'000,    200'000'000,   500'000'000, 1'000'000'000,
    2'000'000'000, 5'000'000'000, 10'000'000'000, 20'000'000'000, 50'000'000'000};
inline constexpr std::size_t kLatencyBuckets = kLatencyBounds.size() + 1;
using LatencyHistogram = std::array<std::uint64_t, kLatencyBuckets>;

std::size_t latencyBucket(std::uint64_t ns);
// The q-quantile (0 < q <= 1) of a histogram, linearly interpolated inside
// its bucket; 0 when the histogram is empty. The +Inf bucket reports its
// lower bound.
std::uint64_t histogramQuantile(const LatencyHistogram& h, double q);

// Cumulative counters of one operation kind since the node started.
struct OpCounters {
    std::uint64_t n = 0;          // successful operations (2xx)
    std::uint64_t bytes = 0;      // payload bytes of successful operations (JSON: size)
    std::uint64_t ns = 0;         // summed latency of successful operations
    std::uint64_t errors = 0;     // 4xx/5xx answers (the server's; client aborts are apart)
    std::uint64_t redirects = 0;  // 3xx answers (the proxy's and the targets' 307s)
    // Requests the client abandoned before the answer was complete (it
    // closed the connection, or stalled past the I/O timeout): HTTP 499 in
    // the access log, never an error of the node's (JSON: <kind>.abort.n).
    std::uint64_t aborts = 0;
    LatencyHistogram latency{};                   // successful operations only
    std::map<int, std::uint64_t> errorsByStatus;  // HTTP status -> count of `errors`
};

enum class MountpathState { Ok, NearlyFull, Full, Error };
std::string_view mountpathStateName(MountpathState s);
// The thresholds the state is derived from (percent of total used).
inline constexpr double kNearlyFullPercent = 85.0;
inline constexpr double kFullPercent = 95.0;
MountpathState mountpathStateFor(std::uint64_t total, std::uint64_t used);

struct MountpathStats {
    std::string path;
    std::uint64_t total = 0;
    std::uint64_t used = 0;
    std::uint64_t available = 0;
    MountpathState state = MountpathState::Ok;
    std::string error;          // why the state is Error
    std::int64_t objects = -1;  // at the last usage scan; -1: not known yet
    // The filesystem it lives on (the device number, "major:minor"): two
    // mountpaths with the same fs share their space. Empty when unknown.
    std::string fs;
    double usedPercent() const
    {
        return total == 0 ? 0.0 : 100.0 * static_cast<double>(used) / static_cast<double>(total);
    }
};

struct BucketUsage {
    std::uint64_t objects = 0;
    std::uint64_t bytes = 0;
};

// The proxy's live feed (/v1/ws).
struct FeedStats {
    std::uint64_t sessions = 0;    // open now
    std::uint64_t accepted = 0;    // since start
    std::uint64_t refused = 0;     // bad origin, too many sessions
    std::uint64_t closedSlow = 0;  // closed because the client fell behind
};

struct NodeStats {
    std::string id;
    std::string role;
    std::int64_t tsNs = 0;  // wall clock (Unix epoch ns) when taken
    std::int64_t uptimeNs = 0;
    std::uint64_t cpuNs = 0;  // process user + system CPU time, cumulative
    std::uint64_t rssBytes = 0;
    std::uint64_t connections = 0;  // open client connections (HTTP and WebSocket)
    std::uint64_t requests = 0;     // requests received since start
    std::int64_t smapVersion = 0;
    std::int64_t bmdVersion = 0;
    std::uint64_t checksumErrors = 0;  // GETs refused because the stored checksum did not match
    std::array<OpCounters, kOpKinds> ops{};
    std::vector<MountpathStats> mountpaths;  // targets only
    std::optional<FeedStats> feed;           // proxies only
    // Targets: per bucket, from the last usage scan (0: none finished yet).
    std::int64_t usageScannedNs = 0;
    std::map<std::string, BucketUsage> buckets;

    const OpCounters& op(OpKind k) const { return ops[static_cast<std::size_t>(k)]; }
    OpCounters& op(OpKind k) { return ops[static_cast<std::size_t>(k)]; }
};

void to_json(nlohmann::json& j, const NodeStats& v);
void from_json(const nlohmann::json& j, NodeStats& v);
Result<NodeStats> parseNodeStats(std::string_view json);

// Per-kind rates over the interval between two snapshots.
struct OpRates {
    double opsPerSec = 0;
    double bytesPerSec = 0;
    double errorsPerSec = 0;
    double abortsPerSec = 0;  // client aborts, not in errorsPerSec
    std::uint64_t p50Ns = 0;  // of the operations in the interval; 0 when none
    std::uint64_t p90Ns = 0;
    std::uint64_t p99Ns = 0;
    std::uint64_t totalN = 0;       // cumulative, from the newer snapshot
    std::uint64_t totalErrors = 0;  // cumulative
    std::uint64_t totalAborts = 0;  // cumulative
    LatencyHistogram interval{};    // latency counts in the interval (for merging across nodes)
};

struct NodeMetrics {
    std::string id;
    std::string role;
    bool stale = false;      // the node has not reported for 3 intervals
    std::int64_t ageMs = 0;  // since its last report
    double intervalSec = 0;  // between the two snapshots
    std::array<OpRates, kOpKinds> ops{};
    double cpuPercent = 0;  // of one core, over the interval
    std::uint64_t rssBytes = 0;
    std::uint64_t connections = 0;
    std::int64_t uptimeNs = 0;
    std::int64_t smapVersion = 0;
    std::uint64_t checksumErrors = 0;
    std::vector<MountpathStats> mountpaths;

    const OpRates& op(OpKind k) const { return ops[static_cast<std::size_t>(k)]; }
};

// Rates from `prev` to `cur` (same node). With no `prev`, or a `prev` that is
// not older (a restarted node), rates are zero and totals come from `cur`.
NodeMetrics deriveMetrics(const std::optional<NodeStats>& prev, const NodeStats& cur);

// Cluster totals: rates summed over nodes, percentiles from the merged
// interval histograms.
std::array<OpRates, kOpKinds> sumRates(const std::vector<NodeMetrics>& nodes);

// Capacity of a set of mountpaths with every filesystem counted once: the
// mountpaths of one node that share a filesystem (the same `fs`) share its
// space, and so do nodes of one host (`host`: the node's host name or
// address; nodes on different hosts never share).
struct Capacity {
    std::uint64_t total = 0;
    std::uint64_t used = 0;
    std::uint64_t available = 0;
    std::size_t filesystems = 0;
};
class CapacitySum {
public:
    void add(std::string_view host, const MountpathStats& mp);
    const Capacity& total() const { return m_total; }

private:
    std::set<std::string> m_seen;
    Capacity m_total;
};

// GET /v1/cluster?what=node_stats: every node's counters as the proxy
// collected them; a target that did not answer has an error instead.
// JSON: {"proxy": {id: NodeStats}, "target": {id: NodeStats | {"error": "..."}}}
struct ClusterStats {
    std::map<std::string, NodeStats> proxies;
    std::map<std::string, NodeStats> targets;
    std::map<std::string, std::string> errors;  // target id -> why it has no figures
};
void to_json(nlohmann::json& j, const ClusterStats& v);
Result<ClusterStats> parseClusterStats(std::string_view json);

void to_json(nlohmann::json& j, const MountpathStats& v);
void from_json(const nlohmann::json& j, MountpathStats& v);
void to_json(nlohmann::json& j, const OpRates& v);
void from_json(const nlohmann::json& j, OpRates& v);
void to_json(nlohmann::json& j, const NodeMetrics& v);
void from_json(const nlohmann::json& j, NodeMetrics& v);

}  // namespace tessera::api
