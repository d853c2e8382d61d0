#include "response.h"

#include "api/headers.h"

#include "api/http_error.h"
#include "api/json_util.h"

#include <nlohmann/json.hpp>

namespace tessera::daemon::net {

Response Response::ok() { return Response{}; }

Response Response::json(const nlohmann::json& j, int status) { return jsonText(api::dumpJson(j), status); }

Response Response::jsonText(std::string text, int status)
{
    Response r;
    r.status = status;
    r.body = std::move(text);
    r.header("Content-Type", "application/json");
    return r;
}

Response Response::msgpack(std::string bytes, int status)
{
    Response r;
    r.status = status;
    r.body = std::move(bytes);
    r.header("Content-Type", std::string(api::kMimeMsgpack));
    return r;
}

Response Response::error(const api::Error& e)
{
    auto r = jsonText(api::errorBody(e), api::httpStatusFor(e.kind));
    if (e.kind == api::ErrorKind::Unavailable) r.header("Retry-After", "1");
    // RFC 7235: a 401 names the scheme that would be accepted.
    if (e.kind == api::ErrorKind::Unauthorized) r.header("WWW-Authenticate", "Bearer realm=\"tessera\"");
    return r;
}

Response& Response::setHeader(std::string_view name, std::string value)
{
    for (auto& [n, v] : headers) {
        if (api::sameFieldName(n, name)) {
            v = std::move(value);
            return *this;
        }
    }
    return header(std::string(name), std::move(value));
}

Response Response::redirect(std::string location)
{
    Response r;
    r.status = 307;
    r.header("Location", std::move(location));
    return r;
}

}  // namespace tessera::daemon::net
