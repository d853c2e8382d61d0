#include "bmd.h"

#include "json_util.h"

#include <nlohmann/json.hpp>

namespace tessera::api {

const BucketProps* Bmd::find(std::string_view name) const
{
    auto it = buckets.find(std::string(name));
    return it == buckets.end() ? nullptr : &it->second;
}

void to_json(nlohmann::json& j, const ChecksumConf& v)
{
    j = nlohmann::json{{"type", v.type}, {"validate_warm_get", v.validateWarmGet}};
}

void from_json(const nlohmann::json& j, ChecksumConf& v)
{
    j.at("type").get_to(v.type);
    j.at("validate_warm_get").get_to(v.validateWarmGet);
}

void to_json(nlohmann::json& j, const BucketProps& v)
{
    j = nlohmann::json{{"provider", v.provider}, {"created", v.created}, {"checksum", v.checksum}};
}

void from_json(const nlohmann::json& j, BucketProps& v)
{
    j.at("provider").get_to(v.provider);
    j.at("created").get_to(v.created);
    j.at("checksum").get_to(v.checksum);
}

void to_json(nlohmann::json& j, const Bmd& v)
{
    j = nlohmann::json{{"version", v.version}, {"uuid", v.uuid}, {"buckets", v.buckets}};
}

void from_json(const nlohmann::json& j, Bmd& v)
{
    j.at("version").get_to(v.version);
    j.at("uuid").get_to(v.uuid);
    j.at("buckets").get_to(v.buckets);
}

void to_json(nlohmann::json& j, const BucketRef& v)
{
    j = nlohmann::json{{"name", v.name}, {"provider", v.provider}, {"namespace", {{"uuid", ""}, {"name", ""}}}};
}

void from_json(const nlohmann::json& j, BucketRef& v)
{
    j.at("name").get_to(v.name);
    v.provider = j.value("provider", std::string("ais"));
}

Result<Bmd> parseBmd(std::string_view json) { return parseJsonAs<Bmd>(json, "bucket metadata"); }
Result<BucketProps> parseBucketProps(std::string_view json)
{
    return parseJsonAs<BucketProps>(json, "bucket properties");
}

Status applyPropsUpdate(BucketProps& props, const nlohmann::json& update)
{
    if (!update.is_object()) {
        return Error::badRequest("bucket properties update must be a JSON object");
    }
    BucketProps next = props;
    for (const auto& [key, value] : update.items()) {
        if (key == "checksum") {
            if (!value.is_object()) {
                return Error::badRequest("\"checksum\" must be an object");
            }
            for (const auto& [ck, cv] : value.items()) {
                if (ck == "type") {
                    if (!cv.is_string() || cv.get<std::string>() != "xxhash") {
                        return Error::badRequest("checksum.type: only \"xxhash\" is supported");
                    }
                } else if (ck == "validate_warm_get") {
                    if (!cv.is_boolean()) {
                        return Error::badRequest("checksum.validate_warm_get must be a boolean");
                    }
                    next.checksum.validateWarmGet = cv.get<bool>();
                } else {
                    return Error::badRequest("unknown bucket property \"checksum." + ck + "\"");
                }
            }
        } else {
            return Error::badRequest("unknown or read-only bucket property \"" + key + "\"");
        }
    }
    props = next;
    return {};
}

}  // namespace tessera::api
