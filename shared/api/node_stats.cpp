#include "node_stats.h"

#include "json_util.h"
#include "json_whole_numbers.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace tessera::api {

namespace {

std::uint64_t sub(std::uint64_t a, std::uint64_t b) { return a >= b ? a - b : 0; }

std::string counterName(std::string_view op, std::string_view what)
{
    return std::string(op) + "." + std::string(what);
}

void setPercentiles(OpRates& r)
{
    r.p50Ns = histogramQuantile(r.interval, 0.50);
    r.p90Ns = histogramQuantile(r.interval, 0.90);
    r.p99Ns = histogramQuantile(r.interval, 0.99);
}

}  // namespace

std::optional<OpKind> opKindFromName(std::string_view name)
{
    for (std::size_t i = 0; i < kOpKinds; ++i) {
        if (kOpNames[i] == name) return static_cast<OpKind>(i);
    }
    return std::nullopt;
}

std::size_t latencyBucket(std::uint64_t ns)
{
    return static_cast<std::size_t>(std::lower_bound(kLatencyBounds.begin(), kLatencyBounds.end(), ns) -
                                    kLatencyBounds.begin());
}

std::uint64_t histogramQuantile(const LatencyHistogram& h, double q)
{
    std::uint64_t total = 0;
    for (auto c : h) total += c;
    if (total == 0) return 0;
    q = std::clamp(q, 0.0, 1.0);
    // Rank of the wanted observation, 1-based.
    const double rank = std::max(1.0, q * static_cast<double>(total));
    double seen = 0;
    for (std::size_t i = 0; i < h.size(); ++i) {
        if (h[i] == 0) continue;
        const double before = seen;
        seen += static_cast<double>(h[i]);
        if (seen + 1e-9 < rank) continue;
        const double lo = i == 0 ? 0.0 : static_cast<double>(kLatencyBounds[i - 1]);
        if (i >= kLatencyBounds.size()) return static_cast<std::uint64_t>(lo);
        const double hi = static_cast<double>(kLatencyBounds[i]);
        const double frac = (rank - before) / static_cast<double>(h[i]);
        return static_cast<std::uint64_t>(lo + (hi - lo) * std::clamp(frac, 0.0, 1.0));
    }
    return kLatencyBounds.back();
}

std::string_view mountpathStateName(MountpathState s)
{
    switch (s) {
    case MountpathState::Ok: return "ok";
    case MountpathState::NearlyFull: return "nearly_full";
    case MountpathState::Full: return "full";
    case MountpathState::Error: return "error";
    }
    return "error";
}

MountpathState mountpathStateFor(std::uint64_t total, std::uint64_t used)
{
    if (total == 0) return MountpathState::Error;
    const double pct = 100.0 * static_cast<double>(used) / static_cast<double>(total);
    if (pct >= kFullPercent) return MountpathState::Full;
    if (pct >= kNearlyFullPercent) return MountpathState::NearlyFull;
    return MountpathState::Ok;
}

void to_json(nlohmann::json& j, const MountpathStats& v)
{
    j = {{"path", v.path},
         {"total", v.total},
         {"used", v.used},
         {"available", v.available},
         {"used_percent", v.usedPercent()},
         {"state", mountpathStateName(v.state)}};
    if (!v.error.empty()) j["error"] = v.error;
    if (v.objects >= 0) j["objects"] = v.objects;
    if (!v.fs.empty()) j["fs"] = v.fs;
}

void from_json(const nlohmann::json& j, MountpathStats& v)
{
    j.at("path").get_to(v.path);
    v.total = j.value("total", std::uint64_t{0});
    v.used = j.value("used", std::uint64_t{0});
    v.available = j.value("available", std::uint64_t{0});
    const auto state = j.value("state", std::string("ok"));
    v.state = MountpathState::Error;
    for (auto s : {MountpathState::Ok, MountpathState::NearlyFull, MountpathState::Full, MountpathState::Error}) {
        if (mountpathStateName(s) == state) v.state = s;
    }
    v.error = j.value("error", std::string());
    v.objects = j.value("objects", std::int64_t{-1});
    v.fs = j.value("fs", std::string());
}

void CapacitySum::add(std::string_view host, const MountpathStats& mp)
{
    if (mp.state == MountpathState::Error && mp.total == 0) return;
    if (!mp.fs.empty() && !m_seen.insert(std::string(host) + "|" + mp.fs).second) return;
    m_total.total += mp.total;
    m_total.used += mp.used;
    m_total.available += mp.available;
    ++m_total.filesystems;
}

