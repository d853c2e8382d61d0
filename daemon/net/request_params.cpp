#include "request_params.h"

#include "spec/spec_text.h"

#include "api/headers.h"
#include "api/names.h"
#include "api/paths.h"

#include <charconv>

namespace tessera::daemon::api_util {

api::Result<nlohmann::json> specBody(const net::Request& req, std::string_view what)
{
    const auto type = req.header("Content-Type");
    const auto format = spec::specFormatForContentType(type);
    if (!format) {
        return api::Error::badRequest("invalid " + std::string(what) + " spec: Content-Type " + type +
                                      " (give application/json or application/yaml)");
    }
    auto j = spec::parseSpecText(req.body, *format, what);
    if (!j) return j.error();
    if (!j->is_object()) {
        return api::Error::badRequest("invalid " + std::string(what) + " spec: the document must be a " +
                                      (*format == spec::SpecFormat::Yaml ? "mapping" : "JSON object"));
    }
    return j;
}

api::Result<ObjectRef> objectRef(const net::Request& req)
{
    ObjectRef ref{req.param("bucket"), req.param("name")};
    auto st = api::validateBucketName(ref.bucket);
    if (!st) return st.error();
    st = api::validateObjectName(ref.name);
    if (!st) return st.error();
    return ref;
}

api::Result<std::string> bucketParam(const net::Request& req)
{
    auto b = req.param("bucket");
    auto st = api::validateBucketName(b);
    if (!st) return st.error();
    return b;
}

api::Result<std::optional<std::int64_t>> smapVersionParam(const net::Request& req)
{
    auto it = req.query.find(api::kQpSmapVersion);
    if (it == req.query.end()) return std::optional<std::int64_t>{};
    std::int64_t v = 0;
    const auto& s = it->second;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v < 0) {
        return api::Error::badRequest("smap_version must be a non-negative integer");
    }
    return std::optional<std::int64_t>{v};
}

std::string objectTarget(const ObjectRef& ref, api::QueryMap query, std::int64_t smapVersion)
{
    query[std::string(api::kQpSmapVersion)] = std::to_string(smapVersion);
    return api::path::object(ref.bucket, ref.name) + "?" + api::buildQuery(query);
}

}  // namespace tessera::daemon::api_util
