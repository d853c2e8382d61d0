// Spec documents as JSON or YAML (shared/spec/spec_text.h): the YAML
// reader's limits (depth, value count, no aliases) hold for any input, and
// what toYaml writes reads back to the same document.

#include "fuzz_check.h"

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
        const auto yaml = spec::toYaml(*doc);
        const auto again = spec::parseSpecText(yaml, spec::SpecFormat::Yaml, "fuzz");
        FUZZ_CHECK(again.ok(), yaml + "\n" + fuzz::errorText(again));
        // Compared as written: NaN (YAML's .nan) is not equal to itself.
        FUZZ_CHECK(api::dumpJson(*again) == api::dumpJson(*doc), yaml + "\n" + api::dumpJson(*again));
    }
    (void)spec::specFormatForContentType(text);
    return 0;
}
