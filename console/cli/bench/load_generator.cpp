#include "load_generator.h"

#include "bench_worker.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
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
        asio::steady_timer watchdog{io};
        std::size_t running = 0;  // workers not done; touched on the lane's thread only
        BenchStats stats;
        std::vector<std::unique_ptr<BenchWorker>> workers;
        std::unique_ptr<asio::ssl::context> tls;  // https endpoints: the lane's connections share it
    };
    std::vector<std::unique_ptr<Lane>> lanes;
    for (unsigned t = 0; t < threads; ++t) {
        lanes.push_back(std::make_unique<Lane>());
        if (!m_options.tls.enabled) continue;
        auto tls = makeTlsContext(m_options.tls.caFile, m_options.tls.insecure);
        if (!tls) {
            RunTotals failed;
            failed.errorSamples.push_back(tls.error().message);
            return failed;
        }
        lanes.back()->tls = std::move(tls.value());
    }

    RunControl control;
    control.limit = m_options.count;
    for (unsigned w = 0; w < m_options.workers; ++w) {
        auto& lane = *lanes[w % threads];
        lane.workers.push_back(
            std::make_unique<BenchWorker>(lane.io, lane.tls.get(), m_workload, m_options, control, lane.stats, w));
    }

    std::mutex mutex;
    std::condition_variable cv;
    unsigned lanesDone = 0;
    std::vector<std::string> fatal;
    std::vector<std::thread> pool;
    // Timeouts: one timer per lane visits its workers, instead of a timer
    // armed and cancelled around every request.
    const auto period = std::min<Clock::duration>(m_options.timeout / 4, std::chrono::milliseconds(250));
    const auto watchdog = [](Lane& lane, Clock::duration every) -> asio::awaitable<void> {
        while (lane.running > 0) {
            lane.watchdog.expires_after(every);
            boost::system::error_code ec;
            co_await lane.watchdog.async_wait(asio::redirect_error(asio::use_awaitable, ec));
            const auto now = Clock::now();
            for (auto& w : lane.workers) w->checkTimeout(now);
        }
    };
    const auto start = Clock::now();
    for (auto& lanePtr : lanes) {
        Lane* lane = lanePtr.get();
        lane->running = lane->workers.size();
        for (auto& worker : lane->workers) {
            asio::co_spawn(lane->io, worker->run(), [&, lane](std::exception_ptr e) {
                if (--lane->running == 0) lane->watchdog.cancel();  // lets io.run() return now
                if (!e) return;
                try {
                    std::rethrow_exception(e);
                } catch (const std::exception& ex) {
                    std::lock_guard lock(mutex);
                    fatal.push_back(ex.what());
                }
            });
        }
        asio::co_spawn(lane->io, watchdog(*lane, period), asio::detached);
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
        // The last row may be short (the operations in flight at the
        // deadline); it is reported all the same, with its own length, so
        // the rows always add up to the totals.
        onInterval(s);
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
