#include "shard_model.h"

#include "format_util.h"

#include "archive/member_name.h"

#include <QBrush>
#include <QColor>
#include <QFutureWatcher>
#include <QLocale>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <unordered_map>

namespace tessera::console {

ShardModel::ShardModel(RestClient* rest, QObject* parent) : QAbstractTableModel(parent), m_rest(rest) {}

ShardModel::FieldKind ShardModel::kindOf(const QString& field)
{
    const QString f = field.toLower();
    if (f == "png" || f == "jpg" || f == "jpeg" || f == "webp" || f == "gif" || f == "bmp") return FieldKind::Image;
    if (f == "cls" || f == "cls2" || f == "index") return FieldKind::Class;
    if (f == "json" || f == "txt" || f == "text" || f == "caption") return FieldKind::Text;
    return FieldKind::Other;
}

void ShardModel::clear()
{
    beginResetModel();
    ++m_generation;
    m_listCall.abort();
    m_listCall = {};
    m_samples.clear();
    m_fields.clear();
    m_queue.clear();
    m_inFlight = 0;  // reads of the old shard are dropped by generation
    m_loaded = false;
    m_cut = false;
    m_members = 0;
    m_error.clear();
    m_bucket.clear();
    m_shard.clear();
    endResetModel();
}

void ShardModel::setShard(const QString& bucket, const QString& shard)
{
    clear();
    m_bucket = bucket;
    m_shard = shard;
    const quint64 generation = m_generation;
    api::ListRequest req;
    req.prefix = shard.toStdString();
    req.pageSize = 1;  // the shard is the first name with its own name as prefix
    req.flags = api::kLsArchDir;
    m_listCall = m_rest->listObjects(bucket, req, this, [this, generation](api::Result<api::ObjectList> page) {
        if (generation != m_generation) return;
        m_listCall = {};
        m_loaded = true;
        if (!page) {
            m_error = QString::fromStdString(page.error().message);
            emit loaded();
            return;
        }
        const std::string shardName = m_shard.toStdString();
        const std::string memberPrefix = shardName + "/";
        std::vector<Sample> samples;
        std::unordered_map<std::string, std::size_t> byKey;
        std::map<QString, int> fieldCount;
        bool found = false;
        for (const api::ObjEntry& e : page->entries) {
            if (e.name == shardName) {
                found = true;
                if (e.flags & api::kEntryArchError) m_error = QString::fromStdString(e.error);
                continue;
            }
            if (!(e.flags & api::kEntryInArch) || e.name.compare(0, memberPrefix.size(), memberPrefix) != 0) continue;
            const std::string member = e.name.substr(memberPrefix.size());
            const std::string key(archive::wdsKey(member));
            std::string ext(archive::wdsExtension(member));
            if (!ext.empty() && ext.front() == '.') ext.erase(0, 1);
            ++m_members;
            auto it = byKey.find(key);
            if (it == byKey.end()) {
                if (static_cast<int>(samples.size()) >= kMaxSamples) {
                    m_cut = true;
                    continue;
                }
                it = byKey.emplace(key, samples.size()).first;
                samples.push_back({QString::fromStdString(key), {}, {}});
            }
            Cell cell;
            cell.member = QString::fromStdString(member);
            cell.size = e.size;
            const QString field = QString::fromStdString(ext);
            if (samples[it->second].cells.emplace(field, std::move(cell)).second) ++fieldCount[field];
        }
        if (!found && m_error.isEmpty()) m_error = tr("no shard named %1").arg(m_shard);
        QStringList fields;
        for (const auto& [f, n] : fieldCount) fields << f;
        // Columns: images, class labels, text, the rest; the most common first within each.
        std::stable_sort(fields.begin(), fields.end(), [&](const QString& a, const QString& b) {
            const auto ka = static_cast<int>(kindOf(a));
            const auto kb = static_cast<int>(kindOf(b));
            if (ka != kb) return ka < kb;
            return fieldCount[a] > fieldCount[b];
        });
        const int majority = static_cast<int>(samples.size()) / 2;
        for (Sample& s : samples) {
            QStringList missing;
            for (const QString& f : fields) {
                if (fieldCount[f] > majority && !s.cells.count(f)) missing << f;
            }
            if (!missing.isEmpty()) s.flags << tr("missing: %1").arg(missing.join(", "));
            if (s.key.section('/', -1).contains('.') || s.key.contains('.')) s.flags << tr("dot in key");
            for (const auto& [f, c] : s.cells) {
                if (f.contains('.')) {
                    s.flags << tr("dotted field \"%1\" (key cut at a dot?)").arg(f);
                    break;
                }
            }
        }
        beginResetModel();
        m_samples = std::move(samples);
        m_fields = fields;
        endResetModel();
        emit loaded();
    });
}

int ShardModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_samples.size());
}

int ShardModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() || m_samples.empty() ? 0 : static_cast<int>(m_fields.size()) + 2;
}

ShardModel::Cell* ShardModel::cellAt(int row, int column) const
{
    if (column < 1 || column > m_fields.size()) return nullptr;
    auto& cells = m_samples[static_cast<std::size_t>(row)].cells;
    auto it = cells.find(m_fields[column - 1]);
    return it == cells.end() ? nullptr : &it->second;
}

QVariant ShardModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const Sample& s = m_samples[static_cast<std::size_t>(index.row())];
    const int col = index.column();
    const int flagsCol = static_cast<int>(m_fields.size()) + 1;
    if (col == 0) {
        switch (role) {
        case Qt::DisplayRole: return s.key;
        case Qt::ToolTipRole: return s.key;
        case FlagsRole: return s.flags;
        default: return {};
        }
    }
    if (col == flagsCol) {
        switch (role) {
        case Qt::DisplayRole: return s.flags.join(QStringLiteral("; "));
        case FlagsRole: return s.flags;
        case Qt::ForegroundRole: return s.flags.isEmpty() ? QVariant() : QVariant(QColor(0xb2, 0x6a, 0x00));
        default: return {};
        }
    }
    Cell* cell = cellAt(index.row(), col);
    if (cell == nullptr) {
        switch (role) {
        case Qt::DisplayRole: return QStringLiteral("—");
        case Qt::ToolTipRole: return tr("missing from this sample");
        case Qt::BackgroundRole: return QBrush(QColor(0xff, 0xc1, 0x07, 70));
        case MissingRole: return true;
        case MemberRole: return QString();
        default: return {};
        }
    }
    const FieldKind kind = kindOf(m_fields[col - 1]);
    const bool fetchable = (kind == FieldKind::Image && cell->size <= kMaxImageBytes) ||
                           ((kind == FieldKind::Class || kind == FieldKind::Text) && cell->size <= kMaxTextBytes);
    if ((role == Qt::DisplayRole || role == Qt::DecorationRole) && fetchable && cell->state == Cell::State::Idle) {
        request(index.row(), col);
    }
    switch (role) {
    case Qt::DisplayRole:
        if (cell->state == Cell::State::Failed) return tr("error");
        if (!fetchable || cell->state != Cell::State::Ready)
            return kind == FieldKind::Image && fetchable ? QString() : formatBytes(cell->size);
        if (kind == FieldKind::Image) return {};
        return cell->value;
    case Qt::DecorationRole:
        if (kind == FieldKind::Image && cell->state == Cell::State::Ready) return cell->value;
        return {};
    case ImageRole: return kind == FieldKind::Image && cell->state == Cell::State::Ready ? cell->value : QVariant();
    case Qt::ToolTipRole:
        if (cell->state == Cell::State::Failed) return cell->error;
        return cell->member + QStringLiteral(" · ") + formatBytes(cell->size);
    case Qt::TextAlignmentRole:
        return kind == FieldKind::Class || kind == FieldKind::Other ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                                                    : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case MemberRole: return cell->member;
    case MissingRole: return false;
    default: return {};
    }
}

void ShardModel::request(int row, int column) const
{
    Cell* cell = cellAt(row, column);
    cell->state = Cell::State::Queued;
    m_queue.emplace_back(row, column);
    // data() is const and may run inside a paint: start reads from the event loop.
    QMetaObject::invokeMethod(const_cast<ShardModel*>(this), &ShardModel::pump, Qt::QueuedConnection);
}

