#include "user_store.h"

#include "password_hash.h"
#include "sodium_runtime.h"

#include "api/names.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tessera::daemon::auth {

namespace {

constexpr std::string_view kSchema =
    "CREATE TABLE IF NOT EXISTS users ("
    "  name TEXT PRIMARY KEY,"
    "  hash TEXT NOT NULL,"
    "  admin INTEGER NOT NULL,"
    "  created_at INTEGER NOT NULL DEFAULT (strftime('%s','now')));"
    "CREATE TABLE IF NOT EXISTS grants ("
    "  user TEXT NOT NULL,"
    "  bucket TEXT NOT NULL,"
    "  permission TEXT NOT NULL,"
    "  PRIMARY KEY (user, bucket, permission));"
    "CREATE TABLE IF NOT EXISTS token_keys ("
    "  id INTEGER PRIMARY KEY CHECK (id = 1),"
    "  ring TEXT NOT NULL);"  // an api::TokenKeyRing document
    "CREATE TABLE IF NOT EXISTS revoked_tokens ("
    "  id INTEGER PRIMARY KEY CHECK (id = 1),"
    "  list TEXT NOT NULL);"  // an api::RevokedTokens document
    "CREATE TABLE IF NOT EXISTS s3_keys ("
    "  access_key TEXT PRIMARY KEY,"
    "  user TEXT NOT NULL,"
    "  sealed TEXT NOT NULL,"  // SecretBox::seal(secret, access_key)
    "  description TEXT NOT NULL DEFAULT '',"
    "  created_at INTEGER NOT NULL);"
    "CREATE INDEX IF NOT EXISTS s3_keys_by_user ON s3_keys(user);";

api::Status checkGrantBucket(std::string_view bucket)
{
    if (bucket == api::kAnyBucket) return {};
    if (auto st = api::validateBucketName(bucket); !st) {
        return api::Error::badRequest("a grant names a bucket or \"*\": " + st.error().message);
    }
    return {};
}

api::Error unknownUser(std::string_view name) { return api::Error::notFound("no user \"" + std::string(name) + "\""); }

// `n` characters drawn uniformly from `alphabet` (libsodium's random source).
std::string randomText(std::string_view alphabet, std::size_t n)
{
    std::string out(n, '\0');
    for (auto& c : out) c = alphabet[randombytes_uniform(static_cast<std::uint32_t>(alphabet.size()))];
    return out;
}

constexpr std::string_view kAccessKeyPrefix = "TK";
constexpr std::string_view kBase32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
constexpr std::string_view kAlnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
constexpr std::size_t kAccessKeyRandom = 18;  // 90 bits: ids never repeat in practice
constexpr std::size_t kSecretChars = 40;      // AWS's length; 238 bits

api::Error noS3Keys() { return api::Error::unavailable("S3 keys are kept by the proxy only (no secret box here)"); }

// Runs `body` inside one transaction: all of it or nothing.
template <typename F>
api::Status inTransaction(sqlite::SqliteDb& db, F&& body)
{
    if (auto st = db.exec("BEGIN IMMEDIATE"); !st) return st;
    api::Status st = body();
    if (!st) {
        // The failure is what the caller needs to hear; a failed rollback
        // leaves SQLite to roll back when the connection next writes.
        (void)db.exec("ROLLBACK");
        return st;
    }
    return db.exec("COMMIT");
}

}  // namespace

UserStore::UserStore(std::unique_ptr<sqlite::SqliteDb> db, std::string dummyHash, std::unique_ptr<SecretBox> secrets)
    : m_db(std::move(db)), m_dummyHash(std::move(dummyHash)), m_secrets(std::move(secrets))
{
}

UserStore::~UserStore() = default;

