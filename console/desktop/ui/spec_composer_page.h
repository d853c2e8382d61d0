#pragma once
// What the job composer pages (dSort, ishard) share: a form and the spec
// text (JSON or YAML) side by side, kept in step by a SpecComposer; each
// field shows the proxy checker's message for it and the text marks the
// same error's line. Preview and Start stay disabled while the spec is not
// valid. A page adds its form rows, its Plan tab (filled by its own Preview)
// and how it starts its job; the Job tab is shared: the job started from the
// page, polled (GET /v1/jobs/ID) with each target's phase and progress,
// Abort after a confirmation (DELETE /v1/jobs/ID), and when it is done a
// button that opens the output bucket.
//
// Specs are saved by name in the console's database (SpecStore, under the
// page's kind), opened and saved as .json/.yaml files, and the spec being
// edited is the draft: it is saved as it changes and comes back when the
// console starts again. Undo and redo (Ctrl+Z, Ctrl+Shift+Z) step through
// the document's changes.

#include "core/rest_client.h"

#include <nlohmann/json.hpp>

#include <QString>
#include <QWidget>
#include <functional>
#include <optional>
#include <vector>

class QComboBox;
class QFormLayout;
class QLabel;
class QListWidget;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QStandardItem;
class QStandardItemModel;
class QTabWidget;
class QTableView;
class QTimer;

namespace tessera::console {

class SpecComposer;
class SpecStore;

class SpecComposerPage : public QWidget {
    Q_OBJECT
public:
    static constexpr int kPollMs = 500;  // the running job's status
    static constexpr int kDraftDelayMs = 300;
    static constexpr qint64 kMaxSpecFileBytes = 1 << 20;

    ~SpecComposerPage() override;

    SpecComposer* composer() const { return m_composer; }
    QPlainTextEdit* textEdit() const { return m_text; }
    QComboBox* formatBox() const { return m_format; }
    QPushButton* previewButton() const { return m_preview; }
    QPushButton* startButton() const { return m_start; }
    QPushButton* abortButton() const { return m_abort; }
    QPushButton* openOutputButton() const { return m_openOutput; }
    QLabel* messageLabel() const { return m_message; }
    QStandardItemModel* targetsModel() const { return m_targetsModel; }
    QLabel* jobState() const { return m_jobState; }
    QComboBox* savedSpecs() const { return m_saved; }
    QTabWidget* tabs() const { return m_tabs; }
    // The Plan tab: its summary line, its warnings, and its two tables (the
    // output on the left, the first items in output order on the right).
    QLabel* planSummary() const { return m_planSummary; }
    QListWidget* warningsList() const { return m_warnings; }
    // The form's editor of the field at `pointer` and the label that shows its error.
    QWidget* fieldEditor(const QString& pointer) const;
    QLabel* fieldErrorLabel(const QString& pointer) const;
    // The job started from this page ("" before Start), and its last status.
    QString jobId() const { return m_jobId; }
    std::optional<api::JobStatus> lastStatus() const { return m_status; }

public slots:
    virtual void refresh();  // F5: the bucket lists
    virtual void runPreview() = 0;
    void startJob();
    void abortJob();  // asks first (QMessageBox "abortJobConfirmation")
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

protected:
    // `kind` keys the saved specs and names the spec in messages ("dsort",
    // "ishard"); `title` is shown ("dSort"). The subclass builds its form
    // rows and its Plan tab in its constructor, then calls finishSetup().
    SpecComposerPage(const QString& kind, const QString& title, SpecComposer* composer, RestClient* rest,
                     SpecStore* specs, QWidget* parent);
    // After the form: the Plan tab (`intro` until the first Preview; the
    // tables' column titles), the draft loaded.
    void finishSetup(const QString& intro, const QStringList& outputColumns, const QStringList& firstColumns);

    // Preview's steps: before the call; a failed one (the plan cleared, the
    // proxy's message shown); the warnings of a plan.
    void previewStarted();
    void previewFailed(const api::Error& error);
    void showWarnings(const std::vector<std::string>& warnings);

