#include "ui/add_user_dialog.h"

#include "api/auth_msg.h"
#include "models/user_model.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QVBoxLayout>

namespace tessera::console {

AddUserDialog::AddUserDialog(UserModel* users, QWidget* parent)
    : QDialog(parent), m_users(users), m_name(new QLineEdit(this)), m_password(new QLineEdit(this)),
      m_repeated(new QLineEdit(this)), m_admin(new QCheckBox(tr("Admin (may do everything, manage users)"), this)),
      m_error(new QLabel(this)), m_add(nullptr)
{
    setObjectName(QStringLiteral("addUserDialog"));
    setWindowTitle(tr("Add user"));
    m_name->setMaxLength(static_cast<int>(api::auth_limits::kMaxUserNameBytes));
    m_name->setPlaceholderText(tr("letters, digits, . _ -"));
    for (auto* edit : {m_password, m_repeated}) {
        edit->setEchoMode(QLineEdit::Password);
        edit->setMaxLength(static_cast<int>(api::auth_limits::kMaxPasswordBytes));
    }
    m_error->setStyleSheet(QStringLiteral("color: #c62828"));
    m_error->setWordWrap(true);
    auto* form = new QFormLayout;
    form->addRow(tr("Name"), m_name);
    form->addRow(tr("Password"), m_password);
    form->addRow(tr("Password again"), m_repeated);
    form->addRow(QString(), m_admin);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_add = buttons->addButton(tr("Add"), QDialogButtonBox::AcceptRole);
    m_add->setDefault(true);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_error);
    layout->addWidget(buttons);
    setMinimumWidth(420);
    for (auto* edit : {m_name, m_password, m_repeated}) connect(edit, &QLineEdit::textEdited, m_error, &QLabel::clear);
    connect(buttons, &QDialogButtonBox::accepted, this, &AddUserDialog::submit);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

QString AddUserDialog::errorText() const { return m_error->text(); }

void AddUserDialog::setForm(const QString& name, const QString& password, const QString& repeated, bool admin)
{
    m_name->setText(name);
    m_password->setText(password);
    m_repeated->setText(repeated);
    m_admin->setChecked(admin);
    m_error->clear();
}

void AddUserDialog::submit()
{
    const QString name = m_name->text().trimmed();
    if (auto st = api::validateUserName(name.toStdString()); !st) {
        m_error->setText(QString::fromStdString(st.error().message));
        return;
    }
    if (m_password->text() != m_repeated->text()) {
        m_error->setText(tr("The two passwords differ."));
        return;
    }
    m_add->setEnabled(false);
    QPointer<AddUserDialog> self(this);
    m_users->addUser(api::NewUser{name.toStdString(), m_password->text().toStdString(), m_admin->isChecked()},
                     [self](api::Status st) {
                         if (!self) return;
                         self->m_add->setEnabled(true);
                         if (!st) {
                             self->m_error->setText(QString::fromStdString(st.error().message));
                             return;
                         }
                         self->accept();
                     });
}

}  // namespace tessera::console
