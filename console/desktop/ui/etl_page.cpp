#include "ui/etl_page.h"

#include "models/format_util.h"
#include "ui/theme.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSplitter>
#include <QStackedWidget>
#include <QStandardItemModel>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace tessera::console {

namespace {

constexpr int kImageScale = 4;  // dataset images are small: shown 4x, pixels kept sharp

QStandardItem* cell(const QString& text)
{
    auto* i = new QStandardItem(text);
    i->setEditable(false);
    return i;
}

QString errorCss(const QWidget* w)
{
    return QStringLiteral("color: %1;")
        .arg(isDarkPalette(w->palette()) ? QStringLiteral("#ef9a9a") : QStringLiteral("#c62828"));
}

}  // namespace

TransformPane::TransformPane(const QString& title, QWidget* parent)
    : QWidget(parent), m_title(title), m_summary(new QLabel(this)), m_stack(new QStackedWidget(this)),
      m_image(new QLabel(this)), m_text(new QPlainTextEdit(this))
{
    auto* v = new QVBoxLayout(this);
    v->setContentsMargins(0, 0, 0, 0);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    v->addWidget(m_summary);
    m_image->setAlignment(Qt::AlignCenter);
    m_text->setReadOnly(true);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_stack->addWidget(m_text);
    m_stack->addWidget(m_image);
    v->addWidget(m_stack, 1);
    m_summary->setText(m_title);
}

void TransformPane::showBytes(const QString& name, const QByteArray& bytes, const QString& extra)
{
    const Preview p = PreviewLoader::build(name, bytes, bytes.size());
    m_kind = p.kind;
    m_summary->setStyleSheet({});
    m_summary->setText(QStringLiteral("%1 · %2%3").arg(m_title, p.summary, extra));
    if (p.kind == Preview::Kind::Image) {
        const QImage scaled = p.image.scaled(p.image.size() * kImageScale, Qt::KeepAspectRatio, Qt::FastTransformation);
        m_image->setPixmap(QPixmap::fromImage(scaled));
        m_stack->setCurrentWidget(m_image);
    } else {
        m_text->setPlainText(p.text);
        m_stack->setCurrentWidget(m_text);
    }
}

void TransformPane::showError(const QString& text)
{
    m_kind = Preview::Kind::Error;
    m_summary->setText(tr("%1 · failed").arg(m_title));
    m_summary->setStyleSheet(errorCss(this));
    m_text->setPlainText(text);
    m_stack->setCurrentWidget(m_text);
}

void TransformPane::showWaiting()
{
    m_summary->setStyleSheet({});
    m_summary->setText(tr("%1 · reading…").arg(m_title));
}

QString TransformPane::text() const { return m_text->toPlainText(); }

EtlPage::EtlPage(RestClient* rest, QWidget* parent)
    : QWidget(parent), m_rest(rest), m_model(new QStandardItemModel(0, 5, this)), m_argsTimer(new QTimer(this)),
      m_pollTimer(new QTimer(this))
{
    m_model->setHorizontalHeaderLabels({tr("Transformer"), tr("Mode"), tr("Stage"), tr("Objects"), tr("Errors")});
    auto* top = new QHBoxLayout(this);
    top->setContentsMargins(6, 6, 6, 6);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(buildLeft());
    split->addWidget(buildRight());
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    split->setSizes({400, 600});
    top->addWidget(split);
    m_argsTimer->setSingleShot(true);
    m_argsTimer->setInterval(kArgsDelayMs);
    connect(m_argsTimer, &QTimer::timeout, this, &EtlPage::transform);
    m_pollTimer->setInterval(kPollMs);
    connect(m_pollTimer, &QTimer::timeout, this, &EtlPage::poll);
}

