// Bucket metadata and bucket properties (shared/api/bmd.h): what a proxy
// pushes to every node and what a user sends to set props.

#include "fuzz_check.h"

#include "api/bmd.h"

using namespace tessera;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto text = fuzz::asText(data, size);
    if (const auto bmd = api::parseBmd(text)) FUZZ_JSON_ROUND_TRIP(*bmd, api::parseBmd);
    if (const auto props = api::parseBucketProps(text)) {
        FUZZ_JSON_ROUND_TRIP(*props, api::parseBucketProps);
        const auto again = api::parseBucketProps(api::dumpJson(nlohmann::json(*props)));
        FUZZ_CHECK(again && *again == *props, api::dumpJson(nlohmann::json(*props)));
    }
    return 0;
}
