#pragma once
// Parsing JSON from the wire into typed structs without letting exceptions
// escape: malformed or mistyped input becomes a BadRequest.

#include "result.h"

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

inline std::string dumpJson(const nlohmann::json& j)
{
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace tessera::api
