#pragma once
// CPU time and resident memory of this process, from the kernel.

#include <cstdint>

namespace tessera::daemon::stats {

struct ProcessUsage {
    std::uint64_t cpuNs = 0;     // user + system, cumulative
    std::uint64_t rssBytes = 0;  // resident set size now; 0 when /proc is unreadable
};

ProcessUsage readProcessUsage();

}  // namespace tessera::daemon::stats
