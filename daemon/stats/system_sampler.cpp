#include "system_sampler.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tessera::daemon::stats {

namespace {

// MemTotal and MemAvailable in bytes (0 when /proc is unreadable).
void readMeminfo(std::uint64_t& total, std::uint64_t& available)
{
    total = available = 0;
    std::FILE* f = std::fopen("/proc/meminfo", "r");
    if (f == nullptr) return;
    char key[64];
    unsigned long long kb = 0;
    while (std::fscanf(f, "%63s %llu kB\n", key, &kb) == 2) {
        if (std::strcmp(key, "MemTotal:") == 0) total = kb * 1024;
        else if (std::strcmp(key, "MemAvailable:") == 0) available = kb * 1024;
    }
    std::fclose(f);
}

// The machine's busy and total jiffies (first line of /proc/stat).
bool readCpuJiffies(std::uint64_t& busy, std::uint64_t& total)
{
    std::FILE* f = std::fopen("/proc/stat", "r");
    if (f == nullptr) return false;
    unsigned long long v[8] = {};
    const int n = std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
                              &v[5], &v[6], &v[7]);
    std::fclose(f);
    if (n < 4) return false;
    total = 0;
    for (int i = 0; i < n; ++i) total += v[i];
    busy = total - v[3] - (n > 4 ? v[4] : 0);  // idle and iowait
    return true;
}

}  // namespace

api::AisMachine SystemSampler::sample(std::uint64_t processCpuNs, std::int64_t uptimeNs)
{
    api::AisMachine m;
    readMeminfo(m.memTotal, m.memAvailable);
    double load[3] = {};
    if (::getloadavg(load, 3) == 3) m.loadAvg = {load[0], load[1], load[2]};
    std::uint64_t busy = 0, total = 0;
    const bool cpu = readCpuJiffies(busy, total);

    std::lock_guard lock(m_mutex);
    const auto wall = uptimeNs - m_lastUptimeNs;
    if (wall > 0 && processCpuNs >= m_lastCpuNs) {
        m.processCpuPercent = 100.0 * static_cast<double>(processCpuNs - m_lastCpuNs) / static_cast<double>(wall);
    }
    if (cpu && m_lastTotal == 0 && total > 0) {
        m.machineCpuPercent = 100.0 * static_cast<double>(busy) / static_cast<double>(total);  // since boot
    } else if (cpu && total > m_lastTotal && busy >= m_lastBusy) {
        m.machineCpuPercent = 100.0 * static_cast<double>(busy - m_lastBusy) / static_cast<double>(total - m_lastTotal);
    }
    m_lastCpuNs = processCpuNs;
    m_lastUptimeNs = uptimeNs;
    if (cpu) {
        m_lastBusy = busy;
        m_lastTotal = total;
    }
    return m;
}

}  // namespace tessera::daemon::stats
