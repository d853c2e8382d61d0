#pragma once
// The proxy's users: a name, an Argon2id password hash, the cluster-wide
// `admin` flag, and per-bucket permission grants (a grant on bucket "*"
// covers every bucket). All SQL about users lives in this class.
//
// There is no default user and no default password: the first admin is
// added by a command run on the proxy's host (tessera-node ... user add).
// The last admin can neither be removed nor lose the flag, so a cluster
// with auth on always has someone who can manage it.
//
// S3 access keys (api/s3_key_msg.h) live here too: each belongs to a user
// and acts with that user's grants. Their secrets are sealed with the
// SecretBox given to open() (SigV4 needs them in clear, so they cannot be
// hashed); the database file is mode 0600 either way.
//
// Thread safety: calls are serialized by an internal mutex; the password
// hash (0.1 s, 64 MiB) is computed outside it.

#include "secret_box.h"

#include "api/auth_msg.h"
#include "api/result.h"
#include "api/s3_key_msg.h"
#include "sqlite/sqlite_db.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::daemon::auth {

class UserStore {
public:
    // Opens (creating, mode 0600) the database at `path` and makes its file
    // mode 0600. IoError when it cannot. `secrets` seals the S3 secret keys;
    // without one (the host's `user add` command) the S3 key calls answer
    // Unavailable.
    static api::Result<std::unique_ptr<UserStore>> open(const std::string& path,
                                                        std::unique_ptr<SecretBox> secrets = nullptr);
    ~UserStore();
    UserStore(const UserStore&) = delete;
    UserStore& operator=(const UserStore&) = delete;

    // BadRequest for a bad name or a password outside the policy; Conflict
    // when the name is taken.
    api::Status addUser(std::string_view name, std::string_view password, bool admin);
    // NotFound for an unknown user; BadRequest for a password outside the policy.
    api::Status setPassword(std::string_view name, std::string_view password);
    // NotFound for an unknown user; Conflict when it would leave no admin.
    api::Status setAdmin(std::string_view name, bool admin);
    // Removes the user, all its grants and its S3 keys. NotFound for an unknown user;
    // Conflict for the last admin.
    api::Status deleteUser(std::string_view name);

    // Adds the grant's permissions on its bucket (those already held stay).
    // NotFound for an unknown user; BadRequest for a bucket that is neither
    // "*" nor a valid bucket name.
    api::Status grant(std::string_view name, const api::Grant& grant);
    // Takes one permission on one bucket away. NotFound for an unknown user
    // or a permission the user does not hold on exactly that bucket name (a
    // grant on "*" is revoked on "*").
    api::Status revoke(std::string_view name, std::string_view bucket, api::Permission permission);

    // NotFound for an unknown user.
    api::Result<api::UserInfo> user(std::string_view name);
    // Sorted by name.
    api::Result<std::vector<api::UserInfo>> listUsers();

    // The user when the password matches. Unauthorized with the same message
    // for an unknown user and a wrong password, after the same work (a hash
    // is verified either way), so neither the answer nor its time tells
    // which user names exist.
    api::Result<api::UserInfo> authenticate(std::string_view name, std::string_view password);

    // Whether `name` may do `permission` on `bucket`: an admin may do
    // anything; others need the permission on the bucket or on "*".
    // NotFound for an unknown user.
    api::Result<bool> check(std::string_view name, std::string_view bucket, api::Permission permission);

    // A new S3 access key for `user`: a random id ("TK" and 18 of [A-Z2-7])
    // and secret (40 of [A-Za-z0-9]); the answer is the only place the
    // secret is ever shown. NotFound for an unknown user; Conflict when the
    // user holds kMaxKeysPerUser keys; BadRequest for a long description.
    api::Result<api::S3KeyCreated> createS3Key(std::string_view user, std::string_view description);
    // The keys of `user` (NotFound for an unknown user), or every key when
    // `user` is empty; by user, then creation, then id. Never secrets.
    api::Result<std::vector<api::S3KeyInfo>> listS3Keys(std::string_view user);
    // NotFound unless `user` holds `accessKey` (another user's key is not
    // told apart from a missing one).
    api::Status deleteS3Key(std::string_view user, std::string_view accessKey);
    struct S3Secret {
        std::string user;
        std::string secret;
    };
    // The secret and user of an access key; nullopt for an unknown key.
    // Corruption when its sealed secret does not open (another node's key
    // file, or a changed row).
    api::Result<std::optional<S3Secret>> s3Secret(std::string_view accessKey);

    // The token-key ring (ids and version) the proxy last saved; nullopt
    // before the first rotation. IoError when the stored row does not read
    // back as a valid ring (a damaged database: never guess keys).
    api::Result<std::optional<api::TokenKeyRing>> tokenKeys();
    // Replaces the saved ring (one row, written with the database's full sync).
    api::Status saveTokenKeys(const api::TokenKeyRing& ring);

    // The revoked tokens the proxy last saved (a revocation outlives a
    // restart until the token would have expired); nullopt before the first.
    // IoError when the stored row does not read back as a valid list.
    api::Result<std::optional<api::RevokedTokens>> revokedTokens();
    // Replaces the saved list (one row, written with the database's full sync).
    api::Status saveRevokedTokens(const api::RevokedTokens& list);

private:
    UserStore(std::unique_ptr<sqlite::SqliteDb> db, std::string dummyHash, std::unique_ptr<SecretBox> secrets);
    // Callers hold m_mutex.
    api::Result<bool> exists(std::string_view name);
    api::Result<bool> isAdmin(std::string_view name);
    api::Result<std::int64_t> adminCount();
    api::Result<api::UserInfo> load(std::string_view name);

    std::unique_ptr<sqlite::SqliteDb> m_db;
    // A hash of a random password, verified when the user is unknown so an
    // unknown name costs what a wrong password costs.
    std::string m_dummyHash;
    std::unique_ptr<SecretBox> m_secrets;  // null: no S3 keys
    std::mutex m_mutex;
};

}  // namespace tessera::daemon::auth
