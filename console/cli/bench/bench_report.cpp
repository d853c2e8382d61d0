#include "bench_report.h"

#include "output.h"
#include "spec/size_string.h"

#include <cstdio>
#include <ostream>

namespace tessera::cli::bench {

namespace {

std::string num(double v, int decimals)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string ms(double us) { return num(us / 1000.0, us < 10'000 ? 3 : 1); }

std::string sizeText(const BenchOptions& o)
{
    if (o.fixedSize()) return spec::formatSize(o.minSize);
    return spec::formatSize(o.minSize) + ".." + spec::formatSize(o.maxSize);
}

std::vector<std::string> row(const std::string& time, OpKind kind, const OpSummary& s, bool items)
{
    return {time,
            opKindName(kind),
            num(s.opsPerSec, 1),
            num(s.mbPerSec, 2),
            items ? num(s.itemsPerSec, 0) : "-",
            ms(s.latMinUs),
            ms(s.latAvgUs),
            ms(s.latP50Us),
            ms(s.latP90Us),
            ms(s.latP99Us),
            ms(s.latMaxUs),
            std::to_string(s.errors)};
}

// The items column: names for a listing, samples for the shard modes.
std::vector<std::string> header(const BenchOptions& o)
{
    return {"time(s)", "op",      "ops/s",   "MB/s",    o.countsSamples() ? "samples/s" : "names/s",
            "min(ms)", "avg(ms)", "p50(ms)", "p90(ms)", "p99(ms)",
            "max(ms)", "errors"};
}

bool showsItems(const BenchOptions& o, OpKind kind) { return kind == OpKind::List || o.countsSamples(); }

std::string pad(const std::vector<std::string>& cells)
{
    // Fixed widths so rows printed one at a time line up.
    static const int kWidths[] = {8, 5, 11, 9, 10, 8, 8, 8, 8, 8, 9, 7};
    std::string line;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        char buf[64];
        std::snprintf(buf, sizeof buf, i == 1 ? "  %-*s" : "%*s", kWidths[i], cells[i].c_str());
        line += buf;
    }
    return line;
}

}  // namespace

BenchReport::BenchReport(const BenchOptions& options, std::ostream& out, bool json)
    : m_options(options), m_out(out), m_json(json)
{
}

nlohmann::json BenchReport::summaryJson(const OpSummary& s)
{
    return {{"ops", s.ops},
            {"errors", s.errors},
            {"bytes", s.bytes},
            {"items", s.items},
            {"seconds", s.seconds},
            {"ops_per_s", s.opsPerSec},
            {"mb_per_s", s.mbPerSec},
            {"items_per_s", s.itemsPerSec},
            {"latency_us",
             {{"min", s.latMinUs},
              {"avg", s.latAvgUs},
              {"p50", s.latP50Us},
              {"p90", s.latP90Us},
              {"p99", s.latP99Us},
              {"max", s.latMaxUs}}}};
}

void BenchReport::begin(const std::string& target, const std::string& setup)
{
    const auto& o = m_options;
    if (m_json) {
        m_doc = {{"mode", benchModeName(o.mode)},
                 {"target", target},
                 {"setup", setup},
                 {"workers", o.workers},
                 {"threads", o.threads},
                 {"min_size", o.minSize},
                 {"max_size", o.maxSize},
                 {"direct", o.direct},
                 {"verify", o.verify},
                 {"keepalive", o.keepalive},
                 {"intervals", nlohmann::json::array()}};
        if (o.count > 0) m_doc["count"] = o.count;
        else m_doc["duration_s"] = static_cast<double>(o.duration.count()) / 1000.0;
        if (o.mode == BenchMode::Mixed) m_doc["pct_put"] = o.pctPut;
        return;
    }
    m_out << "bench " << benchModeName(o.mode) << " -> " << target << ": " << o.workers << " workers on " << o.threads
          << " threads, ";
    if (o.count > 0) m_out << o.count << " operations";
    else m_out << static_cast<double>(o.duration.count()) / 1000.0 << " s";
    if (o.mode != BenchMode::List && o.mode != BenchMode::UrlGet && !o.countsSamples()) {
        m_out << ", size " << sizeText(o);
    }
    if (o.mode == BenchMode::Mixed) m_out << ", " << o.pctPut << "% PUT";
    m_out << (o.direct ? ", direct to targets" : "") << (o.verify ? ", verifying checksums" : "")
          << (o.keepalive ? "" : ", a new connection per request") << "\n";
    if (!setup.empty()) m_out << setup << "\n";
    m_out.flush();
}

void BenchReport::interval(const IntervalSample& sample)
{
    if (m_json) {
        nlohmann::json row = {{"t", sample.startSeconds}, {"seconds", sample.seconds}};
        for (std::size_t k = 0; k < kOpKinds; ++k) {
            const auto& c = sample.counters[k];
            if (c.ops == 0 && c.errors == 0) continue;
            row[opKindName(static_cast<OpKind>(k))] = summaryJson(summarize(c, sample.seconds));
        }
        m_doc["intervals"].push_back(std::move(row));
        return;
    }
    if (!m_headerPrinted) {
        m_out << pad(header(m_options)) << "\n";
        m_headerPrinted = true;
    }
    const std::string time = num(sample.startSeconds + sample.seconds, 1);
    bool any = false;
    for (std::size_t k = 0; k < kOpKinds; ++k) {
        const auto& c = sample.counters[k];
        if (c.ops == 0 && c.errors == 0) continue;
        any = true;
        const auto kind = static_cast<OpKind>(k);
        m_out << pad(row(time, kind, summarize(c, sample.seconds), showsItems(m_options, kind))) << "\n";
    }
    if (!any) m_out << pad({time, "-", "0", "0", "-", "-", "-", "-", "-", "-", "-", "0"}) << "\n";
    m_out.flush();
}

void BenchReport::summary(const RunTotals& totals)
{
    std::uint64_t errors = 0;
    for (const auto& c : totals.counters) errors += c.errors;
    if (m_json) {
        nlohmann::json ops = nlohmann::json::object();
        for (std::size_t k = 0; k < kOpKinds; ++k) {
            const auto& c = totals.counters[k];
            if (c.ops == 0 && c.errors == 0) continue;
            ops[opKindName(static_cast<OpKind>(k))] = summaryJson(summarize(c, totals.seconds));
        }
        m_doc["seconds"] = totals.seconds;
        m_doc["summary"] = ops;
        m_doc["errors"] = errors;
        m_doc["error_samples"] = totals.errorSamples;
        m_doc["connections"] = totals.connects;
        if (m_options.mode == BenchMode::List) m_doc["list_passes"] = totals.listPasses;
        m_out << m_doc.dump(2) << "\n";
        return;
    }
    m_out << "\nsummary: " << num(totals.seconds, 2) << " s, " << totals.connects << " connections opened";
    if (m_options.mode == BenchMode::List) m_out << ", " << totals.listPasses << " complete listings";
    m_out << "\n";
    m_out << pad(header(m_options)) << "\n";
    for (std::size_t k = 0; k < kOpKinds; ++k) {
        const auto& c = totals.counters[k];
        if (c.ops == 0 && c.errors == 0) continue;
        const auto kind = static_cast<OpKind>(k);
        m_out << pad(row("total", kind, summarize(c, totals.seconds), showsItems(m_options, kind))) << "\n";
    }
    for (std::size_t k = 0; k < kOpKinds; ++k) {
        const auto& c = totals.counters[k];
        if (c.ops == 0 && c.errors == 0) continue;
        m_out << opKindName(static_cast<OpKind>(k)) << ": " << c.ops << " ok, " << c.errors << " failed, "
              << formatBytes(c.bytes)
              << (c.items ? ", " + std::to_string(c.items) + (m_options.countsSamples() ? " samples" : " names") : "")
              << "\n";
    }
    for (const auto& e : totals.errorSamples) m_out << "error: " << e << "\n";
    m_out.flush();
}

}  // namespace tessera::cli::bench
