#pragma once
// Bucket metadata (BMD): every bucket and its properties, versioned. The
// proxy owns it; targets hold copies.

#include "result.h"

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace tessera::api {

struct ChecksumConf {
    std::string type = "xxhash";   // only "xxhash" is supported
    bool validateWarmGet = false;  // JSON: validate_warm_get; verify on every GET
    bool operator==(const ChecksumConf&) const = default;
};

struct BucketProps {
    std::string provider = "ais";
    std::int64_t created = 0;  // unix ns
    ChecksumConf checksum;
    bool operator==(const BucketProps&) const = default;
};

struct Bmd {
    std::int64_t version = 0;
    std::string uuid;
    std::map<std::string, BucketProps> buckets;  // JSON: buckets

    const BucketProps* find(std::string_view name) const;
};

// A bucket as listed by GET /v1/buckets (AIStore's cmn.Bck shape).
struct BucketRef {
    std::string name;
    std::string provider = "ais";
};

void to_json(nlohmann::json& j, const ChecksumConf& v);
void from_json(const nlohmann::json& j, ChecksumConf& v);
void to_json(nlohmann::json& j, const BucketProps& v);
void from_json(const nlohmann::json& j, BucketProps& v);
void to_json(nlohmann::json& j, const Bmd& v);
void from_json(const nlohmann::json& j, Bmd& v);
void to_json(nlohmann::json& j, const BucketRef& v);
void from_json(const nlohmann::json& j, BucketRef& v);

Result<Bmd> parseBmd(std::string_view json);
Result<BucketProps> parseBucketProps(std::string_view json);

// Applies a partial props update ({"checksum":{"validate_warm_get":true}}) to
// `props`. Unknown fields and wrong types are BadRequest; nothing changes then.
Status applyPropsUpdate(BucketProps& props, const nlohmann::json& update);

}  // namespace tessera::api
