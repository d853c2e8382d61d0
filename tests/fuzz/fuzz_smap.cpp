// The cluster map and a node's description (shared/api/smap.h), as nodes
// send them to each other.

#include "fuzz_check.h"

#include "api/smap.h"

using namespace tessera;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto text = fuzz::asText(data, size);
    if (const auto smap = api::parseSmap(text)) {
        FUZZ_JSON_ROUND_TRIP(*smap, api::parseSmap);
        FUZZ_CHECK(smap->activeTargetCount() <= smap->targetCount(), api::dumpJson(nlohmann::json(*smap)));
        FUZZ_CHECK(smap->placementTargetCount() <= smap->targetCount(), api::dumpJson(nlohmann::json(*smap)));
    }
    if (const auto node = api::parseSnode(text)) {
        const auto written = api::dumpJson(nlohmann::json(*node));
        const auto again = api::parseSnode(written);
        FUZZ_CHECK(again && *again == *node, written + " " + fuzz::errorText(again));
    }
    return 0;
}
