#pragma once

#include "api/feed.h"
#include "api/node_stats.h"
#include "api/result.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace tessera::console {

// The polling fallback when the feed's WebSocket cannot be opened: turns
// successive answers of `GET /v1/cluster?what=node_stats` into the same
// api::MetricsUpdate the feed would have sent, rates derived by api::deriveMetrics
// from this poll and the previous one. One per connection; UI thread.
class NodeStatsPoll {
public:
    // A node that could not be asked (an error in `stats`) is reported stale
    // with its last known figures.
    api::MetricsUpdate update(const api::ClusterStats& stats, std::int64_t nowMs);
    void reset() { m_previous.clear(); }

private:
    std::map<std::string, api::NodeStats> m_previous;
};

}  // namespace tessera::console