    // Preview: `call(text, yaml, done)` asks the proxy for the plan of the
    // spec as written; the answer goes to `plan` and `show`, a failure to
    // previewFailed. planIsCurrent() says whether the document is still the
    // one the last plan is for (then Start sends the plan's spec).
    template <typename Answer, typename Call, typename Show>
    void preview(Call call, std::optional<Answer>& plan, Show show)
    {
        if (!specValid()) return;
        previewStarted();
        const nlohmann::json doc = currentDocument();
        setPreviewCall(call(specText(), specYaml(), [this, doc, &plan, show](api::Result<Answer> got) {
            setPreviewCall({});
            m_planDocument = got ? doc : nlohmann::json();
            if (!got) {
                plan.reset();
                previewFailed(got.error());
            } else {
                plan = *got;
                show(*got);
            }
            updateButtons();
        }));
        updateButtons();
    }
    bool planIsCurrent() const;
    bool specValid() const;
    QByteArray specText() const;
    bool specYaml() const;
    nlohmann::json currentDocument() const;
    QStandardItemModel* m_outputModel = nullptr;  // the Plan tab's left table
    QStandardItemModel* m_firstModel = nullptr;   // its right table
    QLabel* m_planSummary = nullptr;
    QListWidget* m_warnings = nullptr;

    // The form.
    QFormLayout* form() const { return m_formLayout; }
    QWidget* formParent() const;
    void addRow(const QString& label, const QString& pointer, QWidget* editor);
    void connectLineEdit(QLineEdit* edit, const QString& pointer, bool number = false);
    void connectCombo(QComboBox* box, const QString& pointer);
    QComboBox* bucketBox();  // editable; offers the cluster's buckets
    void setRowVisible(const char* pointer, bool visible);

    // What a subclass adds.
    virtual QString emptySpec() const = 0;  // the text of New (JSON)
    virtual void documentChanged() {}       // after the form shows the document
    // Starts the job with `body` (the spec text; `yaml` its format) and
    // answers its id. `output` is the bucket the job writes.
    virtual void submit(const QByteArray& body, bool yaml, std::function<void(api::Result<QString>)> done) = 0;
    // The body Start sends: by default the text as typed.
    virtual QByteArray startBody(bool* yaml, QString* outputBucket) const;

    // True while the form is being filled from the document (edits then are not the user's).
    bool updatingForm() const { return m_updatingForm; }
    void showMessage(const QString& text, bool error);
    void updateButtons();
    bool previewRunning() const { return m_previewCall.isRunning(); }
    void setPreviewCall(RestCall call) { m_previewCall = std::move(call); }
    QColor errorColor() const;
    static QStandardItem* item(const QString& text, const QVariant& sortValue = {});
    static QTableView* tableFor(QStandardItemModel* model, QWidget* parent, const QString& name);

    RestClient* m_rest;
    SpecComposer* m_composer;
    QTabWidget* m_tabs = nullptr;
    QLabel* m_message = nullptr;

private:
    struct FieldRow {
        QString pointer;
        QWidget* editor = nullptr;
        QLabel* error = nullptr;
    };

    void buildUi();
    QWidget* buildJobTab();
    void onDocumentChanged();
    void onTextRewritten();
    void onValidityChanged();
    void poll();
    void showStatus(const api::JobStatus& status);
    void reloadSaved();
    void saveDraft();
    void loadBuckets();

    QString m_kind;
    QString m_title;
    SpecStore* m_specs;
    std::vector<FieldRow> m_rows;
    std::vector<QComboBox*> m_bucketBoxes;
    bool m_updatingForm = false;
    bool m_updatingText = false;

    QComboBox* m_saved = nullptr;
    QPushButton* m_preview = nullptr;
    QPushButton* m_start = nullptr;
    QPlainTextEdit* m_text = nullptr;
    QComboBox* m_format = nullptr;
    QLabel* m_textError = nullptr;
    QFormLayout* m_formLayout = nullptr;
    QWidget* m_formWidget = nullptr;
    QLabel* m_jobState = nullptr;
    QStandardItemModel* m_targetsModel = nullptr;
    QPushButton* m_abort = nullptr;
    QPushButton* m_openOutput = nullptr;

    QTimer* m_pollTimer;
    QTimer* m_draftTimer;
    RestCall m_previewCall;
    QString m_jobId;
    QString m_jobOutputBucket;
    std::optional<api::JobStatus> m_status;
    nlohmann::json m_planDocument;  // the document the last plan is for (null: none)
};

}  // namespace tessera::console
