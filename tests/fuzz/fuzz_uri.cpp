// Percent-decoding, query strings, request targets and endpoints
// (shared/api/uri.h): every request's path and query go through them.

#include "fuzz_check.h"

#include "api/uri.h"

using namespace tessera;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto text = fuzz::asText(data, size);

    // Encoding then decoding gives the bytes back, with or without '/' kept.
    for (const bool keepSlash : {false, true}) {
        const auto encoded = api::percentEncode(text, keepSlash);
        const auto decoded = api::percentDecode(encoded);
        FUZZ_CHECK(decoded && *decoded == text, encoded);
    }
    // What decodes, re-encoded, decodes to the same bytes.
    if (const auto decoded = api::percentDecode(text)) {
        const auto again = api::percentDecode(api::percentEncode(*decoded));
        FUZZ_CHECK(again && *again == *decoded, std::string(text));
    }

    // A parsed query, built again, parses to the same map.
    if (const auto query = api::parseQuery(text)) {
        const auto built = api::buildQuery(*query);
        const auto again = api::parseQuery(built);
        FUZZ_CHECK(again && *again == *query, built);
    }

    // A target splits at its first '?' and nothing is lost.
    const auto split = api::splitTarget(text);
    FUZZ_CHECK(split.path.find('?') == std::string::npos, split.path);
    const bool hadQuery = text.find('?') != std::string_view::npos;
    FUZZ_CHECK((hadQuery ? split.path + "?" + split.query : split.path) == text, std::string(text));

    // A normalized endpoint is a fixed point.
    if (const auto endpoint = api::normalizeEndpoint(text)) {
        const auto again = api::normalizeEndpoint(*endpoint);
        FUZZ_CHECK(again && *again == *endpoint, *endpoint + " -> " + fuzz::errorText(again));
    }
    return 0;
}
