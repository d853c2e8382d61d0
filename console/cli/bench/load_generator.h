#pragma once
// Runs a benchmark: `threads` I/O threads, each with its own io_context and
// its share of the workers (worker i on thread i % threads), so no lock or
// handler crosses threads on the data path. The calling thread is the
// reporter: every interval it collects the counters of each thread and
// hands one row to the callback; at the end it returns the totals.

#include "bench_options.h"
#include "bench_stats.h"
#include "bench_workload.h"

#include <functional>
#include <string>
#include <vector>

namespace tessera::cli::bench {

struct IntervalSample {
    double startSeconds = 0;  // since the run began
    double seconds = 0;       // length of this interval
    OpCountersByKind counters;
};

struct RunTotals {
    double seconds = 0;  // from the start until the last operation ended
    OpCountersByKind counters;
    std::uint64_t connects = 0;    // TCP connections opened
    std::uint64_t listPasses = 0;  // list: complete listings
    std::vector<std::string> errorSamples;
};

class LoadGenerator {
public:
    using IntervalCallback = std::function<void(const IntervalSample&)>;

    LoadGenerator(const BenchOptions& options, const BenchWorkload& workload);

    // Blocks until --count operations are done or --duration has passed
    // (operations in flight then are finished and counted). Called on the
    // reporter thread; `onInterval` runs there too.
    RunTotals run(const IntervalCallback& onInterval);

private:
    const BenchOptions& m_options;
    const BenchWorkload& m_workload;
};

}  // namespace tessera::cli::bench