void to_json(nlohmann::json& j, const ClusterStats& v)
{
    j = nlohmann::json{{"proxy", v.proxies}, {"target", v.targets}};
    for (const auto& [id, why] : v.errors) j["target"][id] = nlohmann::json{{"error", why}};
}

Result<ClusterStats> parseClusterStats(std::string_view text)
{
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return Error::badRequest("cluster stats: not a JSON object");
    ClusterStats out;
    for (const char* role : {"proxy", "target"}) {
        if (!j.contains(role)) continue;
        if (!j[role].is_object())
            return Error::badRequest(std::string("cluster stats: /") + role + ": must be an object");
        auto& into = std::string_view(role) == "proxy" ? out.proxies : out.targets;
        for (const auto& [id, doc] : j[role].items()) {
            if (doc.is_object() && doc.contains("error")) {
                out.errors[id] = doc["error"].is_string() ? doc["error"].get<std::string>() : doc["error"].dump();
                continue;
            }
            if (hasFloatOutside(doc, {"used_percent"})) {
                out.errors[id] = "unreadable stats: a number that is not a whole number";
                continue;
            }
            try {
                into.emplace(id, doc.get<NodeStats>());
            } catch (const std::exception& e) {  // also std::stoi's and the bounds check's (found by fuzz_node_stats)
                out.errors[id] = std::string("unreadable stats: ") + e.what();
            }
        }
    }
    return out;
}

void to_json(nlohmann::json& j, const NodeStats& v)
{
    nlohmann::json counters = nlohmann::json::object();
    nlohmann::json latency = {{"bounds_ns", kLatencyBounds}};
    nlohmann::json byStatus = nlohmann::json::object();
    for (std::size_t i = 0; i < kOpKinds; ++i) {
        const auto name = kOpNames[i];
        const auto& c = v.ops[i];
        counters[counterName(name, "n")] = c.n;
        counters[counterName(name, "size")] = c.bytes;
        counters[counterName(name, "ns")] = c.ns;
        counters["err." + counterName(name, "n")] = c.errors;
        counters[counterName(name, "redir.n")] = c.redirects;
        counters[counterName(name, "abort.n")] = c.aborts;
        latency[std::string(name)] = c.latency;
        if (!c.errorsByStatus.empty()) {
            nlohmann::json s = nlohmann::json::object();
            for (const auto& [status, n] : c.errorsByStatus) s[std::to_string(status)] = n;
            byStatus[std::string(name)] = std::move(s);
        }
    }
    counters["err.cksum.n"] = v.checksumErrors;
    j = {{"daemon_id", v.id},
         {"role", v.role},
         {"ts_ns", v.tsNs},
         {"uptime_ns", v.uptimeNs},
         {"cpu_ns", v.cpuNs},
         {"rss_bytes", v.rssBytes},
         {"connections", v.connections},
         {"requests", v.requests},
         {"smap_version", v.smapVersion},
         {"bmd_version", v.bmdVersion},
         {"counters", std::move(counters)},
         {"latency", std::move(latency)},
         {"errors_by_status", std::move(byStatus)},
         {"mountpaths", v.mountpaths}};
    if (v.usageScannedNs > 0) {
        j["usage_scanned_ns"] = v.usageScannedNs;
        nlohmann::json b = nlohmann::json::object();
        for (const auto& [name, u] : v.buckets) b[name] = {{"objects", u.objects}, {"bytes", u.bytes}};
        j["buckets"] = std::move(b);
    }
    if (v.feed) {
        j["feed"] = {{"sessions", v.feed->sessions},
                     {"accepted", v.feed->accepted},
                     {"refused", v.feed->refused},
                     {"closed_slow", v.feed->closedSlow}};
    }
}

