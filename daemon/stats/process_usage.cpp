#include "process_usage.h"

#include <cstdio>
#include <sys/resource.h>
#include <unistd.h>

namespace tessera::daemon::stats {

ProcessUsage readProcessUsage()
{
    ProcessUsage u;
    struct rusage ru {};
    if (::getrusage(RUSAGE_SELF, &ru) == 0) {
        auto ns = [](const timeval& tv) {
            return static_cast<std::uint64_t>(tv.tv_sec) * 1'000'000'000ull +
                   static_cast<std::uint64_t>(tv.tv_usec) * 1000ull;
        };
        u.cpuNs = ns(ru.ru_utime) + ns(ru.ru_stime);
    }
    // statm: size resident shared text lib data dt, in pages.
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
        unsigned long long size = 0, resident = 0;
        if (std::fscanf(f, "%llu %llu", &size, &resident) == 2) {
            u.rssBytes = resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
        }
        std::fclose(f);
    }
    return u;
}

}  // namespace tessera::daemon::stats
