#pragma once

#include "core/connection_profile.h"

#include <QDialog>
#include <optional>

class QCheckBox;
class QLabel;
class QLineEdit;
class QListWidget;

namespace tessera::console {

class ProfileStore;

// Connection profiles: pick one, edit it, save, delete, connect. The chosen
// profile is in chosen() after the dialog is accepted. `store` may be null
// (no database): then only a one-off endpoint can be used.
class ConnectionDialog : public QDialog {
    Q_OBJECT
public:
    ConnectionDialog(ProfileStore* store, const QString& currentName, QWidget* parent = nullptr);

    std::optional<ConnectionProfile> chosen() const { return m_chosen; }
    QString errorText() const;

    // For tests and keyboard users: fill the form.
    void setForm(const QString& name, const QString& endpoint, const QString& token, const TlsSettings& tls = {});

public slots:
    bool saveProfile();
    void deleteProfile();
    void connectToProfile();

private:
    void reload(const QString& select);
    void onSelected();
    void browseCaFile();
    std::optional<ConnectionProfile> formProfile();

    ProfileStore* m_store;
    QListWidget* m_list;
    QLineEdit* m_name;
    QLineEdit* m_endpoint;
    QLineEdit* m_token;
    QLineEdit* m_caFile;
    QCheckBox* m_insecure;
    QLabel* m_error;
    std::optional<ConnectionProfile> m_chosen;
};

}  // namespace tessera::console
