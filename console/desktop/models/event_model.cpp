#include "models/event_model.h"

#include <QBrush>
#include <QColor>
#include <QDateTime>
#include <algorithm>

namespace tessera::console {

int severityRank(const std::string& severity)
{
    if (severity == "error") {
        return 2;
    }
    if (severity == "warning") {
        return 1;
    }
    return 0;
}

EventModel::EventModel(QObject* parent) : QAbstractTableModel(parent) {}

int EventModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_events.size());
}

int EventModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant EventModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const api::ClusterEvent& e = m_events[static_cast<std::size_t>(index.row())];
    switch (role) {
    case SeverityRankRole: return severityRank(e.severity);
    case KindRole: return QString::fromStdString(e.kind);
    case Qt::ForegroundRole:
        if (index.column() == SeverityColumn) {
            const int rank = severityRank(e.severity);
            if (rank == 2) {
                return QBrush(QColor(0xc6, 0x28, 0x28));
            }
            if (rank == 1) {
                return QBrush(QColor(0xe0, 0x8a, 0x00));
            }
        }
        return {};
    case Qt::ToolTipRole: return index.column() == MessageColumn ? QString::fromStdString(e.message) : QVariant();
    case Qt::DisplayRole: break;
    default: return {};
    }
    switch (index.column()) {
    case TimeColumn: return QDateTime::fromMSecsSinceEpoch(e.tsMs).toString(QStringLiteral("HH:mm:ss"));
    case SeverityColumn: return QString::fromStdString(e.severity);
    case KindColumn: return QString::fromStdString(e.kind);
    case NodeColumn: return QString::fromStdString(e.mountpath.empty() ? e.node : e.node + " " + e.mountpath);
    case MessageColumn: return QString::fromStdString(e.message);
    default: return {};
    }
}

QVariant EventModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    switch (section) {
    case TimeColumn: return tr("Time");
    case SeverityColumn: return tr("Severity");
    case KindColumn: return tr("Kind");
    case NodeColumn: return tr("Node");
    case MessageColumn: return tr("Message");
    default: return {};
    }
}

QString EventModel::keyOf(const api::ClusterEvent& e)
{
    return QString::number(e.tsMs) + QLatin1Char('|') + QString::fromStdString(e.kind) + QLatin1Char('|') +
           QString::fromStdString(e.node) + QLatin1Char('|') + QString::fromStdString(e.mountpath) + QLatin1Char('|') +
           QString::fromStdString(e.message);
}

void EventModel::addEvent(const api::ClusterEvent& event)
{
    const QString key = keyOf(event);
    if (m_keys.contains(key)) {
        return;
    }
    // Newest first; an older event (a snapshot's replay) goes below the newer ones.
    const auto pos = std::find_if(m_events.begin(), m_events.end(),
                                  [&](const api::ClusterEvent& e) { return e.tsMs <= event.tsMs; });
    const int at = static_cast<int>(pos - m_events.begin());
    if (at >= kMaxEvents) {
        return;  // older than everything kept
    }
    beginInsertRows({}, at, at);
    m_events.insert(pos, event);
    m_keys.insert(key);
    endInsertRows();
    if (m_events.size() > static_cast<std::size_t>(kMaxEvents)) {
        const int last = static_cast<int>(m_events.size()) - 1;
        beginRemoveRows({}, last, last);
        m_keys.remove(keyOf(m_events.back()));
        m_events.pop_back();
        endRemoveRows();
    }
}

void EventModel::addEvents(const std::vector<api::ClusterEvent>& events)
{
    for (const auto& e : events) {
        addEvent(e);
    }
}

void EventModel::clear()
{
    beginResetModel();
    m_events.clear();
    m_keys.clear();
    endResetModel();
}

}  // namespace tessera::console
