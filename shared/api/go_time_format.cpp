#include "go_time_format.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>

namespace tessera::api {

namespace {

constexpr std::array<const char*, 12> kLongMonths = {"January",   "February", "March",    "April",
                                                     "May",       "June",     "July",     "August",
                                                     "September", "October",  "November", "December"};
constexpr std::array<const char*, 7> kLongDays = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                                  "Thursday", "Friday", "Saturday"};

void appendNum(std::string& out, long v, int width, char pad = '0')
{
    char buf[32];
    const int n = std::snprintf(buf, sizeof buf, "%ld", v);
    for (int i = n; i < width; ++i) out.push_back(pad);
    out.append(buf, static_cast<std::size_t>(n));
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::string formatHttpDate(std::int64_t unixNs)
{
    std::int64_t secs = unixNs / 1000000000;
    if (unixNs % 1000000000 < 0) --secs;
    std::int64_t days = secs / 86400;
    std::int64_t rem = secs % 86400;
    if (rem < 0) rem += 86400, --days;
    // Days since 1970-01-01 to a civil date (the proleptic Gregorian
    // calendar, as gmtime): H. Hinnant's civil_from_days.
    const std::int64_t z = days + 719468;
    const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const auto doe = static_cast<unsigned>(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    const unsigned day = doy - (153 * mp + 2) / 5 + 1;
    const unsigned month = mp < 10 ? mp + 3 : mp - 9;
    const std::int64_t year = static_cast<std::int64_t>(yoe) + era * 400 + (month <= 2 ? 1 : 0);
    const auto wday = static_cast<unsigned>(((days % 7) + 11) % 7);  // 1970-01-01 was a Thursday (4)
    static constexpr char kDays[] = "SunMonTueWedThuFriSat";
    const auto h = static_cast<unsigned>(rem / 3600);
    const auto m = static_cast<unsigned>(rem / 60 % 60);
    const auto s = static_cast<unsigned>(rem % 60);
    const auto y = static_cast<unsigned>(year);
    char out[29];
    const auto two = [&out](std::size_t at, unsigned v) {
        out[at] = static_cast<char>('0' + v / 10);
        out[at + 1] = static_cast<char>('0' + v % 10);
    };
    std::copy_n(kDays + 3 * wday, 3, out);
    out[3] = ',';
    out[4] = ' ';
    two(5, day);
    out[7] = ' ';
    std::copy_n(kLongMonths[month - 1], 3, out + 8);
    out[11] = ' ';
    two(12, y / 100);
    two(14, y % 100);
    out[16] = ' ';
    two(17, h);
    out[19] = ':';
    two(20, m);
    out[22] = ':';
    two(23, s);
    std::copy_n(" GMT", 4, out + 25);
    return std::string(out, sizeof out);
}

std::string formatGoTime(std::int64_t unixNs, std::string_view layout)
{
    if (layout.empty()) layout = kGoRfc822;
    std::int64_t secs = unixNs / 1000000000;
    std::int64_t nanos = unixNs % 1000000000;
    if (nanos < 0) nanos += 1000000000, --secs;
    const auto t = static_cast<std::time_t>(secs);
    std::tm tm{};
    gmtime_r(&t, &tm);
    const int hour12 = tm.tm_hour % 12 == 0 ? 12 : tm.tm_hour % 12;

    std::string out;
    out.reserve(layout.size() + 16);
    std::size_t i = 0;
    const auto at = [&](std::string_view s) { return layout.substr(i, s.size()) == s; };
    while (i < layout.size()) {
        const char c = layout[i];
        // Go's nextStdChunk, element by element, longest match first.
        if (at("January")) out += kLongMonths[tm.tm_mon], i += 7;
        else if (at("Jan")) out.append(kLongMonths[tm.tm_mon], 3), i += 3;
        else if (at("Monday")) out += kLongDays[tm.tm_wday], i += 6;
        else if (at("Mon")) out.append(kLongDays[tm.tm_wday], 3), i += 3;
        else if (at("MST")) out += "UTC", i += 3;
        else if (at("2006")) appendNum(out, tm.tm_year + 1900, 4), i += 4;
        else if (at("002")) appendNum(out, tm.tm_yday + 1, 3), i += 3;
        else if (at("01")) appendNum(out, tm.tm_mon + 1, 2), i += 2;
        else if (at("02")) appendNum(out, tm.tm_mday, 2), i += 2;
        else if (at("03")) appendNum(out, hour12, 2), i += 2;
        else if (at("04")) appendNum(out, tm.tm_min, 2), i += 2;
        else if (at("05")) appendNum(out, tm.tm_sec, 2), i += 2;
        else if (at("06")) appendNum(out, tm.tm_year % 100, 2), i += 2;
        else if (at("15")) appendNum(out, tm.tm_hour, 2), i += 2;
        else if (at("__2")) appendNum(out, tm.tm_yday + 1, 3, ' '), i += 3;
        else if (at("_2") && !at("_2006")) appendNum(out, tm.tm_mday, 2, ' '), i += 2;
        else if (c == '1') appendNum(out, tm.tm_mon + 1, 1), i += 1;
        else if (c == '2') appendNum(out, tm.tm_mday, 1), i += 1;
        else if (c == '3') appendNum(out, hour12, 1), i += 1;
        else if (c == '4') appendNum(out, tm.tm_min, 1), i += 1;
        else if (c == '5') appendNum(out, tm.tm_sec, 1), i += 1;
        else if (at("PM")) out += tm.tm_hour >= 12 ? "PM" : "AM", i += 2;
        else if (at("pm")) out += tm.tm_hour >= 12 ? "pm" : "am", i += 2;
        else if (at("-07:00:00")) out += "+00:00:00", i += 9;
        else if (at("-070000")) out += "+000000", i += 7;
        else if (at("-07:00")) out += "+00:00", i += 6;
        else if (at("-0700")) out += "+0000", i += 5;
        else if (at("-07")) out += "+00", i += 3;
        else if (at("Z07:00:00")) out += "Z", i += 9;
        else if (at("Z070000")) out += "Z", i += 7;
        else if (at("Z07:00")) out += "Z", i += 6;
        else if (at("Z0700")) out += "Z", i += 5;
        else if (at("Z07")) out += "Z", i += 3;
        else if ((c == '.' || c == ',') && i + 1 < layout.size() && (layout[i + 1] == '0' || layout[i + 1] == '9')) {
            // A fraction: a run of one digit after the point, not followed by
            // another digit. .000 fixed width; .999 trailing zeros trimmed.
            const char d = layout[i + 1];
            std::size_t j = i + 1;
            while (j < layout.size() && layout[j] == d) ++j;
            if (j < layout.size() && isDigit(layout[j])) {
                out.push_back(c), ++i;
                continue;
            }
            const auto digits = static_cast<int>(std::min<std::size_t>(j - i - 1, 9));
            char frac[16];
            std::snprintf(frac, sizeof frac, "%09ld", static_cast<long>(nanos));
            std::string f(frac, static_cast<std::size_t>(digits));
            if (d == '9') {
                while (!f.empty() && f.back() == '0') f.pop_back();
                if (!f.empty()) out.push_back(c), out += f;
            } else {
                out.push_back(c), out += f;
            }
            i = j;
        } else {
            out.push_back(c), ++i;
        }
    }
    return out;
}

}  // namespace tessera::api
