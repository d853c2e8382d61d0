#pragma once
// Value types of AIStore's Go wire documents that JSON alone does not
// describe: an integer with Go's `,string` tag (a decimal string), a
// time.Time (RFC 3339 with nanoseconds, Go's zero time when unset) and a
// cos.Duration (Go's duration text, "10s"). Used by the AIStore answer
// types (ais_dsort.h, ais_node.h) so their readers stay strict.

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::api {

// `json:"x,string"`: written "123"; read back only from a decimal string.
struct GoIntString {
    std::int64_t value = 0;
    bool operator==(const GoIntString&) const = default;
};
void to_json(nlohmann::json& j, const GoIntString& v);
void from_json(const nlohmann::json& j, GoIntString& v);

// time.Time: "2026-11-26T09:53:27.123456789Z" (UTC, trailing zeros of the
// fraction dropped, as Go's RFC3339Nano); 0 is Go's zero time
// "0001-01-01T00:00:00Z". Read back from any RFC 3339 text (an offset is
// applied); anything else throws.
struct GoTime {
    std::int64_t unixNs = 0;
    bool operator==(const GoTime&) const = default;
};
void to_json(nlohmann::json& j, const GoTime& v);
void from_json(const nlohmann::json& j, GoTime& v);
std::string formatGoRfc3339Nano(std::int64_t unixNs);
std::optional<std::int64_t> parseRfc3339(std::string_view text);  // 0 for Go's zero time

// cos.Duration as Go prints a time.Duration: "0s", "1.5s", "10m0s", "2h0m0s".
std::string formatGoDuration(std::int64_t ns);

}  // namespace tessera::api
