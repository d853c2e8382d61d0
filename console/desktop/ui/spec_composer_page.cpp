#include "ui/spec_composer_page.h"

#include "core/spec_store.h"
#include "models/format_util.h"
#include "models/spec_composer.h"
#include "spec/spec_text.h"
#include "ui/theme.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QFile>
#include <QFileDialog>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QTextBlock>
#include <QTimer>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>

namespace tessera::console {

namespace {

// The text a line edit shows for a JSON value.
QString shown(const nlohmann::json& v)
{
    if (v.is_null()) return {};
    if (v.is_string()) return QString::fromStdString(v.get<std::string>());
    return QString::fromStdString(v.dump());
}

// Job times: tenths of a second below a minute (a small job takes less than one).
QString jobTime(double seconds)
{
    return seconds < 60 ? QStringLiteral("%1 s").arg(seconds, 0, 'f', 1) : formatDuration(seconds);
}

QString stateName(api::JobState s) { return QString::fromStdString(std::string(api::jobStateName(s))); }

}  // namespace

QStandardItem* SpecComposerPage::item(const QString& text, const QVariant& sortValue)
{
    auto* i = new QStandardItem(text);
    i->setEditable(false);
    if (sortValue.isValid()) {
        i->setData(sortValue, Qt::UserRole);
        i->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    return i;
}

QTableView* SpecComposerPage::tableFor(QStandardItemModel* model, QWidget* parent, const QString& name)
{
    auto* view = new QTableView(parent);
    view->setObjectName(name);
    view->setModel(model);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->verticalHeader()->hide();
    view->horizontalHeader()->setStretchLastSection(true);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view->setAlternatingRowColors(true);
    return view;
}

QColor SpecComposerPage::errorColor() const
{
    return isDarkPalette(palette()) ? QColor(0xef, 0x9a, 0x9a) : QColor(0xc6, 0x28, 0x28);
}

SpecComposerPage::SpecComposerPage(const QString& kind, const QString& title, SpecComposer* composer, RestClient* rest,
                                   SpecStore* specs, QWidget* parent)
    : QWidget(parent), m_rest(rest), m_composer(composer), m_kind(kind), m_title(title), m_specs(specs),
      m_pollTimer(new QTimer(this)), m_draftTimer(new QTimer(this))
{
    m_composer->setParent(this);
    buildUi();
    m_pollTimer->setInterval(kPollMs);
    connect(m_pollTimer, &QTimer::timeout, this, &SpecComposerPage::poll);
    m_draftTimer->setSingleShot(true);
    m_draftTimer->setInterval(kDraftDelayMs);
    connect(m_draftTimer, &QTimer::timeout, this, &SpecComposerPage::saveDraft);
}

void SpecComposerPage::finishSetup(const QString& intro, const QStringList& outputColumns,
                                   const QStringList& firstColumns)
{
    auto* planTab = new QWidget(this);
    auto* v = new QVBoxLayout(planTab);
    m_planSummary = new QLabel(intro, planTab);
    m_planSummary->setObjectName(QStringLiteral("planSummary"));
    m_planSummary->setWordWrap(true);
    v->addWidget(m_planSummary);
    m_warnings = new QListWidget(planTab);
    m_warnings->setObjectName(QStringLiteral("planWarnings"));
    m_warnings->setMaximumHeight(60);
    m_warnings->hide();
    v->addWidget(m_warnings);
    m_outputModel = new QStandardItemModel(0, static_cast<int>(outputColumns.size()), this);
    m_outputModel->setHorizontalHeaderLabels(outputColumns);
    m_firstModel = new QStandardItemModel(0, static_cast<int>(firstColumns.size()), this);
    m_firstModel->setHorizontalHeaderLabels(firstColumns);
    auto* split = new QSplitter(Qt::Horizontal, planTab);
    split->addWidget(tableFor(m_outputModel, split, QStringLiteral("planOutput")));
    split->addWidget(tableFor(m_firstModel, split, QStringLiteral("planFirst")));
    v->addWidget(split, 1);
    m_tabs->insertTab(0, planTab, tr("Plan"));
    m_tabs->setCurrentIndex(0);
    connect(m_composer, &SpecComposer::documentChanged, this, &SpecComposerPage::onDocumentChanged);
    connect(m_composer, &SpecComposer::textChanged, this, &SpecComposerPage::onTextRewritten);
    connect(m_composer, &SpecComposer::validityChanged, this, &SpecComposerPage::onValidityChanged);

    // The draft: the spec last edited, as it was left.
    bool loaded = false;
    if (m_specs) {
        if (auto d = m_specs->draft(m_kind); d && *d) {
            m_composer->load((*d)->text, (*d)->yaml);
            loaded = true;
        }
    }
    if (!loaded) m_composer->load(emptySpec(), false);
    m_composer->undoStack()->clear();
    onTextRewritten();
    onDocumentChanged();
    onValidityChanged();
    reloadSaved();
    m_draftTimer->stop();  // nothing edited yet
}

SpecComposerPage::~SpecComposerPage()
{
    if (m_draftTimer->isActive()) saveDraft();
}

void SpecComposerPage::buildUi()
{
    auto* top = new QVBoxLayout(this);
    top->setContentsMargins(6, 6, 6, 6);

    // New, files and saving by name: one menu, so that the page fits a small window.
    auto* bar = new QHBoxLayout;
    m_saved = new QComboBox(this);
    m_saved->setObjectName(QStringLiteral("savedSpecs"));
    m_saved->setPlaceholderText(tr("Saved specs"));
    m_saved->setMinimumContentsLength(16);
    m_saved->setToolTip(tr("Open a spec saved in the console"));
    connect(m_saved, &QComboBox::activated, this, [this](int index) {
        if (index >= 0) openSaved(m_saved->itemText(index));
    });
    auto* specMenu = new QMenu(this);
    specMenu->setObjectName(QStringLiteral("specMenu"));
    specMenu->addAction(tr("New"), this, &SpecComposerPage::newSpec);
    specMenu->addSeparator();
    specMenu->addAction(tr("Open file…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a %1 spec").arg(m_title), {},
                                                          tr("Specs (*.json *.yaml *.yml);;All files (*)"));
        if (!path.isEmpty()) openFile(path);
    });
    specMenu->addAction(tr("Save file…"), this, [this] {
        const QString filter = m_composer->yaml() ? tr("YAML (*.yaml *.yml)") : tr("JSON (*.json)");
        const QString path = QFileDialog::getSaveFileName(this, tr("Save the %1 spec").arg(m_title), {}, filter);
        if (!path.isEmpty()) saveFile(path);
    });
    specMenu->addSeparator();
    specMenu->addAction(tr("Save as…"), this, [this] {
        bool ok = false;
        const QString name =
            QInputDialog::getText(this, tr("Save spec"), tr("Name:"), QLineEdit::Normal, m_saved->currentText(), &ok);
        if (ok) saveAs(name);
    });
    specMenu->addAction(tr("Delete the saved spec"), this, [this] {
        if (m_saved->currentIndex() >= 0) removeSaved(m_saved->currentText());
    });
    auto* specButton = new QToolButton(this);
    specButton->setText(tr("Spec"));
    specButton->setObjectName(QStringLiteral("specMenuButton"));
    specButton->setPopupMode(QToolButton::InstantPopup);
    specButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    specButton->setMenu(specMenu);
    auto* undo = new QPushButton(tr("Undo"), this);
    undo->setObjectName(QStringLiteral("undoButton"));
    auto* redo = new QPushButton(tr("Redo"), this);
    redo->setObjectName(QStringLiteral("redoButton"));
    QUndoStack* stack = m_composer->undoStack();
    connect(undo, &QPushButton::clicked, stack, &QUndoStack::undo);
    connect(redo, &QPushButton::clicked, stack, &QUndoStack::redo);
    connect(stack, &QUndoStack::canUndoChanged, undo, &QWidget::setEnabled);
    connect(stack, &QUndoStack::canRedoChanged, redo, &QWidget::setEnabled);
    undo->setEnabled(false);
    redo->setEnabled(false);
    // Ctrl+Z / Ctrl+Shift+Z on the form (the text box has its own).
    auto* undoAction = stack->createUndoAction(this);
    undoAction->setShortcut(QKeySequence::Undo);
    undoAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(undoAction);
    auto* redoAction = stack->createRedoAction(this);
    redoAction->setShortcut(QKeySequence::Redo);
    redoAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(redoAction);
    m_preview = new QPushButton(tr("Preview"), this);
    m_preview->setObjectName(QStringLiteral("previewButton"));
    m_preview->setToolTip(tr("Ask the proxy for the plan: nothing runs"));
    connect(m_preview, &QPushButton::clicked, this, &SpecComposerPage::runPreview);
    m_start = new QPushButton(tr("Start"), this);
    m_start->setObjectName(QStringLiteral("startButton"));
    connect(m_start, &QPushButton::clicked, this, &SpecComposerPage::startJob);
    for (QWidget* w : std::initializer_list<QWidget*>{specButton, m_saved, undo, redo}) bar->addWidget(w);
    bar->addStretch(1);
    bar->addWidget(m_preview);
    bar->addWidget(m_start);
    top->addLayout(bar);

    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("composerMessage"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->hide();
    top->addWidget(m_message);

    // The form (rows added by the page) and the text.
    auto* editors = new QSplitter(Qt::Horizontal, this);
    auto* scroll = new QScrollArea(editors);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    m_formWidget = new QWidget(scroll);
    m_formLayout = new QFormLayout(m_formWidget);
    m_formLayout->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    scroll->setWidget(m_formWidget);
    scroll->setMinimumWidth(320);
    editors->addWidget(scroll);
    auto* textPanel = new QWidget(editors);
    auto* textLayout = new QVBoxLayout(textPanel);
    textLayout->setContentsMargins(0, 0, 0, 0);
    auto* textBar = new QHBoxLayout;
    textBar->addWidget(new QLabel(tr("Spec"), textPanel));
    textBar->addStretch(1);
    m_format = new QComboBox(textPanel);
    m_format->setObjectName(QStringLiteral("specFormat"));
    m_format->addItems({QStringLiteral("JSON"), QStringLiteral("YAML")});
    connect(m_format, &QComboBox::currentIndexChanged, this, [this](int i) { m_composer->setYaml(i == 1); });
    textBar->addWidget(m_format);
    textLayout->addLayout(textBar);
    m_text = new QPlainTextEdit(textPanel);
    m_text->setObjectName(QStringLiteral("specText"));
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    connect(m_text, &QPlainTextEdit::textChanged, this, [this] {
        if (!m_updatingText) m_composer->setText(m_text->toPlainText());
    });
    textLayout->addWidget(m_text, 1);
    m_textError = new QLabel(textPanel);
    m_textError->setObjectName(QStringLiteral("specTextError"));
    m_textError->setWordWrap(true);
    m_textError->setTextInteractionFlags(Qt::TextSelectableByMouse);
    textLayout->addWidget(m_textError);
    editors->addWidget(textPanel);
    editors->setStretchFactor(0, 1);
    editors->setStretchFactor(1, 1);
    editors->setSizes({600, 600});  // half and half (scaled to the width)

    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("composerTabs"));
    m_tabs->addTab(buildJobTab(), tr("Job"));

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(editors);
    split->addWidget(m_tabs);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    top->addWidget(split, 1);
}

