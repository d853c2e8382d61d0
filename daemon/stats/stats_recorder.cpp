#include "stats_recorder.h"

#include <algorithm>

namespace tessera::daemon::stats {

namespace {
constexpr auto kRelaxed = std::memory_order_relaxed;
}

void StatsRecorder::record(api::OpKind op, int status, std::uint64_t bytes, std::uint64_t ns)
{
    auto& s = m_slots[static_cast<std::size_t>(op)];
    if (status == kClientAbort) {
        s.aborts.fetch_add(1, kRelaxed);
        return;
    }
    if (status >= 300 && status < 400) {
        s.redirects.fetch_add(1, kRelaxed);
        return;
    }
    if (status >= 400) {
        s.errors.fetch_add(1, kRelaxed);
        const auto it = std::find(kTrackedStatuses.begin(), kTrackedStatuses.end(), status);
        s.errorsByStatus[static_cast<std::size_t>(it - kTrackedStatuses.begin())].fetch_add(1, kRelaxed);
        return;
    }
    s.n.fetch_add(1, kRelaxed);
    s.bytes.fetch_add(bytes, kRelaxed);
    s.ns.fetch_add(ns, kRelaxed);
    s.latency[api::latencyBucket(ns)].fetch_add(1, kRelaxed);
}

std::array<api::OpCounters, api::kOpKinds> StatsRecorder::snapshot() const
{
    std::array<api::OpCounters, api::kOpKinds> out{};
    for (std::size_t i = 0; i < api::kOpKinds; ++i) {
        const auto& s = m_slots[i];
        auto& c = out[i];
        c.n = s.n.load(kRelaxed);
        c.bytes = s.bytes.load(kRelaxed);
        c.ns = s.ns.load(kRelaxed);
        c.errors = s.errors.load(kRelaxed);
        c.redirects = s.redirects.load(kRelaxed);
        c.aborts = s.aborts.load(kRelaxed);
        for (std::size_t b = 0; b < api::kLatencyBuckets; ++b) c.latency[b] = s.latency[b].load(kRelaxed);
        for (std::size_t k = 0; k < s.errorsByStatus.size(); ++k) {
            const auto v = s.errorsByStatus[k].load(kRelaxed);
            if (v == 0) continue;
            c.errorsByStatus[k < kTrackedStatuses.size() ? kTrackedStatuses[k] : 0] += v;
        }
    }
    return out;
}

}  // namespace tessera::daemon::stats
