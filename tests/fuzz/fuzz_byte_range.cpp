// The Range header (shared/api/byte_range.h) against objects of several
// sizes: whatever the header, an accepted range lies inside the object.

#include "fuzz_check.h"

#include "api/byte_range.h"

#include <cstring>
#include <limits>

using namespace tessera;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    // The first 8 bytes, when there are, are one more object size to try
    // (huge ones included: the arithmetic near 2^64 is where ranges break).
    std::uint64_t fuzzedSize = 0;
    std::string_view header = fuzz::asText(data, size);
    if (size >= 8) {
        std::memcpy(&fuzzedSize, data, 8);
        header.remove_prefix(8);
    }
    const std::uint64_t sizes[] = {0, 1, 10, 1000, std::numeric_limits<std::uint64_t>::max(), fuzzedSize};
    for (const auto objectSize : sizes) {
        for (const auto text : {fuzz::asText(data, size), header}) {
            const auto r = api::parseRange(text, objectSize);
            if (!r) {
                FUZZ_CHECK(r.kind() == api::ErrorKind::BadRequest || r.kind() == api::ErrorKind::RangeNotSatisfiable,
                           fuzz::errorText(r));
                continue;
            }
            if (!r->has_value()) {
                // Only a blank header means the whole object.
                FUZZ_CHECK(text.find("bytes") == std::string_view::npos, std::string(text));
                continue;
            }
            const auto& range = **r;
            const auto detail = std::string(text) + " of " + std::to_string(objectSize) + " -> " +
                                std::to_string(range.offset) + "+" + std::to_string(range.length);
            FUZZ_CHECK(range.length >= 1, detail);
            FUZZ_CHECK(range.offset < objectSize, detail);
            FUZZ_CHECK(range.length <= objectSize - range.offset, detail);
        }
    }
    return 0;
}
