#include "bucket_model.h"

#include "format_util.h"

#include <QLocale>
#include <algorithm>

namespace tessera::console {

BucketModel::BucketModel(RestClient* rest, QObject* parent) : QAbstractTableModel(parent), m_rest(rest) {}

void BucketModel::refresh()
{
    if (m_rest->endpoint() != m_endpoint) {
        // Another cluster: what is in flight is of no use.
        m_endpoint = m_rest->endpoint();
        ++m_generation;
        m_listCall.abort();
        m_summaryCall.abort();
        m_summaryCall = {};
        m_counting.clear();
        m_summaryQueue.clear();
        m_listAgain = false;
    } else if (m_listCall.isRunning()) {
        m_listAgain = true;  // the answer on its way may predate the change
        return;
    }
    listBuckets();
}

void BucketModel::listBuckets()
{
    const quint64 generation = m_generation;
    m_listCall = m_rest->listBuckets(this, [this, generation](api::Result<std::vector<api::BucketRef>> list) {
        if (generation != m_generation) return;
        m_listCall = {};
        if (m_listAgain) {
            m_listAgain = false;
            listBuckets();
            return;
        }
        if (!list) {
            m_error = QString::fromStdString(list.error().message);
            emit refreshed();
            return;
        }
        m_error.clear();
        std::vector<Row> rows;
        for (const api::BucketRef& b : *list) {
            Row row;
            row.name = QString::fromStdString(b.name);
            // Keep the last known figures while they are counted again.
            if (const int old = rowOf(row.name); old >= 0) row = m_rows[static_cast<std::size_t>(old)];
            rows.push_back(std::move(row));
        }
        std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.name < b.name; });
        const bool sameNames = std::equal(rows.begin(), rows.end(), m_rows.begin(), m_rows.end(),
                                          [](const Row& a, const Row& b) { return a.name == b.name; });
        if (sameNames) {
            m_rows = std::move(rows);
            if (!m_rows.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
        } else {
            beginResetModel();
            m_rows = std::move(rows);
            endResetModel();
        }
        // Every bucket is counted again, but the one being counted now.
        m_summaryQueue.clear();
        for (const Row& r : m_rows) {
            if (r.name != m_counting) m_summaryQueue.push_back(r.name);
        }
        emit refreshed();
        nextSummary();
    });
}

void BucketModel::refreshSummary(const QString& bucket)
{
    if (rowOf(bucket) < 0) return;
    // A bucket being counted is counted again after: the count in flight may
    // have passed the objects that just changed.
    if (std::find(m_summaryQueue.begin(), m_summaryQueue.end(), bucket) == m_summaryQueue.end()) {
        m_summaryQueue.push_back(bucket);
    }
    if (!m_summaryCall.isRunning()) nextSummary();
}

void BucketModel::nextSummary()
{
    if (m_summaryCall.isRunning()) return;
    if (m_summaryQueue.empty()) {
        emit summariesDone();
        return;
    }
    Summary s;
    s.bucket = m_summaryQueue.front();
    m_summaryQueue.pop_front();
    m_counting = s.bucket;
    summaryPage(std::move(s));
}

void BucketModel::summaryPage(Summary summary)
{
    api::ListRequest req;
    req.pageSize = api::kMaxPageSize;
    req.props = api::kPropName | api::kPropSize;
    req.continuationToken = summary.token;
    const quint64 generation = m_generation;
    const QString bucket = summary.bucket;
    m_summaryCall =
        m_rest->listObjects(bucket, req, this, [this, generation, summary](api::Result<api::ObjectList> page) mutable {
            if (generation != m_generation) return;
            m_summaryCall = {};
            const int row = rowOf(summary.bucket);
            if (row < 0) {
                m_counting.clear();
                return nextSummary();  // destroyed meanwhile
            }
            Row& r = m_rows[static_cast<std::size_t>(row)];
            if (!page) {
                // A bucket destroyed meanwhile, or a target down: unknown figures.
                r.objects = -1;
                r.bytes = -1;
                m_counting.clear();
                emit dataChanged(index(row, ObjectsColumn), index(row, SizeColumn));
                return nextSummary();
            }
            for (const api::ObjEntry& e : page->entries) {
                if (summary.objects >= m_summaryCap) break;
                ++summary.objects;
                summary.bytes += std::max<std::int64_t>(e.size, 0);
            }
            const bool more = !page->continuationToken.empty();
            if (more && summary.objects < m_summaryCap) {
                summary.token = page->continuationToken;
                return summaryPage(std::move(summary));
            }
            r.objects = summary.objects;
            r.bytes = summary.bytes;
            r.capped = more;
            m_counting.clear();
            emit dataChanged(index(row, ObjectsColumn), index(row, SizeColumn));
            nextSummary();
        });
}

void BucketModel::createBucket(const QString& name)
{
    m_rest->createBucket(name, this, [this, name](api::Status st) {
        emit operationFinished(
            st.ok(), st.ok() ? tr("created bucket %1").arg(name) : QString::fromStdString(st.error().message));
        refresh();
    });
}

void BucketModel::destroyBucket(const QString& name)
{
    m_rest->destroyBucket(name, this, [this, name](api::Status st) {
        emit operationFinished(
            st.ok(), st.ok() ? tr("destroyed bucket %1").arg(name) : QString::fromStdString(st.error().message));
        refresh();
    });
}

int BucketModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int BucketModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

int BucketModel::rowOf(const QString& bucket) const
{
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        if (m_rows[i].name == bucket) return static_cast<int>(i);
    }
    return -1;
}

QString BucketModel::bucketAt(int row) const
{
    return row >= 0 && row < rowCount() ? m_rows[static_cast<std::size_t>(row)].name : QString();
}

QVariant BucketModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const Row& r = m_rows[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn: return r.name;
        case ObjectsColumn:
            if (r.objects < 0) return QStringLiteral("…");
            return (r.capped ? QStringLiteral("≥ ") : QString()) + QLocale().toString(r.objects);
        case SizeColumn:
            if (r.bytes < 0) return QStringLiteral("…");
            return (r.capped ? QStringLiteral("≥ ") : QString()) + formatBytes(r.bytes);
        default: return {};
        }
    case Qt::TextAlignmentRole:
        return index.column() == NameColumn ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        return r.capped ? tr("counted up to the first %1 objects").arg(QLocale().toString(m_summaryCap)) : QVariant();
    case NameRole: return r.name;
    case ObjectCountRole: return r.objects;
    case BytesRole: return r.bytes;
    case CappedRole: return r.capped;
    default: return {};
    }
}

QVariant BucketModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case NameColumn: return tr("Bucket");
    case ObjectsColumn: return tr("Objects");
    case SizeColumn: return tr("Size");
    default: return {};
    }
}

}  // namespace tessera::console