api::Result<std::unique_ptr<UserStore>> UserStore::open(const std::string& path, std::unique_ptr<SecretBox> secrets)
{
    // Mode 0600 before SQLite first writes (its -wal and -shm files take the
    // database's mode), and for a database made before this rule.
    if (const auto parent = std::filesystem::path(path).parent_path(); !parent.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(parent, ec);
        if (ec) return api::Error::ioError("user store: cannot create " + parent.string(), ec.message());
    }
    const int fd = ::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) return api::Error::ioError("user store: cannot open " + path + ": " + std::strerror(errno));
    ::close(fd);
    if (::chmod(path.c_str(), 0600) != 0) {
        return api::Error::ioError("user store: cannot make " + path + " mode 0600: " + std::strerror(errno));
    }
    auto db = sqlite::SqliteDb::open(path, kSchema, sqlite::SqliteDb::Sync::Full);
    if (!db) return api::Error{db.error().kind, "user store: " + db.error().message, db.error().causedBy};
    ensureSodium();
    unsigned char random[32];
    randombytes_buf(random, sizeof random);
    char hex[2 * sizeof random + 1];
    sodium_bin2hex(hex, sizeof hex, random, sizeof random);
    auto dummy = PasswordHash::hash(hex);
    if (!dummy) return dummy.error();
    return std::unique_ptr<UserStore>(
        new UserStore(std::move(db.value()), std::move(dummy.value()), std::move(secrets)));
}

api::Result<bool> UserStore::exists(std::string_view name)
{
    auto stmt = m_db->prepare("SELECT 1 FROM users WHERE name = ?1");
    if (!stmt) return stmt.error();
    stmt->bind(1, name);
    return stmt->step();
}

api::Result<bool> UserStore::isAdmin(std::string_view name)
{
    auto stmt = m_db->prepare("SELECT admin FROM users WHERE name = ?1");
    if (!stmt) return stmt.error();
    stmt->bind(1, name);
    auto row = stmt->step();
    if (!row) return row.error();
    if (!*row) return unknownUser(name);
    return stmt->int64(0) != 0;
}

api::Result<std::int64_t> UserStore::adminCount()
{
    auto stmt = m_db->prepare("SELECT COUNT(*) FROM users WHERE admin != 0");
    if (!stmt) return stmt.error();
    auto row = stmt->step();
    if (!row) return row.error();
    if (!*row) return api::Error::internal("user store: COUNT returned no row");
    return stmt->int64(0);
}

api::Status UserStore::addUser(std::string_view name, std::string_view password, bool admin)
{
    if (auto st = api::validateUserName(name); !st) return st;
    auto hash = PasswordHash::hash(password);
    if (!hash) return hash.error();
    std::lock_guard lock(m_mutex);
    auto found = exists(name);
    if (!found) return found.error();
    if (*found) return api::Error::conflict("user \"" + std::string(name) + "\" exists");
    auto stmt = m_db->prepare("INSERT INTO users(name, hash, admin) VALUES(?1, ?2, ?3)");
    if (!stmt) return stmt.error();
    stmt->bind(1, name);
    stmt->bind(2, *hash);
    stmt->bind(3, std::int64_t{admin ? 1 : 0});
    return stmt->run();
}

api::Status UserStore::setPassword(std::string_view name, std::string_view password)
{
    auto hash = PasswordHash::hash(password);
    if (!hash) return hash.error();
    std::lock_guard lock(m_mutex);
    auto found = exists(name);
    if (!found) return found.error();
    if (!*found) return unknownUser(name);
    auto stmt = m_db->prepare("UPDATE users SET hash = ?2 WHERE name = ?1");
    if (!stmt) return stmt.error();
    stmt->bind(1, name);
    stmt->bind(2, *hash);
    return stmt->run();
}

api::Status UserStore::setAdmin(std::string_view name, bool admin)
{
    std::lock_guard lock(m_mutex);
    auto was = isAdmin(name);
    if (!was) return was.error();
    if (*was == admin) return {};
    if (!admin) {
        auto n = adminCount();
        if (!n) return n.error();
        if (*n <= 1) return api::Error::conflict("\"" + std::string(name) + "\" is the last admin");
    }
    auto stmt = m_db->prepare("UPDATE users SET admin = ?2 WHERE name = ?1");
    if (!stmt) return stmt.error();
    stmt->bind(1, name);
    stmt->bind(2, std::int64_t{admin ? 1 : 0});
    return stmt->run();
}

api::Status UserStore::deleteUser(std::string_view name)
{
    std::lock_guard lock(m_mutex);
    auto admin = isAdmin(name);
    if (!admin) return admin.error();
    if (*admin) {
        auto n = adminCount();
        if (!n) return n.error();
        if (*n <= 1) return api::Error::conflict("\"" + std::string(name) + "\" is the last admin");
    }
    return inTransaction(*m_db, [&]() -> api::Status {
        for (const char* sql : {"DELETE FROM grants WHERE user = ?1", "DELETE FROM s3_keys WHERE user = ?1",
                                "DELETE FROM users WHERE name = ?1"}) {
            auto stmt = m_db->prepare(sql);
            if (!stmt) return stmt.error();
            stmt->bind(1, name);
            if (auto st = stmt->run(); !st) return st;
        }
        return {};
    });
}

