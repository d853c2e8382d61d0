#include "upload_model.h"

#include "core/upload_queue.h"
#include "format_util.h"

#include <QColor>
#include <QLocale>

namespace tessera::console {

UploadModel::UploadModel(UploadQueue* queue, QObject* parent)
    : QAbstractTableModel(parent), m_queue(queue), m_rows(queue->count())
{
    connect(queue, &UploadQueue::itemsAdded, this, [this](int first, int count) {
        beginInsertRows({}, first, first + count - 1);
        m_rows = m_queue->count();
        endInsertRows();
    });
    connect(queue, &UploadQueue::itemChanged, this, [this](int row) {
        if (row < m_rows) emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    });
    connect(queue, &UploadQueue::itemsReset, this, [this] {
        beginResetModel();
        m_rows = m_queue->count();
        endResetModel();
    });
}

int UploadModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : m_rows; }

int UploadModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant UploadModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const UploadItem& it = m_queue->item(index.row());
    const int percent = it.state == UploadState::Done ? 100
                        : it.size > 0                 ? static_cast<int>(it.sent * 100 / it.size)
                                                      : 0;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn: return it.objectName;
        case SizeColumn: return formatBytes(it.size);
        case ProgressColumn: return QStringLiteral("%1%").arg(percent);
        case StateColumn:
            return it.error.isEmpty() ? uploadStateName(it.state) : uploadStateName(it.state) + ": " + it.error;
        default: return {};
        }
    case Qt::ToolTipRole: return it.error.isEmpty() ? it.localPath : it.error;
    case Qt::ForegroundRole:
        if (index.column() == StateColumn && it.state == UploadState::Failed) return QColor(0xc6, 0x28, 0x28);
        return {};
    case Qt::TextAlignmentRole:
        return index.column() == SizeColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case ProgressRole: return percent;
    case StateRole: return static_cast<int>(it.state);
    case ErrorRole: return it.error;
    default: return {};
    }
}

QVariant UploadModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case NameColumn: return tr("Object");
    case SizeColumn: return tr("Size");
    case ProgressColumn: return tr("Progress");
    case StateColumn: return tr("State");
    default: return {};
    }
}

QString UploadModel::totalsText() const
{
    const UploadTotals t = m_queue->totals();
    QString text = tr("%1 of %2 files · %3 of %4")
                       .arg(QLocale().toString(t.done), QLocale().toString(t.files - t.canceled),
                            formatBytes(t.bytesDone), formatBytes(t.bytes));
    if (t.active > 0) text += QStringLiteral(" · ") + formatRate(t.rate) + tr(" · ETA ") + formatDuration(t.etaSeconds);
    if (t.failed > 0) text += tr(" · %1 failed").arg(t.failed);
    if (t.canceled > 0) text += tr(" · %1 cancelled").arg(t.canceled);
    if (m_queue->isPacking()) text += tr(" · packing shards…");
    return text;
}

int UploadModel::totalPercent() const
{
    const UploadTotals t = m_queue->totals();
    return t.bytes > 0 ? static_cast<int>(t.bytesDone * 100 / t.bytes) : (t.files > 0 ? 100 : 0);
}

}  // namespace tessera::console
