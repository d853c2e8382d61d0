#include "ui/access_page.h"

#include "core/auth_session.h"
#include "models/grant_model.h"
#include "models/user_model.h"
#include "ui/add_user_dialog.h"

#include <QCheckBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace tessera::console {

namespace {

QTableView* makeTable(QAbstractItemModel* model, QWidget* parent)
{
    auto* view = new QTableView(parent);
    view->setModel(model);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->verticalHeader()->hide();
    view->horizontalHeader()->setStretchLastSection(true);
    view->setAlternatingRowColors(true);
    return view;
}

}  // namespace

AccessPage::AccessPage(UserModel* users, AuthSession* auth, QWidget* parent)
    : QWidget(parent), m_users(users), m_auth(auth), m_grants(new GrantModel(this)), m_reason(new QLabel(this)),
      m_error(new QLabel(this)), m_usersView(makeTable(users, this)), m_grantsView(makeTable(m_grants, this)),
      m_grantBox(new QGroupBox(tr("Grants"), this)), m_bucket(new QLineEdit(this)),
      m_add(new QPushButton(tr("Add user…"), this)), m_remove(new QPushButton(tr("Remove user…"), this)),
      m_grant(new QPushButton(tr("Grant"), this)), m_revoke(new QPushButton(tr("Revoke"), this))
{
    m_reason->setObjectName(QStringLiteral("accessReason"));
    m_error->setObjectName(QStringLiteral("accessError"));
    m_reason->setWordWrap(true);
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #c62828"));
    m_usersView->setObjectName(QStringLiteral("usersView"));
    m_grantsView->setObjectName(QStringLiteral("grantsView"));
    m_usersView->horizontalHeader()->resizeSection(UserModel::NameColumn, 160);
    m_grantsView->horizontalHeader()->resizeSection(GrantModel::BucketColumn, 160);
    m_bucket->setPlaceholderText(tr("bucket, or * for every bucket"));
    m_bucket->setObjectName(QStringLiteral("grantBucket"));
    m_grant->setToolTip(tr("Give the user the checked permissions on the bucket"));
    m_revoke->setToolTip(tr("Take the checked permissions on the bucket away from the user"));

    auto* title = new QLabel(tr("<b>Access</b> — the cluster's users and what each may do to which bucket. "
                                "Admins may do everything."),
                             this);
    title->setWordWrap(true);

    auto* userButtons = new QHBoxLayout;
    auto* reload = new QPushButton(tr("Reload"), this);
    userButtons->addWidget(m_add);
    userButtons->addWidget(m_remove);
    userButtons->addStretch(1);
    userButtons->addWidget(reload);
    auto* left = new QVBoxLayout;
    left->addWidget(m_usersView, 1);
    left->addLayout(userButtons);

    auto* permissionRow = new QHBoxLayout;
    for (api::Permission p : api::kAllPermissions) {
        const std::string_view name = api::permissionName(p);
        auto* box = new QCheckBox(QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size())), this);
        box->setObjectName(QStringLiteral("permission-") + box->text());
        permissionRow->addWidget(box);
        m_permissionBoxes.emplace_back(p, box);
    }
    permissionRow->addStretch(1);
    auto* grantButtons = new QHBoxLayout;
    grantButtons->addWidget(m_bucket, 1);
    grantButtons->addWidget(m_grant);
    grantButtons->addWidget(m_revoke);
    auto* grantLayout = new QVBoxLayout(m_grantBox);
    grantLayout->addWidget(m_grantsView, 1);
    grantLayout->addLayout(grantButtons);
    grantLayout->addLayout(permissionRow);

    auto* columns = new QHBoxLayout;
    columns->addLayout(left, 1);
    columns->addWidget(m_grantBox, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(title);
    layout->addWidget(m_reason);
    layout->addLayout(columns, 1);
    layout->addWidget(m_error);

    connect(reload, &QPushButton::clicked, this, &AccessPage::refresh);
    connect(m_add, &QPushButton::clicked, this, &AccessPage::addUser);
    connect(m_remove, &QPushButton::clicked, this, &AccessPage::removeUser);
    connect(m_grant, &QPushButton::clicked, this, &AccessPage::grantSelected);
    connect(m_revoke, &QPushButton::clicked, this, &AccessPage::revokeSelected);
    connect(m_usersView->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &AccessPage::showUser);
    connect(m_grantsView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &AccessPage::onGrantSelected);
    connect(m_users, &UserModel::userChanged, this, [this](const QString& name) {
        if (name == selectedUser()) showUser();
    });
    connect(m_users, &QAbstractItemModel::modelReset, this, &AccessPage::showUser);
    connect(m_users, &QAbstractItemModel::rowsRemoved, this, &AccessPage::showUser);
    connect(m_users, &UserModel::loadFailed, this, &AccessPage::setError);
    connect(m_auth, &AuthSession::stateChanged, this, &AccessPage::updateAccess);
    updateAccess();
}

QString AccessPage::reasonText() const { return m_reason->isHidden() ? QString() : m_reason->text(); }

QString AccessPage::errorText() const { return m_error->text(); }

void AccessPage::setError(const QString& text) { m_error->setText(text); }

