#pragma once

#include "api/auth_msg.h"
#include "api/result.h"

#include <QAbstractTableModel>
#include <QString>
#include <functional>
#include <optional>
#include <vector>

namespace tessera::console {

class RestClient;

// The cluster's users for the Access page (admins only: GET /v1/users), and
// the changes an admin makes to them. Each change goes to the cluster first;
// the rows change only with its answer, so the table never shows what the
// cluster refused. UI thread.
class UserModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NameColumn, RoleColumn, GrantsColumn, ColumnCount };
    enum Role { UserNameRole = Qt::UserRole + 1, AdminRole };
    using Done = std::function<void(api::Status)>;

    // `rest` must outlive the model.
    explicit UserModel(RestClient* rest, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    const api::UserInfo& user(int row) const { return m_users.at(static_cast<std::size_t>(row)); }
    int rowOf(const QString& name) const;
    std::optional<api::UserInfo> find(const QString& name) const;
    // Why the last reload failed (empty after a good one).
    QString loadError() const { return m_loadError; }

    // "imgs: read, list · *: read"
    static QString grantsText(const std::vector<api::Grant>& grants);
    // "read, list"
    static QString permissionsText(const std::vector<api::Permission>& permissions);

public slots:
    // Reads the list again (emits loaded() or loadFailed()).
    void reload();
    // Drops every row (signed out, or not an admin).
    void clear();

public:
    // Each runs `done` with the cluster's answer after the rows follow it.
    void addUser(const api::NewUser& user, Done done);
    void removeUser(const QString& name, Done done);
    // Adds `grant.permissions` on `grant.bucket`.
    void grant(const QString& user, const api::Grant& grant, Done done);
    // Takes `permissions` on `bucket` away, one call each, stopping at the first refusal.
    void revoke(const QString& user, const QString& bucket, std::vector<api::Permission> permissions, Done done);

signals:
    void loaded();
    void loadFailed(const QString& message);
    // A user's row changed (its grants or role).
    void userChanged(const QString& name);

private:
    // Inserts `user` in name order, or replaces the row of that name.
    void upsert(const api::UserInfo& user);
    void revokeNext(const QString& user, const QString& bucket, std::vector<api::Permission> left, Done done);
    // Reads the list and replaces `name`'s row from it (after a revoke, which answers no user).
    void reloadUser(const QString& name, Done done);

    RestClient* m_rest;
    std::vector<api::UserInfo> m_users;  // sorted by name
    QString m_loadError;
};

}  // namespace tessera::console
