#pragma once
// Parsing JSON from the wire into typed structs without letting exceptions
// escape: malformed or mistyped input becomes a BadRequest.

#include "result.h"

#include <charconv>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace tessera::api {

template <typename T>
Result<T> parseJsonAs(std::string_view text, const char* what)
{
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) {
        return Error::badRequest(std::string("malformed JSON in ") + what);
    }
    try {
        return j.get<T>();
    } catch (const nlohmann::json::exception& e) {
        return Error::badRequest(std::string("invalid ") + what + ": " + e.what());
    }
}

// Appends `s` as a JSON string the way dumpJson writes it (for writers that
// build JSON text directly, without a document).
void appendJsonString(std::string& out, std::string_view s);

template <typename Int>
void appendJsonInt(std::string& out, Int v)
{
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

inline std::string dumpJson(const nlohmann::json& j)
{
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace tessera::api
