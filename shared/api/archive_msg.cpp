#include "archive_msg.h"

#include "names.h"

#include <nlohmann/json.hpp>
#include <set>

namespace tessera::api {

namespace {

const std::set<std::string, std::less<>> kFields = {
    "archname",        "mime",    "to_bck", "objnames", "template", "append_to_arch", "include_src_bck",
    "continue_on_err", "src_bck", "bck"};

Error field(const std::string& pointer, const std::string& message)
{
    return Error::badRequest("invalid archive request: " + pointer + ": " + message);
}

std::optional<std::string> bucketOf(const nlohmann::json& v)
{
    if (v.is_string()) return v.get<std::string>();
    if (v.is_object() && v.contains("name") && v["name"].is_string()) return v["name"].get<std::string>();
    return std::nullopt;
}

Status boolField(const nlohmann::json& j, const char* key, bool& out)
{
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return {};
    if (!it->is_boolean()) return field(std::string("/") + key, "must be true or false");
    out = it->get<bool>();
    return {};
}

}  // namespace

Result<ArchiveMsg> parseArchiveMsg(const nlohmann::json& j, const std::string& srcBck)
{
    if (!j.is_object()) return Error::badRequest("invalid archive request: the value must be a JSON object");
    for (const auto& [k, v] : j.items()) {
        if (!kFields.count(k)) return field("/" + k, "unknown field");
    }
    ArchiveMsg m;
    m.srcBck = srcBck;
    if (m.srcBck.empty()) {
        const char* key = j.contains("src_bck") ? "src_bck" : "bck";
        auto b = j.contains(key) ? bucketOf(j[key]) : std::nullopt;
        if (!b) return field("/src_bck", "required: the source bucket");
        m.srcBck = *b;
    }
    if (auto st = validateBucketName(m.srcBck); !st) return field("/src_bck", st.error().message);
    if (j.contains("to_bck") && !j["to_bck"].is_null()) {
        auto b = bucketOf(j["to_bck"]);
        if (!b) return field("/to_bck", "must be {\"name\":\"BUCKET\"} or a bucket name");
        if (auto st = validateBucketName(*b); !st) return field("/to_bck", st.error().message);
        m.toBck = *b;
    } else {
        m.toBck = m.srcBck;
    }
    if (!j.contains("archname") || !j["archname"].is_string() || j["archname"].get<std::string>().empty()) {
        return field("/archname", "required: the shard's name, such as \"shard-0.tar\"");
    }
    m.archName = j["archname"].get<std::string>();
    if (auto st = validateObjectName(m.archName); !st) return field("/archname", st.error().message);
    if (j.contains("mime") && !j["mime"].is_null()) {
        if (!j["mime"].is_string()) return field("/mime", "must be a string such as \"tar\"");
        m.mime = j["mime"].get<std::string>();
    }
    const bool hasList = j.contains("objnames") && !j["objnames"].is_null();
    const bool hasTemplate = j.contains("template") && !j["template"].is_null() &&
                             !(j["template"].is_string() && j["template"].get<std::string>().empty());
    if (hasList == hasTemplate) return field("/objnames", "give either objnames (a list) or template, exactly one");
    if (hasList) {
        const auto& l = j["objnames"];
        if (!l.is_array() || l.empty()) return field("/objnames", "must be a non-empty list of object names");
        if (l.size() > kMaxArchiveObjects) {
            return field("/objnames", std::to_string(l.size()) + " objects; at most " +
                                          std::to_string(kMaxArchiveObjects) + " in one shard");
        }
        m.objNames.reserve(l.size());
        for (std::size_t i = 0; i < l.size(); ++i) {
            const auto ptr = "/objnames/" + std::to_string(i);
            if (!l[i].is_string()) return field(ptr, "must be an object name");
            auto name = l[i].get<std::string>();
            if (auto st = validateObjectName(name); !st) return field(ptr, st.error().message);
            m.objNames.push_back(std::move(name));
        }
    } else {
        if (!j["template"].is_string()) return field("/template", "must be a brace template string");
        m.templ = j["template"].get<std::string>();
    }
    if (auto st = boolField(j, "append_to_arch", m.appendToArch); !st) return st.error();
    if (auto st = boolField(j, "include_src_bck", m.includeSrcBck); !st) return st.error();
    if (auto st = boolField(j, "continue_on_err", m.continueOnErr); !st) return st.error();
    return m;
}

void to_json(nlohmann::json& j, const ArchiveMsg& v)
{
    j = nlohmann::json{{"src_bck", v.srcBck},
                       {"to_bck", {{"name", v.toBck}}},
                       {"archname", v.archName},
                       {"mime", v.mime},
                       {"append_to_arch", v.appendToArch},
                       {"include_src_bck", v.includeSrcBck},
                       {"continue_on_err", v.continueOnErr}};
    if (!v.templ.empty()) j["template"] = v.templ;
    else j["objnames"] = v.objNames;
}

}  // namespace tessera::api
