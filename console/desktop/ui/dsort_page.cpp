#include "ui/dsort_page.h"

#include "core/spec_store.h"
#include "models/dsort_composer.h"
#include "models/format_util.h"
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
#include <set>

namespace tessera::console {

namespace {

const QString kKind = QStringLiteral("dsort");
constexpr qint64 kMaxSpecFileBytes = 1 << 20;

QStandardItem* item(const QString& text, const QVariant& sortValue = {})
{
    auto* i = new QStandardItem(text);
    i->setEditable(false);
    if (sortValue.isValid()) {
        i->setData(sortValue, Qt::UserRole);
        i->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    return i;
}

QTableView* tableFor(QStandardItemModel* model, QWidget* parent, const QString& name)
{
    auto* view = new QTableView(parent);
    view->setObjectName(name);
    view->setModel(model);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->verticalHeader()->hide();
    view->horizontalHeader()->setStretchLastSection(true);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    view->setAlternatingRowColors(true);
    return view;
}

QString commonPrefix(const QStringList& names)
{
    if (names.isEmpty()) return {};
    QString p = names.front();
    for (const auto& n : names) {
        int i = 0;
        while (i < p.size() && i < n.size() && p[i] == n[i]) ++i;
        p.truncate(i);
    }
    return p;
}

// The text a line edit shows for a JSON value.
QString shown(const nlohmann::json& v)
{
    if (v.is_null()) return {};
    if (v.is_string()) return QString::fromStdString(v.get<std::string>());
    return QString::fromStdString(v.dump());
}

// Job times: tenths of a second below a minute (a small dSort takes less than one).
QString jobTime(double seconds)
{
    return seconds < 60 ? QStringLiteral("%1 s").arg(seconds, 0, 'f', 1) : formatDuration(seconds);
}

QColor errorColor(const QPalette& p) { return isDarkPalette(p) ? QColor(0xef, 0x9a, 0x9a) : QColor(0xc6, 0x28, 0x28); }

}  // namespace

DsortPage::DsortPage(RestClient* rest, SpecStore* specs, QWidget* parent)
    : QWidget(parent), m_rest(rest), m_specs(specs), m_composer(new DsortComposer(this)),
      m_presenceTimer(new QTimer(this)), m_pollTimer(new QTimer(this)), m_draftTimer(new QTimer(this))
{
    buildUi();
    m_presenceTimer->setSingleShot(true);
    m_presenceTimer->setInterval(kPresenceDelayMs);
    connect(m_presenceTimer, &QTimer::timeout, this, &DsortPage::checkPresence);
    m_pollTimer->setInterval(kPollMs);
    connect(m_pollTimer, &QTimer::timeout, this, &DsortPage::poll);
    m_draftTimer->setSingleShot(true);
    m_draftTimer->setInterval(kDraftDelayMs);
    connect(m_draftTimer, &QTimer::timeout, this, &DsortPage::saveDraft);

    connect(m_composer, &DsortComposer::documentChanged, this, &DsortPage::onDocumentChanged);
    connect(m_composer, &DsortComposer::textChanged, this, &DsortPage::onTextRewritten);
    connect(m_composer, &DsortComposer::validityChanged, this, &DsortPage::onValidityChanged);

    // The draft: the spec last edited, as it was left.
    bool loaded = false;
    if (m_specs) {
        if (auto d = m_specs->draft(kKind); d && *d) {
            m_composer->load((*d)->text, (*d)->yaml);
            loaded = true;
        }
    }
    if (!loaded) {
        m_composer->load(QStringLiteral("{\n  \"input_bck\": \"\",\n  \"input_format\": {\"template\": \"\"},\n"
                                        "  \"output_shard_size\": \"\"\n}\n"),
                         false);
    }
    m_composer->undoStack()->clear();
    onTextRewritten();
    onDocumentChanged();
    onValidityChanged();
    reloadSaved();
    m_draftTimer->stop();  // nothing edited yet
}

DsortPage::~DsortPage()
{
    if (m_draftTimer->isActive()) saveDraft();
}

void DsortPage::buildUi()
{
    auto* top = new QVBoxLayout(this);
    top->setContentsMargins(6, 6, 6, 6);

    // Saved specs, files, undo; Preview and Start.
    auto* bar = new QHBoxLayout;
    m_saved = new QComboBox(this);
    m_saved->setObjectName(QStringLiteral("savedSpecs"));
    m_saved->setPlaceholderText(tr("Saved specs"));
    m_saved->setMinimumContentsLength(16);
    m_saved->setToolTip(tr("Open a spec saved in the console"));
    connect(m_saved, &QComboBox::activated, this, [this](int index) {
        if (index >= 0) openSaved(m_saved->itemText(index));
    });
    // New, files and saving by name: one menu, so that the page fits a small window.
    auto* specMenu = new QMenu(this);
    specMenu->setObjectName(QStringLiteral("specMenu"));
    specMenu->addAction(tr("New"), this, &DsortPage::newSpec);
    specMenu->addSeparator();
    specMenu->addAction(tr("Open file…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a dSort spec"), {},
                                                          tr("Specs (*.json *.yaml *.yml);;All files (*)"));
        if (!path.isEmpty()) openFile(path);
    });
    specMenu->addAction(tr("Save file…"), this, [this] {
        const QString filter = m_composer->yaml() ? tr("YAML (*.yaml *.yml)") : tr("JSON (*.json)");
        const QString path = QFileDialog::getSaveFileName(this, tr("Save the dSort spec"), {}, filter);
        if (!path.isEmpty()) saveFile(path);
    });
    specMenu->addSeparator();
    specMenu->addAction(tr("Save as…"), this, [this] {
        bool ok = false;
        const QString name = QInputDialog::getText(this, tr("Save spec"), tr("Name:"), QLineEdit::Normal,
                                                   m_saved->currentText(), &ok);
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
    auto* redoAction = stack->createRedoAction(this);
    redoAction->setShortcut(QKeySequence::Redo);
    redoAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_preview = new QPushButton(tr("Preview"), this);
    m_preview->setObjectName(QStringLiteral("previewButton"));
    m_preview->setToolTip(tr("Ask the proxy for the plan: nothing runs"));
    connect(m_preview, &QPushButton::clicked, this, &DsortPage::runPreview);
    m_start = new QPushButton(tr("Start"), this);
    m_start->setObjectName(QStringLiteral("startButton"));
    m_start->setToolTip(tr("Start the dSort job"));
    connect(m_start, &QPushButton::clicked, this, &DsortPage::startJob);
    for (QWidget* w : std::initializer_list<QWidget*>{specButton, m_saved, undo, redo}) {
        bar->addWidget(w);
    }
    bar->addStretch(1);
    bar->addWidget(m_preview);
    bar->addWidget(m_start);
    top->addLayout(bar);

    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("dsortMessage"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->hide();
    top->addWidget(m_message);

    // The form and the text.
    auto* editors = new QSplitter(Qt::Horizontal, this);
    editors->addWidget(buildForm());
    auto* textPanel = new QWidget(this);
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
        if (m_updatingText) return;
        m_composer->setText(m_text->toPlainText());
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

    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("dsortTabs"));
    m_tabs->addTab(buildPlanTab(), tr("Plan"));
    m_tabs->addTab(buildJobTab(), tr("Job"));

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(editors);
    split->addWidget(m_tabs);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    top->addWidget(split, 1);
}

void DsortPage::addRow(QFormLayout* form, const QString& label, const QString& pointer, QWidget* editor)
{
    auto* box = new QWidget(form->parentWidget());
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
    form->addRow(label, box);
    m_rows.push_back({pointer, editor, error});
}

void DsortPage::connectLineEdit(QLineEdit* edit, const QString& pointer, bool number)
{
    connect(edit, &QLineEdit::textEdited, this, [this, pointer, number](const QString& text) {
        if (m_updatingForm) return;
        const QString t = text.trimmed();
        static const QRegularExpression integer(QStringLiteral("^(0|[1-9][0-9]{0,15})$"));
        nlohmann::json v = nullptr;
        if (!t.isEmpty())
            v = number && integer.match(t).hasMatch() ? nlohmann::json(t.toLongLong())
                                                      : nlohmann::json(t.toStdString());
        m_composer->setField(pointer, v);
    });
}

void DsortPage::connectCombo(QComboBox* box, const QString& pointer, const QString& defaultValue)
{
    Q_UNUSED(defaultValue);
    connect(box, &QComboBox::currentTextChanged, this, [this, pointer](const QString& text) {
        if (m_updatingForm) return;
        const QString t = text.trimmed();
        m_composer->setField(pointer, t.isEmpty() ? nlohmann::json(nullptr) : nlohmann::json(t.toStdString()));
    });
}

QWidget* DsortPage::buildForm()
{
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* inner = new QWidget(scroll);
    auto* form = new QFormLayout(inner);
    m_formLayout = form;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    auto bucketBox = [this, inner] {
        auto* b = new QComboBox(inner);
        b->setEditable(true);
        b->setInsertPolicy(QComboBox::NoInsert);
        return b;
    };
    m_inputBck = bucketBox();
    m_inputBck->lineEdit()->setPlaceholderText(tr("the bucket holding the shards"));
    addRow(form, tr("Input bucket"), QStringLiteral("/input_bck"), m_inputBck);
    connectCombo(m_inputBck, QStringLiteral("/input_bck"), {});

    auto* inputTemplate = new QLineEdit(inner);
    inputTemplate->setPlaceholderText(QStringLiteral("shard-{000000..000099}"));
    addRow(form, tr("Input template"), QStringLiteral("/input_format/template"), inputTemplate);
    connectLineEdit(inputTemplate, QStringLiteral("/input_format/template"));
    m_expansion = new QLabel(inner);
    m_expansion->setObjectName(QStringLiteral("inputExpansion"));
    m_expansion->setWordWrap(true);
    form->addRow(QString(), m_expansion);

    auto extensionBox = [inner](bool allowEmpty) {
        auto* b = new QComboBox(inner);
        b->setEditable(true);
        b->setInsertPolicy(QComboBox::NoInsert);
        if (allowEmpty) b->addItem(QString());
        b->addItems({QStringLiteral(".tar"), QStringLiteral(".tgz"), QStringLiteral(".tar.gz"),
                     QStringLiteral(".tar.lz4"), QStringLiteral(".zip")});
        return b;
    };
    auto* inputExt = extensionBox(true);
    inputExt->lineEdit()->setPlaceholderText(QStringLiteral(".tar"));
    addRow(form, tr("Input extension"), QStringLiteral("/input_extension"), inputExt);
    connectCombo(inputExt, QStringLiteral("/input_extension"), {});

    m_outputBck = bucketBox();
    m_outputBck->lineEdit()->setPlaceholderText(tr("the input bucket"));
    addRow(form, tr("Output bucket"), QStringLiteral("/output_bck"), m_outputBck);
    connectCombo(m_outputBck, QStringLiteral("/output_bck"), {});

    auto* outputFormat = new QLineEdit(inner);
    outputFormat->setPlaceholderText(QString::fromLatin1(spec::DsortSpec::kDefaultOutputFormat));
    addRow(form, tr("Output template"), QStringLiteral("/output_format"), outputFormat);
    connectLineEdit(outputFormat, QStringLiteral("/output_format"));

    auto* outputExt = extensionBox(true);
    outputExt->lineEdit()->setPlaceholderText(tr("as the input"));
    addRow(form, tr("Output extension"), QStringLiteral("/output_extension"), outputExt);
    connectCombo(outputExt, QStringLiteral("/output_extension"), {});

    auto* shardSize = new QLineEdit(inner);
    shardSize->setPlaceholderText(tr("256MiB, 100MB, 1048576 or \"1000 records\""));
    addRow(form, tr("Output shard size"), QStringLiteral("/output_shard_size"), shardSize);
    connectLineEdit(shardSize, QStringLiteral("/output_shard_size"), true);

    m_algorithm = new QComboBox(inner);
    m_algorithm->addItems(
        {QStringLiteral("alphanumeric"), QStringLiteral("shuffle"), QStringLiteral("content"), QStringLiteral("none")});
    m_algorithm->setPlaceholderText(tr("alphanumeric"));
    addRow(form, tr("Algorithm"), QStringLiteral("/algorithm/kind"), m_algorithm);
    connectCombo(m_algorithm, QStringLiteral("/algorithm/kind"), {});

    auto* decreasing = new QCheckBox(tr("Decreasing"), inner);
    addRow(form, QString(), QStringLiteral("/algorithm/decreasing"), decreasing);
    connect(decreasing, &QCheckBox::toggled, this, [this](bool on) {
        if (!m_updatingForm)
            m_composer->setField(QStringLiteral("/algorithm/decreasing"),
                                 on ? nlohmann::json(true) : nlohmann::json(nullptr));
    });
    auto* seed = new QLineEdit(inner);
    seed->setPlaceholderText(tr("chosen by the proxy (shown after Preview)"));
    addRow(form, tr("Seed"), QStringLiteral("/algorithm/seed"), seed);
    connectLineEdit(seed, QStringLiteral("/algorithm/seed"));
    auto* contentExt = new QLineEdit(inner);
    contentExt->setPlaceholderText(QStringLiteral(".cls"));
    addRow(form, tr("Key file extension"), QStringLiteral("/algorithm/extension"), contentExt);
    connectLineEdit(contentExt, QStringLiteral("/algorithm/extension"));
    auto* keyType = new QComboBox(inner);
    keyType->addItems({QStringLiteral("int"), QStringLiteral("float"), QStringLiteral("string")});
    keyType->setPlaceholderText(QStringLiteral("int"));
    addRow(form, tr("Key type"), QStringLiteral("/algorithm/content_key_type"), keyType);
    connectCombo(keyType, QStringLiteral("/algorithm/content_key_type"), {});

    auto* ekm = new QLineEdit(inner);
    ekm->setPlaceholderText(tr("bucket/object.json (optional)"));
    addRow(form, tr("External key map"), QStringLiteral("/ekm_file"), ekm);
    connectLineEdit(ekm, QStringLiteral("/ekm_file"));

    auto* mem = new QLineEdit(inner);
    mem->setPlaceholderText(QStringLiteral("80%"));
    addRow(form, tr("Memory limit"), QStringLiteral("/max_mem_usage"), mem);
    connectLineEdit(mem, QStringLiteral("/max_mem_usage"));

    for (const auto& [label, pointer] :
         {std::pair{tr("Extract concurrency"), QStringLiteral("/extract_concurrency_max_limit")},
          std::pair{tr("Create concurrency"), QStringLiteral("/create_concurrency_max_limit")}}) {
        auto* spin = new QSpinBox(inner);
        spin->setRange(0, static_cast<int>(spec::DsortSpec::kMaxConcurrency));
        spin->setSpecialValueText(tr("default (%1)").arg(spec::DsortSpec::kDefaultConcurrency));
        addRow(form, label, pointer, spin);
        connect(spin, &QSpinBox::valueChanged, this, [this, p = pointer](int v) {
            if (!m_updatingForm) m_composer->setField(p, v == 0 ? nlohmann::json(nullptr) : nlohmann::json(v));
        });
    }
    for (const auto& [label, pointer] : {std::pair{tr("Duplicated records"), QStringLiteral("/duplicated_records")},
                                         std::pair{tr("Missing shards"), QStringLiteral("/missing_shards")}}) {
        auto* policy = new QComboBox(inner);
        policy->addItems({QStringLiteral("ignore"), QStringLiteral("warn"), QStringLiteral("abort")});
        policy->setPlaceholderText(QStringLiteral("ignore"));
        addRow(form, label, pointer, policy);
        connectCombo(policy, pointer, {});
    }
    auto* description = new QLineEdit(inner);
    addRow(form, tr("Description"), QStringLiteral("/description"), description);
    connectLineEdit(description, QStringLiteral("/description"));

    scroll->setWidget(inner);
    scroll->setMinimumWidth(320);
    return scroll;
}

QWidget* DsortPage::buildPlanTab()
{
    auto* w = new QWidget(this);
    auto* v = new QVBoxLayout(w);
    m_planSummary = new QLabel(tr("Preview shows what the job will do, without running it."), w);
    m_planSummary->setObjectName(QStringLiteral("planSummary"));
    m_planSummary->setWordWrap(true);
    v->addWidget(m_planSummary);
    m_warnings = new QListWidget(w);
    m_warnings->setObjectName(QStringLiteral("planWarnings"));
    m_warnings->setMaximumHeight(60);
    m_warnings->hide();
    v->addWidget(m_warnings);
    m_shardsModel = new QStandardItemModel(0, 4, this);
    m_shardsModel->setHorizontalHeaderLabels({tr("Output shard"), tr("Target"), tr("Size"), tr("Records")});
    m_recordsModel = new QStandardItemModel(0, 4, this);
    m_recordsModel->setHorizontalHeaderLabels({tr("Key"), tr("From shard"), tr("Size"), tr("Files")});
    auto* split = new QSplitter(Qt::Horizontal, w);
    auto* shards = tableFor(m_shardsModel, split, QStringLiteral("planShards"));
    shards->setSortingEnabled(false);
    split->addWidget(shards);
    split->addWidget(tableFor(m_recordsModel, split, QStringLiteral("planRecords")));
    v->addWidget(split, 1);
    return w;
}

QWidget* DsortPage::buildJobTab()
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
    connect(m_abort, &QPushButton::clicked, this, &DsortPage::abortJob);
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

QWidget* DsortPage::fieldEditor(const QString& pointer) const
{
    for (const auto& r : m_rows) {
        if (r.pointer == pointer) return r.editor;
    }
    return nullptr;
}

QLabel* DsortPage::fieldErrorLabel(const QString& pointer) const
{
    for (const auto& r : m_rows) {
        if (r.pointer == pointer) return r.error;
    }
    return nullptr;
}

void DsortPage::onTextRewritten()
{
    if (m_text->toPlainText() == m_composer->text()) return onValidityChanged();
    // Keep the cursor where it was (by position, clamped).
    const int position = m_text->textCursor().position();
    const int scroll = m_text->verticalScrollBar() ? m_text->verticalScrollBar()->value() : 0;
    m_updatingText = true;
    m_text->setPlainText(m_composer->text());
    m_updatingText = false;
    QTextCursor c = m_text->textCursor();
    c.setPosition(std::min(position, m_text->document()->characterCount() - 1));
    m_text->setTextCursor(c);
    if (m_text->verticalScrollBar()) m_text->verticalScrollBar()->setValue(scroll);
    onValidityChanged();  // the marked lines moved
}

void DsortPage::onDocumentChanged()
{
    m_updatingForm = true;
    {
        const QSignalBlocker formatBlock(m_format);
        m_format->setCurrentIndex(m_composer->yaml() ? 1 : 0);
    }
    for (const auto& r : m_rows) {
        const nlohmann::json v = m_composer->field(r.pointer);
        if (auto* edit = qobject_cast<QLineEdit*>(r.editor)) {
            const QString t = shown(v);
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
    // A spec that lists its inputs by name has no template to edit.
    if (auto* t = qobject_cast<QLineEdit*>(fieldEditor(QStringLiteral("/input_format/template")))) {
        const bool names = !m_composer->field(QStringLiteral("/input_format/objnames")).is_null();
        t->setEnabled(!names);
        t->setPlaceholderText(names ? tr("the inputs are listed by name in the spec")
                                    : QStringLiteral("shard-{000000..000099}"));
    }
    m_updatingForm = false;
    updateAlgorithmFields();

    // The input names: their expansion now, their presence after a pause.
    const QString bucket = shown(m_composer->field(QStringLiteral("/input_bck")));
    qint64 total = 0;
    QString error;
    const QStringList names = m_composer->inputNames(kMaxPresenceNames, &total, &error);
    const QString key = bucket + QLatin1Char('\n') + error + QLatin1Char('\n') + names.join(QLatin1Char('\n'));
    if (key != m_presenceKey) {
        m_presenceKey = key;
        ++m_presenceGeneration;
        m_presenceCall.abort();
        m_expansion->setText(m_composer->inputSummary());
        if (error.isEmpty() && total > 0 && !bucket.isEmpty()) m_presenceTimer->start();
    }
    if (m_plan && m_planDocument != m_composer->document()) {
        m_planSummary->setText(tr("The spec changed since this plan: Preview again."));
    }
    updateButtons();
    m_draftTimer->start();
}

void DsortPage::updateAlgorithmFields()
{
    const QString kind = shown(m_composer->field(QStringLiteral("/algorithm/kind")));
    const QString k = kind.isEmpty() ? QStringLiteral("alphanumeric") : kind;
    auto show = [this](const char* pointer, bool on) {
        if (QWidget* e = fieldEditor(QString::fromLatin1(pointer))) m_formLayout->setRowVisible(e->parentWidget(), on);
    };
    // A field the spec sets stays visible (the checker may name it).
    auto has = [this](const char* pointer) { return !m_composer->field(QString::fromLatin1(pointer)).is_null(); };
    show("/algorithm/decreasing",
         k == QLatin1String("alphanumeric") || k == QLatin1String("content") || has("/algorithm/decreasing"));
    show("/algorithm/seed", k == QLatin1String("shuffle") || has("/algorithm/seed"));
    show("/algorithm/extension", k == QLatin1String("content") || has("/algorithm/extension"));
    show("/algorithm/content_key_type", k == QLatin1String("content") || has("/algorithm/content_key_type"));
}

void DsortPage::onValidityChanged()
{
    const QColor red = errorColor(palette());
    const QString redCss = QStringLiteral("color: %1;").arg(red.name());
    std::set<std::string> shownOnForm;
    for (const auto& r : m_rows) {
        const QString e = m_composer->fieldError(r.pointer);
        r.error->setText(e);
        r.error->setStyleSheet(redCss);
        r.error->setVisible(!e.isEmpty());
        r.editor->setProperty("invalid", !e.isEmpty());
        r.editor->setStyleSheet(
            e.isEmpty() ? QString()
                        : QStringLiteral("QLineEdit, QComboBox, QSpinBox { border: 1px solid %1; }").arg(red.name()));
        if (!e.isEmpty()) shownOnForm.insert(r.pointer.toStdString());
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

void DsortPage::updateButtons()
{
    const bool running = m_status && !api::isFinal(m_status->state);
    const bool valid = m_composer->isValid();
    m_preview->setEnabled(valid && !m_previewCall.isRunning());
    m_start->setEnabled(valid && !running && !(!m_jobId.isEmpty() && !m_status));
    m_start->setToolTip(valid ? tr("Start the dSort job") : tr("Fix the fields marked in red first"));
    m_abort->setEnabled(running);
}

void DsortPage::showMessage(const QString& text, bool error)
{
    m_message->setText(text);
    m_message->setStyleSheet(error ? QStringLiteral("color: %1;").arg(errorColor(palette()).name()) : QString());
    m_message->setVisible(!text.isEmpty());
    if (!text.isEmpty()) emit statusMessage(text);
}

void DsortPage::refresh()
{
    loadBuckets();
    m_presenceKey.clear();
    onDocumentChanged();
}

void DsortPage::loadBuckets()
{
    m_rest->listBuckets(this, [this](api::Result<std::vector<api::BucketRef>> got) {
        if (!got) return;  // the fields stay free text
        QStringList names;
        for (const auto& b : *got) names << QString::fromStdString(b.name);
        names.sort();
        m_updatingForm = true;
        for (QComboBox* box : {m_inputBck, m_outputBck}) {
            const QString text = box->currentText();
            box->clear();
            box->addItems(names);
            box->setEditText(text);
        }
        m_updatingForm = false;
    });
}

void DsortPage::checkPresence()
{
    const QString bucket = shown(m_composer->field(QStringLiteral("/input_bck")));
    qint64 total = 0;
    QString error;
    const QStringList names = m_composer->inputNames(kMaxPresenceNames, &total, &error);
    if (bucket.isEmpty() || !error.isEmpty() || names.isEmpty()) return;
    m_expansion->setText(m_composer->inputSummary() + tr(" — checking…"));
    listForPresence(bucket, names, {}, 0, std::make_shared<std::vector<QString>>());
}

void DsortPage::listForPresence(const QString& bucket, const QStringList& names, const QString& token, int listed,
                                std::shared_ptr<std::vector<QString>> seen)
{
    api::ListRequest request;
    request.prefix = commonPrefix(names).toStdString();
    request.pageSize = api::kMaxPageSize;
    request.continuationToken = token.toStdString();
    request.props = api::kPropName;
    const int generation = m_presenceGeneration;
    m_presenceCall = m_rest->listObjects(bucket, request, this, [=, this](api::Result<api::ObjectList> page) {
        if (generation != m_presenceGeneration) return;  // the inputs changed meanwhile
        const QString summary = m_composer->inputSummary();
        if (!page) {
            const QString why = page.error().kind == api::ErrorKind::NotFound
                                    ? tr("bucket %1 does not exist").arg(bucket)
                                    : QString::fromStdString(page.error().message);
            m_expansion->setText(summary + tr(" — cannot check: %1").arg(why));
            return;
        }
        for (const auto& e : page->entries) seen->push_back(QString::fromStdString(e.name));
        const int now = listed + static_cast<int>(page->entries.size());
        const bool more = !page->continuationToken.empty();
        if (more && now < kMaxPresenceNames) {
            listForPresence(bucket, names, QString::fromStdString(page->continuationToken), now, seen);
            return;
        }
        const std::set<QString> have(seen->begin(), seen->end());
        QStringList missing;
        for (const auto& n : names) {
            if (!have.count(n)) missing << n;
        }
        QString text;
        if (missing.isEmpty()) {
            text = names.size() == 1 ? tr(" — present") : tr(" — all present");
        } else if (missing.size() == names.size()) {
            text = tr(" — none present");
        } else {
            const QStringList first = missing.mid(0, DsortComposer::kMaxListedNames);
            text = tr(" — %L1 missing: %2%3")
                       .arg(missing.size())
                       .arg(first.join(QStringLiteral(", ")))
                       .arg(missing.size() > first.size() ? QStringLiteral(" …") : QString());
        }
        if (more) text += tr(" (among the first %L1 names listed)").arg(now);
        m_expansion->setText(summary + text);
    });
}

void DsortPage::runPreview()
{
    if (!m_composer->isValid()) return;
    showMessage({}, false);
    m_planSummary->setText(tr("Asking the proxy for the plan…"));
    m_tabs->setCurrentIndex(0);
    const nlohmann::json doc = m_composer->document();
    m_previewCall = m_rest->dsortDryRun(
        m_composer->text().toUtf8(), m_composer->yaml(), this, [this, doc](api::Result<spec::DsortDryRun> got) {
            m_previewCall = {};
            if (!got) {
                m_plan.reset();
                m_shardsModel->removeRows(0, m_shardsModel->rowCount());
                m_recordsModel->removeRows(0, m_recordsModel->rowCount());
                m_warnings->clear();
                m_warnings->hide();
                m_planSummary->setText(tr("No plan."));
                showMessage(tr("Preview failed: %1").arg(QString::fromStdString(got.error().message)), true);
            } else {
                m_plan = *got;
                m_planDocument = doc;
                showPlan(*got);
            }
            updateButtons();
        });
    updateButtons();
}

void DsortPage::showPlan(const spec::DsortDryRun& answer)
{
    const auto& p = answer.plan;
    QString summary = tr("%L1 of %L2 input shards found").arg(p.found).arg(p.inputShards);
    if (p.missingCount > 0) {
        QStringList missing;
        for (const auto& m : p.missing) {
            if (missing.size() == DsortComposer::kMaxListedNames) break;
            missing << QString::fromStdString(m);
        }
        summary += tr(" (missing: %1%2)")
                       .arg(missing.join(QStringLiteral(", ")), p.missingCount > 3 ? QStringLiteral(" …") : QString());
    }
    summary += tr(" · %L1 records, %2 → %L3 output shards, %4")
                   .arg(p.records)
                   .arg(formatBytes(static_cast<qint64>(p.inputBytes)))
                   .arg(p.outputShards)
                   .arg(formatBytes(static_cast<qint64>(p.outputBytes)));
    if (p.duplicates > 0) summary += tr(" · %L1 duplicated keys").arg(p.duplicates);
    if (p.sampled) summary += tr(" · sampled: %L1 of %L2 shards read").arg(p.read).arg(p.found);
    if (answer.spec.algorithm.seed) summary += tr(" · seed %1").arg(*answer.spec.algorithm.seed);
    if (p.willFail) summary = tr("The job would fail. ") + summary;
    m_planSummary->setText(summary);
    m_planSummary->setStyleSheet(p.willFail ? QStringLiteral("color: %1;").arg(errorColor(palette()).name())
                                            : QString());
    m_warnings->clear();
    for (const auto& w : p.warnings) m_warnings->addItem(QString::fromStdString(w));
    m_warnings->setVisible(!p.warnings.empty());

    m_shardsModel->removeRows(0, m_shardsModel->rowCount());
    for (const auto& s : p.shards) {
        m_shardsModel->appendRow(
            {item(QString::fromStdString(s.name)), item(QString::fromStdString(s.target)),
             item(formatBytes(static_cast<qint64>(s.bytes)), static_cast<qulonglong>(s.bytes)),
             item(QLocale().toString(static_cast<qulonglong>(s.records)), static_cast<qulonglong>(s.records))});
    }
    m_recordsModel->removeRows(0, m_recordsModel->rowCount());
    for (const auto& r : p.firstRecords) {
        m_recordsModel->appendRow({item(QString::fromStdString(r.key)), item(QString::fromStdString(r.shard)),
                                   item(formatBytes(static_cast<qint64>(r.size)), static_cast<qulonglong>(r.size)),
                                   item(QString::number(r.files), r.files)});
    }
}

void DsortPage::startJob()
{
    if (!m_composer->isValid()) return;
    showMessage({}, false);
    // The previewed spec when it is the same document: its seed makes the plan shown.
    QByteArray body = m_composer->text().toUtf8();
    bool yaml = m_composer->yaml();
    std::string output;
    if (m_plan && m_planDocument == m_composer->document()) {
        body = QByteArray::fromStdString(nlohmann::json(m_plan->spec).dump());
        yaml = false;
        output = m_plan->spec.outputBck;
    } else if (auto s = spec::parseDsortSpec(m_composer->document())) {
        output = s->outputBck;
    }
    m_start->setEnabled(false);
    m_jobId.clear();
    m_status.reset();
    m_jobOutputBucket = QString::fromStdString(output);
    m_openOutput->setEnabled(false);
    m_targetsModel->removeRows(0, m_targetsModel->rowCount());
    m_jobState->setText(tr("Starting…"));
    m_tabs->setCurrentIndex(1);
    m_rest->startDsort(body, yaml, this, [this](api::Result<QString> id) {
        if (!id) {
            m_jobState->setText(tr("Not started."));
            showMessage(tr("Start failed: %1").arg(QString::fromStdString(id.error().message)), true);
            updateButtons();
            return;
        }
        m_jobId = *id;
        m_jobState->setText(tr("Job %1 started.").arg(m_jobId));
        emit statusMessage(tr("dSort job %1 started").arg(m_jobId));
        poll();
        m_pollTimer->start();
    });
}

void DsortPage::poll()
{
    if (m_jobId.isEmpty()) return;
    const QString id = m_jobId;
    m_rest->dsortStatus(id, this, [this, id](api::Result<api::JobStatus> got) {
        if (id != m_jobId) return;
        if (!got) {
            m_jobState->setText(tr("Job %1: no status: %2").arg(id, QString::fromStdString(got.error().message)));
            return;
        }
        showStatus(*got);
    });
}

void DsortPage::showStatus(const api::JobStatus& s)
{
    m_status = s;
    const double now = QDateTime::currentMSecsSinceEpoch() / 1e3;
    const double start = static_cast<double>(s.startNs) / 1e9;
    const double end = s.endNs > 0 ? static_cast<double>(s.endNs) / 1e9 : now;
    QString text =
        tr("Job %1: %2")
            .arg(QString::fromStdString(s.id), QString::fromStdString(std::string(api::jobStateName(s.state))));
    if (!api::isFinal(s.state) && !s.phase.empty()) text += tr(", phase %1").arg(QString::fromStdString(s.phase));
    if (s.startNs > 0) text += tr(" · %1").arg(jobTime(std::max(0.0, end - start)));
    if (!s.error.empty()) text += tr(" · %1").arg(QString::fromStdString(s.error));
    if (s.state == api::JobState::Finished && !m_jobOutputBucket.isEmpty()) {
        text += tr(" · output in bucket %1").arg(m_jobOutputBucket);
    }
    m_jobState->setText(text);
    m_jobState->setStyleSheet(
        s.state == api::JobState::Failed ? QStringLiteral("color: %1;").arg(errorColor(palette()).name()) : QString());
    // One row per target, kept in place as the status repeats.
    int row = 0;
    for (const auto& [id, t] : s.targets) {
        const double tStart = static_cast<double>(t.startNs) / 1e9;
        const double tEnd = t.endNs > 0 ? static_cast<double>(t.endNs) / 1e9 : now;
        const QString progress = t.progress.objectsTotal >= 0
                                     ? tr("%L1 / %L2").arg(t.progress.objectsDone).arg(t.progress.objectsTotal)
                                     : QLocale().toString(static_cast<qulonglong>(t.progress.objectsDone));
        const QStringList cells{QString::fromStdString(t.target.empty() ? id : t.target),
                                QString::fromStdString(std::string(api::jobStateName(t.state))),
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
        emit statusMessage(
            tr("dSort job %1 %2")
                .arg(QString::fromStdString(s.id), QString::fromStdString(std::string(api::jobStateName(s.state)))));
    }
    updateButtons();
}

void DsortPage::abortJob()
{
    if (m_jobId.isEmpty() || !m_status || api::isFinal(m_status->state)) return;
    QMessageBox box(QMessageBox::Question, tr("Abort dSort job"),
                    tr("Abort dSort job %1? What it has written so far is removed.").arg(m_jobId),
                    QMessageBox::Yes | QMessageBox::No, this);
    box.setObjectName(QStringLiteral("abortDsortConfirmation"));
    box.setDefaultButton(QMessageBox::No);
    if (box.exec() != QMessageBox::Yes) return;
    const QString id = m_jobId;
    m_rest->abortDsort(id, this, [this, id](api::Result<api::JobStatus> got) {
        if (id != m_jobId) return;
        if (!got) {
            showMessage(tr("Abort failed: %1").arg(QString::fromStdString(got.error().message)), true);
            return;
        }
        showStatus(*got);
        poll();
    });
}

void DsortPage::newSpec()
{
    const bool yaml = m_composer->yaml();
    m_composer->load(QStringLiteral("{\n  \"input_bck\": \"\",\n  \"input_format\": {\"template\": \"\"},\n"
                                    "  \"output_shard_size\": \"\"\n}\n"),
                     false);
    if (yaml) m_composer->setYaml(true);
    m_saved->setCurrentIndex(-1);
}

void DsortPage::reloadSaved()
{
    if (!m_specs) return;
    const QString current = m_saved->currentText();
    m_saved->clear();
    if (auto list = m_specs->list(kKind)) {
        for (const auto& s : *list) m_saved->addItem(s.name);
    }
    m_saved->setCurrentIndex(m_saved->findText(current));
}

bool DsortPage::saveAs(const QString& name)
{
    if (!m_specs) {
        showMessage(tr("Cannot save: the console's database is unavailable."), true);
        return false;
    }
    SavedSpec s{kKind, name, m_composer->text(), m_composer->yaml(), 0};
    if (auto st = m_specs->save(s); !st) {
        showMessage(tr("Cannot save: %1").arg(QString::fromStdString(st.error().message)), true);
        return false;
    }
    reloadSaved();
    m_saved->setCurrentIndex(m_saved->findText(name.trimmed()));
    emit statusMessage(tr("Saved spec \"%1\"").arg(name.trimmed()));
    return true;
}

bool DsortPage::openSaved(const QString& name)
{
    if (!m_specs) return false;
    auto found = m_specs->find(kKind, name);
    if (!found || !*found) {
        showMessage(tr("No saved spec named \"%1\".").arg(name), true);
        return false;
    }
    m_composer->load((*found)->text, (*found)->yaml);
    m_saved->setCurrentIndex(m_saved->findText(name));
    showMessage({}, false);
    return true;
}

bool DsortPage::removeSaved(const QString& name)
{
    if (!m_specs) return false;
    if (auto st = m_specs->remove(kKind, name); !st) {
        showMessage(tr("Cannot delete: %1").arg(QString::fromStdString(st.error().message)), true);
        return false;
    }
    reloadSaved();
    m_saved->setCurrentIndex(-1);
    return true;
}

bool DsortPage::saveFile(const QString& path)
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

bool DsortPage::openFile(const QString& path)
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

void DsortPage::saveDraft()
{
    if (m_specs) m_specs->saveDraft(kKind, m_composer->text(), m_composer->yaml());
}

}  // namespace tessera::console
