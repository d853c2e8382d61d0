#pragma once
// Security on the wire: logging in (`POST /v1/tokens`), the token answer,
// refreshing and revoking tokens, users and their per-bucket permissions,
// and the revoked-token list that travels with the cluster metadata so that
// every node refuses a revoked token.
//
// Reading is strict (wire.h): a missing field, a wrong type or an unknown
// field is a BadRequest naming the field.

#include "result.h"
#include "wire.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::api {

// What a user may do to a bucket (AIStore's access bits, grouped as its
// AuthN groups them). `admin-bucket` is creating, destroying and changing
// the properties of the bucket; the cluster-wide `admin` role is a flag on
// the user, not a permission.
enum class Permission { Read, List, Write, Delete, AdminBucket };
inline constexpr Permission kAllPermissions[] = {Permission::Read, Permission::List, Permission::Write,
                                                 Permission::Delete, Permission::AdminBucket};
std::string_view permissionName(Permission p);  // "read", "list", "write", "delete", "admin-bucket"
std::optional<Permission> permissionFromName(std::string_view name);

// A grant on this bucket name applies to every bucket.
inline constexpr std::string_view kAnyBucket = "*";

namespace auth_limits {
// User names: 1..64 bytes of [A-Za-z0-9._-]; they appear in paths, logs and
// JWT subjects, so nothing that needs escaping.
inline constexpr std::size_t kMaxUserNameBytes = 64;
// A password on the wire; the hash's own policy (daemon/auth/password_hash.h)
// is the same bound, checked here so an oversized body fails early.
inline constexpr std::size_t kMaxPasswordBytes = 1024;
// A JWT Tessera issues is about 350 bytes; anything much longer is not one.
inline constexpr std::size_t kMaxTokenBytes = 4096;
// Revoked-token list: entries leave once the token they name has expired,
// so the list holds at most the tokens revoked within one refresh lifetime.
inline constexpr std::size_t kMaxRevokedTokens = 100'000;
// Token-signing keys in the ring: the newest signs, the others verify the
// tokens they signed until dropped. A ring needs the current key and those
// of tokens still alive; more means keys are rotated without being dropped.
inline constexpr std::size_t kMaxTokenKeys = 8;
// A key id: 1..64 bytes of [A-Za-z0-9._-] (the JWT's `kid` header).
inline constexpr std::size_t kMaxKeyIdBytes = 64;
}  // namespace auth_limits

// BadRequest unless `name` is a valid user name.
Status validateUserName(std::string_view name);

// A token's JOSE header as Tessera writes it: `{"alg","typ","kid"}`. Read
// strictly: any other field is refused; `typ` may be absent.
struct TokenHeader {
    std::string alg;
    std::string typ;  // "JWT"; empty when absent
    std::string kid;
    bool operator==(const TokenHeader&) const = default;
};
void to_json(nlohmann::json& j, const TokenHeader& v);
void readFields(FieldReader& r, TokenHeader& v);

// A token's claims as it carries them: every one required, nothing else.
// `use` is "access" or "refresh".
struct TokenClaimsWire {
    std::string sub;
    std::int64_t iat = 0;
    std::int64_t exp = 0;
    std::string jti;
    bool admin = false;
    std::string use;
    bool operator==(const TokenClaimsWire&) const = default;
};
void to_json(nlohmann::json& j, const TokenClaimsWire& v);
void readFields(FieldReader& r, TokenClaimsWire& v);

// POST /v1/tokens
struct LoginRequest {
    std::string user;
    std::string password;
    bool operator==(const LoginRequest&) const = default;
};
void to_json(nlohmann::json& j, const LoginRequest& v);
void readFields(FieldReader& r, LoginRequest& v);

