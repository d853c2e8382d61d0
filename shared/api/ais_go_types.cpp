#include "ais_go_types.h"

#include "go_time_format.h"

#include <charconv>
#include <ctime>
#include <nlohmann/json.hpp>

namespace tessera::api {

namespace {

constexpr std::string_view kGoZeroTime = "0001-01-01T00:00:00Z";

// "12.5" from whole units and a remainder of `scale` (trailing zeros dropped).
std::string withFraction(std::int64_t whole, std::int64_t rem, std::int64_t scale)
{
    std::string s = std::to_string(whole);
    if (rem == 0) return s;
    std::string frac;
    for (auto d = scale / 10; d > 0; d /= 10) {
        frac.push_back(static_cast<char>('0' + (rem / d) % 10));
    }
    while (!frac.empty() && frac.back() == '0') frac.pop_back();
    return s + "." + frac;
}

bool digits(std::string_view s, std::size_t at, std::size_t n, int& out)
{
    if (at + n > s.size()) return false;
    out = 0;
    for (std::size_t i = at; i < at + n; ++i) {
        if (s[i] < '0' || s[i] > '9') return false;
        out = out * 10 + (s[i] - '0');
    }
    return true;
}

}  // namespace

void to_json(nlohmann::json& j, const GoIntString& v) { j = std::to_string(v.value); }

void from_json(const nlohmann::json& j, GoIntString& v)
{
    if (!j.is_string()) throw nlohmann::json::type_error::create(302, "must be a decimal string (Go `,string`)", &j);
    const auto& s = j.get_ref<const std::string&>();
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v.value);
    if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) {
        throw nlohmann::json::type_error::create(302, "must be a decimal string (Go `,string`)", &j);
    }
}

std::string formatGoRfc3339Nano(std::int64_t unixNs)
{
    if (unixNs == 0) return std::string(kGoZeroTime);
    return formatGoTime(unixNs, kGoRfc3339Nano);
}

std::optional<std::int64_t> parseRfc3339(std::string_view s)
{
    if (s == kGoZeroTime) return 0;
    std::tm tm{};
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
    if (!digits(s, 0, 4, y) || s.size() < 20 || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
        !digits(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't') || !digits(s, 11, 2, h) || s[13] != ':' ||
        !digits(s, 14, 2, mi) || s[16] != ':' || !digits(s, 17, 2, sec)) {
        return std::nullopt;
    }
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) return std::nullopt;
    std::size_t at = 19;
    std::int64_t nanos = 0;
    if (at < s.size() && s[at] == '.') {
        ++at;
        std::int64_t scale = 100'000'000;
        const auto from = at;
        while (at < s.size() && s[at] >= '0' && s[at] <= '9') {
            nanos += (s[at] - '0') * scale;
            scale /= 10;
            ++at;
        }
        if (at == from || at - from > 9) return std::nullopt;
    }
    std::int64_t offset = 0;
    if (at < s.size() && (s[at] == 'Z' || s[at] == 'z')) {
        ++at;
    } else if (at < s.size() && (s[at] == '+' || s[at] == '-')) {
        int oh = 0, om = 0;
        if (!digits(s, at + 1, 2, oh) || at + 3 >= s.size() || s[at + 3] != ':' || !digits(s, at + 4, 2, om)) {
            return std::nullopt;
        }
        offset = (s[at] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
        at += 6;
    } else {
        return std::nullopt;
    }
    if (at != s.size()) return std::nullopt;
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = sec;
    const auto secs = static_cast<std::int64_t>(timegm(&tm)) - offset;
    return secs * 1'000'000'000 + nanos;
}

void to_json(nlohmann::json& j, const GoTime& v) { j = formatGoRfc3339Nano(v.unixNs); }

void from_json(const nlohmann::json& j, GoTime& v)
{
    const auto bad = [&] {
        return nlohmann::json::type_error::create(302, "must be an RFC 3339 time (Go time.Time)", &j);
    };
    if (!j.is_string()) throw bad();
    auto ns = parseRfc3339(j.get_ref<const std::string&>());
    if (!ns) throw bad();
    v.unixNs = *ns;
}

std::string formatGoDuration(std::int64_t ns)
{
    if (ns == 0) return "0s";
    std::string sign = ns < 0 ? "-" : "";
    const auto u = ns < 0 ? -ns : ns;
    if (u < 1'000) return sign + std::to_string(u) + "ns";
    if (u < 1'000'000) return sign + withFraction(u / 1'000, u % 1'000, 1'000) + "µs";
    if (u < 1'000'000'000) return sign + withFraction(u / 1'000'000, u % 1'000'000, 1'000'000) + "ms";
    const auto h = u / 3'600'000'000'000;
    const auto m = (u / 60'000'000'000) % 60;
    const auto secNs = u % 60'000'000'000;
    std::string out = sign;
    if (h > 0) out += std::to_string(h) + "h";
    if (h > 0 || m > 0) out += std::to_string(m) + "m";
    out += withFraction(secNs / 1'000'000'000, secNs % 1'000'000'000, 1'000'000'000) + "s";
    return out;
}

}  // namespace tessera::api
