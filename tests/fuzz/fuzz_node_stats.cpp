// Node statistics (shared/api/node_stats.h): one node's counters as the
// proxy reads them from GET /v1/daemon?what=node_stats, and the cluster's
// as the console reads GET /v1/cluster?what=node_stats. The rates derived
// from them (NodeMetrics) and cluster events reach clients only on the live
// feed, so fuzz_feed reads those. Each accepted document reads back equal
// from what its to_json writes; a refusal is a BadRequest, never an
// exception.

#include "fuzz_check.h"

#include "api/node_stats.h"

#include <nlohmann/json.hpp>

using namespace tessera;

namespace {

// What a node's counters promise whoever derives figures from them: the
// percentiles of a histogram are ordered, and a snapshot compared with
// itself is no interval (zero rates, totals as counted).
void checkFigures(const api::NodeStats& s, const std::string& doc)
{
    for (std::size_t i = 0; i < api::kOpKinds; ++i) {
        const auto& h = s.ops[i].latency;
        const auto p50 = api::histogramQuantile(h, 0.5);
        const auto p90 = api::histogramQuantile(h, 0.9);
        const auto p99 = api::histogramQuantile(h, 0.99);
        FUZZ_CHECK(p50 <= p90 && p90 <= p99, doc);
    }
    const auto m = api::deriveMetrics(s, s);
    FUZZ_CHECK(m.intervalSec == 0.0 && m.cpuPercent == 0.0, doc);
    for (std::size_t i = 0; i < api::kOpKinds; ++i) {
        FUZZ_CHECK(m.ops[i].opsPerSec == 0.0 && m.ops[i].totalN == s.ops[i].n, doc);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto text = fuzz::asText(data, size);

    if (const auto s = api::parseNodeStats(text)) {
        FUZZ_JSON_ROUND_TRIP(*s, api::parseNodeStats);
        checkFigures(*s, api::dumpJson(nlohmann::json(*s)));
    } else {
        FUZZ_CHECK(s.kind() == api::ErrorKind::BadRequest, fuzz::errorText(s));
    }

    if (const auto c = api::parseClusterStats(text)) {
        FUZZ_JSON_ROUND_TRIP(*c, api::parseClusterStats);
        // Each node's figures are what that node would have sent on its own.
        for (const auto& [id, s] : c->targets) FUZZ_JSON_ROUND_TRIP(s, api::parseNodeStats);
        for (const auto& [id, s] : c->proxies) FUZZ_JSON_ROUND_TRIP(s, api::parseNodeStats);
    } else {
        FUZZ_CHECK(c.kind() == api::ErrorKind::BadRequest, fuzz::errorText(c));
    }
    return 0;
}
