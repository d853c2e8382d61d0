#include "models/user_model.h"

#include "core/rest_client.h"

#include <QStringList>
#include <algorithm>

namespace tessera::console {

UserModel::UserModel(RestClient* rest, QObject* parent) : QAbstractTableModel(parent), m_rest(rest) {}

int UserModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_users.size());
}

int UserModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QString UserModel::permissionsText(const std::vector<api::Permission>& permissions)
{
    QStringList names;
    for (api::Permission p : permissions) {
        const std::string_view name = api::permissionName(p);
        names << QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
    }
    return names.join(QStringLiteral(", "));
}

QString UserModel::grantsText(const std::vector<api::Grant>& grants)
{
    QStringList parts;
    for (const api::Grant& g : grants) {
        parts << QString::fromStdString(g.bucket) + QStringLiteral(": ") + permissionsText(g.permissions);
    }
    return parts.join(QStringLiteral(" · "));
}

QVariant UserModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const api::UserInfo& u = user(index.row());
    if (role == UserNameRole) return QString::fromStdString(u.name);
    if (role == AdminRole) return u.admin;
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
    switch (index.column()) {
    case NameColumn: return QString::fromStdString(u.name);
    case RoleColumn: return u.admin ? tr("admin") : tr("user");
    case GrantsColumn:
        if (u.admin && u.grants.empty()) return tr("everything (admin)");
        return grantsText(u.grants);
    default: return {};
    }
}

QVariant UserModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case NameColumn: return tr("User");
    case RoleColumn: return tr("Role");
    case GrantsColumn: return tr("Grants");
    default: return {};
    }
}

int UserModel::rowOf(const QString& name) const
{
    const std::string n = name.toStdString();
    for (std::size_t i = 0; i < m_users.size(); ++i) {
        if (m_users[i].name == n) return static_cast<int>(i);
    }
    return -1;
}

std::optional<api::UserInfo> UserModel::find(const QString& name) const
{
    const int row = rowOf(name);
    if (row < 0) return std::nullopt;
    return user(row);
}

void UserModel::reload()
{
    m_rest->users(this, [this](api::Result<std::vector<api::UserInfo>> users) {
        if (!users) {
            m_loadError = QString::fromStdString(users.error().message);
            emit loadFailed(m_loadError);
            return;
        }
        m_loadError.clear();
        std::sort(users->begin(), users->end(), [](const auto& a, const auto& b) { return a.name < b.name; });
        beginResetModel();
        m_users = std::move(*users);
        endResetModel();
        emit loaded();
    });
}

void UserModel::clear()
{
    if (m_users.empty()) return;
    beginResetModel();
    m_users.clear();
    endResetModel();
}

void UserModel::upsert(const api::UserInfo& user)
{
    const int row = rowOf(QString::fromStdString(user.name));
    if (row >= 0) {
        m_users[static_cast<std::size_t>(row)] = user;
        emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    } else {
        const auto at = std::lower_bound(m_users.begin(), m_users.end(), user.name,
                                         [](const api::UserInfo& u, const std::string& n) { return u.name < n; });
        const int insertRow = static_cast<int>(at - m_users.begin());
        beginInsertRows({}, insertRow, insertRow);
        m_users.insert(at, user);
        endInsertRows();
    }
    emit userChanged(QString::fromStdString(user.name));
}

void UserModel::addUser(const api::NewUser& user, Done done)
{
    m_rest->addUser(user, this, [this, done = std::move(done)](api::Result<api::UserInfo> added) {
        if (!added) return done(added.error());
        upsert(*added);
        done({});
    });
}

void UserModel::removeUser(const QString& name, Done done)
{
    m_rest->removeUser(name, this, [this, name, done = std::move(done)](api::Status st) {
        if (!st) return done(st);
        const int row = rowOf(name);
        if (row >= 0) {
            beginRemoveRows({}, row, row);
            m_users.erase(m_users.begin() + row);
            endRemoveRows();
        }
        done({});
    });
}

void UserModel::grant(const QString& user, const api::Grant& grant, Done done)
{
    m_rest->grant(user, grant, this, [this, done = std::move(done)](api::Result<api::UserInfo> changed) {
        if (!changed) return done(changed.error());
        upsert(*changed);
        done({});
    });
}

void UserModel::revoke(const QString& user, const QString& bucket, std::vector<api::Permission> permissions, Done done)
{
    if (permissions.empty()) return done(api::Error::badRequest("choose at least one permission to revoke"));
    revokeNext(user, bucket, std::move(permissions), std::move(done));
}

void UserModel::revokeNext(const QString& user, const QString& bucket, std::vector<api::Permission> left, Done done)
{
    if (left.empty()) {
        reloadUser(user, std::move(done));
        return;
    }
    const api::Permission next = left.front();
    left.erase(left.begin());
    m_rest->revokeGrant(user, bucket, next, this,
                        [this, user, bucket, left = std::move(left), done = std::move(done)](api::Status st) mutable {
                            if (!st) {
                                // What was revoked before the refusal shows.
                                reloadUser(user, [st, done = std::move(done)](api::Status) { done(st); });
                                return;
                            }
                            revokeNext(user, bucket, std::move(left), std::move(done));
                        });
}

void UserModel::reloadUser(const QString& name, Done done)
{
    m_rest->users(this, [this, name, done = std::move(done)](api::Result<std::vector<api::UserInfo>> users) {
        if (!users) return done(users.error());
        for (const auto& u : *users) {
            if (u.name == name.toStdString()) {
                upsert(u);
                return done({});
            }
        }
        done(api::Error::notFound("user \"" + name.toStdString() + "\" is gone"));
    });
}

}  // namespace tessera::console
