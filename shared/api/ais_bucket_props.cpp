#include "ais_bucket_props.h"

#include "json_util.h"

#include <charconv>
#include <nlohmann/json.hpp>

namespace tessera::api {

namespace {

nlohmann::json rateLimitBase() { return {{"interval", "0s"}, {"max_tokens", 0}, {"enabled", false}}; }

}  // namespace

std::pair<std::string, std::string> aisBucketPropsHeaders(const BucketProps& p)
{
    auto backend = rateLimitBase();
    backend["num_retries"] = 0;
    auto frontend = rateLimitBase();
    frontend["burst_size"] = 0;
    const nlohmann::json ais{
        {"write_policy", {{"data", "immediate"}, {"md", "immediate"}}},
        {"provider", p.provider},
        {"Renamed", ""},  // cmn.Bprops.Renamed has no json tag: Go writes its field name
        {"checksum",
         {{"type", p.checksum.type},
          {"validate_cold_get", false},
          {"validate_warm_get", p.checksum.validateWarmGet},
          {"validate_obj_move", false},
          {"enable_read_range", false}}},
        {"rate_limit", {{"backend", backend}, {"frontend", frontend}}},
        {"ec",
         {{"compression", "never"},
          {"bundle_multiplier", 0},
          {"burst_buffer", 0},
          {"objsize_limit", p.ec.objsizeLimit},
          {"data_slices", p.ec.dataSlices},
          {"parity_slices", p.ec.paritySlices},
          {"enabled", p.ec.enabled},
          {"disk_only", false}}},
        {"chunks", {{"objsize_limit", "0B"}}},
        {"mirror", {{"copies", p.mirror.copies}, {"burst_buffer", 0}, {"enabled", p.mirror.enabled}}},
        {"lru", {{"dont_evict_time", "0s"}, {"capacity_upd_time", "0s"}, {"enabled", false}}},
        {"access", "18446744073709551615"},
        {"features", "0"},
        {"bid", "0"},
        {"created", std::to_string(p.created)},
        {"versioning", {{"enabled", true}, {"validate_warm_get", false}, {"synchronize", false}}},
    };
    const nlohmann::json ext{{"mirror", {{"across_targets", p.mirror.acrossTargets}, {"pending", p.mirror.pending}}},
                             {"ec", {{"pending", p.ec.pending}}}};
    return {dumpJson(ais), dumpJson(ext)};
}

Result<BucketProps> parseAisBucketProps(std::string_view ais, std::string_view ext)
{
    const auto j = nlohmann::json::parse(ais, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return Error::badRequest("bucket properties: not a JSON object");
    BucketProps p;
    try {
        j.at("provider").get_to(p.provider);
        const auto& created = j.at("created").get_ref<const std::string&>();
        auto [ptr, ec] = std::from_chars(created.data(), created.data() + created.size(), p.created);
        if (ec != std::errc() || ptr != created.data() + created.size()) {
            return Error::badRequest("bucket properties: /created must be a decimal string");
        }
        j.at("checksum").at("type").get_to(p.checksum.type);
        j.at("checksum").at("validate_warm_get").get_to(p.checksum.validateWarmGet);
        j.at("mirror").at("enabled").get_to(p.mirror.enabled);
        j.at("mirror").at("copies").get_to(p.mirror.copies);
        const auto& e = j.at("ec");
        e.at("enabled").get_to(p.ec.enabled);
        e.at("data_slices").get_to(p.ec.dataSlices);
        e.at("parity_slices").get_to(p.ec.paritySlices);
        e.at("objsize_limit").get_to(p.ec.objsizeLimit);
        if (!ext.empty()) {
            const auto x = nlohmann::json::parse(ext, nullptr, false);
            if (x.is_discarded() || !x.is_object()) return Error::badRequest("bucket properties: unreadable extension");
            p.mirror.acrossTargets = x.at("mirror").at("across_targets").get<bool>();
            p.mirror.pending = x.at("mirror").at("pending").get<bool>();
            p.ec.pending = x.at("ec").at("pending").get<bool>();
        }
    } catch (const nlohmann::json::exception& e) {
        return Error::badRequest(std::string("bucket properties: ") + e.what());
    }
    return p;
}

}  // namespace tessera::api
