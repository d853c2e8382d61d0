#pragma once

#include <cstdint>

namespace tessera::console {

// One tick of cluster throughput as the dashboard charts it (and the metrics
// history keeps): rates over the proxy's collection interval.
struct MetricsSample {
    std::int64_t tsMs = 0;  // proxy wall clock (Unix ms) of the metrics message
    double getMBps = 0;     // MB/s = 10^6 bytes per second
    double putMBps = 0;
    double getOps = 0;  // operations per second
    double putOps = 0;
    double getP99Ms = 0;  // p99 latency of the interval's operations, ms (0: none)
    double putP99Ms = 0;
    double errorsPerSec = 0;  // the nodes' error answers, all operation kinds together
    double abortsPerSec = 0;  // requests their clients abandoned (not errors), all kinds

    bool operator==(const MetricsSample&) const = default;
};

}  // namespace tessera::console

namespace tessera::api {
struct MetricsUpdate;
}  // namespace tessera::api

namespace tessera::console {

// The charted figures of one metrics round (cluster totals).
MetricsSample sampleFromMetrics(const api::MetricsUpdate& update);

}  // namespace tessera::console