QWidget* EtlPage::buildLeft()
{
    auto* w = new QWidget(this);
    auto* v = new QVBoxLayout(w);
    v->setContentsMargins(0, 0, 0, 0);
    v->addWidget(new QLabel(tr("Transformers on the cluster"), w));
    m_table = new QTableView(w);
    m_table->setObjectName(QStringLiteral("etlTable"));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    v->addWidget(m_table, 1);
    auto* row = new QHBoxLayout;
    m_remove = new QPushButton(tr("Remove…"), w);
    m_remove->setObjectName(QStringLiteral("removeEtlButton"));
    connect(m_remove, &QPushButton::clicked, this, &EtlPage::removeSelected);
    row->addStretch(1);
    row->addWidget(m_remove);
    v->addLayout(row);

    auto* box = new QGroupBox(tr("New transformer"), w);
    auto* bv = new QVBoxLayout(box);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Spec (docs/etl.md)"), box));
    bar->addStretch(1);
    m_specFormat = new QComboBox(box);
    m_specFormat->setObjectName(QStringLiteral("etlSpecFormat"));
    m_specFormat->addItems({QStringLiteral("JSON"), QStringLiteral("YAML")});
    bar->addWidget(m_specFormat);
    bv->addLayout(bar);
    m_spec = new QPlainTextEdit(box);
    m_spec->setObjectName(QStringLiteral("etlSpec"));
    m_spec->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_spec->setPlainText(
        QStringLiteral("{\n  \"name\": \"thumbs\",\n  \"communication\": \"io://\",\n"
                       "  \"command\": [\"resize_image.py\", \"64\"],\n  \"obj_timeout\": \"30s\"\n}\n"));
    bv->addWidget(m_spec, 1);
    m_specMessage = new QLabel(box);
    m_specMessage->setObjectName(QStringLiteral("etlSpecMessage"));
    m_specMessage->setWordWrap(true);
    m_specMessage->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_specMessage->hide();
    bv->addWidget(m_specMessage);
    m_init = new QPushButton(tr("Init"), box);
    m_init->setObjectName(QStringLiteral("initEtlButton"));
    m_init->setToolTip(tr("Start the transformer on every target (PUT /v1/etl)"));
    connect(m_init, &QPushButton::clicked, this, &EtlPage::initTransformer);
    auto* irow = new QHBoxLayout;
    irow->addStretch(1);
    irow->addWidget(m_init);
    bv->addLayout(irow);
    v->addWidget(box, 1);
    return w;
}

