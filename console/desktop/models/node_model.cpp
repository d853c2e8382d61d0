#include "models/node_model.h"

#include "models/capacity_level.h"
#include "models/format_util.h"

#include <QBrush>
#include <QColor>
#include <QTimer>
#include <algorithm>
#include <optional>
#include <set>

namespace tessera::console {

namespace {

bool before(const NodeRow& a, const QString& role, const QString& id)
{
    if (a.role != role) {
        return a.role == QLatin1String("proxy");
    }
    return a.id < id;
}

QString percent(double v) { return QString::number(v, 'f', 1) + QStringLiteral(" %"); }

// The state the cluster map gives a member, when it gives one (metrics do not change it).
std::optional<NodeState> mapState(const api::Snode& node)
{
    if (node.away()) return node.inMaintenance() ? NodeState::Maintenance : NodeState::Away;
    if (node.decommissioning()) return NodeState::Decommissioning;
    return std::nullopt;
}

// A state from the map (or the lack of one), which only a new map changes.
bool mapHeld(NodeState s)
{
    return s == NodeState::Gone || s == NodeState::Away || s == NodeState::Maintenance ||
           s == NodeState::Decommissioning;
}

}  // namespace

QString nodeStateName(NodeState state)
{
    switch (state) {
    case NodeState::Online: return QStringLiteral("online");
    case NodeState::Stale: return QStringLiteral("stale");
    case NodeState::Away: return QStringLiteral("away");
    case NodeState::Maintenance: return QStringLiteral("maintenance");
    case NodeState::Decommissioning: return QStringLiteral("decommissioning");
    case NodeState::Gone: return QStringLiteral("gone");
    }
    return {};
}

// A filesystem shared by several mountpaths is counted once (api::CapacitySum).
std::uint64_t NodeRow::usedBytes() const
{
    api::CapacitySum sum;
    for (const auto& m : mountpaths) {
        sum.add({}, m);
    }
    return sum.total().used;
}

std::uint64_t NodeRow::totalBytes() const
{
    api::CapacitySum sum;
    for (const auto& m : mountpaths) {
        sum.add({}, m);
    }
    return sum.total().total;
}

NodeModel::NodeModel(QObject* parent, Clock now)
    : QAbstractTableModel(parent), m_now(now ? std::move(now) : Clock(&std::chrono::steady_clock::now)),
      m_expiry(new QTimer(this))
{
    // Without a map or metrics (the connection is down) gone nodes still age out.
    m_expiry->setInterval(std::chrono::duration_cast<std::chrono::milliseconds>(kExpiryCheck));
    connect(m_expiry, &QTimer::timeout, this, &NodeModel::removeExpired);
    m_expiry->start();
}

int NodeModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int NodeModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

int NodeModel::rowOf(const QString& id) const
{
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        if (m_rows[i].id == id) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

QVariant NodeModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
        return {};
    }
    const NodeRow& n = m_rows[static_cast<std::size_t>(index.row())];
    const bool target = n.role == QLatin1String("target");
    const double fraction = n.totalBytes() == 0 ? 0.0 : static_cast<double>(n.usedBytes()) / n.totalBytes();
    if (role == NodeStateRole) {
        return static_cast<int>(n.state);
    }
    if (role == CapacityFractionRole) {
        return target ? QVariant(fraction) : QVariant();
    }
    if (role == Qt::ForegroundRole) {
        if (index.column() == StateColumn && n.state != NodeState::Online) {
            const bool red = n.state == NodeState::Gone || n.state == NodeState::Away;
            return QBrush(red ? QColor(0xc6, 0x28, 0x28) : QColor(0xe0, 0x8a, 0x00));
        }
        if (index.column() == CapacityColumn && target) {
            const auto level = capacityLevel(n.usedBytes(), n.totalBytes());
            if (level == CapacityLevel::Critical) {
                return QBrush(QColor(0xc6, 0x28, 0x28));
            }
            if (level == CapacityLevel::Warning) {
                return QBrush(QColor(0xe0, 0x8a, 0x00));
            }
        }
        return {};
    }
    if (role == Qt::ToolTipRole && index.column() == IdColumn) {
        return n.url;
    }
    if (role == SortRole) {
        switch (index.column()) {
        case UptimeColumn: return static_cast<qlonglong>(n.uptimeNs);
        case CpuColumn: return n.cpuPercent;
        case MemoryColumn: return static_cast<qulonglong>(n.rssBytes);
        case CapacityColumn: return fraction;
        case OpsColumn: return n.opsPerSec;
        default: return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() >= UptimeColumn) {
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    const bool figures = n.hasMetrics && n.state != NodeState::Gone;
    switch (index.column()) {
    case IdColumn: return n.id;
    case RoleColumn: return n.role;
    case StateColumn: return nodeStateName(n.state);
    case UptimeColumn: return figures ? formatDuration(static_cast<double>(n.uptimeNs) / 1e9) : QString();
    case CpuColumn: return figures ? percent(n.cpuPercent) : QString();
    case MemoryColumn: return figures ? formatBytes(static_cast<qint64>(n.rssBytes)) : QString();
    case CapacityColumn:
        if (!target || n.totalBytes() == 0) {
            return QString();
        }
        return QStringLiteral("%1 / %2 (%3)")
            .arg(formatBytes(static_cast<qint64>(n.usedBytes())), formatBytes(static_cast<qint64>(n.totalBytes())),
                 percent(100.0 * fraction));
    case OpsColumn: return figures ? QString::number(n.opsPerSec, 'f', 1) : QString();
    default: return {};
    }
}

QVariant NodeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    switch (section) {
    case IdColumn: return tr("Node");
    case RoleColumn: return tr("Role");
    case StateColumn: return tr("State");
    case UptimeColumn: return tr("Uptime");
    case CpuColumn: return tr("CPU");
    case MemoryColumn: return tr("Memory");
    case CapacityColumn: return tr("Capacity");
    case OpsColumn: return tr("Ops/s");
    default: return {};
    }
}

void NodeModel::setSmap(const api::Smap& smap)
{
    std::set<QString> members;
    for (const auto* map : {&smap.pmap, &smap.tmap}) {
        for (const auto& [id, node] : *map) {
            members.insert(QString::fromStdString(id));
            upsertMember(node);
        }
    }
    const auto now = m_now();
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        if (!members.count(m_rows[i].id) && m_rows[i].state != NodeState::Gone) {
            m_rows[i].state = NodeState::Gone;
            m_rows[i].goneSince = now;
            emitRowChanged(static_cast<int>(i));
        }
    }
    removeExpired();
}

