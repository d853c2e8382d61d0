#include "spec_checker.h"

#include "api/names.h"

namespace tessera::spec {

std::string describe(const std::vector<FieldError>& errors)
{
    std::string out;
    for (const auto& e : errors)
        out += (out.empty() ? "" : "; ") + (e.pointer.empty() ? "" : e.pointer + ": ") + e.message;
    return out;
}

std::optional<std::string> bucketField(const nlohmann::json& v)
{
    if (v.is_string()) return v.get<std::string>();
    if (v.is_object() && v.contains("name") && v["name"].is_string()) return v["name"].get<std::string>();
    return std::nullopt;
}

bool SpecChecker::checkObject(const std::set<std::string, std::less<>>& fields)
{
    if (!m_j.is_object()) {
        add("", "the spec must be a JSON object");
        return false;
    }
    for (const auto& [k, v] : m_j.items()) {
        if (!fields.count(k)) add("/" + k, "unknown field");
    }
    return true;
}

const nlohmann::json* SpecChecker::getIn(const nlohmann::json& obj, const char* key)
{
    auto it = obj.find(key);
    return it == obj.end() || it->is_null() ? nullptr : &*it;
}

void SpecChecker::bucket(const char* key, std::string& out, bool required)
{
    const auto* v = get(key);
    const std::string ptr = std::string("/") + key;
    if (v == nullptr) {
        if (required) add(ptr, "required: the name of a bucket");
        return;
    }
    auto name = bucketField(*v);
    if (!name) return add(ptr, "must be a bucket name or {\"name\":\"...\"}");
    if (auto st = api::validateBucketName(*name); !st) return add(ptr, st.error().message);
    out = *name;
}

void SpecChecker::boolean(const char* key, bool& out)
{
    if (const auto* v = get(key)) {
        if (!v->is_boolean()) add(std::string("/") + key, "must be true or false");
        else out = v->get<bool>();
    }
}

}  // namespace tessera::spec