QWidget* SpecComposerPage::buildJobTab()
{
    auto* w = new QWidget(this);
    auto* v = new QVBoxLayout(w);
    auto* row = new QHBoxLayout;
    m_jobState = new QLabel(tr("No job started from this page."), w);
    m_jobState->setObjectName(QStringLiteral("jobState"));
    m_jobState->setWordWrap(true);
    row->addWidget(m_jobState, 1);
    m_abort = new QPushButton(tr("Abort"), w);
    m_abort->setObjectName(QStringLiteral("abortButton"));
    m_abort->setEnabled(false);
    connect(m_abort, &QPushButton::clicked, this, &SpecComposerPage::abortJob);
    row->addWidget(m_abort);
    m_openOutput = new QPushButton(tr("Open output bucket"), w);
    m_openOutput->setObjectName(QStringLiteral("openOutputButton"));
    m_openOutput->setEnabled(false);
    connect(m_openOutput, &QPushButton::clicked, this, [this] { emit openBucket(m_jobOutputBucket); });
    row->addWidget(m_openOutput);
    v->addLayout(row);
    m_targetsModel = new QStandardItemModel(0, 6, this);
    m_targetsModel->setHorizontalHeaderLabels(
        {tr("Target"), tr("State"), tr("Phase"), tr("Progress"), tr("Bytes"), tr("Time")});
    v->addWidget(tableFor(m_targetsModel, w, QStringLiteral("jobTargets")), 1);
    return w;
}