void NodeModel::removeExpired()
{
    const auto now = m_now();
    // From the end, so that the rows before keep their numbers.
    for (int r = rowCount() - 1; r >= 0; --r) {
        const NodeRow& row = m_rows[static_cast<std::size_t>(r)];
        if (row.state != NodeState::Gone || now - row.goneSince < kGoneRetention) continue;
        beginRemoveRows({}, r, r);
        m_rows.erase(m_rows.begin() + r);
        endRemoveRows();
    }
}

void NodeModel::upsertMember(const api::Snode& node)
{
    const QString id = QString::fromStdString(node.id);
    const QString url = QString::fromStdString(node.publicNet.url);
    const int existing = rowOf(id);
    if (existing >= 0) {
        NodeRow& row = m_rows[static_cast<std::size_t>(existing)];
        if (const auto held = mapState(node)) {
            if (row.state != *held) {
                row.state = *held;
                emitRowChanged(existing);
            }
        } else if (mapHeld(row.state) || row.url != url) {
            row.state = NodeState::Online;
            row.url = url;
            emitRowChanged(existing);
        }
        return;
    }
    NodeRow row;
    row.id = id;
    if (const auto held = mapState(node)) row.state = *held;
    row.role = QString::fromStdString(node.type);
    row.url = url;
    const auto pos =
        std::find_if(m_rows.begin(), m_rows.end(), [&](const NodeRow& r) { return !before(r, row.role, row.id); });
    const int at = static_cast<int>(pos - m_rows.begin());
    beginInsertRows({}, at, at);
    m_rows.insert(pos, std::move(row));
    endInsertRows();
}

void NodeModel::setMetrics(const api::MetricsUpdate& update)
{
    for (const auto& m : update.nodes) {
        const int r = rowOf(QString::fromStdString(m.id));
        if (r < 0) {
            continue;  // not in the map (yet): membership comes from the map only
        }
        NodeRow& row = m_rows[static_cast<std::size_t>(r)];
        if (!mapHeld(row.state)) {
            row.state = m.stale ? NodeState::Stale : NodeState::Online;
        }
        row.hasMetrics = true;
        row.uptimeNs = m.uptimeNs;
        row.cpuPercent = m.cpuPercent;
        row.rssBytes = m.rssBytes;
        row.opsPerSec = 0;
        for (const auto& rates : m.ops) {
            row.opsPerSec += rates.opsPerSec;
        }
        row.getBytesPerSec = m.op(api::OpKind::Get).bytesPerSec;
        row.putBytesPerSec = m.op(api::OpKind::Put).bytesPerSec;
        row.mountpaths = m.mountpaths;
        emitRowChanged(r);
    }
    removeExpired();
}

void NodeModel::clear()
{
    beginResetModel();
    m_rows.clear();
    endResetModel();
}

void NodeModel::emitRowChanged(int row) { emit dataChanged(index(row, 0), index(row, ColumnCount - 1)); }

}  // namespace tessera::console
