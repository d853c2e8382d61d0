#include "dsort_spec_legacy.h"

#include "brace_template.h"

#include <algorithm>
#include <cstdint>

namespace tessera::spec {

namespace {

api::Error bad(const std::string& field, const std::string& why)
{
    return api::Error::badRequest("invalid dsort spec: " + field + ": " + why);
}

bool isZero(const nlohmann::json& v)
{
    return v.is_null() || (v.is_string() && v.get_ref<const std::string&>().empty()) ||
           (v.is_number_integer() && v.get<std::int64_t>() == 0);
}

// A bucket AIStore's way: {"name":"b","provider":"ais","namespace":{...}};
// an empty name means "not given".
bool emptyBucket(const nlohmann::json& v)
{
    if (v.is_null()) return true;
    if (v.is_string()) return v.get_ref<const std::string&>().empty();
    return v.is_object() && v.contains("name") && v["name"].is_string() &&
           v["name"].get_ref<const std::string&>().empty();
}

api::Status renameLegacy(nlohmann::json& j, const char* legacy, const char* current)
{
    if (!j.contains(legacy)) return {};
    if (j.contains(current) && !j[current].is_null()) {
        return bad(std::string("/") + legacy,
                   std::string("the older name of ") + current + ": give one of " + legacy + " and " + current);
    }
    j[current] = std::move(j[legacy]);
    j.erase(legacy);
    return {};
}

}  // namespace

api::Result<std::string> printfToBraceTemplate(const std::string& format)
{
    const auto pct = format.find('%');
    if (pct == std::string::npos) return format;
    const std::string help = "a printf-style name has one %d or %0Nd (N 1..9), e.g. \"shard-%06d\"";
    if (format.find('{') != std::string::npos) return bad("/output_format", "mixes a brace range and %: " + help);
    std::size_t i = pct + 1;
    bool zero = false;
    if (i < format.size() && format[i] == '0') zero = true, ++i;
    int width = 0;
    while (i < format.size() && format[i] >= '0' && format[i] <= '9' && width < 100)
        width = width * 10 + (format[i++] - '0');
    if (i >= format.size() || format[i] != 'd' || (zero && (width < 1 || width > 9)) || (!zero && width != 0)) {
        return bad("/output_format", "\"" + format + "\": " + help);
    }
    const std::string prefix = format.substr(0, pct);
    const std::string suffix = format.substr(i + 1);
    if (suffix.find('%') != std::string::npos) return bad("/output_format", "\"" + format + "\": " + help);
    std::string range;
    if (!zero || width == 1) {
        // Unpadded: as many shards as a brace template may name.
        range = "{0.." + std::to_string(BraceTemplate::kMaxCount - 1) + "}";
    } else {
        // Zero-padded to `width`: 10^width names, at most kMaxCount.
        std::uint64_t end = 1;
        for (int k = 0; k < width; ++k) end *= 10;
        end = std::min<std::uint64_t>(end, BraceTemplate::kMaxCount) - 1;
        auto last = std::to_string(end);
        last.insert(0, static_cast<std::size_t>(width) - last.size(), '0');
        range = "{" + std::string(static_cast<std::size_t>(width), '0') + ".." + last + "}";
    }
    return prefix + range + suffix;
}

api::Result<nlohmann::json> normalizeAisDsortSpec(const nlohmann::json& spec)
{
    if (!spec.is_object()) return spec;  // the checker says what is wrong
    nlohmann::json j = spec;
    if (auto st = renameLegacy(j, "bck", "input_bck"); !st) return st.error();
    if (auto st = renameLegacy(j, "extension", "input_extension"); !st) return st.error();

    // Go's zero values: "not set".
    for (const char* k :
         {"input_extension", "output_extension", "description", "ekm_file", "max_mem_usage",
          "extract_concurrency_max_limit", "create_concurrency_max_limit", "duplicated_records", "missing_shards"}) {
        if (j.contains(k) && isZero(j[k])) j.erase(k);
    }
    if (j.contains("output_bck") && emptyBucket(j["output_bck"])) j.erase("output_bck");
    if (j.contains("dsorter_type")) {
        const auto& t = j["dsorter_type"];
        if (!t.is_null() && !(t.is_string() && (t == "" || t == "dsorter_general" || t == "dsorter_mem"))) {
            return bad("/dsorter_type", "must be \"\", \"dsorter_general\" or \"dsorter_mem\" (it has no effect)");
        }
        j.erase("dsorter_type");
    }
    if (j.contains("ekm_file_sep")) {
        const auto& sep = j["ekm_file_sep"];
        if (!sep.is_null() && !(sep.is_string() && (sep == "" || sep == "\t"))) {
            return bad("/ekm_file_sep", "must be \"\" or a tab (Tessera's key maps are JSON: it has no effect)");
        }
        j.erase("ekm_file_sep");
    }
    if (j.contains("Config")) {
        const auto& c = j["Config"];
        if (!c.is_null() && !c.is_object()) return bad("/Config", "must be an object (AIStore's DsortConf)");
        if (c.is_object()) {
            for (const char* k : {"duplicated_records", "missing_shards"}) {
                if (c.contains(k) && !isZero(c[k]) && !j.contains(k)) j[k] = c[k];
            }
        }
        j.erase("Config");
    }
    if (j.contains("input_format") && j["input_format"].is_object()) {
        auto& f = j["input_format"];
        if (f.contains("template") && isZero(f["template"]) && f.contains("objnames") && !f["objnames"].is_null()) {
            f.erase("template");
        }
        if (f.contains("objnames") && f["objnames"].is_null()) f.erase("objnames");
    }
    if (j.contains("algorithm") && j["algorithm"].is_object()) {
        auto& a = j["algorithm"];
        for (const char* k : {"kind", "extension", "content_key_type", "seed"}) {
            if (a.contains(k) && isZero(a[k])) a.erase(k);
        }
        if (a.contains("decreasing") && a["decreasing"] == false) a.erase("decreasing");
    }
    if (j.contains("dry_run") && j["dry_run"] == false) j.erase("dry_run");
    if (j.contains("output_format") && j["output_format"].is_string()) {
        auto t = printfToBraceTemplate(j["output_format"].get<std::string>());
        if (!t) return t.error();
        j["output_format"] = *t;
    }
    return j;
}

}  // namespace tessera::spec