void from_json(const nlohmann::json& j, NodeStats& v)
{
    j.at("daemon_id").get_to(v.id);
    j.at("role").get_to(v.role);
    v.tsNs = j.at("ts_ns").get<std::int64_t>();
    v.uptimeNs = j.value("uptime_ns", std::int64_t{0});
    v.cpuNs = j.value("cpu_ns", std::uint64_t{0});
    v.rssBytes = j.value("rss_bytes", std::uint64_t{0});
    v.connections = j.value("connections", std::uint64_t{0});
    v.requests = j.value("requests", std::uint64_t{0});
    v.smapVersion = j.value("smap_version", std::int64_t{0});
    v.bmdVersion = j.value("bmd_version", std::int64_t{0});
    const auto& counters = j.at("counters");
    const auto& latency = j.at("latency");
    if (latency.at("bounds_ns").get<std::vector<std::uint64_t>>() !=
        std::vector<std::uint64_t>(kLatencyBounds.begin(), kLatencyBounds.end())) {
        throw std::invalid_argument("latency bounds differ from this build's");
    }
    const auto* byStatus = j.contains("errors_by_status") ? &j.at("errors_by_status") : nullptr;
    for (std::size_t i = 0; i < kOpKinds; ++i) {
        const std::string name(kOpNames[i]);
        auto& c = v.ops[i];
        c.n = counters.value(counterName(name, "n"), std::uint64_t{0});
        c.bytes = counters.value(counterName(name, "size"), std::uint64_t{0});
        c.ns = counters.value(counterName(name, "ns"), std::uint64_t{0});
        c.errors = counters.value("err." + counterName(name, "n"), std::uint64_t{0});
        c.redirects = counters.value(counterName(name, "redir.n"), std::uint64_t{0});
        c.aborts = counters.value(counterName(name, "abort.n"), std::uint64_t{0});
        if (latency.contains(name)) latency.at(name).get_to(c.latency);
        c.errorsByStatus.clear();
        if (byStatus != nullptr && byStatus->contains(name)) {
            for (const auto& [status, n] : byStatus->at(name).items()) {
                c.errorsByStatus[std::stoi(status)] = n.get<std::uint64_t>();
            }
        }
    }
    v.checksumErrors = counters.value("err.cksum.n", std::uint64_t{0});
    v.mountpaths = j.value("mountpaths", std::vector<MountpathStats>{});
    v.usageScannedNs = j.value("usage_scanned_ns", std::int64_t{0});
    v.buckets.clear();
    if (j.contains("buckets")) {
        for (const auto& [name, u] : j.at("buckets").items()) {
            v.buckets[name] = BucketUsage{u.at("objects").get<std::uint64_t>(), u.at("bytes").get<std::uint64_t>()};
        }
    }
    v.feed.reset();
    if (j.contains("feed")) {
        const auto& f = j.at("feed");
        v.feed = FeedStats{f.value("sessions", std::uint64_t{0}), f.value("accepted", std::uint64_t{0}),
                           f.value("refused", std::uint64_t{0}), f.value("closed_slow", std::uint64_t{0})};
    }
}

Result<NodeStats> parseNodeStats(std::string_view json)
{
    // Every number is whole but the mountpaths' used_percent (written, never
    // read): nlohmann casts a float read into an integer field with
    // undefined behaviour when it does not fit (found by fuzz_node_stats).
    const auto j = nlohmann::json::parse(json, nullptr, false);
    if (!j.is_discarded() && hasFloatOutside(j, {"used_percent"})) {
        return Error::badRequest("invalid node statistics: a number that is not a whole number");
    }
    try {
        return parseJsonAs<NodeStats>(json, "node statistics");
    } catch (const std::exception& e) {  // std::stoi on a malformed status key
        return Error::badRequest(std::string("invalid node statistics: ") + e.what());
    }
}

NodeMetrics deriveMetrics(const std::optional<NodeStats>& prev, const NodeStats& cur)
{
    NodeMetrics m;
    m.id = cur.id;
    m.role = cur.role;
    m.rssBytes = cur.rssBytes;
    m.connections = cur.connections;
    m.uptimeNs = cur.uptimeNs;
    m.smapVersion = cur.smapVersion;
    m.checksumErrors = cur.checksumErrors;
    m.mountpaths = cur.mountpaths;
    // A restarted node has a smaller uptime: its counters start over.
    const bool usable = prev && prev->id == cur.id && prev->tsNs < cur.tsNs && prev->uptimeNs <= cur.uptimeNs;
    m.intervalSec = usable ? static_cast<double>(cur.tsNs - prev->tsNs) / 1e9 : 0.0;
    for (std::size_t i = 0; i < kOpKinds; ++i) {
        auto& r = m.ops[i];
        const auto& c = cur.ops[i];
        r.totalN = c.n;
        r.totalErrors = c.errors;
        r.totalAborts = c.aborts;
        if (!usable) continue;
        const auto& p = prev->ops[i];
        r.opsPerSec = static_cast<double>(sub(c.n, p.n)) / m.intervalSec;
        r.bytesPerSec = static_cast<double>(sub(c.bytes, p.bytes)) / m.intervalSec;
        r.errorsPerSec = static_cast<double>(sub(c.errors, p.errors)) / m.intervalSec;
        r.abortsPerSec = static_cast<double>(sub(c.aborts, p.aborts)) / m.intervalSec;
        for (std::size_t b = 0; b < kLatencyBuckets; ++b) r.interval[b] = sub(c.latency[b], p.latency[b]);
        setPercentiles(r);
    }
    if (usable) {
        m.cpuPercent = 100.0 * static_cast<double>(sub(cur.cpuNs, prev->cpuNs)) / 1e9 / m.intervalSec;
    }
    return m;
}

