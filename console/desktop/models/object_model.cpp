#include "object_model.h"

#include "format_util.h"

#include <QLocale>

namespace tessera::console {

ObjectModel::ObjectModel(RestClient* rest, QObject* parent) : QAbstractTableModel(parent), m_rest(rest) {}

void ObjectModel::setBucket(const QString& bucket)
{
    if (bucket == m_bucket) return;
    m_bucket = bucket;
    m_folder.clear();
    m_search.clear();
    reset();
}

void ObjectModel::setFolder(const QString& folder)
{
    if (folder == m_folder) return;
    m_folder = folder;
    m_search.clear();
    reset();
}

void ObjectModel::setSearch(const QString& text)
{
    if (text == m_search) return;
    m_search = text;
    reset();
}

void ObjectModel::setFoldersEnabled(bool on)
{
    if (on == m_folders) return;
    m_folders = on;
    reset();
}

void ObjectModel::setPageSize(std::uint32_t pageSize)
{
    m_pageSize = std::clamp<std::uint32_t>(pageSize, 1, api::kMaxPageSize);
}

void ObjectModel::reload() { reset(); }

void ObjectModel::reset()
{
    beginResetModel();
    ++m_generation;
    m_call.abort();  // its answer, if any, is for the old generation and dropped
    m_call = {};
    m_rows.clear();
    m_rows.shrink_to_fit();
    m_names.clear();
    m_names.shrink_to_fit();
    m_lastFolder.clear();
    m_token.clear();
    m_started = false;
    m_complete = false;
    m_error.clear();
    endResetModel();
    emit statusChanged();
}

int ObjectModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ObjectModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

std::string_view ObjectModel::nameAt(int row) const
{
    const Row& r = m_rows[static_cast<std::size_t>(row)];
    return std::string_view(m_names).substr(r.offset, r.length);
}

QString ObjectModel::fullName(int row) const
{
    if (row < 0 || row >= rowCount()) return {};
    const std::string_view rel = nameAt(row);
    return m_folder + QString::fromUtf8(rel.data(), static_cast<qsizetype>(rel.size()));
}

bool ObjectModel::isFolder(int row) const
{
    return row >= 0 && row < rowCount() && m_rows[static_cast<std::size_t>(row)].folder;
}

qint64 ObjectModel::objectSize(int row) const
{
    return row >= 0 && row < rowCount() ? m_rows[static_cast<std::size_t>(row)].size : -1;
}

QVariant ObjectModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const Row& r = m_rows[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == NameColumn) {
            const std::string_view rel = nameAt(index.row());
            return QString::fromUtf8(rel.data(), static_cast<qsizetype>(rel.size()));
        }
        return r.folder ? tr("folder") : formatBytes(r.size);
    case Qt::ToolTipRole: return fullName(index.row());
    case Qt::TextAlignmentRole:
        return index.column() == SizeColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case FullNameRole: return fullName(index.row());
    case IsFolderRole: return r.folder;
    case SizeRole: return r.size;
    default: return {};
    }
}

QVariant ObjectModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case NameColumn: return tr("Name");
    case SizeColumn: return tr("Size");
    default: return {};
    }
}

bool ObjectModel::canFetchMore(const QModelIndex& parent) const
{
    return !parent.isValid() && !m_bucket.isEmpty() && !m_complete && m_error.isEmpty() && !m_call.isRunning();
}

void ObjectModel::fetchMore(const QModelIndex& parent)
{
    if (!canFetchMore(parent)) return;
    api::ListRequest req;
    req.prefix = (m_folder + m_search).toStdString();
    req.pageSize = m_pageSize;
    req.continuationToken = m_token;
    req.props = api::kPropName | api::kPropSize;
    const quint64 generation = m_generation;
    m_started = true;
    ++m_pagesRequested;
    m_call = m_rest->listObjects(m_bucket, req, this, [this, generation](api::Result<api::ObjectList> page) {
        onPage(generation, std::move(page));
    });
    emit statusChanged();
}

void ObjectModel::onPage(quint64 generation, api::Result<api::ObjectList> page)
{
    if (generation != m_generation) {
        ++m_staleDropped;
        return;
    }
    m_call = {};
    if (!page) {
        m_error = QString::fromStdString(page.error().message);
        emit statusChanged();
        return;
    }
    const std::string folder = m_folder.toStdString();
    std::vector<Row> added;
    std::string addedNames;
    const auto base = static_cast<quint32>(m_names.size());
    bool endsInFolder = false;
    for (const api::ObjEntry& e : page->entries) {
        if (e.name.size() <= folder.size() || e.name.compare(0, folder.size(), folder) != 0) continue;
        const std::string_view rel = std::string_view(e.name).substr(folder.size());
        const std::size_t slash = m_folders ? rel.find('/') : std::string_view::npos;
        Row row;
        std::string_view shown = rel;
        if (slash != std::string_view::npos) {
            endsInFolder = true;
            shown = rel.substr(0, slash + 1);
            if (shown == m_lastFolder) continue;
            m_lastFolder = std::string(shown);
            row.folder = true;
        } else {
            endsInFolder = false;
            row.size = e.size;
        }
        row.offset = base + static_cast<quint32>(addedNames.size());
        row.length = static_cast<quint16>(shown.size());
        addedNames.append(shown);
        added.push_back(row);
    }
    m_token = page->continuationToken;
    if (!m_token.empty() && endsInFolder) m_token = folder + m_lastFolder + kFolderSkipSuffix;
    m_complete = page->continuationToken.empty();
    if (!added.empty()) {
        const int first = rowCount();
        beginInsertRows({}, first, first + static_cast<int>(added.size()) - 1);
        m_names += addedNames;
        m_rows.insert(m_rows.end(), added.begin(), added.end());
        endInsertRows();
    }
    emit statusChanged();
    emit pageLoaded(static_cast<int>(added.size()));
    // A page that added nothing visible (all inside one folder) is not a
    // reason for the view to ask again: go on by ourselves.
    if (added.empty() && !m_complete) fetchMore();
}

QString ObjectModel::statusText() const
{
    if (!m_error.isEmpty()) return tr("%1 loaded · error: %2").arg(QLocale().toString(rowCount()), m_error);
    const QString n = QLocale().toString(rowCount());
    if (m_complete) return tr("%1 loaded · listing complete").arg(n);
    if (!m_started && m_bucket.isEmpty()) return tr("no bucket selected");
    return tr("%1 loaded · more…").arg(n);
}

}  // namespace tessera::console
