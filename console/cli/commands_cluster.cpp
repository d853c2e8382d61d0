#include "api/json_util.h"
#include "arg_parser.h"
#include "commands.h"
#include "output.h"

#include <ostream>

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
    auto statsResult = client.clusterInfo("node_stats");
    nlohmann::json stats = statsResult ? std::move(statsResult.value()) : nlohmann::json::object();
    if (!stats.is_object()) stats = nlohmann::json::object();
    if (ctx.json) {
        nlohmann::json doc{{"smap", *smap}, {"bmd", *bmd}, {"node_stats", stats}};
        if (!statsResult) doc["node_stats_error"] = statsResult.error().message;
        *ctx.out << api::dumpJson(doc) << "\n";
        return kExitOk;
    }
    *ctx.out << "cluster map v" << smap->version << ", bucket metadata v" << bmd->version << ", "
             << bmd->buckets.size() << " bucket(s)\n\n";
    const nlohmann::json targetStats =
        stats.contains("target") && stats["target"].is_object() ? stats["target"] : nlohmann::json::object();
    Table nodes({"NODE", "ROLE", "URL", "MOUNTPATHS", "USED", "TOTAL"});
    for (const auto& [id, n] : smap->pmap) {
        nodes.add({id + (id == smap->primary.id ? " (primary)" : ""), "proxy", n.publicNet.url, "-", "-", "-"});
    }
    for (const auto& [id, n] : smap->tmap) {
        std::string mps = "?";
        std::string used = "?";
        std::string total = "?";
        const auto& t = targetStats;
        if (t.contains(id) && t[id].contains("mountpaths")) {
            std::uint64_t u = 0;
            std::uint64_t tot = 0;
            for (const auto& mp : t[id]["mountpaths"]) {
                u += mp.value("used", std::uint64_t{0});
                tot += mp.value("total", std::uint64_t{0});
            }
            mps = std::to_string(t[id]["mountpaths"].size());
            used = formatBytes(u);
            total = formatBytes(tot);
        } else if (t.contains(id) && t[id].contains("error")) {
            mps = "unreachable: " + t[id]["error"].get<std::string>();
            used = total = "-";
        }
        // An away target missed its keepalives; it still owns its objects.
        nodes.add({id, n.away() ? "target (away)" : "target", n.publicNet.url, mps, used, total});
    }
    *ctx.out << nodes.render();
    // Per-mountpath capacity.
    Table mpt({"TARGET", "MOUNTPATH", "USED", "AVAILABLE", "TOTAL", "USE%", "STATE"});
    for (const auto& [id, t] : targetStats.items()) {
        if (!t.contains("mountpaths")) continue;
        for (const auto& mp : t["mountpaths"]) {
            const auto used = mp.value("used", std::uint64_t{0});
            const auto total = mp.value("total", std::uint64_t{0});
            const auto pct = total ? static_cast<int>(100.0 * static_cast<double>(used) / static_cast<double>(total))
                                   : 0;
            mpt.add({id, mp.value("path", std::string()), formatBytes(used),
                     formatBytes(mp.value("available", std::uint64_t{0})), formatBytes(total),
                     std::to_string(pct) + "%", mp.value("state", std::string("?"))});
        }
    }
    *ctx.out << "\n" << mpt.render();
    if (!statsResult) *ctx.err << "warning: no capacity figures: " << statsResult.error().message << "\n";
    return kExitOk;
}

int cmdClusterDecommission(CliContext& ctx)
{
    auto args = parseArgs(ctx.args, {}, {});
    if (args.positional.size() != 1) throw UsageError("cluster decommission takes one target id");
    const auto& id = args.positional[0];
    auto client = ctx.makeClient();
    if (auto st = client.decommissionNode(id); !st) return ctx.fail(st.error());
    if (ctx.json) *ctx.out << api::dumpJson({{"decommissioned", id}}) << "\n";
    else *ctx.out << "target " << id << " removed from the cluster map; its objects are now owned by the others\n";
    return kExitOk;
}

}  // namespace tessera::cli
