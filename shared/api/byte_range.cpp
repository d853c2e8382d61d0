#include "byte_range.h"

#include <charconv>
#include <cstdint>
#include <string>

namespace tessera::api {

namespace {
std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

// A byte position: one or more digits. Positions past 2^64-1 are valid HTTP
// (RFC 9110 sets no bound) and mean "past any object": they saturate, so
// that a first position is unsatisfiable (416) and a last one is clipped.
bool parseU64(std::string_view s, std::uint64_t& out)
{
    if (s.empty()) return false;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
    }
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (ec == std::errc::result_out_of_range) {
        out = UINT64_MAX;
        return true;
    }
    return ec == std::errc() && p == s.data() + s.size();
}
}  // namespace

Result<std::optional<ByteRange>> parseRange(std::string_view header, std::uint64_t size)
{
    header = trim(header);
    if (header.empty()) {
        return std::optional<ByteRange>{};
    }
    constexpr std::string_view kPrefix = "bytes=";
    if (header.substr(0, kPrefix.size()) != kPrefix) {
        return Error::badRequest("Range: only the \"bytes\" unit is supported");
    }
    auto spec = trim(header.substr(kPrefix.size()));
    if (spec.find(',') != std::string_view::npos) {
        return Error::badRequest("Range: multiple ranges are not supported");
    }
    auto dash = spec.find('-');
    if (dash == std::string_view::npos) {
        return Error::badRequest("Range: missing '-'");
    }
    auto first = trim(spec.substr(0, dash));
    auto last = trim(spec.substr(dash + 1));
    std::uint64_t a = 0;
    std::uint64_t b = 0;
    if (first.empty()) {
        // suffix range: last n bytes
        if (!parseU64(last, b)) {
            return Error::badRequest("Range: malformed suffix length");
        }
        if (b == 0 || size == 0) {
            return Error{ErrorKind::RangeNotSatisfiable, "Range: unsatisfiable suffix range", {}};
        }
        const auto n = b > size ? size : b;
        return std::optional<ByteRange>{ByteRange{size - n, n}};
    }
    if (!parseU64(first, a)) {
        return Error::badRequest("Range: malformed first byte position");
    }
    if (!last.empty()) {
        if (!parseU64(last, b)) {
            return Error::badRequest("Range: malformed last byte position");
        }
        if (b < a) {
            return Error::badRequest("Range: last byte position before first");
        }
    }
    if (a >= size) {
        return Error{
            ErrorKind::RangeNotSatisfiable,
            "Range: first byte position " + std::to_string(a) + " is beyond the object size " + std::to_string(size),
            {}};
    }
    if (last.empty() || b >= size) {
        b = size - 1;
    }
    return std::optional<ByteRange>{ByteRange{a, b - a + 1}};
}

}  // namespace tessera::api
