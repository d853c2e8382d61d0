// Spec documents as JSON or YAML (shared/spec/spec_text.h): the YAML
// reader's limits (depth, value count, no aliases) hold for any input, and
// what toYaml writes reads back to the same document.

#include "fuzz_check.h"

#include "api/names.h"
#include "spec/spec_text.h"

using namespace tessera;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto text = fuzz::asText(data, size);
    for (const auto format : {spec::SpecFormat::Yaml, spec::SpecFormat::Json}) {
        const auto doc = spec::parseSpecText(text, format, "fuzz");
        if (!doc) {
            FUZZ_CHECK(doc.kind() == api::ErrorKind::BadRequest, fuzz::errorText(doc));
            continue;
        }
        // Input yaml-cpp takes for UTF-16 or UTF-32 (a NUL among the first
        // bytes) may carry lone surrogates, which do not survive re-encoding
        // as UTF-8: the round trip is checked for UTF-8 text only.
        // Left out too: a document that is only null (toYaml writes it as an
        // empty document, which the reader refuses; no spec is null), and
        // text with a bare CR, which yaml-cpp reads as a character of a plain
        // scalar ("\r" alone is the string "\r") but toYaml writes raw.
        if (!api::isValidUtf8(text) || text.find_first_of(std::string_view("\0\r", 2)) != std::string_view::npos ||
            doc->is_null()) {
            continue;
        }
        const auto yaml = spec::toYaml(*doc);
        const auto again = spec::parseSpecText(yaml, spec::SpecFormat::Yaml, "fuzz");
        FUZZ_CHECK(again.ok(), yaml + "\n" + fuzz::errorText(again));
        // Compared as written: NaN (YAML's .nan) is not equal to itself.
        FUZZ_CHECK(api::dumpJson(*again) == api::dumpJson(*doc), yaml + "\n" + api::dumpJson(*again));
    }
    (void)spec::specFormatForContentType(text);
    return 0;
}
