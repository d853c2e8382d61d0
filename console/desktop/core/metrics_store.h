#pragma once

#include "api/result.h"
#include "core/metrics_sample.h"

#include <QString>
#include <cstdint>
#include <memory>
#include <vector>

namespace tessera::console {

class SqliteDb;

// The cluster metric history in the console's SQLite database (table
// `metrics_samples`), so that the dashboard's charts survive a restart. One
// row per tick; callers prune what has left the charted window. All SQL for
// metrics lives here. UI thread only.
class MetricsStore {
public:
    static api::Result<std::unique_ptr<MetricsStore>> open(const QString& databasePath);
    ~MetricsStore();

    api::Status append(const MetricsSample& sample);
    // Samples with tsMs >= sinceMs, oldest first, at most `limit`.
    api::Result<std::vector<MetricsSample>> load(std::int64_t sinceMs, int limit) const;
    // Removes samples older than `beforeMs`.
    api::Status prune(std::int64_t beforeMs);

private:
    explicit MetricsStore(std::unique_ptr<SqliteDb> db);
    std::unique_ptr<SqliteDb> m_db;
};

} // namespace tessera::console
