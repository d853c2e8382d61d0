#include "s3_errors.h"

#include "api/http_error.h"
#include "api/s3_msg.h"

#include <nlohmann/json.hpp>

namespace tessera::daemon::s3 {

namespace {
// "NoSuchKey: text" -> {"NoSuchKey", "text"}; no code: {"", message}.
std::pair<std::string, std::string> splitCode(const std::string& message)
{
    const auto colon = message.find(": ");
    if (colon == std::string::npos || colon == 0 || colon > 40) return {"", message};
    const auto code = message.substr(0, colon);
    for (char c : code) {
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return {"", message};
    }
    if (code.front() < 'A' || code.front() > 'Z') return {"", message};
    return {code, message.substr(colon + 2)};
}
}  // namespace

net::Response xmlResponse(int status, std::string body)
{
    net::Response r;
    r.status = status;
    r.header("Content-Type", "application/xml");
    r.body = std::move(body);
    return r;
}

net::Response s3Error(int status, const std::string& code, const std::string& message, const std::string& resource)
{
    return xmlResponse(status, api::toXml(api::S3Error{code, message, resource, {}}));
}

net::Response fromError(const api::Error& e, const std::string& resource)
{
    auto [code, text] = splitCode(e.message);
    if (!e.causedBy.empty()) text += " (" + e.causedBy + ")";
    using K = api::ErrorKind;
    switch (e.kind) {
    case K::BadRequest: return s3Error(400, code.empty() ? "InvalidArgument" : code, text, resource);
    case K::NotFound: return s3Error(404, code.empty() ? "NoSuchKey" : code, text, resource);
    case K::Conflict: return s3Error(409, code.empty() ? "OperationAborted" : code, text, resource);
    case K::Forbidden: return s3Error(403, code.empty() ? "AccessDenied" : code, text, resource);
    case K::Unauthorized: {
        // Only a bearer token that does not verify (S3Context): SigV4
        // failures are Forbidden, as S3 answers them.
        auto r = s3Error(401, code.empty() ? "InvalidToken" : code, text, resource);
        r.header("WWW-Authenticate", "Bearer realm=\"tessera\"");
        return r;
    }
    case K::TooLarge: return s3Error(400, "EntityTooLarge", text, resource);
    case K::RangeNotSatisfiable: return s3Error(416, "InvalidRange", text, resource);
    case K::NoSpace: return s3Error(507, "InsufficientStorage", text, resource);
    case K::Unavailable:
    case K::Timeout:
    case K::BadGateway:
    case K::TooManyRequests: {
        auto r = s3Error(503, code.empty() ? "ServiceUnavailable" : code, text, resource);
        r.header("Retry-After", "1");
        return r;
    }
    default: return s3Error(500, "InternalError", text, resource);
    }
}

net::Response fromStatus(int status, const std::string& body, const std::string& resource,
                         const std::string& notFoundCode)
{
    // The node's JSON error, read as every client reads it.
    const auto error = api::errorFromResponse(status, body);
    // A target's error that names its S3 code ("NoSuchUpload: ...") keeps it.
    if (status >= 400 && !splitCode(error.message).first.empty()) return fromError(error, resource);
    const std::string& message = error.message;
    switch (status) {
    case 400: return s3Error(400, "InvalidArgument", message, resource);
    case 403:
    case 401: return s3Error(403, "AccessDenied", message, resource);
    case 404: return s3Error(404, notFoundCode, message, resource);
    case 409: return s3Error(409, "OperationAborted", message, resource);
    case 413: return s3Error(400, "EntityTooLarge", message, resource);
    case 416: return s3Error(416, "InvalidRange", message, resource);
    case 507: return s3Error(507, "InsufficientStorage", message, resource);
    default:
        if (status >= 500) {
            auto r = s3Error(503, "ServiceUnavailable", message, resource);
            r.header("Retry-After", "1");
            return r;
        }
        return s3Error(status >= 400 && status < 500 ? status : 502, "InvalidRequest", message, resource);
    }
}

net::Response fromNative(const client::Response& r, const std::string& resource, const std::string& notFoundCode)
{
    return fromStatus(r.status, r.body, resource, notFoundCode);
}

}  // namespace tessera::daemon::s3
