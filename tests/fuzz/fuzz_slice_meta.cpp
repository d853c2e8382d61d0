// Erasure-coded slice metadata (shared/api/slice_meta.h): the JSON kept in
// a slice file's extended attribute, and the headers targets send with a
// slice. An accepted slice validates, and reads back equal from the JSON
// and the headers it is written as.

#include "fuzz_check.h"

#include "api/slice_meta.h"

#include <map>

using namespace tessera;

namespace {

using HeaderMap = std::map<std::string, std::string, std::less<>>;

api::Result<api::SliceMeta> fromHeaders(const HeaderMap& headers)
{
    return api::sliceFromHeaders([&](std::string_view name) {
        const auto it = headers.find(name);
        return it == headers.end() ? std::string() : it->second;
    });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto text = fuzz::asText(data, size);

    if (const auto slice = api::parseSliceMeta(text)) {
        FUZZ_CHECK(api::validate(*slice).ok(), std::string(text));
        FUZZ_JSON_ROUND_TRIP(*slice, api::parseSliceMeta);
    }

    // The input as header lines "name: value".
    HeaderMap headers;
    for (const auto line : fuzz::splitAll(text, '\n')) {
        const auto colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        auto value = line.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
        headers.emplace(std::string(line.substr(0, colon)), std::string(value));
    }
    if (const auto slice = fromHeaders(headers)) {
        FUZZ_CHECK(api::validate(*slice).ok(), std::string(text));
        FUZZ_CHECK(slice->index >= 0 && slice->index < slice->data + slice->parity, std::string(text));
        api::HeaderPairs written;
        api::appendSliceHeaders(written, *slice, "t1");
        HeaderMap again(written.begin(), written.end());
        const auto back = fromHeaders(again);
        FUZZ_CHECK(back && *back == *slice, fuzz::errorText(back));
    }
    return 0;
}
