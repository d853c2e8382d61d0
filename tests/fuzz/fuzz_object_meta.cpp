// Object metadata: the ais-custom-md header ("k1=v1,k2=v2"), the JSON kept
// in an object's extended attribute, and the HEAD headers a client reads
// (shared/api/object_meta.h).

#include "fuzz_check.h"

#include "api/object_meta.h"

#include <map>

using namespace tessera;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto text = fuzz::asText(data, size);

    if (const auto md = api::parseCustomMd(text)) {
        const auto written = api::formatCustomMd(*md);
        FUZZ_CHECK(written.size() <= text.size(), written);
        const auto again = api::parseCustomMd(written);
        FUZZ_CHECK(again && *again == *md, written + " " + fuzz::errorText(again));
    }

    if (const auto meta = api::parseObjectMeta(text)) FUZZ_JSON_ROUND_TRIP(*meta, api::parseObjectMeta);

    // The input as header lines "name: value"; a client reads whatever a
    // peer answered.
    std::map<std::string, std::string, std::less<>> headers;
    for (const auto line : fuzz::splitAll(text, '\n')) {
        const auto colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        auto value = line.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
        headers.emplace(std::string(line.substr(0, colon)), std::string(value));
    }
    const auto attrs = api::attrsFromHeaders([&](std::string_view name) {
        const auto it = headers.find(name);
        return it == headers.end() ? std::string() : it->second;
    });
    if (const auto it = headers.find("ais-custom-md"); it != headers.end() && api::parseCustomMd(it->second)) {
        FUZZ_CHECK(attrs.custom == *api::parseCustomMd(it->second), it->second);
    }
    return 0;
}