QWidget* SpecComposerPage::formParent() const { return m_formWidget; }

void SpecComposerPage::addRow(const QString& label, const QString& pointer, QWidget* editor)
{
    auto* box = new QWidget(m_formWidget);
    auto* v = new QVBoxLayout(box);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(1);
    v->addWidget(editor);
    auto* error = new QLabel(box);
    error->setWordWrap(true);
    error->setObjectName(QStringLiteral("fieldError") + pointer);
    error->hide();
    v->addWidget(error);
    editor->setObjectName(QStringLiteral("field") + pointer);
    editor->setToolTip(tr("Spec field %1").arg(pointer));
    m_formLayout->addRow(label, box);
    m_rows.push_back({pointer, editor, error});
}

void SpecComposerPage::connectLineEdit(QLineEdit* edit, const QString& pointer, bool number)
{
    connect(edit, &QLineEdit::textEdited, this, [this, pointer, number](const QString& text) {
        if (m_updatingForm) return;
        const QString t = text.trimmed();
        static const QRegularExpression integer(QStringLiteral("^(0|[1-9][0-9]{0,15})$"));
        nlohmann::json v = nullptr;
        if (!t.isEmpty()) {
            v = number && integer.match(t).hasMatch() ? nlohmann::json(t.toLongLong())
                                                      : nlohmann::json(t.toStdString());
        }
        m_composer->setField(pointer, v);
    });
}

