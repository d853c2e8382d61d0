#pragma once
// What `tessera bench` prints: a header, one row per operation kind per
// interval (ops/s, MB/s, names/s for listings, latency min/avg/p50/p90/p99/max
// in ms, errors), then a summary. With --json nothing is printed until the
// end, and then one JSON document holds the summary and every interval, for
// scripts (tests/bench/ reads it).

#include "bench_options.h"
#include "load_generator.h"

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>

namespace tessera::cli::bench {

class BenchReport {
public:
    BenchReport(const BenchOptions& options, std::ostream& out, bool json);

    // `setup`: what was done before the run ("read 1000 existing objects
    // under p/", "PUT 1000 objects of 1KiB first").
    void begin(const std::string& target, const std::string& setup);
    void interval(const IntervalSample& sample);
    void summary(const RunTotals& totals);

    static nlohmann::json summaryJson(const OpSummary& s);

private:
    const BenchOptions& m_options;
    std::ostream& m_out;
    bool m_json;
    nlohmann::json m_doc;
    bool m_headerPrinted = false;
};

}  // namespace tessera::cli::bench