QWidget* EtlPage::buildRight()
{
    auto* w = new QWidget(this);
    auto* v = new QVBoxLayout(w);
    v->setContentsMargins(0, 0, 0, 0);
    auto* form = new QFormLayout;
    m_bucket = new QComboBox(w);
    m_bucket->setObjectName(QStringLiteral("etlBucket"));
    m_bucket->setEditable(true);
    m_bucket->setInsertPolicy(QComboBox::NoInsert);
    m_object = new QLineEdit(w);
    m_object->setObjectName(QStringLiteral("etlObject"));
    m_object->setPlaceholderText(tr("object name, e.g. train/000123.png or a shard"));
    m_member = new QLineEdit(w);
    m_member->setObjectName(QStringLiteral("etlMember"));
    m_member->setPlaceholderText(tr("a member of the shard (optional)"));
    auto* what = new QHBoxLayout;
    what->addWidget(m_bucket, 1);
    what->addWidget(m_object, 2);
    what->addWidget(m_member, 2);
    form->addRow(tr("Sample"), what);
    m_etl = new QComboBox(w);
    m_etl->setObjectName(QStringLiteral("etlName"));
    m_args = new QLineEdit(w);
    m_args->setObjectName(QStringLiteral("etlArgs"));
    m_args->setPlaceholderText(tr("etl_args (optional), e.g. 32x32"));
    connect(m_args, &QLineEdit::textEdited, this, [this] {
        if (!m_object->text().isEmpty()) m_argsTimer->start();
    });
    m_transform = new QPushButton(tr("Transform"), w);
    m_transform->setObjectName(QStringLiteral("transformButton"));
    connect(m_transform, &QPushButton::clicked, this, &EtlPage::transform);
    auto* how = new QHBoxLayout;
    how->addWidget(m_etl, 1);
    how->addWidget(m_args, 2);
    how->addWidget(m_transform);
    form->addRow(tr("Transformer"), how);
    v->addLayout(form);

    auto* panes = new QSplitter(Qt::Horizontal, w);
    m_before = new TransformPane(tr("Before"), panes);
    m_after = new TransformPane(tr("After"), panes);
    m_before->setObjectName(QStringLiteral("beforePane"));
    m_after->setObjectName(QStringLiteral("afterPane"));
    panes->addWidget(m_before);
    panes->addWidget(m_after);
    v->addWidget(panes, 1);

    auto* box = new QGroupBox(tr("Run on bucket"), w);
    auto* bf = new QFormLayout(box);
    m_destination = new QComboBox(box);
    m_destination->setObjectName(QStringLiteral("etlDestination"));
    m_destination->setEditable(true);
    m_destination->setInsertPolicy(QComboBox::NoInsert);
    m_prefix = new QLineEdit(box);
    m_prefix->setObjectName(QStringLiteral("etlPrefix"));
    m_prefix->setPlaceholderText(tr("prefix (e.g. train/) or template (shard-{000..099}.tar); empty: every object"));
    m_ext = new QLineEdit(box);
    m_ext->setObjectName(QStringLiteral("etlExt"));
    m_ext->setPlaceholderText(tr("rename extensions, e.g. png:jpg"));
    m_perSample = new QCheckBox(tr("Per sample: each shard into a new shard"), box);
    m_perSample->setObjectName(QStringLiteral("etlPerSample"));
    m_dryRun = new QCheckBox(tr("Dry run"), box);
    m_dryRun->setObjectName(QStringLiteral("etlDryRun"));
    m_dryRun->setToolTip(tr("Transform and count, write nothing"));
    auto* dest = new QHBoxLayout;
    dest->addWidget(m_destination, 1);
    dest->addWidget(m_prefix, 1);
    bf->addRow(tr("Into bucket"), dest);
    auto* opts = new QHBoxLayout;
    opts->addWidget(m_ext, 1);
    opts->addWidget(m_perSample);
    opts->addWidget(m_dryRun);
    bf->addRow(tr("Options"), opts);
    auto* runRow = new QHBoxLayout;
    m_jobState = new QLabel(tr("No job started from this page."), box);
    m_jobState->setObjectName(QStringLiteral("etlJobState"));
    m_jobState->setWordWrap(true);
    runRow->addWidget(m_jobState, 1);
    m_run = new QPushButton(tr("Run"), box);
    m_run->setObjectName(QStringLiteral("runEtlButton"));
    connect(m_run, &QPushButton::clicked, this, &EtlPage::runOnBucket);
    runRow->addWidget(m_run);
    m_openOutput = new QPushButton(tr("Open output bucket"), box);
    m_openOutput->setObjectName(QStringLiteral("etlOpenOutput"));
    m_openOutput->setEnabled(false);
    connect(m_openOutput, &QPushButton::clicked, this, [this] { emit openBucket(m_jobOutput); });
    runRow->addWidget(m_openOutput);
    bf->addRow(runRow);
    v->addWidget(box);
    return w;
}

void EtlPage::showMessage(QLabel* label, const QString& text, bool error)
{
    label->setText(text);
    label->setStyleSheet(error ? errorCss(this) : QString());
    label->setVisible(!text.isEmpty());
    if (!text.isEmpty()) emit statusMessage(text);
}

void EtlPage::refresh()
{
    m_rest->etlList(this, [this](api::Result<std::vector<api::EtlInfo>> got) {
        if (!got) {
            emit statusMessage(tr("Transformers: %1").arg(QString::fromStdString(got.error().message)));
            return;
        }
        showList(*got);
    });
    m_rest->listBuckets(this, [this](api::Result<std::vector<api::BucketRef>> got) {
        if (!got) return;
        QStringList names;
        for (const auto& b : *got) names << QString::fromStdString(b.name);
        names.sort();
        for (QComboBox* box : {m_bucket, m_destination}) {
            const QString text = box->currentText();
            const QSignalBlocker block(box);
            box->clear();
            box->addItems(names);
            box->setEditText(text);
        }
    });
}