void SpecComposerPage::connectCombo(QComboBox* box, const QString& pointer)
{
    connect(box, &QComboBox::currentTextChanged, this, [this, pointer](const QString& text) {
        if (m_updatingForm) return;
        const QString t = text.trimmed();
        m_composer->setField(pointer, t.isEmpty() ? nlohmann::json(nullptr) : nlohmann::json(t.toStdString()));
    });
}

QComboBox* SpecComposerPage::bucketBox()
{
    auto* b = new QComboBox(m_formWidget);
    b->setEditable(true);
    b->setInsertPolicy(QComboBox::NoInsert);
    m_bucketBoxes.push_back(b);
    return b;
}

void SpecComposerPage::setRowVisible(const char* pointer, bool visible)
{
    if (QWidget* e = fieldEditor(QString::fromLatin1(pointer))) m_formLayout->setRowVisible(e->parentWidget(), visible);
}

QWidget* SpecComposerPage::fieldEditor(const QString& pointer) const
{
    for (const auto& r : m_rows) {
        if (r.pointer == pointer) return r.editor;
    }
    return nullptr;
}

QLabel* SpecComposerPage::fieldErrorLabel(const QString& pointer) const
{
    for (const auto& r : m_rows) {
        if (r.pointer == pointer) return r.error;
    }
    return nullptr;
}

