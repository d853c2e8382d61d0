#pragma once

#include <QDialog>

class QLabel;
class QLineEdit;
class QPushButton;

namespace tessera::console {

class AuthSession;

// "Sign in to <cluster>": a user name and a password for AuthSession::signIn.
// Closes itself once signed in; a refusal (wrong password, too many
// attempts with the wait, a cluster without auth) shows the cluster's words
// under the form and empties the password field. The password lives only
// in its field until the request is sent. `auth` must outlive the dialog.
class LoginDialog : public QDialog {
    Q_OBJECT
public:
    LoginDialog(AuthSession* auth, const QString& where, const QString& reason, QWidget* parent = nullptr);

    QString errorText() const;
    // For tests and keyboard users: fill the form.
    void setCredentials(const QString& user, const QString& password);

public slots:
    void submit();

private:
    void setBusy(bool busy);

    AuthSession* m_auth;
    QLineEdit* m_user;
    QLineEdit* m_password;
    QLabel* m_reason;
    QLabel* m_error;
    QPushButton* m_signIn;
};

}  // namespace tessera::console