api::Status UserStore::grant(std::string_view name, const api::Grant& grant)
{
    if (auto st = checkGrantBucket(grant.bucket); !st) return st;
    if (grant.permissions.empty()) return api::Error::badRequest("a grant names at least one permission");
    std::lock_guard lock(m_mutex);
    auto found = exists(name);
    if (!found) return found.error();
    if (!*found) return unknownUser(name);
    return inTransaction(*m_db, [&]() -> api::Status {
        for (auto p : grant.permissions) {
            auto stmt = m_db->prepare("INSERT OR IGNORE INTO grants(user, bucket, permission) VALUES(?1, ?2, ?3)");
            if (!stmt) return stmt.error();
            stmt->bind(1, name);
            stmt->bind(2, grant.bucket);
            stmt->bind(3, api::permissionName(p));
            if (auto st = stmt->run(); !st) return st;
        }
        return {};
    });
}

api::Status UserStore::revoke(std::string_view name, std::string_view bucket, api::Permission permission)
{
    std::lock_guard lock(m_mutex);
    auto found = exists(name);
    if (!found) return found.error();
    if (!*found) return unknownUser(name);
    auto held = m_db->prepare("SELECT 1 FROM grants WHERE user = ?1 AND bucket = ?2 AND permission = ?3");
    if (!held) return held.error();
    held->bind(1, name);
    held->bind(2, bucket);
    held->bind(3, api::permissionName(permission));
    auto row = held->step();
    if (!row) return row.error();
    if (!*row) {
        return api::Error::notFound("\"" + std::string(name) + "\" holds no " +
                                    std::string(api::permissionName(permission)) + " on \"" + std::string(bucket) +
                                    "\"");
    }
    auto stmt = m_db->prepare("DELETE FROM grants WHERE user = ?1 AND bucket = ?2 AND permission = ?3");
    if (!stmt) return stmt.error();
    stmt->bind(1, name);
    stmt->bind(2, bucket);
    stmt->bind(3, api::permissionName(permission));
    return stmt->run();
}

api::Result<api::UserInfo> UserStore::load(std::string_view name)
{
    auto admin = isAdmin(name);
    if (!admin) return admin.error();
    api::UserInfo info;
    info.name = std::string(name);
    info.admin = *admin;
    auto stmt = m_db->prepare("SELECT bucket, permission FROM grants WHERE user = ?1 ORDER BY bucket");
    if (!stmt) return stmt.error();
    stmt->bind(1, name);
    while (true) {
        auto row = stmt->step();
        if (!row) return row.error();
        if (!*row) break;
        const auto bucket = stmt->text(0);
        const auto p = api::permissionFromName(stmt->text(1));
        if (!p) return api::Error::corruption("user store: unknown permission \"" + stmt->text(1) + "\"");
        if (info.grants.empty() || info.grants.back().bucket != bucket) info.grants.push_back({bucket, {}});
        info.grants.back().permissions.push_back(*p);
    }
    // Permissions in their declared order, whatever the text order.
    for (auto& g : info.grants) std::sort(g.permissions.begin(), g.permissions.end());
    return info;
}

api::Result<api::UserInfo> UserStore::user(std::string_view name)
{
    std::lock_guard lock(m_mutex);
    return load(name);
}

api::Result<std::vector<api::UserInfo>> UserStore::listUsers()
{
    std::lock_guard lock(m_mutex);
    auto stmt = m_db->prepare("SELECT name FROM users ORDER BY name");
    if (!stmt) return stmt.error();
    std::vector<std::string> names;
    while (true) {
        auto row = stmt->step();
        if (!row) return row.error();
        if (!*row) break;
        names.push_back(stmt->text(0));
    }
    std::vector<api::UserInfo> out;
    out.reserve(names.size());
    for (const auto& n : names) {
        auto u = load(n);
        if (!u) return u.error();
        out.push_back(std::move(*u));
    }
    return out;
}

