#include "core/metrics_store.h"

#include "sqlite/sqlite_db.h"

namespace tessera::console {

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS metrics_samples (
    endpoint TEXT NOT NULL,
    ts_ms INTEGER NOT NULL,
    get_mbps REAL NOT NULL,
    put_mbps REAL NOT NULL,
    get_ops REAL NOT NULL,
    put_ops REAL NOT NULL,
    get_p99_ms REAL NOT NULL,
    put_p99_ms REAL NOT NULL,
    errors_per_sec REAL NOT NULL,
    aborts_per_sec REAL NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS metrics_samples_endpoint_ts ON metrics_samples (endpoint, ts_ms);
CREATE INDEX IF NOT EXISTS metrics_samples_ts ON metrics_samples (ts_ms);
)sql";

// A database written before client aborts were charted apart has no
// aborts_per_sec column; its rows read as 0 aborts.
api::Status addAbortsColumn(sqlite::SqliteDb& db)
{
    auto stmt = db.prepare("SELECT 1 FROM pragma_table_info('metrics_samples') WHERE name = 'aborts_per_sec'");
    if (!stmt) return stmt.error();
    auto row = stmt->step();
    if (!row) return row.error();
    if (*row) return {};
    return db.exec("ALTER TABLE metrics_samples ADD COLUMN aborts_per_sec REAL NOT NULL DEFAULT 0");
}

}  // namespace

api::Result<std::unique_ptr<MetricsStore>> MetricsStore::open(const QString& databasePath)
{
    auto db = sqlite::SqliteDb::open(databasePath.toStdString(), kSchema);
    if (!db) return db.error();
    if (auto st = addAbortsColumn(**db); !st) return st.error();
    return std::unique_ptr<MetricsStore>(new MetricsStore(std::move(*db)));
}

MetricsStore::MetricsStore(std::unique_ptr<sqlite::SqliteDb> db) : m_db(std::move(db)) {}

MetricsStore::~MetricsStore() = default;

api::Status MetricsStore::append(const QString& endpoint, const MetricsSample& s)
{
    auto stmt = m_db->prepare(
        "INSERT INTO metrics_samples (ts_ms, get_mbps, put_mbps, get_ops, put_ops, "
        "get_p99_ms, put_p99_ms, errors_per_sec, endpoint, aborts_per_sec) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
    if (!stmt) {
        return stmt.error();
    }
    stmt->bind(1, s.tsMs);
    stmt->bind(2, s.getMBps);
    stmt->bind(3, s.putMBps);
    stmt->bind(4, s.getOps);
    stmt->bind(5, s.putOps);
    stmt->bind(6, s.getP99Ms);
    stmt->bind(7, s.putP99Ms);
    stmt->bind(8, s.errorsPerSec);
    stmt->bind(9, endpoint.toStdString());
    stmt->bind(10, s.abortsPerSec);
    return stmt->run();
}

api::Result<std::vector<MetricsSample>> MetricsStore::load(const QString& endpoint, std::int64_t sinceMs,
                                                           int limit) const
{
    // The newest `limit` rows, returned oldest first.
    auto stmt = m_db->prepare(
        "SELECT * FROM (SELECT ts_ms, get_mbps, put_mbps, get_ops, put_ops, get_p99_ms, "
        "put_p99_ms, errors_per_sec, aborts_per_sec FROM metrics_samples WHERE endpoint = ?3 AND ts_ms >= ?1 "
        "ORDER BY ts_ms DESC LIMIT ?2) ORDER BY ts_ms ASC");
    if (!stmt) {
        return stmt.error();
    }
    stmt->bind(1, sinceMs);
    stmt->bind(2, static_cast<std::int64_t>(limit));
    stmt->bind(3, endpoint.toStdString());
    std::vector<MetricsSample> out;
    for (;;) {
        auto row = stmt->step();
        if (!row) {
            return row.error();
        }
        if (!*row) {
            break;
        }
        out.push_back({stmt->int64(0), stmt->real(1), stmt->real(2), stmt->real(3), stmt->real(4), stmt->real(5),
                       stmt->real(6), stmt->real(7), stmt->real(8)});
    }
    return out;
}

api::Status MetricsStore::prune(std::int64_t beforeMs)
{
    auto stmt = m_db->prepare("DELETE FROM metrics_samples WHERE ts_ms < ?1");
    if (!stmt) {
        return stmt.error();
    }
    stmt->bind(1, beforeMs);
    return stmt->run();
}

}  // namespace tessera::console
