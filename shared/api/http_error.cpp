#include "http_error.h"

#include <nlohmann/json.hpp>

namespace tessera::api {

const char* errorKindName(ErrorKind kind)
{
    switch (kind) {
    case ErrorKind::BadRequest: return "BadRequest";
    case ErrorKind::NotFound: return "NotFound";
    case ErrorKind::Conflict: return "Conflict";
    case ErrorKind::Corruption: return "Corruption";
    case ErrorKind::IoError: return "IoError";
    case ErrorKind::NoSpace: return "NoSpace";
    case ErrorKind::Unavailable: return "Unavailable";
    case ErrorKind::Timeout: return "Timeout";
    case ErrorKind::RangeNotSatisfiable: return "RangeNotSatisfiable";
    case ErrorKind::TooLarge: return "TooLarge";
    case ErrorKind::HeaderTooLarge: return "HeaderTooLarge";
    case ErrorKind::MethodNotAllowed: return "MethodNotAllowed";
    case ErrorKind::Unauthorized: return "Unauthorized";
    case ErrorKind::Forbidden: return "Forbidden";
    case ErrorKind::BadGateway: return "BadGateway";
    case ErrorKind::TooManyRequests: return "TooManyRequests";
    case ErrorKind::Internal: return "Internal";
    }
    return "Internal";
}

int httpStatusFor(ErrorKind kind)
{
    switch (kind) {
    case ErrorKind::BadRequest: return 400;
    case ErrorKind::NotFound: return 404;
    case ErrorKind::MethodNotAllowed: return 405;
    case ErrorKind::Unauthorized: return 401;
    case ErrorKind::Forbidden: return 403;
    case ErrorKind::Conflict: return 409;
    case ErrorKind::TooLarge: return 413;
    case ErrorKind::HeaderTooLarge: return 431;
    case ErrorKind::RangeNotSatisfiable: return 416;
    case ErrorKind::Corruption: return 422;
    case ErrorKind::NoSpace: return 507;
    case ErrorKind::Unavailable: return 503;
    case ErrorKind::Timeout: return 504;
    case ErrorKind::BadGateway: return 502;
    case ErrorKind::TooManyRequests: return 429;
    case ErrorKind::IoError: return 500;
    case ErrorKind::Internal: return 500;
    }
    return 500;
}

ErrorKind errorKindForStatus(int status)
{
    switch (status) {
    case 400: return ErrorKind::BadRequest;
    case 404: return ErrorKind::NotFound;
    case 401: return ErrorKind::Unauthorized;
    case 403: return ErrorKind::Forbidden;
    case 405: return ErrorKind::MethodNotAllowed;
    case 409: return ErrorKind::Conflict;
    case 413: return ErrorKind::TooLarge;
    case 431: return ErrorKind::HeaderTooLarge;
    case 416: return ErrorKind::RangeNotSatisfiable;
    case 422: return ErrorKind::Corruption;
    case 429: return ErrorKind::TooManyRequests;
    case 502: return ErrorKind::BadGateway;
    case 503: return ErrorKind::Unavailable;
    case 504: return ErrorKind::Timeout;
    case 507: return ErrorKind::NoSpace;
    default: break;
    }
    if (status >= 400 && status < 500) {
        return ErrorKind::BadRequest;
    }
    return ErrorKind::Internal;
}

std::string errorBody(const Error& error)
{
    nlohmann::json j;
    j["status"] = httpStatusFor(error.kind);
    j["message"] = error.message;
    if (!error.causedBy.empty()) {
        j["caused_by"] = error.causedBy;
    }
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string firstLine(std::string_view text, std::size_t maxChars)
{
    while (!text.empty() &&
           (text.front() == ' ' || text.front() == '\n' || text.front() == '\r' || text.front() == '\t')) {
        text.remove_prefix(1);
    }
    auto line = text.substr(0, text.find_first_of("\r\n"));
    std::string out;
    for (char c : line.substr(0, maxChars)) out += (static_cast<unsigned char>(c) < 0x20) ? ' ' : c;
    if (line.size() > maxChars) out += "...";
    return out;
}

Error errorFromResponse(int status, std::string_view body)
{
    Error e;
    e.kind = errorKindForStatus(status);
    auto j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_object() && j.contains("message") && j["message"].is_string()) {
        e.message = j["message"].get<std::string>();
        if (j.contains("caused_by") && j["caused_by"].is_string()) {
            e.causedBy = j["caused_by"].get<std::string>();
        }
    } else {
        // Not Tessera's error shape (a proxy in between, another server):
        // its first line is enough, never a whole page.
        e.message = "HTTP " + std::to_string(status);
        const auto line = firstLine(body, 160);
        if (!line.empty()) e.message += ": " + line;
    }
    return e;
}

}  // namespace tessera::api
