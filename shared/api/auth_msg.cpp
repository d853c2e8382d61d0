#include "auth_msg.h"

#include <algorithm>

namespace tessera::api {

std::string_view permissionName(Permission p)
{
    switch (p) {
    case Permission::Read: return "read";
    case Permission::List: return "list";
    case Permission::Write: return "write";
    case Permission::Delete: return "delete";
    case Permission::AdminBucket: return "admin-bucket";
    }
    return "read";
}

std::optional<Permission> permissionFromName(std::string_view name)
{
    for (auto p : kAllPermissions) {
        if (permissionName(p) == name) return p;
    }
    return std::nullopt;
}

Status validateUserName(std::string_view name)
{
    if (name.empty() || name.size() > auth_limits::kMaxUserNameBytes) {
        return Error::badRequest("a user name is 1 to " + std::to_string(auth_limits::kMaxUserNameBytes) + " bytes");
    }
    for (char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                        c == '_' || c == '-';
        if (!ok) return Error::badRequest("a user name holds only letters, digits, '.', '_' and '-'");
    }
    return {};
}

namespace {

// The password's length is checked again by the hash; this bound only keeps
// a huge body from travelling further.
void checkPassword(FieldReader& r, const std::string& password)
{
    if (r.ok() && password.size() > auth_limits::kMaxPasswordBytes) {
        r.fail(r.pointerTo("password"), "is longer than " + std::to_string(auth_limits::kMaxPasswordBytes) + " bytes");
    }
}

void checkToken(FieldReader& r, std::string_view key, const std::string& token)
{
    if (!r.ok()) return;
    if (token.empty()) return r.fail(r.pointerTo(key), "must not be empty");
    if (token.size() > auth_limits::kMaxTokenBytes) {
        r.fail(r.pointerTo(key), "is longer than " + std::to_string(auth_limits::kMaxTokenBytes) + " bytes");
    }
}

void checkUserName(FieldReader& r, std::string_view key, const std::string& name)
{
    if (!r.ok()) return;
    if (auto st = validateUserName(name); !st) r.fail(r.pointerTo(key), st.error().message);
}

}  // namespace

void to_json(nlohmann::json& j, const LoginRequest& v)
{
    j = nlohmann::json{{"user", v.user}, {"password", v.password}};
}

void readFields(FieldReader& r, LoginRequest& v)
{
    r.required("user", v.user).required("password", v.password);
    checkUserName(r, "user", v.user);
    checkPassword(r, v.password);
}

void to_json(nlohmann::json& j, const TokenReply& v)
{
    j = nlohmann::json{{"token", v.token}, {"expires_at", v.expiresAt}};
    if (v.refreshToken) j["refresh_token"] = *v.refreshToken;
    if (v.refreshExpiresAt) j["refresh_expires_at"] = *v.refreshExpiresAt;
}

void readFields(FieldReader& r, TokenReply& v)
{
    r.required("token", v.token)
        .required("expires_at", v.expiresAt)
        .optional("refresh_token", v.refreshToken)
        .optional("refresh_expires_at", v.refreshExpiresAt);
    checkToken(r, "token", v.token);
    if (r.ok() && v.refreshToken.has_value() != v.refreshExpiresAt.has_value()) {
        r.fail(r.pointerTo("refresh_expires_at"), "comes with refresh_token, and only with it");
    }
}

void to_json(nlohmann::json& j, const RefreshRequest& v) { j = nlohmann::json{{"refresh_token", v.refreshToken}}; }

void readFields(FieldReader& r, RefreshRequest& v)
{
    r.required("refresh_token", v.refreshToken);
    checkToken(r, "refresh_token", v.refreshToken);
}

void to_json(nlohmann::json& j, const RevokeRequest& v) { j = nlohmann::json{{"token", v.token}}; }

void readFields(FieldReader& r, RevokeRequest& v)
{
    r.required("token", v.token);
    checkToken(r, "token", v.token);
}

void to_json(nlohmann::json& j, const Grant& v)
{
    auto names = nlohmann::json::array();
    for (auto p : v.permissions) names.push_back(std::string(permissionName(p)));
    j = nlohmann::json{{"bucket", v.bucket}, {"permissions", std::move(names)}};
}

void readFields(FieldReader& r, Grant& v)
{
    std::vector<std::string> names;
    r.required("bucket", v.bucket).required("permissions", names);
    if (!r.ok()) return;
    if (v.bucket.empty()) return r.fail(r.pointerTo("bucket"), "must not be empty");
    if (names.empty()) return r.fail(r.pointerTo("permissions"), "must name at least one permission");
    v.permissions.clear();
    for (std::size_t i = 0; i < names.size(); ++i) {
        const auto p = permissionFromName(names[i]);
        const auto ptr = r.pointerTo("permissions") + "/" + std::to_string(i);
        if (!p) return r.fail(ptr, "\"" + names[i] + "\" is not read, list, write, delete or admin-bucket");
        if (std::find(v.permissions.begin(), v.permissions.end(), *p) != v.permissions.end()) {
            return r.fail(ptr, "\"" + names[i] + "\" is named twice");
        }
        v.permissions.push_back(*p);
    }
}

void to_json(nlohmann::json& j, const UserInfo& v)
{
    j = nlohmann::json{{"name", v.name}, {"admin", v.admin}, {"grants", v.grants}};
}

void readFields(FieldReader& r, UserInfo& v)
{
    r.required("name", v.name).required("admin", v.admin).optional("grants", v.grants);
    checkUserName(r, "name", v.name);
}

void to_json(nlohmann::json& j, const NewUser& v)
{
    j = nlohmann::json{{"name", v.name}, {"password", v.password}, {"admin", v.admin}};
}

void readFields(FieldReader& r, NewUser& v)
{
    r.required("name", v.name).required("password", v.password).optional("admin", v.admin);
    checkUserName(r, "name", v.name);
    checkPassword(r, v.password);
}

void to_json(nlohmann::json& j, const NewPassword& v) { j = nlohmann::json{{"password", v.password}}; }

void readFields(FieldReader& r, NewPassword& v)
{
    r.required("password", v.password);
    checkPassword(r, v.password);
}

void to_json(nlohmann::json& j, const RevokedToken& v)
{
    j = nlohmann::json{{"jti", v.jti}, {"expires_at", v.expiresAt}};
}

void readFields(FieldReader& r, RevokedToken& v)
{
    r.required("jti", v.jti).required("expires_at", v.expiresAt);
    if (r.ok() && (v.jti.empty() || v.jti.size() > 64)) r.fail(r.pointerTo("jti"), "must be 1 to 64 bytes");
}

void to_json(nlohmann::json& j, const RevokedTokens& v) { j = nlohmann::json{{"tokens", v.tokens}}; }

void readFields(FieldReader& r, RevokedTokens& v)
{
    r.required("tokens", v.tokens);
    if (r.ok() && v.tokens.size() > auth_limits::kMaxRevokedTokens) {
        r.fail(r.pointerTo("tokens"), "holds more than " + std::to_string(auth_limits::kMaxRevokedTokens) + " entries");
    }
}

Status validateKeyId(std::string_view kid)
{
    if (kid.empty() || kid.size() > auth_limits::kMaxKeyIdBytes) {
        return Error::badRequest("a key id is 1 to " + std::to_string(auth_limits::kMaxKeyIdBytes) + " bytes");
    }
    const bool allowed = std::all_of(kid.begin(), kid.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
               c == '-';
    });
    if (!allowed) return Error::badRequest("a key id holds only A-Z, a-z, 0-9, '.', '_' and '-'");
    return {};
}

