#pragma once
// Turns successive observations of the cluster into warnings: nodes joining,
// leaving, going stale and recovering; mountpaths crossing 85 % / 95 % or
// failing; checksum errors; bursts of request errors. Pure logic, no I/O:
// the cluster monitor feeds it, tests drive it directly.
//
// Not thread-safe; one owner.

#include "api/cluster_event.h"
#include "api/node_stats.h"
#include "api/smap.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tessera::daemon::proxy {

class EventDetector {
public:
    // `errorBurstPerSec`: request errors per second on one node (all kinds,
    // 4xx and 5xx) at or above which an error_burst is raised, at most once
    // per `burstQuietMs` per node.
    explicit EventDetector(double errorBurstPerSec, std::int64_t burstQuietMs = 10000);

    std::vector<api::ClusterEvent> smapChanged(const api::Smap& before, const api::Smap& after, std::int64_t nowMs);
    // One collection round: every node's metrics, stale flags set.
    std::vector<api::ClusterEvent> observe(const std::vector<api::NodeMetrics>& nodes, std::int64_t nowMs);

private:
    struct NodeState {
        bool seen = false;
        bool stale = false;
        std::uint64_t checksumErrors = 0;
        std::int64_t lastBurstMs = 0;
        bool burstReported = false;
        std::map<std::string, api::MountpathState> mountpaths;
    };
    double m_errorBurstPerSec;
    std::int64_t m_burstQuietMs;
    std::map<std::string, NodeState> m_nodes;
};

}  // namespace tessera::daemon::proxy