void SpecComposerPage::onTextRewritten()
{
    if (m_text->toPlainText() == m_composer->text()) return onValidityChanged();
    // Keep the cursor where it was (by position, clamped).
    const int position = m_text->textCursor().position();
    const int scroll = m_text->verticalScrollBar()->value();
    m_updatingText = true;
    m_text->setPlainText(m_composer->text());
    m_updatingText = false;
    QTextCursor c = m_text->textCursor();
    c.setPosition(std::min(position, m_text->document()->characterCount() - 1));
    m_text->setTextCursor(c);
    m_text->verticalScrollBar()->setValue(scroll);
    onValidityChanged();  // the marked lines moved
}

void SpecComposerPage::onDocumentChanged()
{
    m_updatingForm = true;
    {
        const QSignalBlocker formatBlock(m_format);
        m_format->setCurrentIndex(m_composer->yaml() ? 1 : 0);
    }
    for (const auto& r : m_rows) {
        const nlohmann::json v = m_composer->field(r.pointer);
        if (auto* edit = qobject_cast<QLineEdit*>(r.editor)) {
            const QString t = v.is_array() ? QString() : shown(v);
            if (edit->text() != t) edit->setText(t);
        } else if (auto* box = qobject_cast<QComboBox*>(r.editor)) {
            const QString t = shown(v);
            if (box->isEditable()) {
                if (box->currentText() != t) box->setEditText(t);
            } else {
                int i = box->findText(t);
                if (i < 0 && !t.isEmpty()) {
                    box->addItem(t);  // a value the checker will name
                    i = box->count() - 1;
                }
                box->setCurrentIndex(i);  // -1 (absent): the placeholder shows the default
            }
        } else if (auto* spin = qobject_cast<QSpinBox*>(r.editor)) {
            spin->setValue(v.is_number_integer() ? v.get<int>() : 0);
        } else if (auto* check = qobject_cast<QCheckBox*>(r.editor)) {
            check->setChecked(v.is_boolean() && v.get<bool>());
        }
    }
    m_updatingForm = false;
    if (!m_planDocument.is_null() && !planIsCurrent()) {
        m_planSummary->setText(tr("The spec changed since this plan: Preview again."));
    }
    documentChanged();
    updateButtons();
    m_draftTimer->start();
}

void SpecComposerPage::onValidityChanged()
{
    const QColor red = errorColor();
    const QString redCss = QStringLiteral("color: %1;").arg(red.name());
    for (const auto& r : m_rows) {
        const QString e = m_composer->fieldError(r.pointer);
        r.error->setText(e);
        r.error->setStyleSheet(redCss);
        r.error->setVisible(!e.isEmpty());
        r.editor->setProperty("invalid", !e.isEmpty());
        r.editor->setStyleSheet(
            e.isEmpty() ? QString()
                        : QStringLiteral("QLineEdit, QComboBox, QSpinBox { border: 1px solid %1; }").arg(red.name()));
    }
    // The text: every error at its line.
    QList<QTextEdit::ExtraSelection> marks;
    QStringList lines;
    auto mark = [&](int line) {
        if (line <= 0) return;
        QTextEdit::ExtraSelection s;
        s.format.setBackground(QColor(red.red(), red.green(), red.blue(), 60));
        s.format.setProperty(QTextFormat::FullWidthSelection, true);
        s.cursor = QTextCursor(m_text->document()->findBlockByNumber(line - 1));
        marks << s;
    };
    if (!m_composer->parseError().isEmpty()) {
        mark(m_composer->parseErrorLine());
        lines << m_composer->parseError();
    }
    for (const auto& e : m_composer->errors()) {
        const int line = m_composer->lineOf(QString::fromStdString(e.pointer));
        mark(line);
        const QString where = line > 0 ? tr("line %1: ").arg(line) : QString();
        lines << where + QString::fromStdString(e.pointer.empty() ? "/" : e.pointer) + QStringLiteral(": ") +
                     QString::fromStdString(e.message);
    }
    m_text->setExtraSelections(marks);
    m_textError->setStyleSheet(redCss);
    m_textError->setText(lines.join(QLatin1Char('\n')));
    m_textError->setVisible(!lines.isEmpty());
    updateButtons();
}

