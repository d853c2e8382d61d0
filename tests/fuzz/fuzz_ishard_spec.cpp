// ishard specs (shared/spec/ishard_spec.h) as JSON or YAML (the first byte
// picks: odd for YAML): an accepted spec's canonical JSON is accepted again
// as the same spec, and the validator agrees with the parser.

#include "fuzz_check.h"

#include "spec/ishard_spec.h"
#include "spec/spec_text.h"

using namespace tessera;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size == 0) return 0;
    const auto format = (data[0] & 1) != 0 ? spec::SpecFormat::Yaml : spec::SpecFormat::Json;
    const auto text = fuzz::asText(data + 1, size - 1);

    const auto doc = spec::parseSpecText(text, format, "ishard");
    if (!doc) return 0;
    const auto s = spec::parseIshardSpec(*doc);
    FUZZ_CHECK(s.ok() == spec::validateIshardSpec(*doc).empty(), api::dumpJson(*doc) + " " + fuzz::errorText(s));
    if (!s) return 0;
    FUZZ_CHECK(s->sampleExts.size() <= spec::IshardSpec::kMaxSampleExts, api::dumpJson(*doc));
    const auto written = nlohmann::json(*s);
    const auto again = spec::parseIshardSpec(written);
    FUZZ_CHECK(again.ok(), api::dumpJson(written) + " " + fuzz::errorText(again));
    FUZZ_CHECK(api::dumpJson(nlohmann::json(*again)) == api::dumpJson(written), api::dumpJson(written));
    return 0;
}
