#include "ui/login_dialog.h"

#include "api/auth_msg.h"
#include "core/auth_session.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace tessera::console {

LoginDialog::LoginDialog(AuthSession* auth, const QString& where, const QString& reason, QWidget* parent)
    : QDialog(parent), m_auth(auth), m_user(new QLineEdit(this)), m_password(new QLineEdit(this)),
      m_reason(new QLabel(this)), m_error(new QLabel(this)), m_signIn(nullptr)
{
    setObjectName(QStringLiteral("loginDialog"));
    setWindowTitle(tr("Sign in"));
    m_user->setObjectName(QStringLiteral("loginUser"));
    m_password->setObjectName(QStringLiteral("loginPassword"));
    m_error->setObjectName(QStringLiteral("loginError"));
    m_user->setMaxLength(static_cast<int>(api::auth_limits::kMaxUserNameBytes));
    m_password->setMaxLength(static_cast<int>(api::auth_limits::kMaxPasswordBytes));
    m_password->setEchoMode(QLineEdit::Password);
    m_user->setText(auth->lastUserName());

    auto* title = new QLabel(tr("<b>Sign in to %1</b>").arg(where.toHtmlEscaped()), this);
    m_reason->setWordWrap(true);
    m_reason->setText(reason);
    m_reason->setVisible(!reason.isEmpty());
    m_error->setStyleSheet(QStringLiteral("color: #c62828"));
    m_error->setWordWrap(true);
    auto* note = new QLabel(tr("The password is sent once to the cluster and not kept; the console keeps the "
                               "tokens it gets back."),
                            this);
    note->setWordWrap(true);
    note->setStyleSheet(QStringLiteral("color: palette(mid)"));

    auto* form = new QFormLayout;
    form->addRow(tr("User"), m_user);
    form->addRow(tr("Password"), m_password);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_signIn = buttons->addButton(tr("Sign in"), QDialogButtonBox::AcceptRole);
    m_signIn->setObjectName(QStringLiteral("loginSubmit"));
    m_signIn->setDefault(true);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(title);
    layout->addWidget(m_reason);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addWidget(note);
    layout->addWidget(buttons);
    setMinimumWidth(420);

    for (auto* edit : {m_user, m_password}) connect(edit, &QLineEdit::textEdited, m_error, &QLabel::clear);
    connect(buttons, &QDialogButtonBox::accepted, this, &LoginDialog::submit);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_auth, &AuthSession::signedIn, this, [this] {
        setBusy(false);
        accept();
    });
    connect(m_auth, &AuthSession::signInFailed, this, [this](const QString& message) {
        setBusy(false);
        m_error->setText(message);
        m_password->clear();
        m_password->setFocus();
    });
    if (m_user->text().isEmpty()) {
        m_user->setFocus();
    } else {
        m_password->setFocus();
    }
}

QString LoginDialog::errorText() const { return m_error->text(); }

void LoginDialog::setCredentials(const QString& user, const QString& password)
{
    m_user->setText(user);
    m_password->setText(password);
    m_error->clear();
}

void LoginDialog::setBusy(bool busy)
{
    m_user->setEnabled(!busy);
    m_password->setEnabled(!busy);
    m_signIn->setEnabled(!busy);
}

void LoginDialog::submit()
{
    const QString user = m_user->text().trimmed();
    if (auto st = api::validateUserName(user.toStdString()); !st) {
        m_error->setText(QString::fromStdString(st.error().message));
        return;
    }
    if (m_password->text().isEmpty()) {
        m_error->setText(tr("Enter the password."));
        return;
    }
    m_error->clear();
    setBusy(true);
    m_auth->signIn(user, m_password->text());
    m_password->clear();
}

}  // namespace tessera::console
