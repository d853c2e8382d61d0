#include "models/event_filter_model.h"

#include "models/event_model.h"

namespace tessera::console {

EventFilterModel::EventFilterModel(QObject* parent) : QSortFilterProxyModel(parent) {}

void EventFilterModel::setMinimumSeverity(int rank)
{
    if (rank == m_minimumSeverity) {
        return;
    }
    m_minimumSeverity = rank;
    invalidateRowsFilter();
}

void EventFilterModel::setText(const QString& text)
{
    if (text == m_text) {
        return;
    }
    m_text = text;
    invalidateRowsFilter();
}

bool EventFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    const QAbstractItemModel* src = sourceModel();
    const QModelIndex first = src->index(sourceRow, 0, sourceParent);
    if (src->data(first, EventModel::SeverityRankRole).toInt() < m_minimumSeverity) {
        return false;
    }
    if (m_text.isEmpty()) {
        return true;
    }
    for (int column : {EventModel::KindColumn, EventModel::NodeColumn, EventModel::MessageColumn}) {
        if (src->data(src->index(sourceRow, column, sourceParent)).toString().contains(m_text, Qt::CaseInsensitive)) {
            return true;
        }
    }
    return false;
}

}  // namespace tessera::console
