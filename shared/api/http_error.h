#pragma once
// The one place where error kinds meet HTTP: status codes and the JSON error
// body {"status":N,"message":"...","caused_by":"..."}.

#include "result.h"

#include <string>
#include <string_view>

namespace tessera::api {

int httpStatusFor(ErrorKind kind);

// Serialized JSON error body for `error`.
std::string errorBody(const Error& error);

// Client side: rebuild an Error from a non-2xx response. Falls back to the
// raw body when it is not the JSON error shape.
Error errorFromResponse(int status, std::string_view body);

ErrorKind errorKindForStatus(int status);

// The first non-empty line of `text`, at most `maxChars` (then "..."),
// control characters blanked: how a foreign answer is quoted in an error.
std::string firstLine(std::string_view text, std::size_t maxChars);

}  // namespace tessera::api
