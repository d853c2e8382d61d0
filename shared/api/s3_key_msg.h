#pragma once
// S3 access keys on the wire (docs/api.md "S3 access keys"): an access key
// id and its secret act, for SigV4, as the Tessera user they belong to, with
// that user's grants (as an AWS IAM user's access key, or a MinIO service
// account). The proxy keeps them in users.db (daemon/auth/user_store.h).
//   POST   /v1/users/{user}/s3-keys         NewS3Key -> S3KeyCreated (201; the only answer with the secret)
//   GET    /v1/users/{user}/s3-keys         [S3KeyInfo] (never secrets)
//   GET    /v1/s3-keys                      admins: every key, [S3KeyInfo]
//   DELETE /v1/users/{user}/s3-keys/{key}
//
// Reading is strict (wire.h): a missing field, a wrong type or an unknown
// field is a BadRequest naming the field.

#include "result.h"
#include "wire.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace tessera::api {

namespace s3_key_limits {
// Access key ids: 3..128 of [A-Za-z0-9] (AWS: 16..128 of \w; the keys file
// allows shorter ones for tests). Generated ids are 20 characters.
inline constexpr std::size_t kMinAccessKeyBytes = 3;
inline constexpr std::size_t kMaxAccessKeyBytes = 128;
// Secrets: 8..256 bytes (generated: 40 characters of [A-Za-z0-9], 238 bits).
inline constexpr std::size_t kMinSecretBytes = 8;
inline constexpr std::size_t kMaxSecretBytes = 256;
// A key's description: free text for the operator (what uses the key).
inline constexpr std::size_t kMaxDescriptionBytes = 256;
// Keys per user: AWS allows 2 per IAM user; more than a few dozen means
// keys are made and never deleted.
inline constexpr std::size_t kMaxKeysPerUser = 32;
}  // namespace s3_key_limits

// BadRequest unless `id` is a valid access key id.
Status validateS3AccessKey(std::string_view id);

// POST /v1/users/{user}/s3-keys: the body may be empty ({} then).
struct NewS3Key {
    std::string description;  // optional; at most kMaxDescriptionBytes
    bool operator==(const NewS3Key&) const = default;
};
void to_json(nlohmann::json& j, const NewS3Key& v);
void readFields(FieldReader& r, NewS3Key& v);

// A key as listed: never its secret.
struct S3KeyInfo {
    std::string accessKey;  // JSON: access_key
    std::string user;
    std::string description;
    std::int64_t createdAt = 0;  // JSON: created_at (unix seconds)
    bool operator==(const S3KeyInfo&) const = default;
};
void to_json(nlohmann::json& j, const S3KeyInfo& v);
void readFields(FieldReader& r, S3KeyInfo& v);

// The answer to a creation: the key and, this once, its secret.
struct S3KeyCreated {
    S3KeyInfo key;          // its fields, flat
    std::string secretKey;  // JSON: secret_key
    bool operator==(const S3KeyCreated&) const = default;
};
void to_json(nlohmann::json& j, const S3KeyCreated& v);
void readFields(FieldReader& r, S3KeyCreated& v);

}  // namespace tessera::api
