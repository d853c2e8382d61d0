#include "api/json_util.h"
#include "api/node_stats.h"
#include "arg_parser.h"
#include "commands.h"
#include "output.h"

#include <chrono>
#include <ostream>
#include <thread>

namespace tessera::cli {

int cmdClusterShow(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    if (!args.positional.empty()) throw UsageError("cluster show takes no arguments");
    auto client = ctx.makeClient();
    auto smap = client.smap();
    if (!smap) return ctx.fail(smap.error());
    auto bmd = client.bmd();
    if (!bmd) return ctx.fail(bmd.error());
    // Capacity is extra: without it the map is still worth showing.
    auto statsResult = client.clusterStats();
    const api::ClusterStats stats = statsResult ? std::move(statsResult.value()) : api::ClusterStats{};
    if (ctx.json) {
        nlohmann::json doc{{"smap", *smap}, {"bmd", *bmd}, {"node_stats", stats}};
        if (!statsResult) doc["node_stats_error"] = statsResult.error().message;
        *ctx.out << api::dumpJson(doc) << "\n";
        return kExitOk;
    }
    *ctx.out << "cluster map v" << smap->version << ", bucket metadata v" << bmd->version << ", " << bmd->buckets.size()
             << " bucket(s)\n\n";
    Table nodes({"NODE", "ROLE", "URL", "MOUNTPATHS", "USED", "TOTAL"});
    for (const auto& [id, n] : smap->pmap) {
        nodes.add({id + (id == smap->primary.id ? " (primary)" : ""), "proxy", n.publicNet.url, "-", "-", "-"});
    }
    // Each filesystem once: two mountpaths (or two targets of one host) on
    // one disk share its space.
    api::CapacitySum cluster;
    for (const auto& [id, n] : smap->tmap) {
        std::string mps = "?";
        std::string used = "?";
        std::string total = "?";
        if (auto t = stats.targets.find(id); t != stats.targets.end()) {
            api::CapacitySum own;
            for (const auto& mp : t->second.mountpaths) {
                own.add(n.publicNet.host, mp);
                cluster.add(n.publicNet.host, mp);
            }
            mps = std::to_string(t->second.mountpaths.size());
            if (own.total().filesystems < t->second.mountpaths.size()) {
                mps += " on " + std::to_string(own.total().filesystems) + " fs";
            }
            used = formatBytes(own.total().used);
            total = formatBytes(own.total().total);
        } else if (auto e = stats.errors.find(id); e != stats.errors.end()) {
            mps = "unreachable: " + e->second;
            used = total = "-";
        }
        // An away target missed its keepalives; one in maintenance was taken
        // out on purpose. Either still owns its objects. A decommissioning
        // one serves what it still holds and owns nothing.
        const char* role = n.inMaintenance()     ? "target (maintenance)"
                           : n.away()            ? "target (away)"
                           : n.decommissioning() ? "target (decommissioning)"
                                                 : "target";
        nodes.add({id, role, n.publicNet.url, mps, used, total});
    }
    *ctx.out << nodes.render();
    if (cluster.total().filesystems > 0) {
        *ctx.out << "\ncapacity: " << formatBytes(cluster.total().used) << " used of "
                 << formatBytes(cluster.total().total) << ", " << formatBytes(cluster.total().available)
                 << " available, on " << cluster.total().filesystems << " filesystem(s)\n";
    }
    // Per-mountpath capacity.
    Table mpt({"TARGET", "MOUNTPATH", "FS", "USED", "AVAILABLE", "TOTAL", "USE%", "STATE"});
    for (const auto& [id, t] : stats.targets) {
        for (const auto& mp : t.mountpaths) {
            mpt.add({id, mp.path, mp.fs.empty() ? "?" : mp.fs, formatBytes(mp.used), formatBytes(mp.available),
                     formatBytes(mp.total), std::to_string(static_cast<int>(mp.usedPercent())) + "%",
                     std::string(api::mountpathStateName(mp.state))});
        }
    }
    *ctx.out << "\n" << mpt.render();
    if (!statsResult) *ctx.err << "warning: no capacity figures: " << statsResult.error().message << "\n";
    return kExitOk;
}

namespace {

// `cluster decommission --wait` gives up after this long unless --timeout says otherwise.
constexpr std::uint64_t kDecommissionWaitSec = 600;

// The last rebalance job, for a wait that ran out: its state and errors say why.
std::string lastRebalance(client::Client& client)
{
    auto jobs = client.listJobs();
    if (!jobs) return "the jobs could not be listed: " + jobs.error().message;
    for (auto it = jobs->rbegin(); it != jobs->rend(); ++it) {
        if (it->kind != "rebalance") continue;
        return "the last rebalance, " + it->id + ", is " + std::string(api::jobStateName(it->state)) +
               (it->error.empty() ? "" : ": " + it->error);
    }
    return "no rebalance has started";
}

}  // namespace

int cmdClusterDecommission(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {"--timeout"}, {"--wait"});
    if (args.positional.size() != 1) throw UsageError("cluster decommission takes one target id");
    const auto& id = args.positional[0];
    const auto timeoutSec = args.number("--timeout", kDecommissionWaitSec);
    if (timeoutSec == 0) throw UsageError("--timeout must be at least 1 second");
    auto client = ctx.makeClient();
    auto version = client.decommissionNode(id);
    if (!version) return ctx.fail(version.error());
    const auto out = [&](std::int64_t v) {
        if (ctx.json) *ctx.out << api::dumpJson({{"decommissioned", id}, {"smap_version", v}}) << "\n";
        else
            *ctx.out << "target " << id << " removed from the cluster map (v" << v
                     << "); its objects are now owned by the others\n";
        return kExitOk;
    };
    // An away target is out of the map at once; a present one stays, flagged,
    // while the rebalance moves its objects.
    auto smap = client.smap();
    if (!smap) return ctx.fail(smap.error());
    if (smap->findTarget(id) == nullptr) return out(smap->version);
    if (!args.has("--wait")) {
        if (ctx.json) {
            *ctx.out << api::dumpJson({{"decommissioning", id}, {"smap_version", *version}}) << "\n";
        } else {
            *ctx.out << "target " << id << " is being decommissioned (cluster map v" << *version
                     << "): it keeps serving while the rebalance moves its objects to the other targets, and leaves "
                        "the map when that ends without errors (--wait waits for it)\n";
        }
        return kExitOk;
    }
    if (!ctx.json) {
        *ctx.err << "target " << id << " is being decommissioned (cluster map v" << *version << "); waiting up to "
                 << timeoutSec << " s for it to leave the map\n";
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSec);
    while (std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        smap = client.smap();
        if (!smap) return ctx.fail(smap.error());
        if (smap->findTarget(id) == nullptr) return out(smap->version);
    }
    return ctx.fail(api::Error::timeout("target " + id + " is still in the cluster map after " +
                                        std::to_string(timeoutSec) + " s; " + lastRebalance(client) +
                                        " (running the command again starts another rebalance)"));
}

namespace {

int setMaintenance(CliContext& ctx, bool on)
{
    const char* verb = on ? "start" : "stop";
    auto args = parseArgs(ctx.args, {}, {});
    if (args.positional.size() != 1) throw UsageError(std::string("node maintenance ") + verb + " takes one target id");
    const auto& id = args.positional[0];
    auto client = ctx.makeClient();
    auto version = client.setMaintenance(id, on);
    if (!version) return ctx.fail(version.error());
    if (ctx.json) {
        *ctx.out << api::dumpJson({{"sid", id}, {"maintenance", on}, {"smap_version", *version}}) << "\n";
    } else if (on) {
        *ctx.out << "target " << id << " is in maintenance (cluster map v" << *version
                 << "): its objects answer 503 until it leaves maintenance or restarts\n";
    } else {
        *ctx.out << "target " << id << " is out of maintenance (cluster map v" << *version << ")\n";
    }
    return kExitOk;
}

}  // namespace

int cmdNodeMaintenanceStart(CliContext& ctx) { return setMaintenance(ctx, true); }
int cmdNodeMaintenanceStop(CliContext& ctx) { return setMaintenance(ctx, false); }

}  // namespace tessera::cli
