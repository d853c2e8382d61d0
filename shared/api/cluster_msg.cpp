#include "cluster_msg.h"

namespace tessera::api {

void to_json(nlohmann::json& j, const Keepalive& v)
{
    j = nlohmann::json{{"daemon_id", v.daemonId},
                       {"smap_version", v.smapVersion},
                       {"bmd_version", v.bmdVersion},
                       {"etl_version", v.etlVersion}};
}

void readFields(FieldReader& r, Keepalive& v)
{
    r.required("daemon_id", v.daemonId)
        .optional("smap_version", v.smapVersion)
        .optional("bmd_version", v.bmdVersion)
        .optional("etl_version", v.etlVersion);
}

void to_json(nlohmann::json& j, const MetaVersions& v)
{
    j = nlohmann::json{{"smap_version", v.smapVersion}, {"bmd_version", v.bmdVersion}, {"etl_version", v.etlVersion}};
}

void readFields(FieldReader& r, MetaVersions& v)
{
    r.required("smap_version", v.smapVersion)
        .required("bmd_version", v.bmdVersion)
        .optional("etl_version", v.etlVersion);
}

void to_json(nlohmann::json& j, const Metasync& v)
{
    j = nlohmann::json::object();
    if (v.smap) j["smap"] = *v.smap;
    if (v.bmd) j["bmd"] = *v.bmd;
    if (v.etl) j["etl"] = *v.etl;
    if (v.revoked) j["revoked"] = *v.revoked;
    if (v.tokenKeys) j["token_keys"] = *v.tokenKeys;
}

void readFields(FieldReader& r, Metasync& v)
{
    r.optional("smap", v.smap)
        .optional("bmd", v.bmd)
        .optional("etl", v.etl)
        .optional("revoked", v.revoked)
        .optional("token_keys", v.tokenKeys);
}

void to_json(nlohmann::json& j, const JoinReply& v)
{
    j = nlohmann::json{{"smap", v.smap}, {"bmd", v.bmd}, {"etl", v.etl}};
    if (v.revoked) j["revoked"] = *v.revoked;
    if (v.tokenKeys) j["token_keys"] = *v.tokenKeys;
}

void readFields(FieldReader& r, JoinReply& v)
{
    r.required("smap", v.smap)
        .required("bmd", v.bmd)
        .optional("etl", v.etl)
        .optional("revoked", v.revoked)
        .optional("token_keys", v.tokenKeys);
}

void to_json(nlohmann::json& j, const Health& v)
{
    j = nlohmann::json{
        {"status", v.status}, {"role", v.role}, {"daemon_id", v.daemonId}, {"smap_version", v.smapVersion}};
    if (v.targets) j["targets"] = *v.targets;
}

void readFields(FieldReader& r, Health& v)
{
    r.required("status", v.status)
        .required("role", v.role)
        .required("daemon_id", v.daemonId)
        .required("smap_version", v.smapVersion)
        .optional("targets", v.targets);
}

}  // namespace tessera::api
