#include "s3_key_msg.h"

#include "auth_msg.h"

#include <algorithm>

namespace tessera::api {

Status validateS3AccessKey(std::string_view id)
{
    using namespace s3_key_limits;
    if (id.size() < kMinAccessKeyBytes || id.size() > kMaxAccessKeyBytes) {
        return Error::badRequest("an S3 access key id is " + std::to_string(kMinAccessKeyBytes) + " to " +
                                 std::to_string(kMaxAccessKeyBytes) + " letters and digits");
    }
    const bool ok = std::all_of(id.begin(), id.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    });
    if (!ok) return Error::badRequest("an S3 access key id holds only letters and digits");
    return {};
}

namespace {

void checkDescription(FieldReader& r, const std::string& d)
{
    if (r.ok() && d.size() > s3_key_limits::kMaxDescriptionBytes) {
        r.fail(r.pointerTo("description"),
               "is longer than " + std::to_string(s3_key_limits::kMaxDescriptionBytes) + " bytes");
    }
}

void readInfoFields(FieldReader& r, S3KeyInfo& v)
{
    r.required("access_key", v.accessKey)
        .required("user", v.user)
        .optional("description", v.description)
        .required("created_at", v.createdAt);
    if (!r.ok()) return;
    if (auto st = validateS3AccessKey(v.accessKey); !st) return r.fail(r.pointerTo("access_key"), st.error().message);
    if (auto st = validateUserName(v.user); !st) return r.fail(r.pointerTo("user"), st.error().message);
    checkDescription(r, v.description);
    if (r.ok() && v.createdAt < 0) r.fail(r.pointerTo("created_at"), "must not be negative");
}

}  // namespace

void to_json(nlohmann::json& j, const NewS3Key& v)
{
    j = nlohmann::json::object();
    if (!v.description.empty()) j["description"] = v.description;
}

void readFields(FieldReader& r, NewS3Key& v)
{
    r.optional("description", v.description);
    checkDescription(r, v.description);
}

void to_json(nlohmann::json& j, const S3KeyInfo& v)
{
    j = nlohmann::json{{"access_key", v.accessKey}, {"user", v.user}, {"created_at", v.createdAt}};
    if (!v.description.empty()) j["description"] = v.description;
}

void readFields(FieldReader& r, S3KeyInfo& v) { readInfoFields(r, v); }

void to_json(nlohmann::json& j, const S3KeyCreated& v)
{
    to_json(j, v.key);
    j["secret_key"] = v.secretKey;
}

void readFields(FieldReader& r, S3KeyCreated& v)
{
    readInfoFields(r, v.key);
    r.required("secret_key", v.secretKey);
    using namespace s3_key_limits;
    if (r.ok() && (v.secretKey.size() < kMinSecretBytes || v.secretKey.size() > kMaxSecretBytes)) {
        r.fail(r.pointerTo("secret_key"),
               "must be " + std::to_string(kMinSecretBytes) + " to " + std::to_string(kMaxSecretBytes) + " bytes");
    }
}

}  // namespace tessera::api
