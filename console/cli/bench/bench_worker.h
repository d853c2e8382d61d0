#pragma once
// One benchmark worker: a loop of operations, one at a time, each on the
// worker's own keep-alive connection to the endpoint it goes to (the proxy,
// a target, or where a redirect points). Runs as a coroutine on one
// io_context; everything it touches but the workload, the run control and
// its thread's BenchStats is its own.

#include "bench_connection.h"
#include "bench_stats.h"
#include "bench_workload.h"

#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace tessera::cli::bench {

// Shared by all workers: when to stop.
struct RunControl {
    std::uint64_t limit = 0;  // operations in all; 0 = until stop
    std::atomic<std::uint64_t> claimed{0};
    std::atomic<bool> stop{false};

    // True when the caller may start one more operation.
    bool claim()
    {
        if (stop.load(std::memory_order_relaxed)) return false;
        if (limit == 0) return true;
        return claimed.fetch_add(1, std::memory_order_relaxed) < limit;
    }
};

class BenchWorker {
public:
    // `tls`: the context of https endpoints (nullptr: http); it outlives the worker.
    BenchWorker(boost::asio::io_context& io, boost::asio::ssl::context* tls, const BenchWorkload& workload,
                const BenchOptions& options, RunControl& control, BenchStats& stats, unsigned index);

    // Runs operations until the control says stop; never throws.
    boost::asio::awaitable<void> run();

    std::uint64_t connects() const;
    // Aborts the exchange in progress when it has run past --timeout.
    void checkTimeout(std::chrono::steady_clock::time_point now);
    std::uint64_t listPasses() const { return m_state.listPasses; }

    static constexpr int kMaxRedirects = 4;

private:
    struct Outcome {
        std::string error;
        std::uint64_t bytes = 0;
        std::uint64_t items = 0;
    };
    boost::asio::awaitable<Outcome> perform(const PlannedOp& op);
    BenchConnection& connection(std::uint32_t endpoint);
    BenchConnection& connection(const std::string& host, const std::string& port);

    boost::asio::io_context& m_io;
    boost::asio::ssl::context* m_tls;
    const BenchWorkload& m_workload;
    const BenchOptions& m_options;
    RunControl& m_control;
    BenchStats& m_stats;
    WorkerState m_state;
    PlannedOp m_op;
    std::vector<std::unique_ptr<BenchConnection>> m_byEndpoint;  // index: workload endpoint
    std::vector<std::unique_ptr<BenchConnection>> m_others;      // redirect destinations
    BenchConnection* m_active = nullptr;                         // the exchange in progress, for checkTimeout
    std::chrono::steady_clock::time_point m_deadline = std::chrono::steady_clock::time_point::max();
    api::Xxh64Stream m_hash;
    std::string m_body;  // a listing page or a shard (kept allocated between operations)
};

}  // namespace tessera::cli::bench
