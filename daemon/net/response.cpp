#include "response.h"

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

Response Response::error(const api::Error& e)
{
    return jsonText(api::errorBody(e), api::httpStatusFor(e.kind));
}

Response Response::redirect(std::string location)
{
    Response r;
    r.status = 307;
    r.header("Location", std::move(location));
    return r;
}

}  // namespace tessera::daemon::net
