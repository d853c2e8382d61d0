#include "ui/dsort_page.h"

#include "models/format_util.h"
#include "models/spec_composer.h"
#include "spec/dsort_spec.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <set>

namespace tessera::console {

namespace {

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

QString shown(const nlohmann::json& v)
{
    if (v.is_null()) return {};
    if (v.is_string()) return QString::fromStdString(v.get<std::string>());
    return QString::fromStdString(v.dump());
}

}  // namespace

DsortPage::DsortPage(RestClient* rest, SpecStore* specs, QWidget* parent)
    : SpecComposerPage(QStringLiteral("dsort"), QStringLiteral("dSort"),
                       new SpecComposer(QStringLiteral("dsort"), &spec::validateDsortSpec), rest, specs, parent),
      m_presenceTimer(new QTimer(this))
{
    m_presenceTimer->setSingleShot(true);
    m_presenceTimer->setInterval(kPresenceDelayMs);
    connect(m_presenceTimer, &QTimer::timeout, this, &DsortPage::checkPresence);
    buildForm();
    finishSetup(tr("Preview shows what the job will do, without running it."),
                {tr("Output shard"), tr("Target"), tr("Size"), tr("Records")},
                {tr("Key"), tr("From shard"), tr("Size"), tr("Files")});
}

QString DsortPage::emptySpec() const
{
    return QStringLiteral(
        "{\n  \"input_bck\": \"\",\n  \"input_format\": {\"template\": \"\"},\n"
        "  \"output_shard_size\": \"\"\n}\n");
}

void DsortPage::buildForm()
{
    QWidget* inner = formParent();

    auto* inputBck = bucketBox();
    inputBck->lineEdit()->setPlaceholderText(tr("the bucket holding the shards"));
    addRow(tr("Input bucket"), QStringLiteral("/input_bck"), inputBck);
    connectCombo(inputBck, QStringLiteral("/input_bck"));

    auto* inputTemplate = new QLineEdit(inner);
    inputTemplate->setPlaceholderText(QStringLiteral("shard-{000000..000099}"));
    addRow(tr("Input template"), QStringLiteral("/input_format/template"), inputTemplate);
    connectLineEdit(inputTemplate, QStringLiteral("/input_format/template"));
    m_expansion = new QLabel(inner);
    m_expansion->setObjectName(QStringLiteral("inputExpansion"));
    m_expansion->setWordWrap(true);
    form()->addRow(QString(), m_expansion);

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
    addRow(tr("Input extension"), QStringLiteral("/input_extension"), inputExt);
    connectCombo(inputExt, QStringLiteral("/input_extension"));

    auto* outputBck = bucketBox();
    outputBck->lineEdit()->setPlaceholderText(tr("the input bucket"));
    addRow(tr("Output bucket"), QStringLiteral("/output_bck"), outputBck);
    connectCombo(outputBck, QStringLiteral("/output_bck"));

    auto* outputFormat = new QLineEdit(inner);
    outputFormat->setPlaceholderText(QString::fromLatin1(spec::DsortSpec::kDefaultOutputFormat));
    addRow(tr("Output template"), QStringLiteral("/output_format"), outputFormat);
    connectLineEdit(outputFormat, QStringLiteral("/output_format"));

    auto* outputExt = extensionBox(true);
    outputExt->lineEdit()->setPlaceholderText(tr("as the input"));
    addRow(tr("Output extension"), QStringLiteral("/output_extension"), outputExt);
    connectCombo(outputExt, QStringLiteral("/output_extension"));

    auto* shardSize = new QLineEdit(inner);
    shardSize->setPlaceholderText(tr("256MiB, 100MB, 1048576 or \"1000 records\""));
    addRow(tr("Output shard size"), QStringLiteral("/output_shard_size"), shardSize);
    connectLineEdit(shardSize, QStringLiteral("/output_shard_size"), true);

    auto* algorithm = new QComboBox(inner);
    algorithm->addItems(
        {QStringLiteral("alphanumeric"), QStringLiteral("shuffle"), QStringLiteral("content"), QStringLiteral("none")});
    algorithm->setPlaceholderText(tr("alphanumeric"));
    addRow(tr("Algorithm"), QStringLiteral("/algorithm/kind"), algorithm);
    connectCombo(algorithm, QStringLiteral("/algorithm/kind"));

    auto* decreasing = new QCheckBox(tr("Decreasing"), inner);
    addRow(QString(), QStringLiteral("/algorithm/decreasing"), decreasing);
    connect(decreasing, &QCheckBox::toggled, this, [this](bool on) {
        if (!updatingForm())
            m_composer->setField(QStringLiteral("/algorithm/decreasing"),
                                 on ? nlohmann::json(true) : nlohmann::json(nullptr));
    });
    auto* seed = new QLineEdit(inner);
    seed->setPlaceholderText(tr("chosen by the proxy (shown after Preview)"));
    addRow(tr("Seed"), QStringLiteral("/algorithm/seed"), seed);
    connectLineEdit(seed, QStringLiteral("/algorithm/seed"));
    auto* contentExt = new QLineEdit(inner);
    contentExt->setPlaceholderText(QStringLiteral(".cls"));
    addRow(tr("Key file extension"), QStringLiteral("/algorithm/extension"), contentExt);
    connectLineEdit(contentExt, QStringLiteral("/algorithm/extension"));
    auto* keyType = new QComboBox(inner);
    keyType->addItems({QStringLiteral("int"), QStringLiteral("float"), QStringLiteral("string")});
    keyType->setPlaceholderText(QStringLiteral("int"));
    addRow(tr("Key type"), QStringLiteral("/algorithm/content_key_type"), keyType);
    connectCombo(keyType, QStringLiteral("/algorithm/content_key_type"));

    auto* ekm = new QLineEdit(inner);
    ekm->setPlaceholderText(tr("bucket/object.json (optional)"));
    addRow(tr("External key map"), QStringLiteral("/ekm_file"), ekm);
    connectLineEdit(ekm, QStringLiteral("/ekm_file"));

    auto* mem = new QLineEdit(inner);
    mem->setPlaceholderText(QStringLiteral("80%"));
    addRow(tr("Memory limit"), QStringLiteral("/max_mem_usage"), mem);
    connectLineEdit(mem, QStringLiteral("/max_mem_usage"));

    for (const auto& [label, pointer] :
         {std::pair{tr("Extract concurrency"), QStringLiteral("/extract_concurrency_max_limit")},
          std::pair{tr("Create concurrency"), QStringLiteral("/create_concurrency_max_limit")}}) {
        auto* spin = new QSpinBox(inner);
        spin->setRange(0, static_cast<int>(spec::DsortSpec::kMaxConcurrency));
        spin->setSpecialValueText(tr("default (%1)").arg(spec::DsortSpec::kDefaultConcurrency));
        addRow(label, pointer, spin);
        connect(spin, &QSpinBox::valueChanged, this, [this, p = pointer](int v) {
            if (!updatingForm()) m_composer->setField(p, v == 0 ? nlohmann::json(nullptr) : nlohmann::json(v));
        });
    }
    for (const auto& [label, pointer] : {std::pair{tr("Duplicated records"), QStringLiteral("/duplicated_records")},
                                         std::pair{tr("Missing shards"), QStringLiteral("/missing_shards")}}) {
        auto* policy = new QComboBox(inner);
        policy->addItems({QStringLiteral("ignore"), QStringLiteral("warn"), QStringLiteral("abort")});
        policy->setPlaceholderText(QStringLiteral("ignore"));
        addRow(label, pointer, policy);
        connectCombo(policy, pointer);
    }
    auto* description = new QLineEdit(inner);
    addRow(tr("Description"), QStringLiteral("/description"), description);
    connectLineEdit(description, QStringLiteral("/description"));
}

void DsortPage::documentChanged()
{
    // A spec that lists its inputs by name has no template to edit.
    if (auto* t = qobject_cast<QLineEdit*>(fieldEditor(QStringLiteral("/input_format/template")))) {
        const bool names = !m_composer->field(QStringLiteral("/input_format/objnames")).is_null();
        t->setEnabled(!names);
        t->setPlaceholderText(names ? tr("the inputs are listed by name in the spec")
                                    : QStringLiteral("shard-{000000..000099}"));
    }
    // The algorithm's own fields; a field the spec sets stays visible (the checker may name it).
    const QString kind = shown(m_composer->field(QStringLiteral("/algorithm/kind")));
    const QString k = kind.isEmpty() ? QStringLiteral("alphanumeric") : kind;
    auto has = [this](const char* pointer) { return !m_composer->field(QString::fromLatin1(pointer)).is_null(); };
    setRowVisible("/algorithm/decreasing",
                  k == QLatin1String("alphanumeric") || k == QLatin1String("content") || has("/algorithm/decreasing"));
    setRowVisible("/algorithm/seed", k == QLatin1String("shuffle") || has("/algorithm/seed"));
    setRowVisible("/algorithm/extension", k == QLatin1String("content") || has("/algorithm/extension"));
    setRowVisible("/algorithm/content_key_type", k == QLatin1String("content") || has("/algorithm/content_key_type"));

    // The input names: their expansion now, their presence after a pause.
    const QString bucket = shown(m_composer->field(QStringLiteral("/input_bck")));
    qint64 total = 0;
    QString error;
    const QStringList names = inputNames(kMaxPresenceNames, &total, &error);
    const QString key = bucket + QLatin1Char('\n') + error + QLatin1Char('\n') + names.join(QLatin1Char('\n'));
    if (key != m_presenceKey) {
        m_presenceKey = key;
        ++m_presenceGeneration;
        m_presenceCall.abort();
        m_expansion->setText(inputSummary());
        if (error.isEmpty() && total > 0 && !bucket.isEmpty()) m_presenceTimer->start();
    }
}

void DsortPage::refresh()
{
    SpecComposerPage::refresh();
    m_presenceKey.clear();
    documentChanged();
}

QStringList DsortPage::inputNames(int max, qint64* total, QString* error) const
{
    *total = 0;
    error->clear();
    // Only the fields the names depend on: the rest may still be wrong.
    const nlohmann::json& doc = m_composer->document();
    nlohmann::json j{{"input_bck", "input"}, {"output_shard_size", 1}};
    for (const char* key : {"input_format", "input_extension"}) {
        if (doc.is_object() && doc.contains(key)) j[key] = doc[key];
    }
    if (!j.contains("input_format")) {
        *error = tr("no input template");
        return {};
    }
    auto s = spec::parseDsortSpec(j);
    if (!s) {
        QString m = QString::fromStdString(s.error().message);
        if (const int colon = m.indexOf(QStringLiteral(": /")); colon >= 0) m = m.mid(colon + 2);
        *error = m;
        return {};
    }
    auto names = s->inputNames();
    if (!names) {
        *error = QString::fromStdString(names.error().message);
        return {};
    }
    *total = static_cast<qint64>(names->size());
    QStringList out;
    for (std::size_t i = 0; i < names->size() && out.size() < max; ++i) out << QString::fromStdString((*names)[i]);
    if (names->size() > static_cast<std::size_t>(max) && max > 0) out.back() = QString::fromStdString(names->back());
    return out;
}

QString DsortPage::inputSummary() const
{
    qint64 total = 0;
    QString error;
    const QStringList names = inputNames(2, &total, &error);
    if (!error.isEmpty()) return error;
    if (total == 0) return tr("no input shards");
    if (total == 1) return tr("1 shard: %1").arg(names.front());
    if (total == 2) return tr("2 shards: %1, %2").arg(names.front(), names.back());
    return tr("%L1 shards: %2 … %3").arg(total).arg(names.front(), names.back());
}

void DsortPage::checkPresence()
{
    const QString bucket = shown(m_composer->field(QStringLiteral("/input_bck")));
    qint64 total = 0;
    QString error;
    const QStringList names = inputNames(kMaxPresenceNames, &total, &error);
    if (bucket.isEmpty() || !error.isEmpty() || names.isEmpty()) return;
    m_expansion->setText(inputSummary() + tr(" — checking…"));
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
        const QString summary = inputSummary();
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
            const QStringList first = missing.mid(0, kMaxListedNames);
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
    preview(
        [this](const QByteArray& text, bool yaml, RestClient::Callback<spec::DsortDryRun> done) {
            return m_rest->dsortDryRun(text, yaml, this, std::move(done));
        },
        m_plan, [this](const spec::DsortDryRun& answer) { showPlan(answer); });
}

void DsortPage::showPlan(const spec::DsortDryRun& answer)
{
    const auto& p = answer.plan;
    QString summary = tr("%L1 of %L2 input shards found").arg(p.found).arg(p.inputShards);
    if (p.missingCount > 0) {
        QStringList missing;
        for (const auto& m : p.missing) {
            if (missing.size() == kMaxListedNames) break;
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
    m_planSummary->setStyleSheet(p.willFail ? QStringLiteral("color: %1;").arg(errorColor().name()) : QString());
    showWarnings(p.warnings);

    m_outputModel->removeRows(0, m_outputModel->rowCount());
    for (const auto& s : p.shards) {
        m_outputModel->appendRow(
            {item(QString::fromStdString(s.name)), item(QString::fromStdString(s.target)),
             item(formatBytes(static_cast<qint64>(s.bytes)), static_cast<qulonglong>(s.bytes)),
             item(QLocale().toString(static_cast<qulonglong>(s.records)), static_cast<qulonglong>(s.records))});
    }
    m_firstModel->removeRows(0, m_firstModel->rowCount());
    for (const auto& r : p.firstRecords) {
        m_firstModel->appendRow({item(QString::fromStdString(r.key)), item(QString::fromStdString(r.shard)),
                                 item(formatBytes(static_cast<qint64>(r.size)), static_cast<qulonglong>(r.size)),
                                 item(QString::number(r.files), r.files)});
    }
}

QByteArray DsortPage::startBody(bool* yaml, QString* outputBucket) const
{
    // The previewed spec when it is the same document: its seed makes the plan shown.
    if (m_plan && planIsCurrent()) {
        *yaml = false;
        *outputBucket = QString::fromStdString(m_plan->spec.outputBck);
        return QByteArray::fromStdString(nlohmann::json(m_plan->spec).dump());
    }
    *yaml = m_composer->yaml();
    outputBucket->clear();
    if (auto s = spec::parseDsortSpec(m_composer->document())) *outputBucket = QString::fromStdString(s->outputBck);
    return m_composer->text().toUtf8();
}

void DsortPage::submit(const QByteArray& body, bool yaml, std::function<void(api::Result<QString>)> done)
{
    m_rest->startDsort(body, yaml, this, std::move(done));
}

}  // namespace tessera::console
