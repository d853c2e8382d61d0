#pragma once

#include "api/cluster_event.h"

#include <QAbstractTableModel>
#include <QSet>
#include <QString>
#include <vector>

namespace tessera::console {

// Severity ranks for filtering: info < warning < error.
int severityRank(const std::string& severity);

// Cluster events from the feed, newest first. The snapshot after each
// (re)connect replays the proxy's recent events; those already shown are not
// added twice. At most kMaxEvents; the oldest leave first. UI thread.
class EventModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { TimeColumn, SeverityColumn, KindColumn, NodeColumn, MessageColumn, ColumnCount };
    enum Role {
        SeverityRankRole = Qt::UserRole + 1,  // int, severityRank()
        KindRole,                             // QString
    };
    static constexpr int kMaxEvents = 1000;

    explicit EventModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    const api::ClusterEvent& event(int row) const { return m_events.at(static_cast<std::size_t>(row)); }

public slots:
    void addEvent(const tessera::api::ClusterEvent& event);
    void addEvents(const std::vector<tessera::api::ClusterEvent>& events);
    void clear();

private:
    static QString keyOf(const api::ClusterEvent& e);

    std::vector<api::ClusterEvent> m_events;  // newest first
    QSet<QString> m_keys;
};

}  // namespace tessera::console
