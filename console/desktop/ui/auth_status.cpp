#include "ui/auth_status.h"

#include "core/auth_session.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace tessera::console {

AuthStatus::AuthStatus(AuthSession* auth, QWidget* parent)
    : QWidget(parent), m_auth(auth), m_label(new QLabel(this)), m_button(new QPushButton(this))
{
    m_label->setObjectName(QStringLiteral("authState"));
    m_button->setObjectName(QStringLiteral("authButton"));
    m_button->setFlat(true);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_label);
    layout->addWidget(m_button);
    connect(m_button, &QPushButton::clicked, this, [this] {
        if (m_auth->state() == AuthSession::State::SignedIn) {
            emit signOutRequested();
        } else {
            emit signInRequested();
        }
    });
    connect(m_auth, &AuthSession::stateChanged, this, &AuthStatus::update);
    update();
}

QString AuthStatus::text() const { return m_label->text(); }

void AuthStatus::update()
{
    const auto state = m_auth->state();
    m_label->setText(m_auth->statusText());
    m_label->setProperty("state", authStateName(state));
    const bool warn = state == AuthSession::State::Expired || state == AuthSession::State::SignInRequired;
    m_label->setStyleSheet(warn ? QStringLiteral("color: #c62828; font-weight: bold") : QString());
    switch (state) {
    case AuthSession::State::SignedIn:
        m_button->setText(tr("Sign out"));
        m_button->setVisible(m_auth->canSignOut());
        break;
    case AuthSession::State::SignInRequired:
    case AuthSession::State::Expired:
    case AuthSession::State::SignedOut:
        m_button->setText(tr("Sign in…"));
        m_button->setVisible(true);
        break;
    case AuthSession::State::Unknown:
    case AuthSession::State::Off:
    case AuthSession::State::SigningIn: m_button->setVisible(false); break;
    }
    setVisible(!m_label->text().isEmpty());
}

}  // namespace tessera::console
