#pragma once

#include "api/feed.h"
#include "core/metrics_sample.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QString>
#include <chrono>
#include <deque>

namespace tessera::console {

class MetricsStore;

// One node's figures at one tick (the dashboard's per-node small multiples).
struct NodeSample {
    std::int64_t tsMs = 0;
    double getMBps = 0;
    double putMBps = 0;
    double opsPerSec = 0;  // all kinds
    double cpuPercent = 0;
};

// The last 10 minutes of cluster throughput, one row per metrics tick (at the
// feed's rate), oldest first. Rows leave from the top as they age out of the
// window. Each sample is also written to the MetricsStore (when given), so
// that a restarted console starts with the history it had. Per-node series
// are kept alongside, in memory, for the nodes' small multiples.
// UI thread.
class MetricsHistory : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        TimeColumn,
        GetMBpsColumn,
        PutMBpsColumn,
        GetOpsColumn,
        PutOpsColumn,
        GetP99Column,
        PutP99Column,
        ErrorsColumn,
        AbortsColumn,  // client aborts per second, not errors
        ColumnCount
    };
    static constexpr std::chrono::milliseconds kWindow{10 * 60 * 1000};
    static constexpr int kMaxSamples = 2400;  // 10 minutes at the fastest cadence (250 ms)
    static constexpr int kPruneEvery = 60;    // samples between deletions of aged rows in the store

    // `store` may be null (nothing persisted); it must outlive the model.
    explicit MetricsHistory(MetricsStore* store = nullptr, QObject* parent = nullptr);

    // Switches to the cluster at `endpoint`: drops what is shown and loads what
    // the store holds of that cluster for the window ending at `nowMs`.
    void setSource(const QString& endpoint, std::int64_t nowMs);
    QString source() const { return m_source; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    const std::deque<MetricsSample>& samples() const { return m_samples; }
    // The series of node `id` (oldest first); empty for an unknown node.
    std::deque<NodeSample> nodeSeries(const QString& id) const { return m_nodes.value(id); }
    QStringList nodeIds() const { return m_nodes.keys(); }

public slots:
    // One metrics round: appends the cluster sample and the nodes'. The snapshot's
    // copy of the last round, and a round not newer than the last sample, are skipped.
    void addMetrics(const tessera::api::MetricsUpdate& update);
    void append(const tessera::console::MetricsSample& sample);

signals:
    void sampleAppended(const tessera::console::MetricsSample& sample);
    void nodeSampleAppended(const QString& id, const tessera::console::NodeSample& sample);
    // Rows were loaded from the store or dropped wholesale: redraw from samples().
    void historyReset();

private:
    void dropOlderThan(std::int64_t cutoffMs);

    MetricsStore* m_store;
    QString m_source;  // the endpoint samples are stored under
    std::deque<MetricsSample> m_samples;
    QHash<QString, std::deque<NodeSample>> m_nodes;
    int m_sinceLastPrune = 0;
};

}  // namespace tessera::console
