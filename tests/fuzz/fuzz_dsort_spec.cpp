// dSort specs (shared/spec/dsort_spec.h) as JSON or YAML (the first byte
// picks: odd for YAML): an accepted spec's canonical JSON is accepted again
// as the same spec, and its external key map parser never throws.

#include "fuzz_check.h"

#include "spec/dsort_plan.h"
#include "spec/dsort_spec.h"
#include "spec/spec_text.h"

using namespace tessera;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size == 0) return 0;
    const auto format = (data[0] & 1) != 0 ? spec::SpecFormat::Yaml : spec::SpecFormat::Json;
    const auto text = fuzz::asText(data + 1, size - 1);

    if (const auto doc = spec::parseSpecText(text, format, "dsort")) {
        if (const auto s = spec::parseDsortSpec(*doc)) {
            FUZZ_CHECK(!s->inputBck.empty() && !s->outputBck.empty(), api::dumpJson(*doc));
            FUZZ_CHECK(s->extractConcurrency >= 1 && s->extractConcurrency <= spec::DsortSpec::kMaxConcurrency,
                       api::dumpJson(*doc));
            const auto written = nlohmann::json(*s);
            const auto again = spec::parseDsortSpec(written);
            FUZZ_CHECK(again.ok(), api::dumpJson(written) + " " + fuzz::errorText(again));
            FUZZ_CHECK(api::dumpJson(nlohmann::json(*again)) == api::dumpJson(written), api::dumpJson(written));
        }
    }
    // The same bytes as an external key map (JSON, user-written regexes).
    if (const auto ekm = spec::parseEkm(text)) {
        for (const auto& e : *ekm) FUZZ_CHECK(e.patterns.size() == e.regexes.size(), e.format);
    }
    return 0;
}
