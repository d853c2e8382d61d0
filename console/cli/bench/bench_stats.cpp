#include "bench_stats.h"

#include <algorithm>

namespace tessera::cli::bench {

const char* opKindName(OpKind kind)
{
    switch (kind) {
    case OpKind::Get: return "get";
    case OpKind::Put: return "put";
    case OpKind::List: return "list";
    }
    return "?";
}

void OpCounters::merge(const OpCounters& other)
{
    ops += other.ops;
    errors += other.errors;
    bytes += other.bytes;
    items += other.items;
    latency.merge(other.latency);
}

OpSummary summarize(const OpCounters& c, double seconds)
{
    OpSummary s;
    s.ops = c.ops;
    s.errors = c.errors;
    s.bytes = c.bytes;
    s.items = c.items;
    s.seconds = seconds;
    if (seconds > 0) {
        s.opsPerSec = static_cast<double>(c.ops) / seconds;
        s.mbPerSec = static_cast<double>(c.bytes) / seconds / 1e6;
        s.itemsPerSec = static_cast<double>(c.items) / seconds;
    }
    const auto us = [](std::uint64_t ns) { return static_cast<double>(ns) / 1000.0; };
    s.latMinUs = us(c.latency.min());
    s.latAvgUs = c.latency.mean() / 1000.0;
    s.latP50Us = us(c.latency.percentile(0.50));
    s.latP90Us = us(c.latency.percentile(0.90));
    s.latP99Us = us(c.latency.percentile(0.99));
    s.latMaxUs = us(c.latency.max());
    return s;
}

void BenchStats::record(OpKind kind, std::uint64_t latencyNs, std::uint64_t bytes, std::uint64_t items,
                        const std::string& error)
{
    std::lock_guard lock(m_mutex);
    auto& c = m_current[static_cast<std::size_t>(kind)];
    if (!error.empty()) {
        ++c.errors;
        if (m_errorSamples.size() < kMaxErrorSamples &&
            std::find(m_errorSamples.begin(), m_errorSamples.end(), error) == m_errorSamples.end()) {
            m_errorSamples.push_back(error);
        }
        return;
    }
    ++c.ops;
    c.bytes += bytes;
    c.items += items;
    c.latency.record(latencyNs);
}

OpCountersByKind BenchStats::takeInterval()
{
    OpCountersByKind out;
    std::lock_guard lock(m_mutex);
    std::swap(out, m_current);
    return out;
}

std::vector<std::string> BenchStats::errorSamples() const
{
    std::lock_guard lock(m_mutex);
    return m_errorSamples;
}

}  // namespace tessera::cli::bench