void AccessPage::updateAccess()
{
    const bool admin = m_auth->isAdmin();
    QString reason;
    if (!admin) {
        switch (m_auth->state()) {
        case AuthSession::State::SignedIn:
            reason = tr("Only an admin manages access; you are signed in as %1.")
                         .arg(QString::fromStdString(m_auth->user().name));
            break;
        case AuthSession::State::Off:
        case AuthSession::State::Unknown:
            reason = tr("This cluster runs with auth off: there are no users to manage.");
            break;
        default: reason = tr("Sign in as an admin to manage access."); break;
        }
    }
    m_reason->setText(reason);
    m_reason->setVisible(!admin);
    for (QWidget* w : std::initializer_list<QWidget*>{m_usersView, m_grantBox, m_add, m_remove}) {
        w->setEnabled(admin);
    }
    if (admin) {
        m_users->reload();
    } else {
        m_users->clear();
        m_error->clear();
    }
}

void AccessPage::refresh()
{
    if (!m_auth->isAdmin()) return;
    m_error->clear();
    m_users->reload();
}

QString AccessPage::selectedUser() const
{
    const QModelIndex current = m_usersView->currentIndex();
    if (!current.isValid()) return {};
    return m_users->data(current, UserModel::UserNameRole).toString();
}

void AccessPage::selectUser(const QString& name)
{
    const int row = m_users->rowOf(name);
    if (row < 0) return;
    m_usersView->setCurrentIndex(m_users->index(row, UserModel::NameColumn));
}

void AccessPage::showUser()
{
    const auto user = m_users->find(selectedUser());
    m_remove->setEnabled(m_auth->isAdmin() && user.has_value());
    m_grant->setEnabled(user.has_value());
    m_revoke->setEnabled(user.has_value());
    if (!user) {
        m_grantBox->setTitle(tr("Grants"));
        m_grants->setGrants({});
        return;
    }
    m_grantBox->setTitle(
        user->admin ? tr("Grants of %1 (an admin: may do everything anyway)").arg(QString::fromStdString(user->name))
                    : tr("Grants of %1").arg(QString::fromStdString(user->name)));
    m_grants->setGrants(user->grants);
}

void AccessPage::onGrantSelected()
{
    const QModelIndex current = m_grantsView->currentIndex();
    if (!current.isValid()) return;
    const api::Grant& g = m_grants->grant(current.row());
    setGrantForm(QString::fromStdString(g.bucket), g.permissions);
}

void AccessPage::setGrantForm(const QString& bucket, const std::vector<api::Permission>& permissions)
{
    m_bucket->setText(bucket);
    for (auto& [p, box] : m_permissionBoxes) {
        box->setChecked(std::find(permissions.begin(), permissions.end(), p) != permissions.end());
    }
}

std::vector<api::Permission> AccessPage::checkedPermissions() const
{
    std::vector<api::Permission> out;
    for (const auto& [p, box] : m_permissionBoxes) {
        if (box->isChecked()) out.push_back(p);
    }
    return out;
}

void AccessPage::addUser()
{
    auto* dialog = new AddUserDialog(m_users, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this] { emit statusMessage(tr("User added")); });
    dialog->open();
}

void AccessPage::removeUser()
{
    const QString name = selectedUser();
    if (name.isEmpty()) return;
    QMessageBox box(QMessageBox::Question, tr("Remove user"),
                    tr("Remove the user \"%1\"? They can no longer sign in, and their grants are gone.").arg(name),
                    QMessageBox::Yes | QMessageBox::No, this);
    box.setObjectName(QStringLiteral("removeUserConfirmation"));
    box.setDefaultButton(QMessageBox::No);
    if (box.exec() != QMessageBox::Yes) return;
    m_error->clear();
    QPointer<AccessPage> self(this);
    m_users->removeUser(name, [self, name](api::Status st) {
        if (!self) return;
        if (!st) return self->setError(QString::fromStdString(st.error().message));
        emit self->statusMessage(tr("User %1 removed").arg(name));
    });
}

void AccessPage::grantSelected()
{
    const QString user = selectedUser();
    const QString bucket = m_bucket->text().trimmed();
    const auto permissions = checkedPermissions();
    if (user.isEmpty()) return setError(tr("Choose a user first."));
    if (bucket.isEmpty()) return setError(tr("Name the bucket (or * for every bucket)."));
    if (permissions.empty()) return setError(tr("Check at least one permission."));
    m_error->clear();
    QPointer<AccessPage> self(this);
    m_users->grant(user, api::Grant{bucket.toStdString(), permissions}, [self](api::Status st) {
        if (!self) return;
        if (!st) self->setError(QString::fromStdString(st.error().message));
    });
}

void AccessPage::revokeSelected()
{
    const QString user = selectedUser();
    const QString bucket = m_bucket->text().trimmed();
    if (user.isEmpty()) return setError(tr("Choose a user first."));
    if (bucket.isEmpty()) return setError(tr("Name the bucket (or * for every bucket)."));
    m_error->clear();
    QPointer<AccessPage> self(this);
    m_users->revoke(user, bucket, checkedPermissions(), [self](api::Status st) {
        if (!self) return;
        if (!st) self->setError(QString::fromStdString(st.error().message));
    });
}

}  // namespace tessera::console