api::Result<api::UserInfo> UserStore::authenticate(std::string_view name, std::string_view password)
{
    const auto refused = api::Error::unauthorized("wrong user name or password");
    std::string hash;
    {
        std::lock_guard lock(m_mutex);
        auto stmt = m_db->prepare("SELECT hash FROM users WHERE name = ?1");
        if (!stmt) return stmt.error();
        stmt->bind(1, name);
        auto row = stmt->step();
        if (!row) return row.error();
        if (*row) hash = stmt->text(0);
    }
    if (hash.empty()) {
        // Same cost as a wrong password for a known user.
        (void)PasswordHash::verify(m_dummyHash, password);
        return refused;
    }
    if (!PasswordHash::verify(hash, password)) return refused;
    std::lock_guard lock(m_mutex);
    auto u = load(name);
    if (!u && u.kind() == api::ErrorKind::NotFound) return refused;  // removed meanwhile
    return u;
}

api::Result<bool> UserStore::check(std::string_view name, std::string_view bucket, api::Permission permission)
{
    std::lock_guard lock(m_mutex);
    auto admin = isAdmin(name);
    if (!admin) return admin.error();
    if (*admin) return true;
    auto stmt =
        m_db->prepare("SELECT 1 FROM grants WHERE user = ?1 AND (bucket = ?2 OR bucket = '*') AND permission = ?3");
    if (!stmt) return stmt.error();
    stmt->bind(1, name);
    stmt->bind(2, bucket);
    stmt->bind(3, api::permissionName(permission));
    return stmt->step();
}

api::Result<std::optional<api::TokenKeyRing>> UserStore::tokenKeys()
{
    std::lock_guard lock(m_mutex);
    auto stmt = m_db->prepare("SELECT ring FROM token_keys WHERE id = 1");
    if (!stmt) return stmt.error();
    auto row = stmt->step();
    if (!row) return row.error();
    if (!*row) return std::optional<api::TokenKeyRing>{};
    auto ring = api::parseMessage<api::TokenKeyRing>(stmt->text(0), "stored token keys");
    if (!ring) return api::Error::ioError("user store: " + ring.error().message);
    return std::optional<api::TokenKeyRing>(std::move(ring.value()));
}

api::Status UserStore::saveTokenKeys(const api::TokenKeyRing& ring)
{
    std::lock_guard lock(m_mutex);
    auto stmt = m_db->prepare("INSERT OR REPLACE INTO token_keys(id, ring) VALUES(1, ?1)");
    if (!stmt) return stmt.error();
    stmt->bind(1, nlohmann::json(ring).dump());
    return stmt->run();
}

api::Result<std::optional<api::RevokedTokens>> UserStore::revokedTokens()
{
    std::lock_guard lock(m_mutex);
    auto stmt = m_db->prepare("SELECT list FROM revoked_tokens WHERE id = 1");
    if (!stmt) return stmt.error();
    auto row = stmt->step();
    if (!row) return row.error();
    if (!*row) return std::optional<api::RevokedTokens>{};
    auto list = api::parseMessage<api::RevokedTokens>(stmt->text(0), "stored revoked tokens");
    if (!list) return api::Error::ioError("user store: " + list.error().message);
    return std::optional<api::RevokedTokens>(std::move(list.value()));
}

api::Status UserStore::saveRevokedTokens(const api::RevokedTokens& list)
{
    std::lock_guard lock(m_mutex);
    auto stmt = m_db->prepare("INSERT OR REPLACE INTO revoked_tokens(id, list) VALUES(1, ?1)");
    if (!stmt) return stmt.error();
    stmt->bind(1, nlohmann::json(list).dump());
    return stmt->run();
}