void to_json(nlohmann::json& j, const TokenKeyRing& v) { j = nlohmann::json{{"version", v.version}, {"kids", v.kids}}; }

void readFields(FieldReader& r, TokenKeyRing& v)
{
    r.required("version", v.version).required("kids", v.kids);
    if (!r.ok()) return;
    if (v.version < 1) return r.fail(r.pointerTo("version"), "must be at least 1");
    if (v.kids.empty() || v.kids.size() > auth_limits::kMaxTokenKeys) {
        return r.fail(r.pointerTo("kids"), "holds 1 to " + std::to_string(auth_limits::kMaxTokenKeys) + " key ids");
    }
    for (std::size_t i = 0; i < v.kids.size(); ++i) {
        if (auto st = validateKeyId(v.kids[i]); !st) {
            return r.fail(r.pointerTo("kids") + "/" + std::to_string(i), st.error().message);
        }
        if (std::find(v.kids.begin(), v.kids.begin() + static_cast<std::ptrdiff_t>(i), v.kids[i]) !=
            v.kids.begin() + static_cast<std::ptrdiff_t>(i)) {
            return r.fail(r.pointerTo("kids") + "/" + std::to_string(i), "repeats key id \"" + v.kids[i] + "\"");
        }
    }
}

void to_json(nlohmann::json& j, const TokenHeader& v)
{
    j = nlohmann::json{{"alg", v.alg}, {"kid", v.kid}};
    if (!v.typ.empty()) j["typ"] = v.typ;
}

void readFields(FieldReader& r, TokenHeader& v)
{
    r.required("alg", v.alg).optional("typ", v.typ).required("kid", v.kid);
}

void to_json(nlohmann::json& j, const TokenClaimsWire& v)
{
    j = nlohmann::json{{"sub", v.sub}, {"iat", v.iat},     {"exp", v.exp},
                       {"jti", v.jti}, {"admin", v.admin}, {"use", v.use}};
}

void readFields(FieldReader& r, TokenClaimsWire& v)
{
    r.required("sub", v.sub)
        .required("iat", v.iat)
        .required("exp", v.exp)
        .required("jti", v.jti)
        .required("admin", v.admin)
        .required("use", v.use);
}

}  // namespace tessera::api
