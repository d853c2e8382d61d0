#pragma once
// Validated route parameters shared by proxy and target handlers: nothing
// reaches a disk or a redirect before these checks pass.

#include "api/result.h"
#include "net/request.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

namespace tessera::daemon::api_util {

struct ObjectRef {
    std::string bucket;
    std::string name;
};

// {bucket} and {name...} of /v1/objects/<bucket>/<name>.
api::Result<ObjectRef> objectRef(const net::Request& req);
// {bucket} of /v1/buckets/<bucket>.
api::Result<std::string> bucketParam(const net::Request& req);
// The smap_version query parameter, when present.
api::Result<std::optional<std::int64_t>> smapVersionParam(const net::Request& req);

// A spec body (dSort, ishard, ETL) as JSON: Content-Type application/json
// (or none) or application/yaml (also application/x-yaml, text/yaml); any
// other type, malformed text or a document that is not a mapping is a
// BadRequest naming it (YAML and JSON errors give line and column).
api::Result<nlohmann::json> specBody(const net::Request& req, std::string_view what);

// "/v1/objects/<enc bucket>/<enc name>?<query with smap_version=N>"
std::string objectTarget(const ObjectRef& ref, api::QueryMap query, std::int64_t smapVersion);

}  // namespace tessera::daemon::api_util
