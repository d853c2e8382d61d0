#include "load_generator.h"

#include "bench_worker.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

namespace tessera::cli::bench {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

LoadGenerator::LoadGenerator(const BenchOptions& options, const BenchWorkload& workload)
    : m_options(options), m_workload(workload)
{
}

RunTotals LoadGenerator::run(const IntervalCallback& onInterval)
{
    const unsigned threads = std::max(1u, std::min(m_options.threads, m_options.workers));
    struct Lane {
        asio::io_context io{1};
        BenchStats stats;
        std::vector<std::unique_ptr<BenchWorker>> workers;
    };
    std::vector<std::unique_ptr<Lane>> lanes;
    for (unsigned t = 0; t < threads; ++t) lanes.push_back(std::make_unique<Lane>());

    RunControl control;
    control.limit = m_options.count;
    for (unsigned w = 0; w < m_options.workers; ++w) {
        auto& lane = *lanes[w % threads];
        lane.workers.push_back(
            std::make_unique<BenchWorker>(lane.io, m_workload, m_options, control, lane.stats, w));
    }

    std::mutex mutex;
    std::condition_variable cv;
    unsigned lanesDone = 0;
    std::vector<std::string> fatal;
    std::vector<std::thread> pool;
    const auto start = Clock::now();
    for (auto& lanePtr : lanes) {
        Lane* lane = lanePtr.get();
        for (auto& worker : lane->workers) {
            asio::co_spawn(lane->io, worker->run(), [&](std::exception_ptr e) {
                if (!e) return;
                try {
                    std::rethrow_exception(e);
                } catch (const std::exception& ex) {
                    std::lock_guard lock(mutex);
                    fatal.push_back(ex.what());
                }
            });
        }
        pool.emplace_back([lane, &mutex, &cv, &lanesDone] {
            lane->io.run();
            std::lock_guard lock(mutex);
            ++lanesDone;
            cv.notify_all();
        });
    }

    RunTotals totals;
    const auto collect = [&](IntervalSample& s) {
        for (auto& lane : lanes) {
            auto part = lane->stats.takeInterval();
            for (std::size_t k = 0; k < kOpKinds; ++k) s.counters[k].merge(part[k]);
        }
        for (std::size_t k = 0; k < kOpKinds; ++k) totals.counters[k].merge(s.counters[k]);
    };
    const auto secondsSince = [&](Clock::time_point t) { return std::chrono::duration<double>(t - start).count(); };

    auto intervalStart = start;
    auto nextTick = start + m_options.interval;
    const auto deadline = start + m_options.duration;
    bool finished = false;
    while (!finished) {
        {
            std::unique_lock lock(mutex);
            const bool timed = m_options.count == 0 && !control.stop;
            const auto wakeAt = timed ? std::min(nextTick, deadline) : nextTick;
            finished = cv.wait_until(lock, wakeAt, [&] { return lanesDone == lanes.size(); });
        }
        const auto now = Clock::now();
        if (m_options.count == 0 && now >= deadline) control.stop = true;
        if (!finished && now < nextTick) continue;  // woke for the deadline only
        IntervalSample s;
        s.seconds = std::chrono::duration<double>(now - intervalStart).count();
        s.startSeconds = std::chrono::duration<double>(intervalStart - start).count();
        collect(s);
        // The stragglers' tail after the deadline is counted in the totals
        // but makes a meaningless row of its own when it is short.
        if (!finished || s.seconds * 4 >= std::chrono::duration<double>(m_options.interval).count()) onInterval(s);
        intervalStart = now;
        while (nextTick <= now) nextTick += m_options.interval;
    }
    for (auto& t : pool) t.join();
    totals.seconds = secondsSince(Clock::now());
    {
        // Anything recorded between the last collection and the join.
        IntervalSample rest;
        collect(rest);
    }
    for (auto& lane : lanes) {
        for (auto& w : lane->workers) {
            totals.connects += w->connects();
            totals.listPasses += w->listPasses();
        }
        for (auto& e : lane->stats.errorSamples()) {
            if (totals.errorSamples.size() < BenchStats::kMaxErrorSamples) totals.errorSamples.push_back(e);
        }
    }
    for (auto& f : fatal) totals.errorSamples.push_back("worker stopped: " + f);
    return totals;
}

}  // namespace tessera::cli::bench