// The answer to a login or a refresh: a short-lived access token (sent as
// `Authorization: Bearer ...`) and, after a login or refresh, a longer-lived
// refresh token. Times are unix seconds.
struct TokenReply {
    std::string token;
    std::int64_t expiresAt = 0;                    // JSON: expires_at
    std::optional<std::string> refreshToken;       // JSON: refresh_token
    std::optional<std::int64_t> refreshExpiresAt;  // JSON: refresh_expires_at
    bool operator==(const TokenReply&) const = default;
};
void to_json(nlohmann::json& j, const TokenReply& v);
void readFields(FieldReader& r, TokenReply& v);

// POST /v1/tokens/refresh
struct RefreshRequest {
    std::string refreshToken;  // JSON: refresh_token
    bool operator==(const RefreshRequest&) const = default;
};
void to_json(nlohmann::json& j, const RefreshRequest& v);
void readFields(FieldReader& r, RefreshRequest& v);

// DELETE /v1/tokens: the token (access or refresh) to revoke.
struct RevokeRequest {
    std::string token;
    bool operator==(const RevokeRequest&) const = default;
};
void to_json(nlohmann::json& j, const RevokeRequest& v);
void readFields(FieldReader& r, RevokeRequest& v);

// Permissions on one bucket ("*": all buckets). Never empty; each name once.
struct Grant {
    std::string bucket;
    std::vector<Permission> permissions;
    bool operator==(const Grant&) const = default;
};
void to_json(nlohmann::json& j, const Grant& v);
void readFields(FieldReader& r, Grant& v);

// A user as the store and the admin endpoints show it (never the hash).
struct UserInfo {
    std::string name;
    bool admin = false;
    std::vector<Grant> grants;  // sorted by bucket
    bool operator==(const UserInfo&) const = default;
};
void to_json(nlohmann::json& j, const UserInfo& v);
void readFields(FieldReader& r, UserInfo& v);

// POST /v1/users: a new user. The password follows the hash's policy.
struct NewUser {
    std::string name;
    std::string password;
    bool admin = false;
    bool operator==(const NewUser&) const = default;
};
void to_json(nlohmann::json& j, const NewUser& v);
void readFields(FieldReader& r, NewUser& v);

// PUT /v1/users/{user}/password: the new password (the hash's policy).
struct NewPassword {
    std::string password;
    bool operator==(const NewPassword&) const = default;
};
void to_json(nlohmann::json& j, const NewPassword& v);
void readFields(FieldReader& r, NewPassword& v);

// One revoked token: its id and when it would have expired (after which the
// entry can go, the token being refused as expired anyway).
struct RevokedToken {
    std::string jti;
    std::int64_t expiresAt = 0;  // JSON: expires_at (unix seconds)
    bool operator==(const RevokedToken&) const = default;
};
void to_json(nlohmann::json& j, const RevokedToken& v);
void readFields(FieldReader& r, RevokedToken& v);

struct RevokedTokens {
    std::vector<RevokedToken> tokens;
    bool operator==(const RevokedTokens&) const = default;
};
void to_json(nlohmann::json& j, const RevokedTokens& v);
void readFields(FieldReader& r, RevokedTokens& v);

// BadRequest unless `kid` is a valid key id.
Status validateKeyId(std::string_view kid);

// The token-signing key ring: `GET|POST /v1/tokens/keys`, and with auth on
// part of every metadata push and join reply. It holds key ids only: every
// node derives a key's secret from the cluster key and the id
// (daemon/app/node_auth.h), so no signing secret ever crosses the network.
// `version` grows with each change; a target takes a pushed ring only when
// it is newer than its own.
struct TokenKeyRing {
    std::int64_t version = 0;
    std::vector<std::string> kids;  // oldest first; the last signs new tokens
    bool operator==(const TokenKeyRing&) const = default;
};
void to_json(nlohmann::json& j, const TokenKeyRing& v);
// Also refuses: a version below 1, no key or more than kMaxTokenKeys, an
// invalid or repeated key id.
void readFields(FieldReader& r, TokenKeyRing& v);

}  // namespace tessera::api
