#include "core/node_stats_poll.h"

#include <nlohmann/json.hpp>
#include <optional>

namespace tessera::console {

api::Result<MetricsUpdate> NodeStatsPoll::update(std::string_view json, std::int64_t nowMs)
{
    const auto j = nlohmann::json::parse(json, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        return api::Error::badRequest("node_stats: not a JSON object");
    }
    MetricsUpdate out;
    out.tsMs = nowMs;
    std::map<std::string, api::NodeStats> current;
    std::vector<api::NodeMetrics> targets;
    try {
        for (const char* role : {"proxy", "target"}) {
            if (!j.contains(role)) {
                continue;
            }
            for (const auto& [id, entry] : j.at(role).items()) {
                const auto prev = m_previous.find(id);
                if (entry.contains("error")) {
                    api::NodeMetrics stale;
                    stale.id = id;
                    stale.role = role;
                    stale.stale = true;
                    if (prev != m_previous.end()) {
                        stale = api::deriveMetrics(std::nullopt, prev->second);
                        stale.stale = true;
                        current.emplace(id, prev->second);
                    }
                    out.nodes.push_back(std::move(stale));
                    continue;
                }
                auto stats = entry.get<api::NodeStats>();
                std::optional<api::NodeStats> before;
                if (prev != m_previous.end()) {
                    before = prev->second;
                }
                auto metrics = api::deriveMetrics(before, stats);
                if (metrics.intervalSec > 0) {
                    out.intervalMs = static_cast<int>(metrics.intervalSec * 1000.0);
                }
                current.emplace(id, std::move(stats));
                out.nodes.push_back(std::move(metrics));
            }
        }
    } catch (const nlohmann::json::exception& e) {
        return api::Error::badRequest(std::string("node_stats: ") + e.what());
    }
    for (const auto& n : out.nodes) {
        if (n.stale) {
            ++out.cluster.stale;
        } else if (n.role == api::kRoleTarget) {
            targets.push_back(n);
        }
    }
    out.cluster.nodes = static_cast<int>(out.nodes.size());
    out.cluster.ops = api::sumRates(targets);
    // Listing is counted by the proxy (its targets count the pages it asks for).
    const auto lst = static_cast<std::size_t>(api::OpKind::List);
    out.cluster.ops[lst] = {};
    for (const auto& n : out.nodes) {
        if (n.role == api::kRoleProxy && !n.stale) {
            out.cluster.ops[lst] = n.ops[lst];
        }
    }
    m_previous = std::move(current);
    return out;
}

} // namespace tessera::console
