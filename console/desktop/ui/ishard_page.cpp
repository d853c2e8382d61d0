#include "ui/ishard_page.h"

#include "models/format_util.h"
#include "models/spec_composer.h"
#include "spec/ishard_spec.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>

namespace tessera::console {

namespace {

// The items of the comma-separated list field.
QStringList listItems(const QString& text)
{
    QStringList out;
    for (const auto& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        if (!part.trimmed().isEmpty()) out << part.trimmed();
    }
    return out;
}

}  // namespace

IshardPage::IshardPage(RestClient* rest, SpecStore* specs, QWidget* parent)
    : SpecComposerPage(QStringLiteral("ishard"), QStringLiteral("ishard"),
                       new SpecComposer(QStringLiteral("ishard"), &spec::validateIshardSpec), rest, specs, parent)
{
    buildForm();
    finishSetup(tr("Preview shows the shards the job will build, without running it."),
                {tr("Shard"), tr("Samples"), tr("Objects"), tr("Size")},
                {tr("Sample"), tr("Shard"), tr("Files"), tr("Size")});
}

QString IshardPage::emptySpec() const { return QStringLiteral("{\n  \"src_bck\": \"\",\n  \"dst_bck\": \"\"\n}\n"); }

void IshardPage::buildForm()
{
    QWidget* inner = formParent();
    auto* src = bucketBox();
    src->lineEdit()->setPlaceholderText(tr("the bucket of loose files"));
    addRow(tr("Source bucket"), QStringLiteral("/src_bck"), src);
    connectCombo(src, QStringLiteral("/src_bck"));
    auto* prefix = new QLineEdit(inner);
    prefix->setPlaceholderText(tr("every object (or e.g. train/)"));
    addRow(tr("Prefix"), QStringLiteral("/prefix"), prefix);
    connectLineEdit(prefix, QStringLiteral("/prefix"));
    auto* dst = bucketBox();
    dst->lineEdit()->setPlaceholderText(tr("the bucket the shards go to"));
    addRow(tr("Output bucket"), QStringLiteral("/dst_bck"), dst);
    connectCombo(dst, QStringLiteral("/dst_bck"));
    auto* size = new QLineEdit(inner);
    size->setPlaceholderText(tr("16MiB (or set a sample count)"));
    addRow(tr("Shard size"), QStringLiteral("/shard_size"), size);
    connectLineEdit(size, QStringLiteral("/shard_size"), true);
    auto* count = new QLineEdit(inner);
    count->setPlaceholderText(tr("samples per shard (instead of a size)"));
    addRow(tr("Samples per shard"), QStringLiteral("/sample_count"), count);
    connectLineEdit(count, QStringLiteral("/sample_count"), true);
    auto* tmpl = new QLineEdit(inner);
    tmpl->setPlaceholderText(QString::fromLatin1(spec::IshardSpec::kDefaultTemplate));
    addRow(tr("Shard names"), QStringLiteral("/shard_template"), tmpl);
    connectLineEdit(tmpl, QStringLiteral("/shard_template"));
    auto* ext = new QComboBox(inner);
    ext->addItems({QStringLiteral(".tar"), QStringLiteral(".tgz"), QStringLiteral(".tar.gz"),
                   QStringLiteral(".tar.lz4"), QStringLiteral(".zip")});
    ext->setPlaceholderText(QStringLiteral(".tar"));
    addRow(tr("Format"), QStringLiteral("/ext"), ext);
    connectCombo(ext, QStringLiteral("/ext"));
    auto* key = new QLineEdit(inner);
    key->setPlaceholderText(tr("WebDataset key (the name up to its first dot)"));
    addRow(tr("Sample key regex"), QStringLiteral("/sample_key_pattern"), key);
    connectLineEdit(key, QStringLiteral("/sample_key_pattern"));
    auto* sort = new QComboBox(inner);
    sort->setEditable(true);
    sort->setInsertPolicy(QComboBox::NoInsert);
    sort->addItems({QStringLiteral("alpha"), QStringLiteral("shuffle"), QStringLiteral("none")});
    sort->lineEdit()->setPlaceholderText(tr("alpha (shuffle:SEED for a fixed shuffle)"));
    addRow(tr("Order"), QStringLiteral("/sort"), sort);
    connectCombo(sort, QStringLiteral("/sort"));
    m_sampleExts = new QLineEdit(inner);
    m_sampleExts->setPlaceholderText(tr("e.g. .png, .cls (none: no check)"));
    addRow(tr("Sample extensions"), QStringLiteral("/sample_exts"), m_sampleExts);
    // A list: the field holds its items separated by commas.
    connect(m_sampleExts, &QLineEdit::textEdited, this, [this](const QString& text) {
        if (updatingForm()) return;
        nlohmann::json list = nlohmann::json::array();
        for (const auto& item : listItems(text)) list.push_back(item.toStdString());
        m_composer->setField(QStringLiteral("/sample_exts"), list.empty() ? nlohmann::json(nullptr) : list);
    });
    auto* missing = new QComboBox(inner);
    missing->addItems(
        {QStringLiteral("ignore"), QStringLiteral("warn"), QStringLiteral("exclude"), QStringLiteral("abort")});
    missing->setPlaceholderText(QStringLiteral("ignore"));
    addRow(tr("When one is missing"), QStringLiteral("/missing_extension_action"), missing);
    connectCombo(missing, QStringLiteral("/missing_extension_action"));
}

void IshardPage::documentChanged()
{
    // The list field shows the list.
    const nlohmann::json exts = m_composer->field(QStringLiteral("/sample_exts"));
    QStringList items;
    if (exts.is_array()) {
        for (const auto& e : exts)
            items << (e.is_string() ? QString::fromStdString(e.get<std::string>()) : QString::fromStdString(e.dump()));
    }
    // Only when the list differs from the field's: "a, " is the list "a" being typed.
    if (listItems(m_sampleExts->text()) != items) m_sampleExts->setText(items.join(QStringLiteral(", ")));
}

void IshardPage::runPreview()
{
    preview(
        [this](const QByteArray& text, bool yaml, RestClient::Callback<spec::IshardDryRun> done) {
            return m_rest->ishardDryRun(text, yaml, this, std::move(done));
        },
        m_plan, [this](const spec::IshardDryRun& answer) { showPlan(answer); });
}

void IshardPage::showPlan(const spec::IshardDryRun& answer)
{
    const auto& p = answer.plan;
    QString summary = tr("%L1 samples (%L2 objects, %3) → %L4 shards")
                          .arg(p.samples)
                          .arg(p.objects)
                          .arg(formatBytes(static_cast<qint64>(p.inputBytes)))
                          .arg(p.shards.size());
    if (p.excludedSamples > 0) summary += tr(" · %L1 samples excluded").arg(p.excludedSamples);
    if (p.warningCount > 0) {
        summary += p.warningCount == 1 ? tr(" · 1 warning") : tr(" · %L1 warnings").arg(p.warningCount);
    }
    if (p.seed) summary += tr(" · seed %1").arg(*p.seed);
    m_planSummary->setText(summary);
    showWarnings(p.warnings);
    m_outputModel->removeRows(0, m_outputModel->rowCount());
    for (const auto& s : p.shards) {
        m_outputModel->appendRow(
            {item(QString::fromStdString(s.name)),
             item(QLocale().toString(static_cast<qulonglong>(s.samples)), static_cast<qulonglong>(s.samples)),
             item(QLocale().toString(static_cast<qulonglong>(s.objects)), static_cast<qulonglong>(s.objects)),
             item(formatBytes(static_cast<qint64>(s.bytes)), static_cast<qulonglong>(s.bytes))});
    }
    m_firstModel->removeRows(0, m_firstModel->rowCount());
    for (const auto& s : p.firstSamples) {
        QStringList files;
        for (const auto& f : s.files) files << QString::fromStdString(f);
        m_firstModel->appendRow({item(QString::fromStdString(s.key)), item(QString::fromStdString(s.shard)),
                                 item(files.join(QStringLiteral(", "))),
                                 item(formatBytes(static_cast<qint64>(s.bytes)), static_cast<qulonglong>(s.bytes))});
    }
}

QByteArray IshardPage::startBody(bool* yaml, QString* outputBucket) const
{
    // The previewed spec when it is the same document: its seed makes the plan shown.
    if (m_plan && planIsCurrent()) {
        *yaml = false;
        *outputBucket = QString::fromStdString(m_plan->spec.dstBck);
        spec::IshardSpec s = m_plan->spec;
        s.dryRun = false;
        return QByteArray::fromStdString(nlohmann::json(s).dump());
    }
    *yaml = m_composer->yaml();
    outputBucket->clear();
    if (auto s = spec::parseIshardSpec(m_composer->document())) *outputBucket = QString::fromStdString(s->dstBck);
    return m_composer->text().toUtf8();
}

void IshardPage::submit(const QByteArray& body, bool yaml, std::function<void(api::Result<QString>)> done)
{
    m_rest->startIshard(body, yaml, this, [done = std::move(done)](api::Result<api::JobStatus> st) {
        if (!st) return done(st.error());
        done(QString::fromStdString(st->id));
    });
}

}  // namespace tessera::console
