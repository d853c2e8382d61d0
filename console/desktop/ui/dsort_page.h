#pragma once
// The dSort composer: a form and the spec text (JSON or YAML) side by side,
// kept in step by a DsortComposer; each field shows the proxy checker's
// message for it and the text marks the same error's line. Preview asks the
// proxy for the plan (POST /v1/sort?dry_run=true) and shows it: the input
// shards found and missing, every output shard with its owner target, size
// and records, the first records in output order, the warnings. Start
// submits the spec (the previewed one when the plan filled in a shuffle's
// seed, so the job makes exactly that plan) and shows the job live: per
// target its phase and progress, Abort after a confirmation, and when it is
// done a button that opens the output bucket.
//
// Specs are saved by name in the console's database (SpecStore), opened and
// saved as .json/.yaml files, and the spec being edited is the draft: it is
// saved as it changes and comes back when the console starts again. Undo
// and redo (Ctrl+Z, Ctrl+Shift+Z) step through the document's changes.

#include <QPointer>
#include <QString>
#include <QWidget>
#include <map>
#include <optional>
#include <vector>

#include "core/rest_client.h"
#include "spec/dsort_preview.h"

class QCheckBox;
class QFormLayout;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QStandardItemModel;
class QTabWidget;
class QTableView;
class QTimer;

namespace tessera::console {

class DsortComposer;
class SpecStore;

class DsortPage : public QWidget {
    Q_OBJECT
public:
    static constexpr int kPollMs = 500;               // the running job's status
    static constexpr int kPresenceDelayMs = 400;      // after the last edit of the input fields
    static constexpr int kMaxPresenceNames = 100000;  // names listed to tell which inputs exist
    static constexpr int kDraftDelayMs = 300;

    // `specs` may be null (no database): nothing is saved.
    DsortPage(RestClient* rest, SpecStore* specs, QWidget* parent = nullptr);
    ~DsortPage() override;

    DsortComposer* composer() const { return m_composer; }
    QPlainTextEdit* textEdit() const { return m_text; }
    QComboBox* formatBox() const { return m_format; }
    QPushButton* previewButton() const { return m_preview; }
    QPushButton* startButton() const { return m_start; }
    QPushButton* abortButton() const { return m_abort; }
    QPushButton* openOutputButton() const { return m_openOutput; }
    QLabel* inputExpansion() const { return m_expansion; }
    QLabel* messageLabel() const { return m_message; }
    QStandardItemModel* shardsModel() const { return m_shardsModel; }
    QStandardItemModel* recordsModel() const { return m_recordsModel; }
    QStandardItemModel* targetsModel() const { return m_targetsModel; }
    QListWidget* warningsList() const { return m_warnings; }
    QLabel* planSummary() const { return m_planSummary; }
    QLabel* jobState() const { return m_jobState; }
    QComboBox* savedSpecs() const { return m_saved; }
    QTabWidget* tabs() const { return m_tabs; }
    // The form's editor of the field at `pointer` and the label that shows its error.
    QWidget* fieldEditor(const QString& pointer) const;
    QLabel* fieldErrorLabel(const QString& pointer) const;
    // The job started from this page ("" before Start), and its last status.
    QString jobId() const { return m_jobId; }
    std::optional<api::JobStatus> lastStatus() const { return m_status; }
    std::optional<spec::DsortDryRun> lastPlan() const { return m_plan; }

public slots:
    void refresh();  // F5: the bucket lists, the inputs' presence
    void runPreview();
    void startJob();
    void abortJob();  // asks first (QMessageBox "abortDsortConfirmation")
    void newSpec();
    // Saving and opening, by name in the database or as a file. False with
    // the reason on the page's message line.
    bool saveAs(const QString& name);
    bool openSaved(const QString& name);
    bool removeSaved(const QString& name);
    bool saveFile(const QString& path);
    bool openFile(const QString& path);

signals:
    // "Open output bucket": the Buckets page shows it.
    void openBucket(const QString& bucket);
    void statusMessage(const QString& text);

private:
    struct FieldRow {
        QString pointer;
        QWidget* editor = nullptr;
        QLabel* error = nullptr;
    };

    void buildUi();
    QWidget* buildForm();
    QWidget* buildPlanTab();
    QWidget* buildJobTab();
    void addRow(QFormLayout* form, const QString& label, const QString& pointer, QWidget* editor);
    void connectLineEdit(QLineEdit* edit, const QString& pointer, bool number = false);
    void connectCombo(QComboBox* box, const QString& pointer, const QString& defaultValue);
    void onDocumentChanged();
    void onTextRewritten();
    void onValidityChanged();
    void updateAlgorithmFields();
    void updateButtons();
    void showMessage(const QString& text, bool error);
    void checkPresence();
    void listForPresence(const QString& bucket, const QStringList& names, const QString& token, int listed,
                         std::shared_ptr<std::vector<QString>> seen);
    void showPlan(const spec::DsortDryRun& plan);
    void poll();
    void showStatus(const api::JobStatus& status);
    void reloadSaved();
    void saveDraft();
    void loadBuckets();

    RestClient* m_rest;
    SpecStore* m_specs;
    DsortComposer* m_composer;
    std::vector<FieldRow> m_rows;
    bool m_updatingForm = false;
    bool m_updatingText = false;

    QComboBox* m_saved = nullptr;
    QPushButton* m_preview = nullptr;
    QPushButton* m_start = nullptr;
    QLabel* m_message = nullptr;
    QPlainTextEdit* m_text = nullptr;
    QComboBox* m_format = nullptr;
    QLabel* m_textError = nullptr;
    QLabel* m_expansion = nullptr;
    QComboBox* m_inputBck = nullptr;
    QComboBox* m_outputBck = nullptr;
    QComboBox* m_algorithm = nullptr;
    QFormLayout* m_formLayout = nullptr;
    QString m_presenceKey;  // bucket and names last checked
    QTabWidget* m_tabs = nullptr;
    QLabel* m_planSummary = nullptr;
    QListWidget* m_warnings = nullptr;
    QStandardItemModel* m_shardsModel = nullptr;
    QStandardItemModel* m_recordsModel = nullptr;
    QLabel* m_jobState = nullptr;
    QStandardItemModel* m_targetsModel = nullptr;
    QPushButton* m_abort = nullptr;
    QPushButton* m_openOutput = nullptr;

    QTimer* m_presenceTimer;
    QTimer* m_pollTimer;
    QTimer* m_draftTimer;
    RestCall m_presenceCall;
    RestCall m_previewCall;
    int m_presenceGeneration = 0;
    std::optional<spec::DsortDryRun> m_plan;
    nlohmann::json m_planDocument;  // the document the plan is for
    QString m_jobId;
    QString m_jobOutputBucket;
    std::optional<api::JobStatus> m_status;
};

}  // namespace tessera::console
