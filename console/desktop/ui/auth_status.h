#pragma once

#include <QWidget>

class QLabel;
class QPushButton;

namespace tessera::console {

class AuthSession;

// The status bar's view of the sign-in: "Signed in as NAME (admin)" with a
// Sign out button, or "Session expired — sign in again" / "Not signed in"
// with a Sign in button; nothing when the cluster runs with auth off.
class AuthStatus : public QWidget {
    Q_OBJECT
public:
    explicit AuthStatus(AuthSession* auth, QWidget* parent = nullptr);

    QString text() const;

signals:
    void signInRequested();
    void signOutRequested();

private:
    void update();

    AuthSession* m_auth;
    QLabel* m_label;
    QPushButton* m_button;
};

}  // namespace tessera::console
