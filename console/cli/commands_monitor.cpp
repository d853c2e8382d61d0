// Watching the cluster: `show perf` (rates from two node_stats readings per
// refresh, computed as the proxy's feed computes them) and `watch` (the
// WebSocket feed, message by message).

#include "api/feed.h"
#include "api/json_util.h"
#include "api/node_stats.h"
#include "arg_parser.h"
#include "client/feed_client.h"
#include "commands.h"
#include "output.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <ostream>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace tessera::cli {

namespace {

// "1s", "500ms", "2m", or a bare number of seconds.
std::chrono::milliseconds parseDuration(const std::string& s)
{
    std::size_t pos = 0;
    double v = 0;
    try {
        v = std::stod(s, &pos);
    } catch (const std::exception&) {
        throw UsageError("bad duration \"" + s + "\" (e.g. 500ms, 1s, 2m)");
    }
    const std::string unit = s.substr(pos);
    double ms = 0;
    if (unit.empty() || unit == "s") ms = v * 1000;
    else if (unit == "ms") ms = v;
    else if (unit == "m") ms = v * 60000;
    else throw UsageError("bad duration unit in \"" + s + "\" (ms, s or m)");
    if (!(ms >= 100 && ms <= 3600000)) throw UsageError("duration must be 100ms..60m");
    return std::chrono::milliseconds(static_cast<std::int64_t>(ms));
}

std::string fmtOps(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, v >= 100 ? "%.0f" : "%.1f", v);
    return buf;
}

std::string fmtLatency(std::uint64_t ns)
{
    if (ns == 0) return "-";
    char buf[32];
    if (ns < 1'000'000) std::snprintf(buf, sizeof buf, "%.0fus", static_cast<double>(ns) / 1e3);
    else if (ns < 1'000'000'000) std::snprintf(buf, sizeof buf, "%.1fms", static_cast<double>(ns) / 1e6);
    else std::snprintf(buf, sizeof buf, "%.2fs", static_cast<double>(ns) / 1e9);
    return buf;
}

struct Reading {
    std::map<std::string, api::NodeStats> nodes;
    std::map<std::string, std::string> errors;  // node id -> why it has no figures
};

api::Result<Reading> readStats(client::Client& c)
{
    auto stats = c.clusterStats();
    if (!stats) return stats.error();
    Reading r;
    r.nodes.merge(stats->proxies);
    r.nodes.merge(stats->targets);
    r.errors = std::move(stats->errors);
    return r;
}

void printPerf(CliContext& ctx, const std::vector<api::NodeMetrics>& nodes, const Reading& cur, bool redraw)
{
    // Totals as the feed's: targets summed, listings the proxy's.
    const auto total = api::clusterTotals(nodes).ops;
    if (ctx.json) {
        nlohmann::json cluster = nlohmann::json::object();
        for (std::size_t i = 0; i < api::kOpKinds; ++i) cluster[std::string(api::kOpNames[i])] = total[i];
        nlohmann::json doc{{"nodes", nodes}, {"cluster", cluster}, {"unreachable", cur.errors}};
        *ctx.out << api::dumpJson(doc) << "\n" << std::flush;
        return;
    }
    const auto g = static_cast<std::size_t>(api::OpKind::Get);
    const auto p = static_cast<std::size_t>(api::OpKind::Put);
    Table t({"NODE", "ROLE", "GET/s", "GET MB/s", "GET p99", "PUT/s", "PUT MB/s", "PUT p99", "ERR/s", "CPU%", "RSS"});
    auto row = [&](const std::string& id, const std::string& role, const std::array<api::OpRates, api::kOpKinds>& r,
                   const std::string& cpu, const std::string& rss) {
        double errs = 0;
        for (const auto& o : r) errs += o.errorsPerSec;
        t.add({id, role, fmtOps(r[g].opsPerSec), fmtOps(r[g].bytesPerSec / 1e6), fmtLatency(r[g].p99Ns),
               fmtOps(r[p].opsPerSec), fmtOps(r[p].bytesPerSec / 1e6), fmtLatency(r[p].p99Ns), fmtOps(errs), cpu, rss});
    };
    for (const auto& n : nodes) {
        row(n.id, n.role, n.ops, fmtOps(n.cpuPercent), formatBytes(n.rssBytes));
    }
    row("TOTAL", "cluster", total, "", "");
    for (const auto& [id, why] : cur.errors) t.add({id, "?", "unreachable: " + why});
    std::time_t now = std::time(nullptr);
    char when[32];
    std::strftime(when, sizeof when, "%H:%M:%S", std::localtime(&now));
    // On a terminal the table is redrawn in place; piped, tables follow each other.
    if (redraw) *ctx.out << "\x1b[H\x1b[2J";
    *ctx.out << when << "\n" << t.render() << "\n" << std::flush;
}

std::string summarize(const api::FeedMessage& msg)
{
    std::ostringstream os;
    auto rates = [&](const api::OpRates& r) {
        os << fmtOps(r.opsPerSec) << "/s " << fmtOps(r.bytesPerSec / 1e6) << " MB/s p99 " << fmtLatency(r.p99Ns);
    };
    std::visit(
        [&](const auto& d) {
            using T = std::decay_t<decltype(d)>;
            if constexpr (std::is_same_v<T, api::FeedSnapshot>) {
                os << "cluster map v" << d.smap.version << ", " << d.smap.tmap.size() << " target(s), "
                   << d.buckets.size() << " bucket(s), " << d.events.size() << " recent event(s)";
            } else if constexpr (std::is_same_v<T, api::MetricsUpdate>) {
                os << "GET ";
                rates(d.cluster.op(api::OpKind::Get));
                os << " | PUT ";
                rates(d.cluster.op(api::OpKind::Put));
                os << " | " << d.nodes.size() << " node(s), " << d.cluster.stale << " stale";
            } else if constexpr (std::is_same_v<T, api::Smap>) {
                os << "cluster map v" << d.version << ": " << d.tmap.size() << " target(s)";
            } else if constexpr (std::is_same_v<T, api::BmdUpdate>) {
                os << "bucket metadata v" << d.version << ": " << d.buckets.size() << " bucket(s)";
            } else if constexpr (std::is_same_v<T, api::BucketsUpdate>) {
                std::uint64_t objects = 0;
                std::uint64_t bytes = 0;
                for (const auto& b : d.buckets) {
                    objects += b.objects.value_or(0);
                    bytes += b.bytes.value_or(0);
                }
                os << "bucket usage: " << d.buckets.size() << " bucket(s), " << objects << " object(s), "
                   << formatBytes(bytes);
            } else if constexpr (std::is_same_v<T, api::ClusterEvent>) {
                os << d.severity << " " << d.kind << ": " << d.message;
            } else if constexpr (std::is_same_v<T, api::JobStatus>) {
                os << d.kind << " " << d.id << " " << api::jobStateName(d.state) << " " << d.phase << " "
                   << d.progress.objectsDone << "/"
                   << (d.progress.objectsTotal < 0 ? std::string("?") : std::to_string(d.progress.objectsTotal));
            } else if constexpr (std::is_same_v<T, api::Subscribed>) {
                os << api::dumpJson(nlohmann::json(d));
            } else if constexpr (std::is_same_v<T, api::FeedError>) {
                os << d.message;
            } else {
                os << "(a message this CLI does not know)";
            }
        },
        msg.payload);
    return os.str();
}

}  // namespace