void ShardModel::pump()
{
    while (m_inFlight < kMaxFetches && !m_queue.empty()) {
        const auto [row, column] = m_queue.front();
        m_queue.pop_front();
        Cell* cell = cellAt(row, column);
        if (cell == nullptr || cell->state != Cell::State::Queued) continue;
        cell->state = Cell::State::Loading;
        ++m_inFlight;
        const quint64 generation = m_generation;
        const FieldKind kind = kindOf(m_fields[column - 1]);
        const qint64 cap = kind == FieldKind::Image ? kMaxImageBytes : kMaxTextBytes;
        m_rest->readArchiveMember(
            m_bucket, m_shard, cell->member, cap, this,
            [this, generation, row, column, kind](api::Result<QByteArray> r) {
                if (generation != m_generation) return;
                --m_inFlight;
                Cell* c = cellAt(row, column);
                if (!r) {
                    finishCell(row, column, *c, {}, QString::fromStdString(r.error().message));
                    return pump();
                }
                if (kind == FieldKind::Image) {
                    auto* watcher = new QFutureWatcher<QImage>(this);
                    ++m_inFlight;  // the decode holds the slot
                    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, row, column] {
                        watcher->deleteLater();
                        if (generation != m_generation) return;
                        --m_inFlight;
                        const QImage img = watcher->result();
                        Cell* c2 = cellAt(row, column);
                        finishCell(row, column, *c2, img.isNull() ? QVariant() : QVariant(img),
                                   img.isNull() ? tr("not a readable image") : QString());
                        pump();
                    });
                    const QByteArray bytes = *r;
                    watcher->setFuture(QtConcurrent::run([bytes] {
                        QImage img;
                        if (!img.loadFromData(bytes)) return QImage();
                        return img.scaled(kThumbnailPx, kThumbnailPx, Qt::KeepAspectRatio, Qt::SmoothTransformation);
                    }));
                    return pump();
                }
                const QString text = QString::fromUtf8(*r).trimmed();
                if (kind == FieldKind::Class) {
                    bool ok = false;
                    const qlonglong v = text.toLongLong(&ok);
                    finishCell(row, column, *c, ok ? QVariant(v) : QVariant(text.left(kTextChars)), {});
                } else {
                    QString shown = text.simplified();
                    if (shown.size() > kTextChars) shown = shown.left(kTextChars - 1) + QChar(0x2026);
                    finishCell(row, column, *c, shown, {});
                }
                pump();
            });
    }
}

void ShardModel::finishCell(int row, int column, Cell& cell, QVariant value, const QString& error)
{
    cell.state = error.isEmpty() ? Cell::State::Ready : Cell::State::Failed;
    cell.value = std::move(value);
    cell.error = error;
    const QModelIndex i = index(row, column);
    emit dataChanged(i, i);
}

QVariant ShardModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == ColumnWidthRole && section >= 1 && section <= m_fields.size()) {
        switch (kindOf(m_fields[section - 1])) {
        case FieldKind::Image: return kThumbnailPx + 12;
        case FieldKind::Class: return 64;
        case FieldKind::Text: return 260;
        case FieldKind::Other: return 90;
        }
    }
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    if (section == 0) return tr("Key");
    if (section >= 1 && section <= m_fields.size()) {
        const QString f = m_fields[section - 1];
        return f.isEmpty() ? tr("(no extension)") : f;
    }
    if (section == m_fields.size() + 1) return tr("Flags");
    return {};
}

QString ShardModel::keyAt(int row) const
{
    return row >= 0 && row < rowCount() ? m_samples[static_cast<std::size_t>(row)].key : QString();
}

QStringList ShardModel::membersOf(int row) const
{
    QStringList out;
    if (row < 0 || row >= rowCount()) return out;
    for (const auto& [f, c] : m_samples[static_cast<std::size_t>(row)].cells) out << c.member;
    return out;
}

int ShardModel::incompleteSamples() const
{
    int n = 0;
    for (const Sample& s : m_samples) {
        for (const QString& f : s.flags) {
            if (f.startsWith(tr("missing: "))) {
                ++n;
                break;
            }
        }
    }
    return n;
}

QString ShardModel::statusText() const
{
    if (!m_error.isEmpty()) return tr("cannot list the shard: %1").arg(m_error);
    if (!m_loaded) return m_shard.isEmpty() ? QString() : tr("listing %1…").arg(m_shard);
    QString text = tr("%1 samples · %2 members · fields: %3")
                       .arg(QLocale().toString(rowCount()), QLocale().toString(m_members), m_fields.join(", "));
    if (const int bad = incompleteSamples(); bad > 0) text += tr(" · %1 incomplete").arg(bad);
    if (m_cut) text += tr(" · first %1 samples shown").arg(QLocale().toString(kMaxSamples));
    return text;
}

}  // namespace tessera::console