api::Result<api::S3KeyCreated> UserStore::createS3Key(std::string_view user, std::string_view description)
{
    if (!m_secrets) return noS3Keys();
    if (description.size() > api::s3_key_limits::kMaxDescriptionBytes) {
        return api::Error::badRequest("a key's description is at most " +
                                      std::to_string(api::s3_key_limits::kMaxDescriptionBytes) + " bytes");
    }
    std::lock_guard lock(m_mutex);
    auto found = exists(user);
    if (!found) return found.error();
    if (!*found) return unknownUser(user);
    auto count = m_db->prepare("SELECT COUNT(*) FROM s3_keys WHERE user = ?1");
    if (!count) return count.error();
    count->bind(1, user);
    auto row = count->step();
    if (!row) return row.error();
    if (*row && static_cast<std::size_t>(count->int64(0)) >= api::s3_key_limits::kMaxKeysPerUser) {
        return api::Error::conflict("\"" + std::string(user) + "\" holds " +
                                    std::to_string(api::s3_key_limits::kMaxKeysPerUser) +
                                    " S3 keys, the most a user may; delete one first");
    }
    api::S3KeyCreated out;
    out.key.user = std::string(user);
    out.key.description = std::string(description);
    out.key.createdAt =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    out.key.accessKey = std::string(kAccessKeyPrefix) + randomText(kBase32, kAccessKeyRandom);
    out.secretKey = randomText(kAlnum, kSecretChars);
    // An id already taken (2^-90 per pair) fails the primary key: an error
    // the caller can retry, never another user's key replaced.
    auto stmt = m_db->prepare(
        "INSERT INTO s3_keys(access_key, user, sealed, description, created_at) VALUES(?1, ?2, ?3, ?4, ?5)");
    if (!stmt) return stmt.error();
    stmt->bind(1, out.key.accessKey);
    stmt->bind(2, user);
    stmt->bind(3, m_secrets->seal(out.secretKey, out.key.accessKey));
    stmt->bind(4, out.key.description);  // a std::string: never bound as NULL
    stmt->bind(5, out.key.createdAt);
    if (auto st = stmt->run(); !st) return st.error();
    return out;
}

api::Result<std::vector<api::S3KeyInfo>> UserStore::listS3Keys(std::string_view user)
{
    std::lock_guard lock(m_mutex);
    if (!user.empty()) {
        auto found = exists(user);
        if (!found) return found.error();
        if (!*found) return unknownUser(user);
    }
    // Two statements: an empty string_view may bind as SQL NULL.
    auto stmt = user.empty() ? m_db->prepare(
                                   "SELECT access_key, user, description, created_at FROM s3_keys "
                                   "ORDER BY user, created_at, access_key")
                             : m_db->prepare(
                                   "SELECT access_key, user, description, created_at FROM s3_keys "
                                   "WHERE user = ?1 ORDER BY created_at, access_key");
    if (!stmt) return stmt.error();
    if (!user.empty()) stmt->bind(1, user);
    std::vector<api::S3KeyInfo> out;
    while (true) {
        auto row = stmt->step();
        if (!row) return row.error();
        if (!*row) break;
        out.push_back({stmt->text(0), stmt->text(1), stmt->text(2), stmt->int64(3)});
    }
    return out;
}

api::Status UserStore::deleteS3Key(std::string_view user, std::string_view accessKey)
{
    std::lock_guard lock(m_mutex);
    auto held = m_db->prepare("SELECT 1 FROM s3_keys WHERE access_key = ?1 AND user = ?2");
    if (!held) return held.error();
    held->bind(1, accessKey);
    held->bind(2, user);
    auto row = held->step();
    if (!row) return row.error();
    if (!*row) {
        return api::Error::notFound("\"" + std::string(user) + "\" holds no S3 key \"" + std::string(accessKey) + "\"");
    }
    auto stmt = m_db->prepare("DELETE FROM s3_keys WHERE access_key = ?1 AND user = ?2");
    if (!stmt) return stmt.error();
    stmt->bind(1, accessKey);
    stmt->bind(2, user);
    return stmt->run();
}

api::Result<std::optional<UserStore::S3Secret>> UserStore::s3Secret(std::string_view accessKey)
{
    if (!m_secrets) return noS3Keys();
    std::string user;
    std::string sealed;
    {
        std::lock_guard lock(m_mutex);
        auto stmt = m_db->prepare("SELECT user, sealed FROM s3_keys WHERE access_key = ?1");
        if (!stmt) return stmt.error();
        stmt->bind(1, accessKey);
        auto row = stmt->step();
        if (!row) return row.error();
        if (!*row) return std::optional<S3Secret>{};
        user = stmt->text(0);
        sealed = stmt->text(1);
    }
    auto secret = m_secrets->open(sealed, accessKey);
    if (!secret) {
        return api::Error::corruption("S3 key \"" + std::string(accessKey) + "\": " + secret.error().message);
    }
    return std::optional<S3Secret>(S3Secret{std::move(user), std::move(*secret)});
}

}  // namespace tessera::daemon::auth
