#include "bucket_model.h"

#include "format_util.h"
#include "protection_state.h"

#include <QBrush>
#include <QColor>
#include <QDateTime>
#include <QLocale>
#include <algorithm>

namespace tessera::console {

BucketModel::BucketModel(RestClient* rest, QObject* parent) : QAbstractTableModel(parent), m_rest(rest) {}

void BucketModel::refresh()
{
    if (m_rest->endpoint() != m_endpoint) {
        if (!m_endpoint.isEmpty()) {
            // Another cluster: what is in flight, and its figures, are of no use.
            ++m_generation;
            m_listCall.abort();
            m_summaryCall.abort();
            m_summaryCall = {};
            m_counting.clear();
            m_summaryQueue.clear();
            m_scans.clear();
            m_listAgain = false;
            m_propsCall.abort();
            m_propsCall = {};
            m_propsAgain = false;
            m_props.clear();
            m_bmdVersion = 0;
            m_propsError.clear();
            m_smap = {};
        }
        m_endpoint = m_rest->endpoint();
        refreshProps();
        listBuckets();
        return;
    }
    refreshProps();
    if (m_listCall.isRunning()) {
        m_listAgain = true;  // the answer on its way may predate the change
        return;
    }
    listBuckets();
}

void BucketModel::refreshProps()
{
    if (m_propsCall.isRunning()) {
        m_propsAgain = true;  // the answer on its way may predate the change
        return;
    }
    const quint64 generation = m_generation;
    m_propsCall = m_rest->bucketMetadata(this, [this, generation](api::Result<api::Bmd> bmd) {
        if (generation != m_generation) return;
        m_propsCall = {};
        if (m_propsAgain) {
            m_propsAgain = false;
            refreshProps();
            return;
        }
        if (!bmd) {
            // The last known properties stay; the tooltip says they could not be read again.
            m_propsError = QString::fromStdString(bmd.error().message);
            emitProtectionChanged();
            emit propsRefreshed();
            return;
        }
        m_propsError.clear();
        if (bmd->version >= m_bmdVersion) {
            m_bmdVersion = bmd->version;
            m_props.clear();
            for (auto& [name, props] : bmd->buckets) m_props[QString::fromStdString(name)] = std::move(props);
        }
        emitProtectionChanged();
        figuresSourceChanged();
        emit propsRefreshed();
    });
}

void BucketModel::applyProps(const QString& bucket, const api::BucketProps& props)
{
    m_props[bucket] = props;
    emitProtectionChanged();
    figuresSourceChanged();
    emit propsRefreshed();
}

std::optional<api::BucketProps> BucketModel::props(const QString& bucket) const
{
    const auto it = m_props.find(bucket);
    if (it == m_props.end()) return std::nullopt;
    return it->second;
}

void BucketModel::setSmap(const api::Smap& smap)
{
    // A target that joined or left changes placement: the cluster marks
    // mirrored buckets pending; re-read (the feed's bmd message says so too,
    // but a console polling the cluster has no feed).
    const bool newMap = m_smap.version != 0 && smap.version != m_smap.version;
    m_smap = smap;
    emitProtectionChanged();
    if (newMap && !m_endpoint.isEmpty()) refreshProps();
}

void BucketModel::emitProtectionChanged()
{
    if (!m_rows.empty()) emit dataChanged(index(0, ProtectionColumn), index(rowCount() - 1, ProtectionColumn));
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
        // Every bucket is counted again, but the one being counted now and
        // those the server counts.
        m_summaryQueue.clear();
        for (const Row& r : m_rows) {
            if (r.name != m_counting && scanOf(r.name) == nullptr) m_summaryQueue.push_back(r.name);
        }
        emit refreshed();
        nextSummary();
    });
}

void BucketModel::refreshSummary(const QString& bucket)
{
    if (rowOf(bucket) < 0 || scanOf(bucket) != nullptr) return;
    // A bucket being counted is counted again after: the count in flight may
    // have passed the objects that just changed.
    if (std::find(m_summaryQueue.begin(), m_summaryQueue.end(), bucket) == m_summaryQueue.end()) {
        m_summaryQueue.push_back(bucket);
    }
    if (!m_summaryCall.isRunning()) nextSummary();
}

const BucketModel::Scan* BucketModel::scanOf(const QString& bucket) const
{
    const auto it = m_scans.find(bucket);
    return it == m_scans.end() ? nullptr : &it->second;
}

