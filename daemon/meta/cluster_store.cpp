#include "cluster_store.h"

#include "api/json_util.h"

#include <nlohmann/json.hpp>

namespace tessera::daemon::meta {

api::Result<std::unique_ptr<ClusterStore>> ClusterStore::open(const std::string& path)
{
    auto db = sqlite::SqliteDb::open(path,
                                     "CREATE TABLE IF NOT EXISTS meta ("
                                     "  key TEXT PRIMARY KEY,"
                                     "  version INTEGER NOT NULL,"
                                     "  value TEXT NOT NULL,"
                                     "  updated_at INTEGER NOT NULL DEFAULT (strftime('%s','now')));",
                                     sqlite::SqliteDb::Sync::Full);
    if (!db) return api::Error{db.error().kind, "cluster store: " + db.error().message, db.error().causedBy};
    return std::unique_ptr<ClusterStore>(new ClusterStore(std::move(db.value())));
}

ClusterStore::~ClusterStore() = default;

api::Result<std::optional<std::string>> ClusterStore::get(const std::string& key)
{
    std::lock_guard lock(m_mutex);
    auto stmt = m_db->prepare("SELECT value FROM meta WHERE key = ?1");
    if (!stmt) return stmt.error();
    stmt->bind(1, key);
    auto row = stmt->step();
    if (!row) return row.error();
    if (!*row) return std::optional<std::string>{};
    return std::optional<std::string>{stmt->text(0)};
}

api::Status ClusterStore::put(const std::string& key, const std::string& value, std::int64_t version)
{
    std::lock_guard lock(m_mutex);
    auto stmt = m_db->prepare(
        "INSERT INTO meta(key, version, value) VALUES(?1, ?2, ?3) "
        "ON CONFLICT(key) DO UPDATE SET version = excluded.version, value = excluded.value, "
        "updated_at = strftime('%s','now')");
    if (!stmt) return stmt.error();
    stmt->bind(1, key);
    stmt->bind(2, version);
    stmt->bind(3, value);
    return stmt->run();
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

api::Result<std::optional<api::EtlMd>> ClusterStore::loadEtl()
{
    auto v = get("etl");
    if (!v) return v.error();
    if (!v->has_value()) return std::optional<api::EtlMd>{};
    auto e = api::parseMessage<api::EtlMd>(**v, "etl registry");
    if (!e) return api::Error::corruption("stored ETL registry is unreadable: " + e.error().message);
    return std::optional<api::EtlMd>{std::move(e.value())};
}

api::Status ClusterStore::saveEtl(const api::EtlMd& etl)
{
    return put("etl", api::dumpJson(nlohmann::json(etl)), etl.version);
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
