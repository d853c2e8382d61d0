// Sizes written by people ("16MiB", "1.5GiB", shared/spec/size_string.h):
// an accepted size is below 2^62, and what formatSize writes parses back to
// the size within its rounding (one decimal: 5%), PiB included.

#include "fuzz_check.h"

#include "spec/size_string.h"

using namespace tessera;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto text = fuzz::asText(data, size);
    for (const bool allowZero : {false, true}) {
        const auto n = spec::parseSize(text, allowZero);
        if (!n) {
            FUZZ_CHECK(n.kind() == api::ErrorKind::BadRequest, fuzz::errorText(n));
            continue;
        }
        FUZZ_CHECK(*n < (std::uint64_t{1} << 62), std::string(text));
        FUZZ_CHECK(allowZero || *n > 0, std::string(text));
        const auto written = spec::formatSize(*n);
        const auto again = spec::parseSize(written, true);
        FUZZ_CHECK(again.ok(), written + " " + fuzz::errorText(again));
        const auto diff = *again > *n ? *again - *n : *n - *again;
        FUZZ_CHECK(diff <= *n / 20, std::string(text) + " -> " + written);
    }
    return 0;
}
