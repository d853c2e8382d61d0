#pragma once

#include <QDialog>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace tessera::console {

class UserModel;

// "Add user": a name, the password twice and the admin box. The user is
// created on the cluster before the dialog closes; what the cluster refuses
// (a name taken, a password too short) shows in the dialog. `users` must
// outlive the dialog.
class AddUserDialog : public QDialog {
    Q_OBJECT
public:
    explicit AddUserDialog(UserModel* users, QWidget* parent = nullptr);

    QString errorText() const;
    // For tests and keyboard users: fill the form.
    void setForm(const QString& name, const QString& password, const QString& repeated, bool admin);

public slots:
    void submit();

private:
    UserModel* m_users;
    QLineEdit* m_name;
    QLineEdit* m_password;
    QLineEdit* m_repeated;
    QCheckBox* m_admin;
    QLabel* m_error;
    QPushButton* m_add;
};

}  // namespace tessera::console
