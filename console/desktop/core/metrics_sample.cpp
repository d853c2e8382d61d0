#include "core/metrics_sample.h"

#include "api/feed.h"

namespace tessera::console {

MetricsSample sampleFromMetrics(const api::MetricsUpdate& update)
{
    constexpr double kMB = 1e6;
    constexpr double kNsPerMs = 1e6;
    const auto& get = update.cluster.op(api::OpKind::Get);
    const auto& put = update.cluster.op(api::OpKind::Put);
    MetricsSample s;
    s.tsMs = update.tsMs;
    s.getMBps = get.bytesPerSec / kMB;
    s.putMBps = put.bytesPerSec / kMB;
    s.getOps = get.opsPerSec;
    s.putOps = put.opsPerSec;
    s.getP99Ms = static_cast<double>(get.p99Ns) / kNsPerMs;
    s.putP99Ms = static_cast<double>(put.p99Ns) / kNsPerMs;
    for (const auto& rates : update.cluster.ops) {
        s.errorsPerSec += rates.errorsPerSec;
        s.abortsPerSec += rates.abortsPerSec;
    }
    return s;
}

}  // namespace tessera::console
