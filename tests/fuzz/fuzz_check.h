#pragma once
// What the harnesses share. A harness checks properties of what a parser
// returns (a value written and read back is the same value; a verifier never
// accepts what it cannot have signed), not only that it returns: a broken
// property aborts, so libFuzzer saves the input like a crash, and the
// replay driver (replay_main.cpp) fails the CI test.

#include "api/json_util.h"
#include "api/result.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::fuzz {

[[noreturn]] inline void fail(const char* file, int line, const char* what, std::string_view detail)
{
    std::fprintf(stderr, "fuzz property broken at %s:%d: %s\n", file, line, what);
    if (!detail.empty()) std::fprintf(stderr, "  %.*s\n", static_cast<int>(detail.size()), detail.data());
    std::abort();
}

inline std::string_view asText(const std::uint8_t* data, std::size_t size)
{
    return {reinterpret_cast<const char*>(data), size};
}

// Splits `text` at every `sep` (an input that carries several fields: the
// parts of a signed request, header lines).
inline std::vector<std::string_view> splitAll(std::string_view text, char sep)
{
    std::vector<std::string_view> out;
    for (;;) {
        const auto at = text.find(sep);
        out.push_back(text.substr(0, at));
        if (at == std::string_view::npos) return out;
        text.remove_prefix(at + 1);
    }
}

// The error message of a failed result, for a broken property's report.
template <typename T>
std::string errorText(const api::Result<T>& r)
{
    return r ? std::string() : std::string(api::errorKindName(r.kind())) + ": " + r.error().message;
}

// A parsed value written as JSON and parsed again gives the same JSON: the
// writer and the reader agree on every field.
template <typename T, typename Parse>
void checkJsonRoundTrip(const T& value, Parse parse, const char* file, int line, const char* what)
{
    const nlohmann::json first = value;
    const std::string text = api::dumpJson(first);
    auto again = parse(std::string_view(text));
    if (!again) fail(file, line, what, "the written form does not parse: " + errorText(again) + " in " + text);
    const nlohmann::json second = *again;
    if (first != second) fail(file, line, what, text + " read back as " + api::dumpJson(second));
}

}  // namespace tessera::fuzz

#define FUZZ_CHECK(cond, detail)                                                 \
    do {                                                                         \
        if (!(cond)) ::tessera::fuzz::fail(__FILE__, __LINE__, #cond, (detail)); \
    } while (0)

#define FUZZ_JSON_ROUND_TRIP(value, parse) \
    ::tessera::fuzz::checkJsonRoundTrip((value), (parse), __FILE__, __LINE__, "JSON round trip of " #value)

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