void BucketModel::setServerSummaries(const std::vector<api::BucketSummary>& buckets)
{
    std::map<QString, Scan> scans;
    for (const api::BucketSummary& b : buckets) {
        if (!b.objects || !b.bytes) continue;  // not every target has scanned yet
        scans[QString::fromStdString(b.name)] = {static_cast<qint64>(*b.objects), static_cast<qint64>(*b.bytes),
                                                 b.usageScannedNs / 1'000'000};
    }
    m_scans = std::move(scans);
    figuresSourceChanged();
}

void BucketModel::figuresSourceChanged()
{
    // Counted by the server now: no listing for them (a count in flight finishes).
    std::erase_if(m_summaryQueue, [this](const QString& name) { return scanOf(name) != nullptr; });
    bool queued = false;
    for (const Row& r : m_rows) {
        // Figures the server no longer has (a new target not scanned yet, a
        // bucket mirrored now): counted again.
        if (scanOf(r.name) == nullptr && r.objects < 0 && r.name != m_counting &&
            std::find(m_summaryQueue.begin(), m_summaryQueue.end(), r.name) == m_summaryQueue.end()) {
            m_summaryQueue.push_back(r.name);
            queued = true;
        }
    }
    if (!m_rows.empty()) emit dataChanged(index(0, ObjectsColumn), index(rowCount() - 1, SizeColumn));
    if (queued && !m_summaryCall.isRunning()) nextSummary();
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
    const Scan* scan = scanOf(r.name);
    const qint64 objects = scan ? scan->objects : r.objects;
    const qint64 bytes = scan ? scan->bytes : r.bytes;
    const bool capped = !scan && r.capped;
    if (index.column() == ProtectionColumn) return protectionData(r.name, role);
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn: return r.name;
        case ObjectsColumn:
            if (objects < 0) return QStringLiteral("…");
            return (capped ? QStringLiteral("≥ ") : QString()) + QLocale().toString(objects);
        case SizeColumn:
            if (bytes < 0) return QStringLiteral("…");
            return (capped ? QStringLiteral("≥ ") : QString()) + formatBytes(bytes);
        default: return {};
        }
    case Qt::TextAlignmentRole:
        return index.column() == NameColumn ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (index.column() == NameColumn) return {};
        if (scan) {
            return tr("as of the targets' usage scan at %1; objects written since are counted at the next scan")
                .arg(QDateTime::fromMSecsSinceEpoch(scan->scannedMs).toString(QStringLiteral("HH:mm:ss")));
        }
        {
            QString tip =
                capped
                    ? tr("counted from the listing, up to the first %1 objects").arg(QLocale().toString(m_summaryCap))
                    : tr("counted from the listing");
            return tip;
        }
    case NameRole: return r.name;
    case ObjectCountRole: return objects;
    case BytesRole: return bytes;
    case CappedRole: return capped;
    case FromScanRole: return scan != nullptr;
    case ScannedAtRole: return scan ? QVariant(QDateTime::fromMSecsSinceEpoch(scan->scannedMs)) : QVariant();
    default: return {};
    }
}

QVariant BucketModel::protectionData(const QString& bucket, int role) const
{
    const auto it = m_props.find(bucket);
    if (it == m_props.end()) {
        if (role == Qt::DisplayRole) return QStringLiteral("…");
        if (role == Qt::ToolTipRole) {
            return m_propsError.isEmpty() ? tr("reading the bucket's properties")
                                          : tr("properties unknown: %1").arg(m_propsError);
        }
        if (role == NameRole) return bucket;
        return {};
    }
    const ProtectionState state = protectionState(it->second.mirror, m_smap);
    switch (role) {
    case Qt::DisplayRole: return state.text();
    case Qt::ToolTipRole: {
        QString tip = state.explanation();
        if (!m_propsError.isEmpty())
            tip += QStringLiteral("\n") + tr("(properties could not be read again: %1)").arg(m_propsError);
        return tip;
    }
    case Qt::ForegroundRole:
        // Mid tones, readable on the light and the dark palette.
        switch (state.level) {
        case ProtectionLevel::Protected: return QBrush(QColor(0x3a, 0x9a, 0x4a));
        case ProtectionLevel::AtRisk:
            return QBrush(state.awayTargets.isEmpty() ? QColor(0xd9, 0x8a, 0x00) : QColor(0xd8, 0x3a, 0x3a));
        case ProtectionLevel::Unprotected: return {};
        }
        return {};
    case NameRole: return bucket;
    case ProtectionLevelRole: return static_cast<int>(state.level);
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
    case ProtectionColumn: return tr("Protection");
    default: return {};
    }
}

}  // namespace tessera::console
