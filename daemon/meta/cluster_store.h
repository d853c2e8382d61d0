#pragma once
// The proxy's persistent control-plane state in SQLite: the cluster map and
// the bucket metadata and the ETL registry, each stored as its JSON document with its version.
// All SQL of the daemon lives in this class (on the shared SQLite wrapper).
//
// Thread safety: calls are serialized by an internal mutex.

#include "api/bmd.h"
#include "api/etl_msg.h"
#include "api/result.h"
#include "api/smap.h"
#include "sqlite/sqlite_db.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace tessera::daemon::meta {

class ClusterStore {
public:
    static api::Result<std::unique_ptr<ClusterStore>> open(const std::string& path);
    ~ClusterStore();
    ClusterStore(const ClusterStore&) = delete;
    ClusterStore& operator=(const ClusterStore&) = delete;

    api::Result<std::optional<api::Smap>> loadSmap();
    api::Result<std::optional<api::Bmd>> loadBmd();
    api::Status saveSmap(const api::Smap& smap);
    api::Status saveBmd(const api::Bmd& bmd);
    api::Result<std::optional<api::EtlMd>> loadEtl();
    api::Status saveEtl(const api::EtlMd& etl);

private:
    explicit ClusterStore(std::unique_ptr<sqlite::SqliteDb> db) : m_db(std::move(db)) {}
    api::Result<std::optional<std::string>> get(const std::string& key);
    api::Status put(const std::string& key, const std::string& value, std::int64_t version);

    std::unique_ptr<sqlite::SqliteDb> m_db;
    std::mutex m_mutex;
};

}  // namespace tessera::daemon::meta
