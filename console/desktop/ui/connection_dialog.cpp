#include "ui/connection_dialog.h"

#include "core/profile_store.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QVBoxLayout>

namespace tessera::console {

ConnectionDialog::ConnectionDialog(ProfileStore* store, const QString& currentName, QWidget* parent)
    : QDialog(parent), m_store(store), m_list(new QListWidget(this)), m_name(new QLineEdit(this)),
      m_endpoint(new QLineEdit(this)), m_token(new QLineEdit(this)), m_caFile(new QLineEdit(this)),
      m_insecure(new QCheckBox(tr("Don't check the certificate"), this)), m_error(new QLabel(this))
{
    setWindowTitle(tr("Connect to a cluster"));
    m_endpoint->setPlaceholderText(QStringLiteral("http://127.0.0.1:8080"));
    m_token->setEchoMode(QLineEdit::Password);
    m_token->setPlaceholderText(tr("optional"));
    m_name->setMaxLength(kProfileNameMax);
    m_token->setMaxLength(kProfileTokenMax);
    m_caFile->setPlaceholderText(tr("https: the cluster's CA (PEM)"));
    m_caFile->setToolTip(tr("https: the PEM file of the cluster's CA, trusted besides the system's CAs"));
    m_insecure->setToolTip(
        tr("https: accept any certificate. For test setups only: anyone on the way can "
           "read and change the traffic."));
    m_error->setStyleSheet(QStringLiteral("color: #c62828"));
    m_error->setWordWrap(true);

    auto* form = new QFormLayout;
    form->addRow(tr("Name"), m_name);
    form->addRow(tr("Endpoint"), m_endpoint);
    form->addRow(tr("Token"), m_token);
    auto* caRow = new QHBoxLayout;
    auto* browse = new QPushButton(tr("Browse…"), this);
    caRow->addWidget(m_caFile, 1);
    caRow->addWidget(browse);
    form->addRow(tr("CA file"), caRow);
    form->addRow(QString(), m_insecure);
    connect(browse, &QPushButton::clicked, this, &ConnectionDialog::browseCaFile);
    // An error names what was wrong with the form as it was: editing it
    // takes the error away.
    for (auto* edit : {m_name, m_endpoint, m_token, m_caFile}) {
        connect(edit, &QLineEdit::textEdited, m_error, &QLabel::clear);
    }
    connect(m_insecure, &QCheckBox::toggled, this, [this, browse](bool on) {
        m_caFile->setEnabled(!on);  // no certificate check: no CA to trust
        browse->setEnabled(!on);
    });

    auto* save = new QPushButton(tr("Save"), this);
    auto* remove = new QPushButton(tr("Delete…"), this);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    auto* connectButton = buttons->addButton(tr("Connect"), QDialogButtonBox::AcceptRole);
    connectButton->setDefault(true);
    save->setEnabled(m_store != nullptr);
    remove->setEnabled(m_store != nullptr);

    auto* right = new QVBoxLayout;
    right->addLayout(form);
    auto* profileButtons = new QHBoxLayout;
    profileButtons->addWidget(save);
    profileButtons->addWidget(remove);
    profileButtons->addStretch(1);
    right->addLayout(profileButtons);
    right->addWidget(m_error);
    right->addStretch(1);
    auto* top = new QHBoxLayout;
    top->addWidget(m_list, 1);
    top->addLayout(right, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(buttons);

    connect(m_list, &QListWidget::currentRowChanged, this, &ConnectionDialog::onSelected);
    connect(save, &QPushButton::clicked, this, &ConnectionDialog::saveProfile);
    connect(remove, &QPushButton::clicked, this, &ConnectionDialog::deleteProfile);
    connect(buttons, &QDialogButtonBox::accepted, this, &ConnectionDialog::connectToProfile);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    reload(currentName);
}

QString ConnectionDialog::errorText() const { return m_error->text(); }

void ConnectionDialog::setForm(const QString& name, const QString& endpoint, const QString& token,
                               const TlsSettings& tls)
{
    m_name->setText(name);
    m_endpoint->setText(endpoint);
    m_token->setText(token);
    m_caFile->setText(tls.caFile);
    m_insecure->setChecked(tls.insecure);
    m_error->clear();
}

void ConnectionDialog::browseCaFile()
{
    const QString file = QFileDialog::getOpenFileName(this, tr("The cluster's CA certificate"), m_caFile->text(),
                                                      tr("PEM certificates (*.pem *.crt);;All files (*)"));
    if (!file.isEmpty()) m_caFile->setText(file);
}

void ConnectionDialog::reload(const QString& select)
{
    m_list->clear();
    if (!m_store) {
        return;
    }
    auto profiles = m_store->profiles();
    if (!profiles) {
        m_error->setText(QString::fromStdString(profiles.error().message));
        return;
    }
    for (const auto& p : *profiles) {
        auto* item = new QListWidgetItem(p.name, m_list);
        item->setToolTip(p.endpoint.toString());
        if (p.name == select) {
            m_list->setCurrentItem(item);
        }
    }
}

void ConnectionDialog::onSelected()
{
    auto* item = m_list->currentItem();
    if (!item || !m_store) {
        return;
    }
    auto profile = m_store->find(item->text());
    if (profile && *profile) {
        setForm((*profile)->name, (*profile)->endpoint.toString(), (*profile)->token, (*profile)->tls);
        m_error->clear();
    }
}

std::optional<ConnectionProfile> ConnectionDialog::formProfile()
{
    ConnectionProfile p{m_name->text().trimmed(), normalizeEndpoint(m_endpoint->text()), m_token->text(),
                        TlsSettings{m_caFile->text().trimmed(), m_insecure->isChecked()}};
    if (!p.endpoint.isValid()) {
        m_error->setText(tr("The endpoint must be an http:// or https:// URL, e.g. http://127.0.0.1:8080."));
        return std::nullopt;
    }
    // A CA file that will not load is said here, not later as "offline".
    if (p.endpoint.scheme() == QLatin1String("https")) {
        if (auto config = sslConfiguration(p.tls); !config) {
            m_error->setText(QString::fromStdString(config.error().message));
            return std::nullopt;
        }
    }
    return p;
}

bool ConnectionDialog::saveProfile()
{
    auto p = formProfile();
    if (!p || !m_store) {
        return false;
    }
    if (auto st = m_store->save(*p); !st) {
        m_error->setText(QString::fromStdString(st.error().message));
        return false;
    }
    m_error->clear();
    reload(p->name);
    return true;
}

void ConnectionDialog::deleteProfile()
{
    auto* item = m_list->currentItem();
    if (!item || !m_store) {
        return;
    }
    const QString name = item->text();
    if (QMessageBox::question(this, tr("Delete profile"), tr("Delete the connection profile \"%1\"?").arg(name)) !=
        QMessageBox::Yes) {
        return;
    }
    if (auto st = m_store->remove(name); !st) {
        m_error->setText(QString::fromStdString(st.error().message));
        return;
    }
    reload(QString());
}

void ConnectionDialog::connectToProfile()
{
    auto p = formProfile();
    if (!p) {
        return;
    }
    // A named profile is saved (so that it reopens next time); no name: a one-off connection.
    if (!p->name.isEmpty() && m_store && !saveProfile()) {
        return;
    }
    m_chosen = p;
    accept();
}

}  // namespace tessera::console
