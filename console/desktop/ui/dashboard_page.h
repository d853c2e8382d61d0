#pragma once

#include <QWidget>
#include <vector>

class QComboBox;
class QGridLayout;
class QLineEdit;
class QTableView;

namespace tessera::console {

class ClusterConnection;
class EventFilterModel;
class EventModel;
class MetricsHistory;
class NodeCard;
class NodeModel;
class ThroughputChart;
struct MetricsSample;

// The cluster at a glance: throughput charts (GET/PUT MB/s and ops/s, p99
// latency, errors) over the last 10 minutes, one card per node, and the
// events list, filterable by severity and text.
class DashboardPage : public QWidget {
    Q_OBJECT
public:
    DashboardPage(ClusterConnection* connection, MetricsHistory* history, NodeModel* nodes, EventModel* events,
                  QWidget* parent = nullptr);

    ThroughputChart* throughputChart() const { return m_throughput; }
    ThroughputChart* opsChart() const { return m_ops; }
    ThroughputChart* latencyChart() const { return m_latency; }
    ThroughputChart* errorsChart() const { return m_errors; }
    const std::vector<NodeCard*>& nodeCards() const { return m_cards; }
    EventFilterModel* eventFilter() const { return m_eventFilter; }

public slots:
    void refresh();
    void focusSearch();

signals:
    // A node card was double-clicked.
    void nodeActivated(const QString& id);

private:
    void addSample(const MetricsSample& sample);
    void reloadHistory();
    void rebuildCards();
    void updateCard(int row);

    ClusterConnection* m_connection;
    MetricsHistory* m_history;
    NodeModel* m_nodes;
    ThroughputChart* m_throughput;
    ThroughputChart* m_ops;
    ThroughputChart* m_latency;
    ThroughputChart* m_errors;
    QGridLayout* m_cardsLayout;
    std::vector<NodeCard*> m_cards;
    EventFilterModel* m_eventFilter;
    QTableView* m_eventsView;
    QComboBox* m_severity;
    QLineEdit* m_search;
};

}  // namespace tessera::console
