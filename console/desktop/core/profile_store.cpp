#include "core/profile_store.h"

#include "sqlite/sqlite_db.h"

#include <QDateTime>

namespace tessera::console {

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS profiles (
    name TEXT PRIMARY KEY NOT NULL,
    endpoint TEXT NOT NULL,
    token TEXT NOT NULL DEFAULT '',
    last_used_ms INTEGER NOT NULL DEFAULT 0,
    ca_file TEXT NOT NULL DEFAULT '',
    insecure INTEGER NOT NULL DEFAULT 0
);
)sql";

constexpr const char* kColumns = "name, endpoint, token, ca_file, insecure";

// A database written before https endpoints had settings lacks the TLS
// columns; its profiles read as checked against the system's CAs.
api::Status addTlsColumns(sqlite::SqliteDb& db)
{
    auto stmt = db.prepare("SELECT 1 FROM pragma_table_info('profiles') WHERE name = 'ca_file'");
    if (!stmt) return stmt.error();
    auto row = stmt->step();
    if (!row) return row.error();
    if (*row) return {};
    if (auto st = db.exec("ALTER TABLE profiles ADD COLUMN ca_file TEXT NOT NULL DEFAULT ''"); !st) return st;
    return db.exec("ALTER TABLE profiles ADD COLUMN insecure INTEGER NOT NULL DEFAULT 0");
}

std::string utf8(const QString& s) { return s.toStdString(); }

}  // namespace

api::Result<std::unique_ptr<ProfileStore>> ProfileStore::open(const QString& databasePath)
{
    auto db = sqlite::SqliteDb::open(databasePath.toStdString(), kSchema);
    if (!db) return db.error();
    if (auto st = addTlsColumns(**db); !st) return st.error();
    return std::unique_ptr<ProfileStore>(new ProfileStore(std::move(*db)));
}

ProfileStore::ProfileStore(std::unique_ptr<sqlite::SqliteDb> db) : m_db(std::move(db)) {}

ProfileStore::~ProfileStore() = default;

api::Result<std::vector<ConnectionProfile>> ProfileStore::query(const char* clauses, const QString* name) const
{
    auto stmt = m_db->prepare(std::string("SELECT ") + kColumns + " FROM profiles " + clauses);
    if (!stmt) {
        return stmt.error();
    }
    if (name) {
        stmt->bind(1, utf8(*name));
    }
    std::vector<ConnectionProfile> out;
    for (;;) {
        auto row = stmt->step();
        if (!row) {
            return row.error();
        }
        if (!*row) {
            break;
        }
        out.push_back({QString::fromStdString(stmt->text(0)), QUrl(QString::fromStdString(stmt->text(1))),
                       QString::fromStdString(stmt->text(2)),
                       TlsSettings{QString::fromStdString(stmt->text(3)), stmt->int64(4) != 0}});
    }
    return out;
}

api::Result<std::vector<ConnectionProfile>> ProfileStore::profiles() const { return query("ORDER BY name", nullptr); }

api::Result<std::optional<ConnectionProfile>> ProfileStore::find(const QString& name) const
{
    auto rows = query("WHERE name = ?1", &name);
    if (!rows) {
        return rows.error();
    }
    if (rows->empty()) {
        return std::optional<ConnectionProfile>();
    }
    return std::optional<ConnectionProfile>(rows->front());
}

api::Status ProfileStore::save(const ConnectionProfile& profile)
{
    if (auto st = validateProfile(profile); !st) {
        return st;
    }
    auto stmt = m_db->prepare(
        "INSERT INTO profiles (name, endpoint, token, ca_file, insecure) VALUES (?1, ?2, ?3, ?4, ?5) "
        "ON CONFLICT(name) DO UPDATE SET endpoint = excluded.endpoint, token = excluded.token, "
        "ca_file = excluded.ca_file, insecure = excluded.insecure");
    if (!stmt) {
        return stmt.error();
    }
    stmt->bind(1, utf8(profile.name.trimmed()));
    stmt->bind(2, utf8(profile.endpoint.toString()));
    stmt->bind(3, utf8(profile.token));
    stmt->bind(4, utf8(profile.tls.caFile));
    stmt->bind(5, std::int64_t{profile.tls.insecure ? 1 : 0});
    return stmt->run();
}

api::Status ProfileStore::remove(const QString& name)
{
    auto existing = find(name);
    if (!existing) {
        return existing.error();
    }
    if (!*existing) {
        return api::Error::notFound("no profile named '" + utf8(name) + "'");
    }
    auto stmt = m_db->prepare("DELETE FROM profiles WHERE name = ?1");
    if (!stmt) {
        return stmt.error();
    }
    stmt->bind(1, utf8(name));
    return stmt->run();
}

api::Status ProfileStore::markUsed(const QString& name)
{
    auto existing = find(name);
    if (!existing) {
        return existing.error();
    }
    if (!*existing) {
        return api::Error::notFound("no profile named '" + utf8(name) + "'");
    }
    // Strictly increasing, so that two marks within one millisecond still order.
    auto stmt = m_db->prepare(
        "UPDATE profiles SET last_used_ms = "
        "MAX(?2, (SELECT MAX(last_used_ms) + 1 FROM profiles)) WHERE name = ?1");
    if (!stmt) {
        return stmt.error();
    }
    stmt->bind(1, utf8(name));
    stmt->bind(2, static_cast<std::int64_t>(QDateTime::currentMSecsSinceEpoch()));
    return stmt->run();
}

api::Result<std::optional<ConnectionProfile>> ProfileStore::lastUsed() const
{
    auto rows = query("WHERE last_used_ms > 0 ORDER BY last_used_ms DESC LIMIT 1", nullptr);
    if (!rows) {
        return rows.error();
    }
    if (rows->empty()) {
        return std::optional<ConnectionProfile>();
    }
    return std::optional<ConnectionProfile>(rows->front());
}

}  // namespace tessera::console
