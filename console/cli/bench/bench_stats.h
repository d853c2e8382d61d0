#pragma once
// What a benchmark counts, per kind of operation: operations, errors, bytes,
// items (names for a listing), and a latency histogram of the successful
// operations; and the rates an interval row or the summary shows.
//
// BenchStats is shared by the workers of one I/O thread and the reporter:
// workers record(), the reporter takeInterval()s once per interval. The
// lock is held for a few additions, and only one thread records into a
// given BenchStats, so it is uncontended but for the reporter's visit.

#include "latency_histogram.h"

#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace tessera::cli::bench {

enum class OpKind { Get = 0, Put = 1, List = 2 };
constexpr std::size_t kOpKinds = 3;
const char* opKindName(OpKind kind);  // "get", "put", "list"

struct OpCounters {
    std::uint64_t ops = 0;     // successful
    std::uint64_t errors = 0;  // failed (not in ops, not in the histogram)
    std::uint64_t bytes = 0;   // payload bytes of successful ops (body sent or received)
    std::uint64_t items = 0;   // names listed
    LatencyHistogram latency;  // of successful ops

    void merge(const OpCounters& other);
};

using OpCountersByKind = std::array<OpCounters, kOpKinds>;

// Rates over an interval of `seconds`; latencies in microseconds.
struct OpSummary {
    std::uint64_t ops = 0;
    std::uint64_t errors = 0;
    std::uint64_t bytes = 0;
    std::uint64_t items = 0;
    double seconds = 0;
    double opsPerSec = 0;
    double mbPerSec = 0;  // 10^6 bytes per second
    double itemsPerSec = 0;
    double latMinUs = 0, latAvgUs = 0, latP50Us = 0, latP90Us = 0, latP99Us = 0, latMaxUs = 0;
};

// seconds <= 0 gives zero rates (and the counts as they are).
OpSummary summarize(const OpCounters& counters, double seconds);

class BenchStats {
public:
    // One finished operation. `error` is empty on success; the first few
    // distinct error messages are kept for the summary.
    void record(OpKind kind, std::uint64_t latencyNs, std::uint64_t bytes, std::uint64_t items,
                const std::string& error = {});
    // The counters since the previous call, which start again from zero.
    OpCountersByKind takeInterval();
    std::vector<std::string> errorSamples() const;

    static constexpr std::size_t kMaxErrorSamples = 5;

private:
    mutable std::mutex m_mutex;
    OpCountersByKind m_current;
    std::vector<std::string> m_errorSamples;
};

}  // namespace tessera::cli::bench
