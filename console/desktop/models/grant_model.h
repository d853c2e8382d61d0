#pragma once

#include "api/auth_msg.h"

#include <QAbstractTableModel>
#include <vector>

namespace tessera::console {

// One user's grants, a row per bucket ("*": every bucket) with its
// permissions, for the Access page. UI thread.
class GrantModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { BucketColumn, PermissionsColumn, ColumnCount };

    explicit GrantModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    const api::Grant& grant(int row) const { return m_grants.at(static_cast<std::size_t>(row)); }
    int rowOf(const QString& bucket) const;
    void setGrants(std::vector<api::Grant> grants);

private:
    std::vector<api::Grant> m_grants;
};

}  // namespace tessera::console
