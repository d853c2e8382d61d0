#pragma once

#include "api/result.h"
#include "core/metrics_sample.h"

#include <QString>
#include <cstdint>
#include <memory>
#include <vector>

namespace tessera::sqlite {
class SqliteDb;
}  // namespace tessera::sqlite

namespace tessera::console {

// The cluster metric history in the console's SQLite database (table
// `metrics_samples`), so that the dashboard's charts survive a restart. One
// row per tick, keyed by the cluster's endpoint (a console that switches
// clusters does not mix their charts); callers prune what has left the
// charted window. All SQL for metrics lives here. UI thread only.
class MetricsStore {
public:
    static api::Result<std::unique_ptr<MetricsStore>> open(const QString& databasePath);
    ~MetricsStore();

    api::Status append(const QString& endpoint, const MetricsSample& sample);
    // The newest `limit` samples of `endpoint` with tsMs >= sinceMs, oldest first.
    api::Result<std::vector<MetricsSample>> load(const QString& endpoint, std::int64_t sinceMs, int limit) const;
    // Removes samples older than `beforeMs` (of every endpoint).
    api::Status prune(std::int64_t beforeMs);

private:
    explicit MetricsStore(std::unique_ptr<sqlite::SqliteDb> db);
    std::unique_ptr<sqlite::SqliteDb> m_db;
};

}  // namespace tessera::console
