#pragma once
// The machine as AIStore's node status reports it (api::AisMachine): total
// and available memory (/proc/meminfo), load average, this process's CPU
// and the machine's CPU utilization, both as percentages since the previous
// sample (the first: since the process started, and the machine's since boot).
//
// Thread safety: sample() may be called from any thread.

#include "api/ais_config.h"
#include "api/ais_node.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace tessera::daemon::stats {

class SystemSampler {
public:
    // `processCpuNs`/`uptimeNs`: this process's CPU time and age now.
    api::AisMachine sample(std::uint64_t processCpuNs, std::int64_t uptimeNs);

private:
    std::mutex m_mutex;
    std::uint64_t m_lastCpuNs = 0;
    std::int64_t m_lastUptimeNs = 0;
    std::uint64_t m_lastBusy = 0;   // /proc/stat jiffies
    std::uint64_t m_lastTotal = 0;  // ditto
};

// What a node's AIStore answers (node_status, sysinfo, config) need beside
// its statistics; the node's app sets it up.
struct AisNodeView {
    std::function<api::AisConfigSource()> config;  // the cluster map's parts left empty
    std::shared_ptr<SystemSampler> sampler = std::make_shared<SystemSampler>();
    std::string version;  // Tessera's, as ais_version
};

}  // namespace tessera::daemon::stats