void SpecComposerPage::updateButtons()
{
    const bool running = m_status && !api::isFinal(m_status->state);
    const bool starting = !m_jobId.isEmpty() && !m_status;
    const bool valid = m_composer->isValid();
    m_preview->setEnabled(valid && !m_previewCall.isRunning());
    m_start->setEnabled(valid && !running && !starting);
    m_start->setToolTip(valid ? tr("Start the %1 job").arg(m_title) : tr("Fix the fields marked in red first"));
    m_abort->setEnabled(running);
}

bool SpecComposerPage::planIsCurrent() const
{
    return !m_planDocument.is_null() && m_planDocument == m_composer->document();
}

bool SpecComposerPage::specValid() const { return m_composer->isValid(); }
QByteArray SpecComposerPage::specText() const { return m_composer->text().toUtf8(); }
bool SpecComposerPage::specYaml() const { return m_composer->yaml(); }
nlohmann::json SpecComposerPage::currentDocument() const { return m_composer->document(); }

void SpecComposerPage::previewStarted()
{
    showMessage({}, false);
    m_planSummary->setText(tr("Asking the proxy for the plan…"));
    m_planSummary->setStyleSheet({});
    m_tabs->setCurrentIndex(0);
}

void SpecComposerPage::previewFailed(const api::Error& error)
{
    m_outputModel->removeRows(0, m_outputModel->rowCount());
    m_firstModel->removeRows(0, m_firstModel->rowCount());
    showWarnings({});
    m_planSummary->setText(tr("No plan."));
    showMessage(tr("Preview failed: %1").arg(QString::fromStdString(error.message)), true);
}

void SpecComposerPage::showWarnings(const std::vector<std::string>& warnings)
{
    m_warnings->clear();
    for (const auto& w : warnings) m_warnings->addItem(QString::fromStdString(w));
    m_warnings->setVisible(!warnings.empty());
}

void SpecComposerPage::showMessage(const QString& text, bool error)
{
    m_message->setText(text);
    m_message->setStyleSheet(error ? QStringLiteral("color: %1;").arg(errorColor().name()) : QString());
    m_message->setVisible(!text.isEmpty());
    if (!text.isEmpty()) emit statusMessage(text);
}

void SpecComposerPage::refresh() { loadBuckets(); }

void SpecComposerPage::loadBuckets()
{
    m_rest->listBuckets(this, [this](api::Result<std::vector<api::BucketRef>> got) {
        if (!got) return;  // the fields stay free text
        QStringList names;
        for (const auto& b : *got) names << QString::fromStdString(b.name);
        names.sort();
        m_updatingForm = true;
        for (QComboBox* box : m_bucketBoxes) {
            const QString text = box->currentText();
            box->clear();
            box->addItems(names);
            box->setEditText(text);
        }
        m_updatingForm = false;
    });
}

QByteArray SpecComposerPage::startBody(bool* yaml, QString* outputBucket) const
{
    *yaml = m_composer->yaml();
    outputBucket->clear();
    return m_composer->text().toUtf8();
}

void SpecComposerPage::startJob()
{
    if (!m_composer->isValid()) return;
    showMessage({}, false);
    bool yaml = false;
    QString output;
    const QByteArray body = startBody(&yaml, &output);
    m_jobId = QStringLiteral("…");  // starting
    m_status.reset();
    m_jobOutputBucket = output;
    m_openOutput->setEnabled(false);
    m_targetsModel->removeRows(0, m_targetsModel->rowCount());
    m_jobState->setText(tr("Starting…"));
    m_tabs->setCurrentIndex(m_tabs->count() - 1);
    updateButtons();
    submit(body, yaml, [this](api::Result<QString> id) {
        if (!id) {
            m_jobId.clear();
            m_jobState->setText(tr("Not started."));
            showMessage(tr("Start failed: %1").arg(QString::fromStdString(id.error().message)), true);
            updateButtons();
            return;
        }
        m_jobId = *id;
        m_jobState->setText(tr("Job %1 started.").arg(m_jobId));
        emit statusMessage(tr("%1 job %2 started").arg(m_title, m_jobId));
        poll();
        m_pollTimer->start();
    });
}

