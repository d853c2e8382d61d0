#include "models/grant_model.h"

#include "models/user_model.h"

namespace tessera::console {

GrantModel::GrantModel(QObject* parent) : QAbstractTableModel(parent) {}

int GrantModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_grants.size());
}

int GrantModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant GrantModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
    const api::Grant& g = grant(index.row());
    switch (index.column()) {
    case BucketColumn:
        if (g.bucket == api::kAnyBucket && role == Qt::ToolTipRole) return tr("every bucket");
        return QString::fromStdString(g.bucket);
    case PermissionsColumn: return UserModel::permissionsText(g.permissions);
    default: return {};
    }
}

QVariant GrantModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case BucketColumn: return tr("Bucket");
    case PermissionsColumn: return tr("Permissions");
    default: return {};
    }
}

int GrantModel::rowOf(const QString& bucket) const
{
    const std::string b = bucket.toStdString();
    for (std::size_t i = 0; i < m_grants.size(); ++i) {
        if (m_grants[i].bucket == b) return static_cast<int>(i);
    }
    return -1;
}

void GrantModel::setGrants(std::vector<api::Grant> grants)
{
    if (grants == m_grants) return;
    beginResetModel();
    m_grants = std::move(grants);
    endResetModel();
}

}  // namespace tessera::console
