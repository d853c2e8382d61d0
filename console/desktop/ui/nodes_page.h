#pragma once

#include <QString>
#include <QWidget>
#include <vector>

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QVBoxLayout;

namespace tessera::console {

class CapacityBar;
class ClusterConnection;
class MetricsHistory;
class NodeModel;
class ThroughputChart;
struct NodeSample;

// Every node in a sortable, filterable table; selecting one shows its own
// small multiples (MB/s, ops/s and CPU over the last 10 minutes) and its
// mountpaths' capacity.
class NodesPage : public QWidget {
    Q_OBJECT
public:
    NodesPage(ClusterConnection* connection, NodeModel* nodes, MetricsHistory* history, QWidget* parent = nullptr);

    QTableView* table() const { return m_table; }
    QString selectedNode() const { return m_selected; }
    ThroughputChart* nodeThroughputChart() const { return m_nodeThroughput; }
    ThroughputChart* nodeOpsChart() const { return m_nodeOps; }
    void selectNode(const QString& id);

public slots:
    void refresh();
    void focusSearch();

private:
    void onSelectionChanged();
    void onNodeSample(const QString& id, const NodeSample& sample);
    void showDetails();

    ClusterConnection* m_connection;
    NodeModel* m_nodes;
    MetricsHistory* m_history;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    QLineEdit* m_search;
    QLabel* m_detailTitle;
    ThroughputChart* m_nodeThroughput;
    ThroughputChart* m_nodeOps;
    QVBoxLayout* m_barsLayout;
    std::vector<CapacityBar*> m_bars;
    QString m_selected;
};

}  // namespace tessera::console
