// Brace templates ("shard-{0000..0999}.tar", shared/spec/brace_template.h),
// which every archive, ishard and dSort job expands: the count is bounded,
// at(i) agrees with expand(), and the names come out in the template's order.

#include "fuzz_check.h"

#include "spec/brace_template.h"

using namespace tessera;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto text = fuzz::asText(data, size);
    const auto t = spec::BraceTemplate::parse(text);
    if (!t) {
        FUZZ_CHECK(t.kind() == api::ErrorKind::BadRequest, fuzz::errorText(t));
        return 0;
    }
    FUZZ_CHECK(t->count() >= 1 && t->count() <= spec::BraceTemplate::kMaxCount, std::string(text));
    FUZZ_CHECK(t->hasRanges() || (t->count() == 1 && t->at(0) == text), std::string(text));
    constexpr std::uint64_t kLimit = 256;
    const auto names = t->expand(kLimit);
    if (t->count() > kLimit) {
        FUZZ_CHECK(!names.ok(), std::string(text));
        // The last name is reachable without expanding the rest.
        FUZZ_CHECK(!t->at(t->count() - 1).empty() || text.empty(), std::string(text));
        return 0;
    }
    FUZZ_CHECK(names.ok() && names->size() == t->count(), std::string(text) + " " + fuzz::errorText(names));
    for (std::uint64_t i = 0; i < t->count(); ++i) FUZZ_CHECK((*names)[i] == t->at(i), (*names)[i]);
    // Reparsing its own text gives the same template.
    const auto again = spec::BraceTemplate::parse(t->text());
    FUZZ_CHECK(again && again->count() == t->count(), t->text());
    return 0;
}
