#pragma once
// A bucket's properties, with its Protection group: mirroring on or off and
// the number of copies (2 to the number of targets in the console's cluster
// map), always across targets. Apply sends the change (set-bprops); the
// cluster's refusal is shown on the field it names (red frame and message),
// any other error (a bucket destroyed meanwhile, no answer) under the group.
// The current state (protected, at risk) follows the bucket model while the
// dialog is open. Opened with open(), never exec(): nothing waits on it.

#include "api/bmd.h"

#include <QDialog>
#include <QPointer>
#include <optional>

class QCheckBox;
class QGroupBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace tessera::console {

class BucketModel;
class RestClient;

class BucketPropsDialog : public QDialog {
    Q_OBJECT
public:
    // `buckets` gives the bucket's properties and the cluster map's targets
    // as the dialog opens, and takes the properties the cluster answers.
    BucketPropsDialog(RestClient* rest, BucketModel* buckets, const QString& bucket, QWidget* parent = nullptr);

    QString bucket() const { return m_bucket; }
    QCheckBox* mirrorBox() const { return m_mirror; }
    QSpinBox* copiesBox() const { return m_copies; }
    QCheckBox* acrossBox() const { return m_across; }
    QPushButton* applyButton() const { return m_apply; }
    // The message under the copies field (the cluster's refusal of the value).
    QString copiesError() const;
    // The line under the group: the outcome of the last Apply, or an error
    // that names no field.
    QString statusText() const;
    bool isApplying() const { return m_applying; }
    // The mirror conf the form asks for.
    api::MirrorConf wanted() const;

public slots:
    void apply();

signals:
    // The cluster took the change; `props` are the bucket's properties now.
    void applied(const QString& bucket, const tessera::api::BucketProps& props);

private:
    void updateForm();
    void updateState();
    void setCopiesError(const QString& message);
    void setStatus(const QString& text, bool error);

    RestClient* m_rest;
    QPointer<BucketModel> m_buckets;
    QString m_bucket;
    std::optional<api::BucketProps> m_props;  // as last read or applied
    int m_targets = 0;
    bool m_applying = false;

    QLabel* m_header = nullptr;
    QGroupBox* m_group = nullptr;
    QCheckBox* m_mirror = nullptr;
    QSpinBox* m_copies = nullptr;
    QCheckBox* m_across = nullptr;
    QLabel* m_copiesError = nullptr;
    QLabel* m_state = nullptr;
    QLabel* m_status = nullptr;
    QPushButton* m_apply = nullptr;
};

}  // namespace tessera::console
