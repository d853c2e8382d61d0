#include "cluster_store.h"

#include "api/json_util.h"

#include <nlohmann/json.hpp>
#include <sqlite3.h>

namespace tessera::daemon::meta {

namespace {
struct StmtDeleter {
    void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Stmt = std::unique_ptr<sqlite3_stmt, StmtDeleter>;

api::Error dbError(sqlite3* db, const std::string& what)
{
    return api::Error::ioError("cluster store: " + what, sqlite3_errmsg(db));
}
}  // namespace

api::Result<std::unique_ptr<ClusterStore>> ClusterStore::open(const std::string& path)
{
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                        nullptr) != SQLITE_OK) {
        std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
        sqlite3_close(db);
        return api::Error::ioError("cannot open " + path, msg);
    }
    std::unique_ptr<ClusterStore> store(new ClusterStore(db));
    const char* ddl =
        "PRAGMA journal_mode=WAL;"
        "PRAGMA synchronous=FULL;"
        "CREATE TABLE IF NOT EXISTS meta ("
        "  key TEXT PRIMARY KEY,"
        "  version INTEGER NOT NULL,"
        "  value TEXT NOT NULL,"
        "  updated_at INTEGER NOT NULL DEFAULT (strftime('%s','now')));";
    char* err = nullptr;
    if (sqlite3_exec(db, ddl, nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = err ? err : "unknown";
        sqlite3_free(err);
        return api::Error::ioError("cannot initialize " + path, msg);
    }
    return store;
}

ClusterStore::~ClusterStore() { sqlite3_close(m_db); }

api::Result<std::optional<std::string>> ClusterStore::get(const std::string& key)
{
    std::lock_guard lock(m_mutex);
    sqlite3_stmt* raw = nullptr;
    if (sqlite3_prepare_v2(m_db, "SELECT value FROM meta WHERE key = ?1", -1, &raw, nullptr) != SQLITE_OK) {
        return dbError(m_db, "prepare select");
    }
    Stmt stmt(raw);
    sqlite3_bind_text(raw, 1, key.c_str(), -1, SQLITE_TRANSIENT);
    const int rc = sqlite3_step(raw);
    if (rc == SQLITE_DONE) return std::optional<std::string>{};
    if (rc != SQLITE_ROW) return dbError(m_db, "select " + key);
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(raw, 0));
    return std::optional<std::string>{std::string(text ? text : "")};
}

api::Status ClusterStore::put(const std::string& key, const std::string& value, std::int64_t version)
{
    std::lock_guard lock(m_mutex);
    sqlite3_stmt* raw = nullptr;
    const char* sql =
        "INSERT INTO meta(key, version, value) VALUES(?1, ?2, ?3) "
        "ON CONFLICT(key) DO UPDATE SET version = excluded.version, value = excluded.value, "
        "updated_at = strftime('%s','now')";
    if (sqlite3_prepare_v2(m_db, sql, -1, &raw, nullptr) != SQLITE_OK) return dbError(m_db, "prepare upsert");
    Stmt stmt(raw);
    sqlite3_bind_text(raw, 1, key.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(raw, 2, version);
    sqlite3_bind_text(raw, 3, value.c_str(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
    if (sqlite3_step(raw) != SQLITE_DONE) return dbError(m_db, "upsert " + key);
    return {};
}

api::Result<std::optional<api::Smap>> ClusterStore::loadSmap()
{
    auto v = get("smap");
    if (!v) return v.error();
    if (!v->has_value()) return std::optional<api::Smap>{};
    auto s = api::parseSmap(**v);
    if (!s) return api::Error::corruption("stored cluster map is unreadable: " + s.error().message);
    return std::optional<api::Smap>{std::move(s.value())};
}

api::Result<std::optional<api::Bmd>> ClusterStore::loadBmd()
{
    auto v = get("bmd");
    if (!v) return v.error();
    if (!v->has_value()) return std::optional<api::Bmd>{};
    auto b = api::parseBmd(**v);
    if (!b) return api::Error::corruption("stored bucket metadata is unreadable: " + b.error().message);
    return std::optional<api::Bmd>{std::move(b.value())};
}

api::Status ClusterStore::saveSmap(const api::Smap& smap)
{
    return put("smap", api::dumpJson(nlohmann::json(smap)), smap.version);
}

api::Status ClusterStore::saveBmd(const api::Bmd& bmd)
{
    return put("bmd", api::dumpJson(nlohmann::json(bmd)), bmd.version);
}

}  // namespace tessera::daemon::meta