int cmdShowPerf(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {"--refresh", "--count"}, {});
    if (!args.positional.empty()) throw UsageError("show perf takes no positional arguments");
    const auto refresh = parseDuration(args.value("--refresh", "1s"));
    const auto count = args.number("--count", 0);  // 0: until interrupted
    // Redraw in place only when writing to a terminal (and not for one table).
    const bool redraw = !ctx.json && count != 1 && ctx.out == &std::cout && ::isatty(STDOUT_FILENO) != 0;
    auto client = ctx.makeClient();
    auto prev = readStats(client);
    if (!prev) return ctx.fail(prev.error());
    for (std::uint64_t round = 0; count == 0 || round < count; ++round) {
        std::this_thread::sleep_for(refresh);
        auto cur = readStats(client);
        if (!cur) return ctx.fail(cur.error());
        std::vector<api::NodeMetrics> nodes;
        for (const auto& [id, st] : cur->nodes) {
            auto it = prev->nodes.find(id);
            nodes.push_back(api::deriveMetrics(it == prev->nodes.end() ? std::nullopt : std::optional(it->second), st));
        }
        printPerf(ctx, nodes, *cur, redraw);
        prev = std::move(cur);
    }
    return kExitOk;
}

int cmdWatch(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {"--topics", "--interval-ms", "--count"}, {});
    if (!args.positional.empty()) throw UsageError("watch takes no positional arguments");
    std::vector<std::string> topics;
    std::stringstream ss(args.value("--topics"));
    for (std::string t; std::getline(ss, t, ',');) {
        if (!t.empty()) topics.push_back(t);
    }
    const auto interval = args.number("--interval-ms", 0);
    const auto count = args.number("--count", 0);
    auto feed = client::FeedClient::connect(ctx.endpoint, ctx.clientOptions().headers, ctx.tls);
    if (!feed) return ctx.fail(feed.error());
    if (!topics.empty() || interval > 0) {
        auto st = (*feed)->subscribe(topics, static_cast<int>(std::min<std::uint64_t>(interval, 1u << 30)));
        if (!st) return ctx.fail(st.error());
    }
    for (std::uint64_t n = 0; count == 0 || n < count; ++n) {
        auto text = (*feed)->next();
        if (!text) return ctx.fail(text.error());
        if (ctx.json) {
            *ctx.out << *text << "\n" << std::flush;
            continue;
        }
        auto msg = api::decodeFeedMessage(*text);
        if (!msg) {
            *ctx.out << "(unreadable: " << msg.error().message << ") " << text->substr(0, 200) << "\n" << std::flush;
            continue;
        }
        const auto tsMs = msg->tsMs;
        std::time_t secs = static_cast<std::time_t>(tsMs / 1000);
        char when[32];
        std::strftime(when, sizeof when, "%H:%M:%S", std::localtime(&secs));
        *ctx.out << when << " #" << msg->seq << " " << msg->type << "  " << summarize(*msg) << "\n" << std::flush;
    }
    return kExitOk;
}

}  // namespace tessera::cli
