#pragma once
// The ETL composer (docs/console.md, docs/etl.md). Left: the transformers
// the cluster runs (GET /v1/etl: name, mode, stage, objects, errors), Remove
// after a confirmation, and a spec (JSON or YAML) to initialize a new one
// (PUT /v1/etl; the proxy's 400 names the field). Right: an object — or a
// member of a shard — before and after a transformer, side by side (image,
// JSON, text or hex, with sizes and the time the transform took), re-run
// when the ETL arguments change; a transformer's failure shows the proxy's
// message with the tail of its stderr. Below: "Run on bucket", the offline
// job (etl-bck by prefix, or per sample over shards) with the destination
// bucket and an extension mapping, followed live on the page.

#include "core/rest_client.h"
#include "models/preview_loader.h"

#include <QElapsedTimer>
#include <QString>
#include <QWidget>
#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QStackedWidget;
class QStandardItemModel;
class QTableView;
class QTimer;

namespace tessera::console {

// One side of the before/after view.
class TransformPane : public QWidget {
    Q_OBJECT
public:
    TransformPane(const QString& title, QWidget* parent = nullptr);
    void showBytes(const QString& name, const QByteArray& bytes, const QString& extra);
    void showError(const QString& text);
    void showWaiting();
    Preview::Kind kind() const { return m_kind; }
    QLabel* summary() const { return m_summary; }
    QString text() const;

private:
    QString m_title;
    QLabel* m_summary;
    QStackedWidget* m_stack;
    QLabel* m_image;
    QPlainTextEdit* m_text;
    Preview::Kind m_kind = Preview::Kind::Empty;
};

class EtlPage : public QWidget {
    Q_OBJECT
public:
    static constexpr qint64 kMaxPreviewBytes = 16 * 1024 * 1024;  // before or after, whole
    static constexpr int kArgsDelayMs = 400;                      // re-run after the last edit of the arguments
    static constexpr int kPollMs = 500;

    explicit EtlPage(RestClient* rest, QWidget* parent = nullptr);

    QStandardItemModel* transformersModel() const { return m_model; }
    QPlainTextEdit* specEdit() const { return m_spec; }
    QComboBox* specFormat() const { return m_specFormat; }
    QPushButton* initButton() const { return m_init; }
    QLabel* specMessage() const { return m_specMessage; }
    QComboBox* bucketBox() const { return m_bucket; }
    QLineEdit* objectEdit() const { return m_object; }
    QLineEdit* memberEdit() const { return m_member; }
    QComboBox* etlBox() const { return m_etl; }
    QLineEdit* argsEdit() const { return m_args; }
    QPushButton* transformButton() const { return m_transform; }
    TransformPane* before() const { return m_before; }
    TransformPane* after() const { return m_after; }
    // The last transformation's time in ms (-1 before the first).
    qint64 lastTransformMs() const { return m_lastMs; }
    int transformsDone() const { return m_transformsDone; }
    QComboBox* destinationBox() const { return m_destination; }
    QLineEdit* prefixEdit() const { return m_prefix; }
    QLineEdit* extEdit() const { return m_ext; }
    QCheckBox* perSampleBox() const { return m_perSample; }
    QCheckBox* dryRunBox() const { return m_dryRun; }
    QPushButton* runButton() const { return m_run; }
    QPushButton* openOutputButton() const { return m_openOutput; }
    QLabel* jobState() const { return m_jobState; }
    std::optional<api::JobStatus> lastStatus() const { return m_status; }

public slots:
    void refresh();  // F5: the transformers and the buckets
    void initTransformer();
    void removeSelected();  // asks first (QMessageBox "removeEtlConfirmation")
    void transform();
    void runOnBucket();
    // An object (or a shard's member) from the Buckets page: shown before
    // and after the selected transformer at once.
    void showSample(const QString& bucket, const QString& object, const QString& member);

signals:
    void openBucket(const QString& bucket);
    void statusMessage(const QString& text);

private:
    QWidget* buildLeft();
    QWidget* buildRight();
    void showList(const std::vector<api::EtlInfo>& list);
    void poll();
    void showMessage(QLabel* label, const QString& text, bool error);

    RestClient* m_rest;
    QStandardItemModel* m_model;
    QTableView* m_table = nullptr;
    QPlainTextEdit* m_spec = nullptr;
    QComboBox* m_specFormat = nullptr;
    QPushButton* m_init = nullptr;
    QPushButton* m_remove = nullptr;
    QLabel* m_specMessage = nullptr;
    QComboBox* m_bucket = nullptr;
    QLineEdit* m_object = nullptr;
    QLineEdit* m_member = nullptr;
    QComboBox* m_etl = nullptr;
    QLineEdit* m_args = nullptr;
    QPushButton* m_transform = nullptr;
    TransformPane* m_before = nullptr;
    TransformPane* m_after = nullptr;
    QComboBox* m_destination = nullptr;
    QLineEdit* m_prefix = nullptr;
    QLineEdit* m_ext = nullptr;
    QCheckBox* m_perSample = nullptr;
    QCheckBox* m_dryRun = nullptr;
    QPushButton* m_run = nullptr;
    QPushButton* m_openOutput = nullptr;
    QLabel* m_jobState = nullptr;
    QTimer* m_argsTimer;
    QTimer* m_pollTimer;
    RestCall m_beforeCall;
    RestCall m_afterCall;
    QElapsedTimer m_clock;
    qint64 m_lastMs = -1;
    int m_transformsDone = 0;
    int m_generation = 0;
    QString m_jobId;
    QString m_jobOutput;
    bool m_dryRunning = false;  // the job started is a dry run: nothing to open
    std::optional<api::JobStatus> m_status;
};

}  // namespace tessera::console