void EtlPage::showList(const std::vector<api::EtlInfo>& list)
{
    const QString selected = m_etl->currentText();
    m_model->removeRows(0, m_model->rowCount());
    m_etl->clear();
    for (const auto& e : list) {
        const QString name = QString::fromStdString(e.name);
        m_model->appendRow({cell(name), cell(QString::fromStdString(e.communication)),
                            cell(QString::fromStdString(e.stage)),
                            cell(QLocale().toString(static_cast<qulonglong>(e.objectsIn))),
                            cell(QLocale().toString(static_cast<qulonglong>(e.errors)))});
        m_etl->addItem(name);
    }
    const int keep = m_etl->findText(selected);
    if (keep >= 0) m_etl->setCurrentIndex(keep);
}

void EtlPage::initTransformer()
{
    showMessage(m_specMessage, tr("Starting the transformer on every target…"), false);
    m_init->setEnabled(false);
    const bool yaml = m_specFormat->currentIndex() == 1;
    m_rest->etlInit(m_spec->toPlainText().toUtf8(), yaml, this, [this](api::Result<api::EtlInfo> got) {
        m_init->setEnabled(true);
        if (!got) {
            showMessage(m_specMessage, tr("Init failed: %1").arg(QString::fromStdString(got.error().message)), true);
            return;
        }
        const QString name = QString::fromStdString(got->name);
        showMessage(m_specMessage,
                    tr("Transformer %1 runs on every target (%2).").arg(name, QString::fromStdString(got->stage)),
                    false);
        m_rest->etlList(this, [this, name](api::Result<std::vector<api::EtlInfo>> list) {
            if (!list) return;
            showList(*list);
            m_etl->setCurrentIndex(m_etl->findText(name));
        });
    });
}

void EtlPage::removeSelected()
{
    const QModelIndex index = m_table->currentIndex();
    if (!index.isValid()) return;
    const QString name = m_model->item(index.row(), 0)->text();
    QMessageBox box(QMessageBox::Question, tr("Remove transformer"),
                    tr("Remove transformer %1? Every target stops it; GETs naming it answer 404.").arg(name),
                    QMessageBox::Yes | QMessageBox::No, this);
    box.setObjectName(QStringLiteral("removeEtlConfirmation"));
    box.setDefaultButton(QMessageBox::No);
    if (box.exec() != QMessageBox::Yes) return;
    m_rest->etlRemove(name, this, [this, name](api::Status st) {
        if (!st) {
            showMessage(m_specMessage, tr("Remove failed: %1").arg(QString::fromStdString(st.error().message)), true);
            return;
        }
        emit statusMessage(tr("Transformer %1 removed").arg(name));
        refresh();
    });
}

void EtlPage::transform()
{
    m_argsTimer->stop();
    const QString bucket = m_bucket->currentText().trimmed();
    const QString object = m_object->text().trimmed();
    const QString member = m_member->text().trimmed();
    const QString etl = m_etl->currentText();
    if (bucket.isEmpty() || object.isEmpty() || etl.isEmpty()) {
        m_after->showError(tr("Choose a bucket, an object and a transformer."));
        return;
    }
    const QString shown = member.isEmpty() ? object : object + QLatin1Char('/') + member;
    const int generation = ++m_generation;
    m_beforeCall.abort();
    m_afterCall.abort();
    m_before->showWaiting();
    m_after->showWaiting();
    m_beforeCall = m_rest->readTransformed(
        bucket, object, member, {}, {}, kMaxPreviewBytes, this, [this, generation, shown](api::Result<QByteArray> got) {
            if (generation != m_generation) return;
            if (!got) return m_before->showError(QString::fromStdString(got.error().message));
            m_before->showBytes(shown, *got, {});
        });
    m_clock.start();
    m_afterCall =
        m_rest->readTransformed(bucket, object, member, etl, m_args->text().trimmed(), kMaxPreviewBytes, this,
                                [this, generation, shown, etl](api::Result<QByteArray> got) {
                                    if (generation != m_generation) return;
                                    m_lastMs = m_clock.elapsed();
                                    ++m_transformsDone;
                                    if (!got) return m_after->showError(QString::fromStdString(got.error().message));
                                    m_after->showBytes(shown, *got, tr(" · %1 in %2 ms").arg(etl).arg(m_lastMs));
                                });
}

