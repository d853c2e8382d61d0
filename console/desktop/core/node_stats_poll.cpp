#include "core/node_stats_poll.h"

#include <optional>

namespace tessera::console {

api::MetricsUpdate NodeStatsPoll::update(const api::ClusterStats& stats, std::int64_t nowMs)
{
    api::MetricsUpdate out;
    out.tsMs = nowMs;
    std::map<std::string, api::NodeStats> current;
    auto add = [&](const std::string& id, const api::NodeStats& st) {
        const auto prev = m_previous.find(id);
        std::optional<api::NodeStats> before;
        if (prev != m_previous.end()) {
            before = prev->second;
        }
        auto metrics = api::deriveMetrics(before, st);
        if (metrics.intervalSec > 0) {
            out.intervalMs = static_cast<int>(metrics.intervalSec * 1000.0);
        }
        current.emplace(id, st);
        out.nodes.push_back(std::move(metrics));
    };
    for (const auto& [id, st] : stats.proxies) {
        add(id, st);
    }
    for (const auto& [id, st] : stats.targets) {
        add(id, st);
    }
    for (const auto& [id, why] : stats.errors) {
        // No figures this round: the last known ones, marked stale.
        api::NodeMetrics stale;
        stale.id = id;
        stale.role = api::kRoleTarget;
        if (const auto prev = m_previous.find(id); prev != m_previous.end()) {
            stale = api::deriveMetrics(std::nullopt, prev->second);
            current.emplace(id, prev->second);
        }
        stale.stale = true;
        out.nodes.push_back(std::move(stale));
    }
    out.cluster = api::clusterTotals(out.nodes);
    m_previous = std::move(current);
    return out;
}

}  // namespace tessera::console
