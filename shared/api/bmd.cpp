#include "bmd.h"

#include "json_util.h"
#include "json_whole_numbers.h"

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

void to_json(nlohmann::json& j, const MirrorConf& v)
{
    j = nlohmann::json{
        {"enabled", v.enabled}, {"copies", v.copies}, {"across_targets", v.acrossTargets}, {"pending", v.pending}};
}

void from_json(const nlohmann::json& j, MirrorConf& v)
{
    j.at("enabled").get_to(v.enabled);
    j.at("copies").get_to(v.copies);
    v.acrossTargets = j.value("across_targets", false);
    v.pending = j.value("pending", false);
}

void to_json(nlohmann::json& j, const EcConf& v)
{
    j = nlohmann::json{{"enabled", v.enabled},
                       {"data_slices", v.dataSlices},
                       {"parity_slices", v.paritySlices},
                       {"objsize_limit", v.objsizeLimit},
                       {"pending", v.pending}};
}

void from_json(const nlohmann::json& j, EcConf& v)
{
    const EcConf d;
    j.at("enabled").get_to(v.enabled);
    v.dataSlices = j.value("data_slices", d.dataSlices);
    v.paritySlices = j.value("parity_slices", d.paritySlices);
    v.objsizeLimit = j.value("objsize_limit", d.objsizeLimit);
    v.pending = j.value("pending", false);
}

void to_json(nlohmann::json& j, const BucketProps& v)
{
    j = nlohmann::json{
        {"provider", v.provider}, {"created", v.created}, {"checksum", v.checksum}, {"mirror", v.mirror}, {"ec", v.ec}};
}

void from_json(const nlohmann::json& j, BucketProps& v)
{
    j.at("provider").get_to(v.provider);
    j.at("created").get_to(v.created);
    j.at("checksum").get_to(v.checksum);
    // Absent in the metadata of buckets made before mirroring existed.
    if (auto it = j.find("mirror"); it != j.end()) it->get_to(v.mirror);
    else v.mirror = MirrorConf{};
    // Absent in the metadata of buckets made before erasure coding existed.
    if (auto it = j.find("ec"); it != j.end()) it->get_to(v.ec);
    else v.ec = EcConf{};
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

Result<Bmd> parseBmd(std::string_view json) { return parseWholeNumberJsonAs<Bmd>(json, "bucket metadata"); }
Result<BucketProps> parseBucketProps(std::string_view json)
{
    return parseWholeNumberJsonAs<BucketProps>(json, "bucket properties");
}

namespace {

// An integer field of a props update within [lo, hi].
Status readBounded(const nlohmann::json& v, const std::string& name, std::int64_t lo, std::int64_t hi,
                   std::int64_t& out)
{
    if (!v.is_number_integer() || v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi) {
        return Error::badRequest(name + " must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
    }
    out = v.get<std::int64_t>();
    return {};
}

Status applyEcUpdate(EcConf& ec, const nlohmann::json& value)
{
    if (!value.is_object()) return Error::badRequest("\"ec\" must be an object");
    for (const auto& [k, v] : value.items()) {
        std::int64_t n = 0;
        if (k == "enabled") {
            if (!v.is_boolean()) return Error::badRequest("ec.enabled must be a boolean");
            ec.enabled = v.get<bool>();
        } else if (k == "data_slices") {
            if (auto st = readBounded(v, "ec.data_slices", 1, EcConf::kMaxData, n); !st) return st;
            ec.dataSlices = static_cast<std::int32_t>(n);
        } else if (k == "parity_slices") {
            if (auto st = readBounded(v, "ec.parity_slices", 1, EcConf::kMaxParity, n); !st) return st;
            ec.paritySlices = static_cast<std::int32_t>(n);
        } else if (k == "objsize_limit") {
            if (auto st = readBounded(v, "ec.objsize_limit", 0, EcConf::kMaxObjsizeLimit, n); !st) return st;
            ec.objsizeLimit = n;
        } else if (k == "pending") {
            return Error::badRequest("ec.pending is read-only (the cluster sets it)");
        } else {
            return Error::badRequest("unknown bucket property \"ec." + k + "\"");
        }
    }
    return {};
}

}  // namespace

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
        } else if (key == "mirror") {
            if (!value.is_object()) return Error::badRequest("\"mirror\" must be an object");
            for (const auto& [mk, mv] : value.items()) {
                if (mk == "enabled" || mk == "across_targets") {
                    if (!mv.is_boolean()) return Error::badRequest("mirror." + mk + " must be a boolean");
                    (mk == "enabled" ? next.mirror.enabled : next.mirror.acrossTargets) = mv.get<bool>();
                } else if (mk == "copies") {
                    if (!mv.is_number_integer() || mv.get<std::int64_t>() < 1 ||
                        mv.get<std::int64_t>() > MirrorConf::kMaxCopies) {
                        return Error::badRequest("mirror.copies must be an integer from 1 to " +
                                                 std::to_string(MirrorConf::kMaxCopies));
                    }
                    next.mirror.copies = static_cast<std::int32_t>(mv.get<std::int64_t>());
                } else if (mk == "pending") {
                    return Error::badRequest("mirror.pending is read-only (the cluster sets it)");
                } else {
                    return Error::badRequest("unknown bucket property \"mirror." + mk + "\"");
                }
            }
        } else if (key == "ec") {
            if (auto st = applyEcUpdate(next.ec, value); !st) return st;
        } else {
            return Error::badRequest("unknown or read-only bucket property \"" + key + "\"");
        }
    }
    props = next;
    return {};
}

}  // namespace tessera::api