void EtlPage::showSample(const QString& bucket, const QString& object, const QString& member)
{
    m_bucket->setEditText(bucket);
    m_object->setText(object);
    m_member->setText(member);
    if (m_etl->count() > 0) {
        transform();
    } else {
        m_after->showError(tr("No transformer on the cluster yet: init one on the left."));
    }
}

void EtlPage::runOnBucket()
{
    const QString src = m_bucket->currentText().trimmed();
    const QString dst = m_destination->currentText().trimmed();
    const QString etl = m_etl->currentText();
    if (src.isEmpty() || dst.isEmpty() || etl.isEmpty()) {
        showMessage(m_jobState, tr("Choose the sample's bucket, a destination bucket and a transformer."), true);
        return;
    }
    api::EtlBucketMsg msg;
    msg.id = etl.toStdString();
    // A brace range is a template of names (etl-listrange), anything else a prefix.
    const QString where = m_prefix->text().trimmed();
    static const QRegularExpression range(QStringLiteral("\\{[^}]*\\.\\.[^}]*\\}"));
    if (range.match(where).hasMatch()) {
        msg.templ = where.toStdString();
    } else {
        msg.prefix = where.toStdString();
    }
    msg.dryRun = m_dryRun->isChecked();
    msg.perSample = m_perSample->isChecked();
    for (const auto& pair : m_ext->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const auto parts = pair.trimmed().split(QLatin1Char(':'));
        if (parts.size() != 2 || parts[0].trimmed().isEmpty() || parts[1].trimmed().isEmpty()) {
            showMessage(m_jobState, tr("Extensions are pairs like png:jpg, separated by commas."), true);
            return;
        }
        msg.ext[parts[0].trimmed().toStdString()] = parts[1].trimmed().toStdString();
    }
    m_run->setEnabled(false);
    m_openOutput->setEnabled(false);
    m_status.reset();
    m_jobOutput = dst;
    m_dryRunning = msg.dryRun;
    showMessage(m_jobState, tr("Starting…"), false);
    m_rest->etlBucket(src, dst, msg, this, [this](api::Result<api::JobStatus> got) {
        if (!got) {
            m_run->setEnabled(true);
            showMessage(m_jobState, tr("Not started: %1").arg(QString::fromStdString(got.error().message)), true);
            return;
        }
        m_jobId = QString::fromStdString(got->id);
        m_status = *got;
        poll();
        m_pollTimer->start();
    });
}

void EtlPage::poll()
{
    if (m_jobId.isEmpty()) return;
    const QString id = m_jobId;
    m_rest->job(id, this, [this, id](api::Result<api::JobStatus> got) {
        if (id != m_jobId || !got) return;
        m_status = *got;
        const auto& s = *got;
        const double end = s.endNs > 0 ? static_cast<double>(s.endNs) / 1e9 : QDateTime::currentMSecsSinceEpoch() / 1e3;
        const double secs = s.startNs > 0 ? std::max(0.0, end - static_cast<double>(s.startNs) / 1e9) : 0;
        QString text = tr("Job %1: %2").arg(id, QString::fromStdString(std::string(api::jobStateName(s.state))));
        text += tr(" · %L1 objects").arg(s.progress.objectsDone);
        if (s.progress.objectsTotal >= 0) text += tr(" of %L1").arg(s.progress.objectsTotal);
        if (s.progress.errors > 0) text += tr(" · %L1 errors").arg(s.progress.errors);
        text += tr(" · %1 s").arg(secs, 0, 'f', 1);
        if (!s.error.empty()) text += QStringLiteral(" · ") + QString::fromStdString(s.error);
        showMessage(m_jobState, text, s.state == api::JobState::Failed);
        if (api::isFinal(s.state)) {
            m_pollTimer->stop();
            m_run->setEnabled(true);
            m_openOutput->setEnabled(s.state == api::JobState::Finished && !m_dryRunning);
        }
    });
}

}  // namespace tessera::console
