#include "models/metrics_history.h"

#include "core/metrics_store.h"

#include <QDateTime>

namespace tessera::console {

MetricsHistory::MetricsHistory(MetricsStore* store, QObject* parent) : QAbstractTableModel(parent), m_store(store) {}

void MetricsHistory::setSource(const QString& endpoint, std::int64_t nowMs)
{
    beginResetModel();
    m_source = endpoint;
    m_samples.clear();
    m_nodes.clear();
    if (m_store) {
        auto loaded = m_store->load(endpoint, nowMs - kWindow.count(), kMaxSamples);
        if (loaded) {
            m_samples.assign(loaded->begin(), loaded->end());
        } else {
            qWarning("tessera-console: metric history not loaded: %s", loaded.error().message.c_str());
        }
    }
    endResetModel();
    emit historyReset();
}

int MetricsHistory::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_samples.size());
}

int MetricsHistory::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant MetricsHistory::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    if (role != Qt::DisplayRole && role != Qt::EditRole) {
        return {};
    }
    const MetricsSample& s = m_samples[static_cast<std::size_t>(index.row())];
    switch (index.column()) {
    case TimeColumn: return QDateTime::fromMSecsSinceEpoch(s.tsMs);
    case GetMBpsColumn: return s.getMBps;
    case PutMBpsColumn: return s.putMBps;
    case GetOpsColumn: return s.getOps;
    case PutOpsColumn: return s.putOps;
    case GetP99Column: return s.getP99Ms;
    case PutP99Column: return s.putP99Ms;
    case ErrorsColumn: return s.errorsPerSec;
    case AbortsColumn: return s.abortsPerSec;
    default: return {};
    }
}

QVariant MetricsHistory::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    switch (section) {
    case TimeColumn: return tr("Time");
    case GetMBpsColumn: return tr("GET MB/s");
    case PutMBpsColumn: return tr("PUT MB/s");
    case GetOpsColumn: return tr("GET ops/s");
    case PutOpsColumn: return tr("PUT ops/s");
    case GetP99Column: return tr("GET p99 ms");
    case PutP99Column: return tr("PUT p99 ms");
    case ErrorsColumn: return tr("Errors/s");
    case AbortsColumn: return tr("Client aborts/s");
    default: return {};
    }
}

void MetricsHistory::addMetrics(const api::MetricsUpdate& update)
{
    if (update.fromSnapshot || (!m_samples.empty() && update.tsMs <= m_samples.back().tsMs)) {
        return;
    }
    constexpr double kMB = 1e6;
    for (const auto& n : update.nodes) {
        NodeSample ns;
        ns.tsMs = update.tsMs;
        ns.getMBps = n.op(api::OpKind::Get).bytesPerSec / kMB;
        ns.putMBps = n.op(api::OpKind::Put).bytesPerSec / kMB;
        for (const auto& r : n.ops) {
            ns.opsPerSec += r.opsPerSec;
        }
        ns.cpuPercent = n.cpuPercent;
        const QString id = QString::fromStdString(n.id);
        auto& series = m_nodes[id];
        series.push_back(ns);
        while (!series.empty() && (series.front().tsMs < update.tsMs - kWindow.count() ||
                                   series.size() > static_cast<std::size_t>(kMaxSamples))) {
            series.pop_front();
        }
        emit nodeSampleAppended(id, ns);
    }
    append(sampleFromMetrics(update));
}

void MetricsHistory::append(const MetricsSample& sample)
{
    if (!m_samples.empty() && sample.tsMs <= m_samples.back().tsMs) {
        return;
    }
    dropOlderThan(sample.tsMs - kWindow.count());
    if (m_samples.size() >= static_cast<std::size_t>(kMaxSamples)) {
        beginRemoveRows({}, 0, 0);
        m_samples.pop_front();
        endRemoveRows();
    }
    const int row = static_cast<int>(m_samples.size());
    beginInsertRows({}, row, row);
    m_samples.push_back(sample);
    endInsertRows();
    if (m_store) {
        if (auto st = m_store->append(m_source, sample); !st) {
            qWarning("tessera-console: metric sample not saved: %s", st.error().message.c_str());
        }
        if (++m_sinceLastPrune >= kPruneEvery) {
            m_sinceLastPrune = 0;
            if (auto st = m_store->prune(sample.tsMs - kWindow.count()); !st) {
                qWarning("tessera-console: metric history not pruned: %s", st.error().message.c_str());
            }
        }
    }
    emit sampleAppended(sample);
}

void MetricsHistory::dropOlderThan(std::int64_t cutoffMs)
{
    int n = 0;
    while (n < static_cast<int>(m_samples.size()) && m_samples[static_cast<std::size_t>(n)].tsMs < cutoffMs) {
        ++n;
    }
    if (n == 0) {
        return;
    }
    beginRemoveRows({}, 0, n - 1);
    m_samples.erase(m_samples.begin(), m_samples.begin() + n);
    endRemoveRows();
}

}  // namespace tessera::console