std::array<OpRates, kOpKinds> sumRates(const std::vector<NodeMetrics>& nodes)
{
    std::array<OpRates, kOpKinds> out{};
    for (const auto& n : nodes) {
        for (std::size_t i = 0; i < kOpKinds; ++i) {
            auto& o = out[i];
            const auto& r = n.ops[i];
            o.opsPerSec += r.opsPerSec;
            o.bytesPerSec += r.bytesPerSec;
            o.errorsPerSec += r.errorsPerSec;
            o.abortsPerSec += r.abortsPerSec;
            o.totalN += r.totalN;
            o.totalErrors += r.totalErrors;
            o.totalAborts += r.totalAborts;
            for (std::size_t b = 0; b < kLatencyBuckets; ++b) o.interval[b] += r.interval[b];
        }
    }
    for (auto& o : out) setPercentiles(o);
    return out;
}

void to_json(nlohmann::json& j, const OpRates& v)
{
    j = {{"ops_s", v.opsPerSec},       {"bytes_s", v.bytesPerSec},
         {"errors_s", v.errorsPerSec}, {"aborts_s", v.abortsPerSec},
         {"p50_ns", v.p50Ns},          {"p90_ns", v.p90Ns},
         {"p99_ns", v.p99Ns},          {"n", v.totalN},
         {"errors", v.totalErrors},    {"aborts", v.totalAborts}};
}

void from_json(const nlohmann::json& j, OpRates& v)
{
    v.opsPerSec = j.value("ops_s", 0.0);
    v.bytesPerSec = j.value("bytes_s", 0.0);
    v.errorsPerSec = j.value("errors_s", 0.0);
    v.abortsPerSec = j.value("aborts_s", 0.0);
    v.p50Ns = j.value("p50_ns", std::uint64_t{0});
    v.p90Ns = j.value("p90_ns", std::uint64_t{0});
    v.p99Ns = j.value("p99_ns", std::uint64_t{0});
    v.totalN = j.value("n", std::uint64_t{0});
    v.totalErrors = j.value("errors", std::uint64_t{0});
    v.totalAborts = j.value("aborts", std::uint64_t{0});
}

void to_json(nlohmann::json& j, const NodeMetrics& v)
{
    nlohmann::json ops = nlohmann::json::object();
    for (std::size_t i = 0; i < kOpKinds; ++i) ops[std::string(kOpNames[i])] = v.ops[i];
    j = {{"daemon_id", v.id},
         {"role", v.role},
         {"stale", v.stale},
         {"age_ms", v.ageMs},
         {"interval_s", v.intervalSec},
         {"ops", std::move(ops)},
         {"cpu_percent", v.cpuPercent},
         {"rss_bytes", v.rssBytes},
         {"connections", v.connections},
         {"uptime_ns", v.uptimeNs},
         {"smap_version", v.smapVersion},
         {"checksum_errors", v.checksumErrors},
         {"mountpaths", v.mountpaths}};
}

void from_json(const nlohmann::json& j, NodeMetrics& v)
{
    j.at("daemon_id").get_to(v.id);
    j.at("role").get_to(v.role);
    v.stale = j.value("stale", false);
    v.ageMs = j.value("age_ms", std::int64_t{0});
    v.intervalSec = j.value("interval_s", 0.0);
    if (j.contains("ops")) {
        for (std::size_t i = 0; i < kOpKinds; ++i) {
            const std::string name(kOpNames[i]);
            if (j.at("ops").contains(name)) j.at("ops").at(name).get_to(v.ops[i]);
        }
    }
    v.cpuPercent = j.value("cpu_percent", 0.0);
    v.rssBytes = j.value("rss_bytes", std::uint64_t{0});
    v.connections = j.value("connections", std::uint64_t{0});
    v.uptimeNs = j.value("uptime_ns", std::int64_t{0});
    v.smapVersion = j.value("smap_version", std::int64_t{0});
    v.checksumErrors = j.value("checksum_errors", std::uint64_t{0});
    v.mountpaths = j.value("mountpaths", std::vector<MountpathStats>{});
}

}  // namespace tessera::api
