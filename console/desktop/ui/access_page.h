#pragma once

#include "api/auth_msg.h"

#include <QWidget>
#include <vector>

class QCheckBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace tessera::console {

class AuthSession;
class GrantModel;
class UserModel;

// Access (admins only): the cluster's users, adding and removing them, and
// each user's grants (bucket → permissions) with grant and revoke. For anyone
// else the page is disabled and says why; the main window also hides it from
// the navigation. What the cluster refuses shows on the page or in the dialog.
class AccessPage : public QWidget {
    Q_OBJECT
public:
    // `users` and `auth` must outlive the page.
    AccessPage(UserModel* users, AuthSession* auth, QWidget* parent = nullptr);

    // Why the page is disabled (empty for an admin).
    QString reasonText() const;
    QString errorText() const;
    QString selectedUser() const;
    QTableView* usersView() const { return m_usersView; }
    QTableView* grantsView() const { return m_grantsView; }
    GrantModel* grants() const { return m_grants; }

    // For tests and keyboard users: the grant form.
    void setGrantForm(const QString& bucket, const std::vector<api::Permission>& permissions);
    void selectUser(const QString& name);

public slots:
    void refresh();
    void addUser();
    // Asks first (a box naming the user, objectName "removeUserConfirmation").
    void removeUser();
    void grantSelected();
    void revokeSelected();

signals:
    void statusMessage(const QString& text);

private:
    void updateAccess();
    void showUser();
    void onGrantSelected();
    std::vector<api::Permission> checkedPermissions() const;
    void setError(const QString& text);

    UserModel* m_users;
    AuthSession* m_auth;
    GrantModel* m_grants;
    QLabel* m_reason;
    QLabel* m_error;
    QTableView* m_usersView;
    QTableView* m_grantsView;
    QGroupBox* m_grantBox;
    QLineEdit* m_bucket;
    std::vector<std::pair<api::Permission, QCheckBox*>> m_permissionBoxes;
    QPushButton* m_add;
    QPushButton* m_remove;
    QPushButton* m_grant;
    QPushButton* m_revoke;
};

}  // namespace tessera::console
