#pragma once
// Time formatting with Go layouts ("2006-01-02T15:04:05Z07:00"): AIStore's
// list-objects request names the format of `atime` that way (LsoMsg
// time_format), and its clients send Go's named layouts (time.RFC822, ...).

#include <cstdint>
#include <string>
#include <string_view>

namespace tessera::api {

// Go's time.RFC822, AIStore's default for listed atimes.
inline constexpr std::string_view kGoRfc822 = "02 Jan 06 15:04 MST";
inline constexpr std::string_view kGoRfc3339Nano = "2006-01-02T15:04:05.999999999Z07:00";

// Formats `unixNs` in UTC the way Go's time.Format does for `layout`:
// every standard element (years, months, days, weekdays, hours, minutes,
// seconds, fractions .000/.999, AM/PM, MST, numeric zones -0700, Z07:00,
// ...), the rest copied as it is. An empty layout is kGoRfc822 (AIStore's
// cos.FormatTime). Any layout is valid, as in Go.
std::string formatGoTime(std::int64_t unixNs, std::string_view layout);

// The HTTP date of `unixNs` (RFC 9110's IMF-fixdate, "Sun, 06 Nov 1994
// 08:49:37 GMT"): what formatGoTime gives for "Mon, 02 Jan 2006 15:04:05
// GMT", written directly. Every small GET's Last-Modified takes it, so it
// skips the layout scan, snprintf and gmtime_r's lock. Nanoseconds in 64
// bits span the years 1677 to 2262: always four digits.
std::string formatHttpDate(std::int64_t unixNs);

}  // namespace tessera::api
