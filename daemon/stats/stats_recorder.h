#pragma once
// Per-operation counters of one node, updated on the data path.
//
// Thread safety: record() and the add*() calls are lock-free (relaxed atomic
// increments on a cache line per operation kind) and may run on any thread;
// snapshot() may run concurrently with them and sees each counter at some
// recent value (counters of one kind are not read as one atomic unit).

#include "api/node_stats.h"

#include <array>
#include <atomic>
#include <cstdint>

namespace tessera::daemon::stats {

class StatsRecorder {
public:
    // One finished request: `status` is the HTTP status sent, or kClientAbort
    // when the client went away (or stalled) before the answer was complete;
    // `bytes` the payload moved (request body + response body), `ns` the time
    // from the end of the request header to the end of the answer. Client
    // aborts are counted apart from errors: a console that abandons a
    // listing it no longer needs is not a failing node.
    void record(api::OpKind op, int status, std::uint64_t bytes, std::uint64_t ns);
    void addChecksumError() { m_checksumErrors.fetch_add(1, std::memory_order_relaxed); }

    std::array<api::OpCounters, api::kOpKinds> snapshot() const;
    std::uint64_t checksumErrors() const { return m_checksumErrors.load(std::memory_order_relaxed); }

    // The status of a request the client abandoned (nginx's "client closed request").
    static constexpr int kClientAbort = 499;
    // The error statuses counted individually; others are counted under 0.
    static constexpr std::array<int, 18> kTrackedStatuses = {400, 401, 403, 404, 405, 408, 409, 411, 413,
                                                             416, 422, 426, 429, 500, 502, 503, 504, 507};

private:
    using Counter = std::atomic<std::uint64_t>;
    struct alignas(64) Slot {
        Counter n{0};
        Counter bytes{0};
        Counter ns{0};
        Counter errors{0};
        Counter redirects{0};
        Counter aborts{0};
        std::array<Counter, api::kLatencyBuckets> latency{};
        std::array<Counter, kTrackedStatuses.size() + 1> errorsByStatus{};  // last: any other status
    };
    std::array<Slot, api::kOpKinds> m_slots{};
    Counter m_checksumErrors{0};
};

}  // namespace tessera::daemon::stats
