#pragma once

#include "api/feed.h"
#include "api/node_stats.h"
#include "api/smap.h"

#include <QAbstractTableModel>
#include <QString>
#include <chrono>
#include <functional>
#include <vector>

class QTimer;

namespace tessera::console {

// Away: in the cluster map but missed its keepalives; it still owns its
// objects, which answer 503 until it returns. Maintenance: the same, on
// purpose (a drain, an operator). Decommissioning: present and serving, but
// leaving for good; its objects move to the other targets. Gone: left the map.
enum class NodeState { Online, Stale, Away, Maintenance, Decommissioning, Gone };
QString nodeStateName(NodeState state);

// A node as the console shows it: membership from the cluster map, figures
// from the latest metrics round.
struct NodeRow {
    QString id;
    QString role;  // "proxy" | "target"
    QString url;
    NodeState state = NodeState::Online;
    std::chrono::steady_clock::time_point goneSince;  // when it left the map (state Gone)
    bool hasMetrics = false;
    std::int64_t uptimeNs = 0;
    double cpuPercent = 0;
    std::uint64_t rssBytes = 0;
    double opsPerSec = 0;  // all operation kinds
    double getBytesPerSec = 0;
    double putBytesPerSec = 0;
    std::vector<api::MountpathStats> mountpaths;

    std::uint64_t usedBytes() const;
    std::uint64_t totalBytes() const;
};

// Every node of the cluster, proxies first, then targets, by id. A node that
// leaves the cluster map stays as Gone (so an operator sees what went away)
// for kGoneRetention, then its row is removed; it comes back as a new row if
// it rejoins. Another cluster forgets every node. UI thread.
class NodeModel : public QAbstractTableModel {
    Q_OBJECT
public:
    using Clock = std::function<std::chrono::steady_clock::time_point()>;
    // How long a node that left the map stays listed as gone.
    static constexpr std::chrono::minutes kGoneRetention{10};
    // How often gone nodes are looked at when nothing else (a map or a
    // metrics round) makes the model do it.
    static constexpr std::chrono::seconds kExpiryCheck{15};

    enum Column {
        IdColumn,
        RoleColumn,
        StateColumn,
        UptimeColumn,
        CpuColumn,
        MemoryColumn,
        CapacityColumn,
        OpsColumn,
        ColumnCount
    };
    enum Role {
        NodeStateRole = Qt::UserRole + 1,  // NodeState as int
        CapacityFractionRole,              // used / total (double), targets only
        SortRole,                          // raw value for sorting
    };

    // `now` gives the monotonic time gone nodes age by; tests may drive it.
    explicit NodeModel(QObject* parent = nullptr, Clock now = {});

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    const NodeRow& node(int row) const { return m_rows.at(static_cast<std::size_t>(row)); }
    int rowOf(const QString& id) const;

public slots:
    void setSmap(const tessera::api::Smap& smap);
    void setMetrics(const tessera::api::MetricsUpdate& update);
    // Another cluster: forget every node.
    void clear();
    // Removes the nodes gone for kGoneRetention or longer (also done on every
    // map and metrics round, and every kExpiryCheck).
    void removeExpired();

private:
    void upsertMember(const api::Snode& node);
    void emitRowChanged(int row);

    std::vector<NodeRow> m_rows;
    Clock m_now;
    QTimer* m_expiry;
};

}  // namespace tessera::console
