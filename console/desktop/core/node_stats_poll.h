#pragma once

#include "api/node_stats.h"
#include "api/result.h"
#include "api/feed.h"

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
    // BadRequest when `json` is not a node_stats answer. A node that could not be
    // asked ({"error":...}) is reported stale with its last known figures.
    api::Result<api::MetricsUpdate> update(std::string_view json, std::int64_t nowMs);
    void reset() { m_previous.clear(); }

private:
    std::map<std::string, api::NodeStats> m_previous;
};

} // namespace tessera::console