void SpecComposerPage::poll()
{
    if (m_jobId.isEmpty()) return;
    const QString id = m_jobId;
    m_rest->job(id, this, [this, id](api::Result<api::JobStatus> got) {
        if (id != m_jobId) return;
        if (!got) {
            m_jobState->setText(tr("Job %1: no status: %2").arg(id, QString::fromStdString(got.error().message)));
            return;
        }
        showStatus(*got);
    });
}

void SpecComposerPage::showStatus(const api::JobStatus& s)
{
    m_status = s;
    const double now = QDateTime::currentMSecsSinceEpoch() / 1e3;
    const double start = static_cast<double>(s.startNs) / 1e9;
    const double end = s.endNs > 0 ? static_cast<double>(s.endNs) / 1e9 : now;
    QString text = tr("Job %1: %2").arg(QString::fromStdString(s.id), stateName(s.state));
    if (!api::isFinal(s.state) && !s.phase.empty()) text += tr(", phase %1").arg(QString::fromStdString(s.phase));
    if (s.startNs > 0) text += tr(" · %1").arg(jobTime(std::max(0.0, end - start)));
    if (!s.error.empty()) text += tr(" · %1").arg(QString::fromStdString(s.error));
    if (s.state == api::JobState::Finished && !m_jobOutputBucket.isEmpty()) {
        text += tr(" · output in bucket %1").arg(m_jobOutputBucket);
    }
    m_jobState->setText(text);
    m_jobState->setStyleSheet(s.state == api::JobState::Failed ? QStringLiteral("color: %1;").arg(errorColor().name())
                                                               : QString());
    // One row per target, kept in place as the status repeats.
    int row = 0;
    for (const auto& [id, t] : s.targets) {
        const double tStart = static_cast<double>(t.startNs) / 1e9;
        const double tEnd = t.endNs > 0 ? static_cast<double>(t.endNs) / 1e9 : now;
        const QString progress = t.progress.objectsTotal >= 0
                                     ? tr("%L1 / %L2").arg(t.progress.objectsDone).arg(t.progress.objectsTotal)
                                     : QLocale().toString(static_cast<qulonglong>(t.progress.objectsDone));
        const QStringList cells{QString::fromStdString(t.target.empty() ? id : t.target),
                                stateName(t.state),
                                QString::fromStdString(t.phase),
                                progress,
                                formatBytes(static_cast<qint64>(t.progress.bytesDone)),
                                t.startNs > 0 ? jobTime(std::max(0.0, tEnd - tStart)) : QString()};
        if (row >= m_targetsModel->rowCount()) {
            QList<QStandardItem*> items;
            for (const auto& c : cells) items << item(c);
            m_targetsModel->appendRow(items);
        } else {
            for (int c = 0; c < cells.size(); ++c) {
                if (m_targetsModel->item(row, c)->text() != cells[c]) m_targetsModel->item(row, c)->setText(cells[c]);
            }
        }
        ++row;
    }
    if (m_targetsModel->rowCount() > row) m_targetsModel->removeRows(row, m_targetsModel->rowCount() - row);
    if (api::isFinal(s.state)) {
        m_pollTimer->stop();
        m_openOutput->setEnabled(s.state == api::JobState::Finished && !m_jobOutputBucket.isEmpty());
        emit statusMessage(tr("%1 job %2 %3").arg(m_title, QString::fromStdString(s.id), stateName(s.state)));
    }
    updateButtons();
}

void SpecComposerPage::abortJob()
{
    if (m_jobId.isEmpty() || !m_status || api::isFinal(m_status->state)) return;
    QMessageBox box(QMessageBox::Question, tr("Abort %1 job").arg(m_title),
                    tr("Abort %1 job %2? What it has written so far is removed.").arg(m_title, m_jobId),
                    QMessageBox::Yes | QMessageBox::No, this);
    box.setObjectName(QStringLiteral("abortJobConfirmation"));
    box.setDefaultButton(QMessageBox::No);
    if (box.exec() != QMessageBox::Yes) return;
    const QString id = m_jobId;
    m_rest->abortJob(id, this, [this, id](api::Result<api::JobStatus> got) {
        if (id != m_jobId) return;
        if (!got) {
            showMessage(tr("Abort failed: %1").arg(QString::fromStdString(got.error().message)), true);
            return;
        }
        showStatus(*got);
        poll();
    });
}

