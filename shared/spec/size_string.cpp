#include "size_string.h"

#include <cctype>
#include <cstdio>

namespace tessera::spec {

namespace {

std::string lower(std::string_view s)
{
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

}  // namespace

api::Result<std::uint64_t> parseSize(std::string_view text, bool allowZero)
{
    const auto bad = [&](const std::string& why) {
        return api::Error::badRequest("size \"" + std::string(text) + "\": " + why +
                                      " (examples: 4096, 100MB, 16MiB, 1.5GiB)");
    };
    std::size_t i = 0;
    while (i < text.size() && text[i] == ' ') ++i;
    std::uint64_t whole = 0;
    std::size_t digits = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
        if (++digits > 18) return bad("too many digits");
        whole = whole * 10 + static_cast<std::uint64_t>(text[i] - '0');
        ++i;
    }
    if (digits == 0) return bad("must start with a number");
    std::uint64_t frac = 0;
    std::uint64_t fracScale = 1;
    if (i < text.size() && text[i] == '.') {
        ++i;
        std::size_t fd = 0;
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
            if (++fd > 9) return bad("too many decimals");
            frac = frac * 10 + static_cast<std::uint64_t>(text[i] - '0');
            fracScale *= 10;
            ++i;
        }
        if (fd == 0) return bad("a '.' must be followed by digits");
    }
    while (i < text.size() && text[i] == ' ') ++i;
    const auto unit = lower(text.substr(i));
    std::uint64_t mult = 0;
    if (unit.empty() || unit == "b") mult = 1;
    else if (unit == "kb") mult = 1000ULL;
    else if (unit == "mb") mult = 1000ULL * 1000;
    else if (unit == "gb") mult = 1000ULL * 1000 * 1000;
    else if (unit == "tb") mult = 1000ULL * 1000 * 1000 * 1000;
    else if (unit == "pb") mult = 1000ULL * 1000 * 1000 * 1000 * 1000;
    else if (unit == "kib") mult = 1ULL << 10;
    else if (unit == "mib") mult = 1ULL << 20;
    else if (unit == "gib") mult = 1ULL << 30;
    else if (unit == "tib") mult = 1ULL << 40;
    else if (unit == "pib") mult = 1ULL << 50;  // what formatSize writes from 1 PiB on
    else return bad("unknown unit \"" + std::string(text.substr(i)) + "\"");
    if (fracScale > 1 && mult == 1) return bad("a fraction needs a unit larger than a byte");
    constexpr std::uint64_t kLimit = 1ULL << 62;
    if (whole > kLimit / mult) return bad("too large");
    // frac / fracScale * mult, without floating point: fracScale <= 10^9 and
    // mult <= 2^50 would overflow, so split mult.
    const std::uint64_t fracBytes =
        fracScale > 1 ? (mult / fracScale) * frac + ((mult % fracScale) * frac) / fracScale : 0;
    const std::uint64_t total = whole * mult + fracBytes;
    if (total >= kLimit) return bad("too large");
    if (total == 0 && !allowZero) return bad("must be greater than zero");
    return total;
}

std::string formatSize(std::uint64_t bytes)
{
    static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    if (bytes < 1024) return std::to_string(bytes) + "B";
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024.0 && u < 5) {
        v /= 1024.0;
        ++u;
    }
    char buf[32];
    if (v == static_cast<double>(static_cast<std::uint64_t>(v))) {
        std::snprintf(buf, sizeof buf, "%llu%s", static_cast<unsigned long long>(v), kUnits[u]);
    } else {
        std::snprintf(buf, sizeof buf, "%.1f%s", v, kUnits[u]);
    }
    return buf;
}

}  // namespace tessera::spec