void SpecComposerPage::newSpec()
{
    const bool yaml = m_composer->yaml();
    m_composer->load(emptySpec(), false);
    if (yaml) m_composer->setYaml(true);
    m_saved->setCurrentIndex(-1);
}

void SpecComposerPage::reloadSaved()
{
    if (!m_specs) return;
    const QString current = m_saved->currentText();
    m_saved->clear();
    if (auto list = m_specs->list(m_kind)) {
        for (const auto& s : *list) m_saved->addItem(s.name);
    }
    m_saved->setCurrentIndex(m_saved->findText(current));
}

bool SpecComposerPage::saveAs(const QString& name)
{
    if (!m_specs) {
        showMessage(tr("Cannot save: the console's database is unavailable."), true);
        return false;
    }
    if (auto st = m_specs->save({m_kind, name, m_composer->text(), m_composer->yaml(), 0}); !st) {
        showMessage(tr("Cannot save: %1").arg(QString::fromStdString(st.error().message)), true);
        return false;
    }
    reloadSaved();
    m_saved->setCurrentIndex(m_saved->findText(name.trimmed()));
    showMessage({}, false);
    emit statusMessage(tr("Saved spec \"%1\"").arg(name.trimmed()));
    return true;
}

bool SpecComposerPage::openSaved(const QString& name)
{
    if (!m_specs) return false;
    auto found = m_specs->find(m_kind, name);
    if (!found || !*found) {
        showMessage(tr("No saved spec named \"%1\".").arg(name), true);
        return false;
    }
    m_composer->load((*found)->text, (*found)->yaml);
    m_saved->setCurrentIndex(m_saved->findText(name));
    showMessage({}, false);
    return true;
}

bool SpecComposerPage::removeSaved(const QString& name)
{
    if (!m_specs) return false;
    if (auto st = m_specs->remove(m_kind, name); !st) {
        showMessage(tr("Cannot delete: %1").arg(QString::fromStdString(st.error().message)), true);
        return false;
    }
    reloadSaved();
    m_saved->setCurrentIndex(-1);
    return true;
}

bool SpecComposerPage::saveFile(const QString& path)
{
    // The file's extension says its format: the text is converted when it differs.
    const bool yaml = spec::specFormatForPath(path.toStdString()) == spec::SpecFormat::Yaml;
    QString text = m_composer->text();
    if (yaml != m_composer->yaml()) {
        text = yaml ? QString::fromStdString(spec::toYaml(m_composer->document()))
                    : QString::fromStdString(m_composer->document().dump(2)) + QLatin1Char('\n');
    }
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text.toUtf8()) < 0 || !f.commit()) {
        showMessage(tr("Cannot write %1: %2").arg(path, f.errorString()), true);
        return false;
    }
    emit statusMessage(tr("Spec written to %1").arg(path));
    return true;
}

bool SpecComposerPage::openFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        showMessage(tr("Cannot read %1: %2").arg(path, f.errorString()), true);
        return false;
    }
    if (f.size() > kMaxSpecFileBytes) {
        showMessage(tr("%1 is larger than 1 MiB: not a spec.").arg(path), true);
        return false;
    }
    const bool yaml = spec::specFormatForPath(path.toStdString()) == spec::SpecFormat::Yaml;
    m_composer->load(QString::fromUtf8(f.readAll()), yaml);
    m_saved->setCurrentIndex(-1);
    showMessage({}, false);
    return true;
}

void SpecComposerPage::saveDraft()
{
    if (m_specs) (void)m_specs->saveDraft(m_kind, m_composer->text(), m_composer->yaml());
}

}  // namespace tessera::console
