// The job composer pages against a real local cluster, driven as a user
// drives them. dSort: typing in the form changes the spec text and editing the text
// changes the form; the input template's expansion says which shards exist;
// an invalid value marks its field and its line and blocks Start; undo;
// JSON and YAML round-trip; Preview's plan (output shard names, owners,
// record counts, first records) is what the started job then writes; the
// job runs to finished on the page and opens its output bucket; abort
// through the confirmation; saved specs and the draft survive a restart of
// the console; specs as files. ishard: the form's list field, the plan's
// shards and sample grouping, and the job writing exactly those shards.
// ETL: a bad spec's field, a real transformer (PIL resize) initialized from
// the page, a Fashion-MNIST image before and after, etl_args re-run, a shard
// member, a transformer failing with its stderr, an offline run into a new
// bucket, removal through the confirmation.
// Screenshots (light and dark) to docs/images/.
#include "console_test_util.h"
#include "core/cluster_connection.h"
#include "core/rest_client.h"
#include "core/spec_store.h"
#include "demo/fashion_mnist.h"
#include "dsort_test_util.h"
#include "local_cluster.h"
#include "models/console_session.h"
#include "models/shard_model.h"
#include "models/spec_composer.h"
#include "spec/spec_text.h"
#include "ui/buckets_page.h"
#include "ui/dsort_page.h"
#include "ui/etl_page.h"
#include "ui/ishard_page.h"
#include "ui/main_window.h"
#include "ui/preview_panel.h"
#include "ui/theme.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTimer>
#include <QUndoStack>

using namespace tessera;
using namespace tessera::console;
using nlohmann::json;
using Tester = QAbstractItemModelTester;

namespace {

constexpr int kShards = 8;
constexpr int kRecordsPerShard = 20;

json parse(const QString& text, bool yaml)
{
    auto j = spec::parseSpecText(text.toStdString(), yaml ? spec::SpecFormat::Yaml : spec::SpecFormat::Json, "test");
    if (!j) qFatal("unparsable spec text: %s", j.error().message.c_str());
    return *j;
}

}  // namespace

class TestConsoleComposers : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("tessera-test"));
        QCoreApplication::setApplicationName(QStringLiteral("test_console_composers"));
        QSettings().clear();
        tests::LocalCluster::Options o;
        o.targets = 2;
        m_cluster = std::make_unique<tests::LocalCluster>(o);
        QVERIFY2(m_cluster->start(), m_cluster->error().c_str());
        client::Client c(m_cluster->proxyUrl());
        for (const char* b : {"raw", "sorted", "big", "big-out", "loose", "loose-shards"}) QVERIFY(c.createBucket(b));
        // loose: 30 samples of an image and a class as objects; sample 7 has no class.
        for (int i = 0; i < 30; ++i) {
            const std::string key = "img/" + std::to_string(1000 + i);
            QVERIFY(c.putObject("loose", key + ".png", tests::randomBytes(700 + i * 13, 500 + i)));
            if (i != 7) QVERIFY(c.putObject("loose", key + ".cls", std::to_string(i % 10)));
        }
        // raw: 8 shards of 20 WebDataset samples (an image and a class) of varied sizes.
        std::mt19937 rng(11);
        for (int s = 0; s < kShards; ++s) {
            std::vector<tests::DsortRecordData> records;
            for (int r = 0; r < kRecordsPerShard; ++r) {
                const std::string key = "sample-" + std::to_string(s * kRecordsPerShard + r);
                const auto size = 512 + rng() % 3584;
                records.push_back({key,
                                   {{key + ".jpg", tests::randomBytes(size, s * 1000 + r)},
                                    {key + ".cls", std::to_string(rng() % 10)}}});
            }
            QVERIFY(c.putObject("raw", "in-" + std::to_string(s) + ".tar", tests::makeShard(records)));
        }
        // big: 4 shards of 16 samples of 1 MiB (random: gzip output is slow enough to abort).
        for (int s = 0; s < 4; ++s) {
            std::vector<tests::DsortRecordData> records;
            for (int r = 0; r < 16; ++r) {
                const std::string key = "b-" + std::to_string(s * 16 + r);
                records.push_back({key, {{key + ".bin", tests::randomBytes(1 << 20, 77 + s * 16 + r)}}});
            }
            QVERIFY(c.putObject("big", "big-" + std::to_string(s) + ".tar", tests::makeShard(records)));
        }
        openConsole();
    }

    void cleanupTestCase()
    {
        m_window.reset();
        m_session.reset();
    }

    void pageIsOnTheNavigationWithAShortcut()
    {
        const int index = m_window->pageIndex(QStringLiteral("dSort"));
        QVERIFY(index >= 0);
        m_window->showPage(0);
        QTest::keyClick(m_window.get(), static_cast<Qt::Key>(Qt::Key_1 + index), Qt::ControlModifier);
        QCOMPARE(m_window->currentPage(), index);
        QCOMPARE(m_window->pageWidget(index), static_cast<QWidget*>(page()));
    }

    void formAndTextStayInStep()
    {
        DsortPage* p = page();
        p->newSpec();
        auto* inputBck = qobject_cast<QComboBox*>(p->fieldEditor(QStringLiteral("/input_bck")));
        auto* tmpl = qobject_cast<QLineEdit*>(p->fieldEditor(QStringLiteral("/input_format/template")));
        auto* outputBck = qobject_cast<QComboBox*>(p->fieldEditor(QStringLiteral("/output_bck")));
        auto* size = qobject_cast<QLineEdit*>(p->fieldEditor(QStringLiteral("/output_shard_size")));
        auto* algorithm = qobject_cast<QComboBox*>(p->fieldEditor(QStringLiteral("/algorithm/kind")));
        auto* outputFormat = qobject_cast<QLineEdit*>(p->fieldEditor(QStringLiteral("/output_format")));
        QVERIFY(inputBck && tmpl && outputBck && size && algorithm && outputFormat);
        // The bucket fields offer the cluster's buckets.
        QTRY_VERIFY_WITH_TIMEOUT(inputBck->findText(QStringLiteral("raw")) >= 0, 5000);

        // Typing in the form writes the text.
        inputBck->lineEdit()->clear();
        QTest::keyClicks(inputBck->lineEdit(), QStringLiteral("raw"));
        QTest::keyClicks(tmpl, QStringLiteral("in-{0..7}"));
        outputBck->lineEdit()->clear();
        QTest::keyClicks(outputBck->lineEdit(), QStringLiteral("sorted"));
        QTest::keyClicks(size, QStringLiteral("8KiB"));
        json doc = parse(p->textEdit()->toPlainText(), false);
        QVERIFY2(doc == (json{{"input_bck", "raw"},
                              {"input_format", {{"template", "in-{0..7}"}}},
                              {"output_bck", "sorted"},
                              {"output_shard_size", "8KiB"}}),
                 doc.dump().c_str());
        QVERIFY(p->composer()->isValid());
        QVERIFY(p->startButton()->isEnabled());
        // The template's expansion, then which of the shards exist.
        QVERIFY2(p->inputExpansion()->text().startsWith(QStringLiteral("8 shards: in-0.tar … in-7.tar")),
                 qPrintable(p->inputExpansion()->text()));
        QTRY_VERIFY_WITH_TIMEOUT(p->inputExpansion()->text().endsWith(QStringLiteral("— all present")), 5000);
        tmpl->clear();
        QTest::keyClicks(tmpl, QStringLiteral("in-{0..9}"));
        QTRY_VERIFY_WITH_TIMEOUT(
            p->inputExpansion()->text().endsWith(QStringLiteral("— 2 missing: in-8.tar, in-9.tar")), 5000);
        QTest::keyClick(tmpl, Qt::Key_Backspace);
        QTest::keyClick(tmpl, Qt::Key_Backspace);
        QTest::keyClicks(tmpl, QStringLiteral("7}"));
        QVERIFY(p->composer()->field(QStringLiteral("/input_format/template")) == json("in-{0..7}"));

        // The algorithm shows its own fields.
        auto* seed = p->fieldEditor(QStringLiteral("/algorithm/seed"));
        QVERIFY(!seed->isVisibleTo(p));
        algorithm->setCurrentText(QStringLiteral("shuffle"));
        QVERIFY(seed->isVisibleTo(p));
        QVERIFY(!p->fieldEditor(QStringLiteral("/algorithm/extension"))->isVisibleTo(p));
        QVERIFY(p->composer()->field(QStringLiteral("/algorithm/kind")) == json("shuffle"));

        // Editing the text changes the form; the cursor stays where it was.
        doc = parse(p->textEdit()->toPlainText(), false);
        doc["output_format"] = "out-{000..999}";
        p->textEdit()->setPlainText(QString::fromStdString(doc.dump(2)));
        QCOMPARE(outputFormat->text(), QStringLiteral("out-{000..999}"));
        QTextCursor cursor = p->textEdit()->textCursor();
        cursor.setPosition(12);
        p->textEdit()->setTextCursor(cursor);
        QTest::keyClicks(p->fieldEditor(QStringLiteral("/description")), QStringLiteral("x"));
        QVERIFY(p->composer()->field(QStringLiteral("/description")) == json("x"));
        QVERIFY(p->textEdit()->toPlainText().contains(QStringLiteral("\"description\": \"x\"")));
        QCOMPARE(p->textEdit()->textCursor().position(), 12);
        QTest::keyClick(p->fieldEditor(QStringLiteral("/description")), Qt::Key_Backspace);
        QVERIFY(p->composer()->field(QStringLiteral("/description")).is_null());

        // An invalid value: marked on its field and at its line; Start is blocked.
        size->clear();
        QTest::keyClicks(size, QStringLiteral("lots"));
        QLabel* sizeError = p->fieldErrorLabel(QStringLiteral("/output_shard_size"));
        QVERIFY(sizeError->isVisibleTo(p));
        QVERIFY2(!sizeError->text().isEmpty(), "no message on the field");
        QVERIFY(!p->startButton()->isEnabled());
        QVERIFY(!p->previewButton()->isEnabled());
        const int line = p->composer()->lineOf(QStringLiteral("/output_shard_size"));
        QVERIFY(line > 0);
        QVERIFY(p->textEdit()->document()->findBlockByNumber(line - 1).text().contains(QStringLiteral("lots")));
        QCOMPARE(p->textEdit()->extraSelections().size(), 1);
        QCOMPARE(p->textEdit()->extraSelections().front().cursor.blockNumber(), line - 1);
        auto* textError = p->findChild<QLabel*>(QStringLiteral("specTextError"));
        QVERIFY(textError->text().startsWith(QStringLiteral("line %1: /output_shard_size: ").arg(line)));
        QVERIFY(textError->text().contains(sizeError->text()));
        // Undo (the form's edits of one field are one step) brings back the good value.
        p->composer()->undoStack()->undo();
        QCOMPARE(size->text(), QStringLiteral("8KiB"));
        QVERIFY(!sizeError->isVisibleTo(p));
        QVERIFY(p->startButton()->isEnabled());
        p->composer()->undoStack()->redo();
        QCOMPARE(size->text(), QStringLiteral("lots"));
        p->composer()->undoStack()->undo();

        // A syntax error in the text: the line, the form keeps the last good document.
        const QString good = p->textEdit()->toPlainText();
        p->textEdit()->setPlainText(QStringLiteral("{\"input_bck\": \"raw\",\n  \"output_bck\" \"x\"}"));
        QVERIFY(!p->composer()->parseError().isEmpty());
        QCOMPARE(p->composer()->parseErrorLine(), 2);
        QVERIFY(textError->text().contains(QStringLiteral("line 2")));
        QVERIFY(!p->startButton()->isEnabled());
        QCOMPARE(outputBck->currentText(), QStringLiteral("sorted"));
        p->textEdit()->setPlainText(good);
        QVERIFY(p->composer()->isValid());

        // JSON <-> YAML: the same document.
        const json before = p->composer()->document();
        p->formatBox()->setCurrentIndex(1);
        QVERIFY(p->textEdit()->toPlainText().contains(QStringLiteral("input_bck: raw")));
        QVERIFY(parse(p->textEdit()->toPlainText(), true) == before);
        // YAML typed by hand is read as YAML.
        QString yaml = p->textEdit()->toPlainText();
        yaml.replace(QStringLiteral("output_bck: sorted"),
                     QStringLiteral("output_bck: sorted\ndescription: typed in YAML"));
        p->textEdit()->setPlainText(yaml);
        QVERIFY(p->composer()->field(QStringLiteral("/description")) == json("typed in YAML"));
        QCOMPARE(qobject_cast<QLineEdit*>(p->fieldEditor(QStringLiteral("/description")))->text(),
                 QStringLiteral("typed in YAML"));
        p->formatBox()->setCurrentIndex(0);
        json after = parse(p->textEdit()->toPlainText(), false);
        after.erase("description");
        QVERIFY(after == before);
    }

    void previewIsWhatTheJobWrites()
    {
        DsortPage* p = page();
        // A shuffle without a seed: the plan picks one, Start uses it.
        p->composer()->load(QStringLiteral("input_bck: raw\ninput_format:\n  template: in-{0..7}\noutput_bck: sorted\n"
                                           "output_format: out-{000..999}\noutput_shard_size: 16KiB\n"
                                           "algorithm:\n  kind: shuffle\n"),
                            true);
        QVERIFY(p->composer()->isValid());
        QStandardItemModel* shards = p->shardsModel();
        Tester t1(shards, Tester::FailureReportingMode::QtTest);
        Tester t2(p->recordsModel(), Tester::FailureReportingMode::QtTest);
        Tester t3(p->targetsModel(), Tester::FailureReportingMode::QtTest);
        QTest::mouseClick(p->previewButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(p->lastPlan().has_value(), 10000);
        const spec::DsortDryRun plan = *p->lastPlan();
        QCOMPARE(plan.plan.records, std::uint64_t{kShards * kRecordsPerShard});
        QCOMPARE(plan.plan.found, std::uint64_t{kShards});
        QVERIFY(plan.spec.algorithm.seed.has_value());
        QVERIFY(plan.plan.outputShards > 3);
        QCOMPARE(shards->rowCount(), static_cast<int>(plan.plan.outputShards));
        QCOMPARE(p->recordsModel()->rowCount(), static_cast<int>(plan.plan.firstRecords.size()));
        QVERIFY2(p->planSummary()->text().startsWith(QStringLiteral("8 of 8 input shards found · 160 records")),
                 qPrintable(p->planSummary()->text()));
        p->tabs()->setCurrentIndex(0);
        QTRY_VERIFY_WITH_TIMEOUT(p->inputExpansion()->text().endsWith(QStringLiteral("— all present")), 5000);
        test::saveScreenshot(m_window.get(), QStringLiteral("console-dsort"));

        // Start: the job runs to its end on the page.
        QTest::mouseClick(p->startButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!p->jobId().isEmpty(), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(p->lastStatus() && api::isFinal(p->lastStatus()->state), 60000);
        QCOMPARE(p->lastStatus()->state, api::JobState::Finished);
        QCOMPARE(p->tabs()->currentIndex(), 1);
        QCOMPARE(p->targetsModel()->rowCount(), 2);  // one row per target
        QVERIFY(p->openOutputButton()->isEnabled());

        // The plan's table is what the job wrote: names, record counts, order.
        client::Client c(m_cluster->proxyUrl());
        const auto written = tests::readOutputs(c, "sorted", "out-", archive::ArchiveFormat::Tar);
        QCOMPARE(static_cast<int>(written.size()), shards->rowCount());
        for (int r = 0; r < shards->rowCount(); ++r) {
            QCOMPARE(shards->item(r, 0)->text().toStdString(), written[r].name);
            QCOMPARE(shards->item(r, 3)->data(Qt::UserRole).toULongLong(),
                     static_cast<qulonglong>(written[r].records.size()));
        }
        const auto keys = tests::keysOf(tests::allRecords(written));
        for (int r = 0; r < p->recordsModel()->rowCount(); ++r) {
            QCOMPARE(p->recordsModel()->item(r, 0)->text().toStdString(), keys[static_cast<std::size_t>(r)]);
        }
        test::saveScreenshot(m_window.get(), QStringLiteral("console-dsort-job"));

        // "Open output bucket" shows it on the Buckets page.
        QSignalSpy open(p, &DsortPage::openBucket);
        QTest::mouseClick(p->openOutputButton(), Qt::LeftButton);
        QCOMPARE(open.count(), 1);
        QCOMPARE(open.front().front().toString(), QStringLiteral("sorted"));
        QCOMPARE(m_window->currentPage(), m_window->pageIndex(QStringLiteral("Buckets")));
        m_window->showPage(m_window->pageIndex(QStringLiteral("dSort")));
    }

    void previewShowsWarningsAndDarkTheme()
    {
        DsortPage* p = page();
        p->composer()->load(QStringLiteral("{\"input_bck\": \"raw\", \"input_format\": {\"template\": \"in-{0..9}\"},"
                                           " \"output_bck\": \"sorted\", \"output_format\": \"w-{00..99}\","
                                           " \"output_shard_size\": \"2KiB\", \"missing_shards\": \"abort\"}"),
                            false);
        QTest::mouseClick(p->previewButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(p->lastPlan() && p->lastPlan()->plan.inputShards == 10, 10000);
        QVERIFY(p->lastPlan()->plan.willFail);
        QVERIFY(p->warningsList()->count() >= 2);  // missing shards, records larger than the shard size
        QVERIFY(p->planSummary()->text().startsWith(QStringLiteral("The job would fail.")));
        QVERIFY(p->planSummary()->text().contains(QStringLiteral("missing: in-8.tar, in-9.tar")));
        Theme theme(qApp);
        theme.apply(ThemeChoice::Dark);
        test::saveScreenshot(m_window.get(), QStringLiteral("console-dsort-dark"));
        theme.apply(ThemeChoice::System);
    }

    void abortThroughTheConfirmation()
    {
        DsortPage* p = page();
        p->composer()->load(
            QStringLiteral("{\"input_bck\": \"big\", \"input_format\": {\"template\": \"big-{0..3}\"},"
                           " \"output_bck\": \"big-out\", \"output_extension\": \".tgz\","
                           " \"output_shard_size\": \"2 records\", \"create_concurrency_max_limit\": 1}"),
            false);
        QVERIFY(p->composer()->isValid());
        QTest::mouseClick(p->startButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(p->lastStatus().has_value(), 10000);
        QVERIFY2(!api::isFinal(p->lastStatus()->state), "the job ended before it could be aborted");
        QVERIFY(p->abortButton()->isEnabled());
        QString question;
        test::answerConfirmation(QStringLiteral("abortJobConfirmation"), QMessageBox::No, &question);
        p->abortJob();
        QVERIFY(question.contains(p->jobId()));
        QVERIFY(!p->lastStatus()->abortRequested);
        test::answerConfirmation(QStringLiteral("abortJobConfirmation"), QMessageBox::Yes, &question);
        p->abortJob();
        QTRY_VERIFY_WITH_TIMEOUT(p->lastStatus() && api::isFinal(p->lastStatus()->state), 30000);
        QCOMPARE(p->lastStatus()->state, api::JobState::Aborted);
        QVERIFY(!p->abortButton()->isEnabled());
        QVERIFY(!p->openOutputButton()->isEnabled());
        // What it wrote is gone.
        client::Client c(m_cluster->proxyUrl());
        QTRY_VERIFY_WITH_TIMEOUT(c.listAll("big-out", "") && c.listAll("big-out", "")->empty(), 10000);
    }

    void specsSurviveARestart()
    {
        DsortPage* p = page();
        p->composer()->load(QStringLiteral("input_bck: raw\ninput_format:\n  template: in-{0..3}\n"
                                           "output_shard_size: 1000 records\n"),
                            true);
        QVERIFY(p->saveAs(QStringLiteral("first half")));
        QVERIFY(!p->saveAs(QStringLiteral("   ")));  // a name is required
        QVERIFY(p->messageLabel()->isVisibleTo(p));
        QCOMPARE(p->savedSpecs()->currentText(), QStringLiteral("first half"));
        // Keep editing: the draft is what was left on the page.
        auto* tmpl = qobject_cast<QLineEdit*>(p->fieldEditor(QStringLiteral("/input_format/template")));
        tmpl->clear();
        QTest::keyClicks(tmpl, QStringLiteral("in-{4..7}"));
        const QString draft = p->textEdit()->toPlainText();
        QVERIFY(draft.contains(QStringLiteral("in-{4..7}")));

        // As files: the extension picks the format.
        const QString yamlPath = m_dir.filePath(QStringLiteral("spec.yaml"));
        const QString jsonPath = m_dir.filePath(QStringLiteral("spec.json"));
        QVERIFY(p->saveFile(yamlPath));
        QVERIFY(p->saveFile(jsonPath));
        QFile jf(jsonPath);
        QVERIFY(jf.open(QIODevice::ReadOnly));
        QVERIFY(json::parse(jf.readAll().toStdString()) == p->composer()->document());
        QFile yf(yamlPath);
        QVERIFY(yf.open(QIODevice::ReadOnly));
        QVERIFY(parse(QString::fromUtf8(yf.readAll()), true) == p->composer()->document());
        QVERIFY(p->openFile(jsonPath));
        QVERIFY(!p->composer()->yaml());
        QVERIFY(!p->openFile(m_dir.filePath(QStringLiteral("no-such.json"))));
        QVERIFY(p->openFile(yamlPath));
        QVERIFY(p->composer()->yaml());
        QCOMPARE(p->textEdit()->toPlainText(), draft);

        // Restart the console: the draft is back, and the saved spec opens.
        m_window.reset();
        m_session.reset();
        openConsole();
        p = page();
        QCOMPARE(p->textEdit()->toPlainText(), draft);
        QVERIFY(p->composer()->yaml());
        QCOMPARE(qobject_cast<QLineEdit*>(p->fieldEditor(QStringLiteral("/input_format/template")))->text(),
                 QStringLiteral("in-{4..7}"));
        QVERIFY(p->savedSpecs()->findText(QStringLiteral("first half")) >= 0);
        QVERIFY(p->openSaved(QStringLiteral("first half")));
        QVERIFY(p->composer()->field(QStringLiteral("/input_format/template")) == json("in-{0..3}"));
        QVERIFY(p->removeSaved(QStringLiteral("first half")));
        QCOMPARE(p->savedSpecs()->findText(QStringLiteral("first half")), -1);
    }

    void ishardPlanIsWhatTheJobBuilds()
    {
        m_window->showPage(m_window->pageIndex(QStringLiteral("ishard")));
        IshardPage* p = m_window->ishardPage();
        QVERIFY(p);
        p->refresh();
        p->newSpec();
        auto* src = qobject_cast<QComboBox*>(p->fieldEditor(QStringLiteral("/src_bck")));
        auto* dst = qobject_cast<QComboBox*>(p->fieldEditor(QStringLiteral("/dst_bck")));
        auto* count = qobject_cast<QLineEdit*>(p->fieldEditor(QStringLiteral("/sample_count")));
        auto* exts = qobject_cast<QLineEdit*>(p->fieldEditor(QStringLiteral("/sample_exts")));
        auto* missing = qobject_cast<QComboBox*>(p->fieldEditor(QStringLiteral("/missing_extension_action")));
        QVERIFY(src && dst && count && exts && missing);
        QTRY_VERIFY_WITH_TIMEOUT(src->findText(QStringLiteral("loose")) >= 0, 5000);
        src->lineEdit()->clear();
        QTest::keyClicks(src->lineEdit(), QStringLiteral("loose"));
        dst->lineEdit()->clear();
        QTest::keyClicks(dst->lineEdit(), QStringLiteral("loose-shards"));
        QTest::keyClicks(count, QStringLiteral("7"));
        exts->setFocus();
        QTest::keyClicks(exts, QStringLiteral(".png, .cls"));
        missing->setCurrentText(QStringLiteral("warn"));
        const json doc = parse(p->textEdit()->toPlainText(), false);
        QVERIFY2(doc == (json{{"src_bck", "loose"},
                              {"dst_bck", "loose-shards"},
                              {"sample_count", 7},
                              {"sample_exts", {".png", ".cls"}},
                              {"missing_extension_action", "warn"}}),
                 doc.dump().c_str());
        // The text's list shows in the form field.
        json edited = doc;
        edited["sample_exts"] = {".png"};
        p->setFocus();
        p->textEdit()->setPlainText(QString::fromStdString(edited.dump(2)));
        QCOMPARE(exts->text(), QStringLiteral(".png"));
        p->textEdit()->setPlainText(QString::fromStdString(doc.dump(2)));
        QCOMPARE(exts->text(), QStringLiteral(".png, .cls"));
        // A bad value is marked on its field.
        count->clear();
        QTest::keyClicks(count, QStringLiteral("-3"));
        QVERIFY(p->fieldErrorLabel(QStringLiteral("/sample_count"))->isVisibleTo(p));
        QVERIFY(!p->startButton()->isEnabled());
        p->composer()->undoStack()->undo();
        QVERIFY(p->composer()->field(QStringLiteral("/sample_count")) == json(7));
        QVERIFY(p->composer()->isValid());

        Tester t1(p->shardsModel(), Tester::FailureReportingMode::QtTest);
        Tester t2(p->samplesModel(), Tester::FailureReportingMode::QtTest);
        QTest::mouseClick(p->previewButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(p->lastPlan().has_value(), 10000);
        const auto plan = p->lastPlan()->plan;
        QCOMPARE(plan.samples, std::uint64_t{30});
        QCOMPARE(plan.shards.size(), std::size_t{5});  // 7 + 7 + 7 + 7 + 2
        QCOMPARE(p->shardsModel()->rowCount(), 5);
        QCOMPARE(plan.warningCount, std::uint64_t{1});
        QCOMPARE(p->warningsList()->count(), 1);
        QVERIFY(p->warningsList()->item(0)->text().contains(QStringLiteral("img/1007")));
        // The sample grouping: an image and its class in one sample, in order.
        QCOMPARE(p->samplesModel()->item(0, 0)->text(), QStringLiteral("img/1000"));
        QCOMPARE(p->samplesModel()->item(0, 2)->text(), QStringLiteral("img/1000.cls, img/1000.png"));
        QCOMPARE(p->samplesModel()->item(0, 1)->text(), QStringLiteral("shard-000000.tar"));
        QCOMPARE(p->samplesModel()->item(7, 2)->text(), QStringLiteral("img/1007.png"));
        QCOMPARE(p->samplesModel()->item(7, 1)->text(), QStringLiteral("shard-000001.tar"));
        test::saveScreenshot(m_window.get(), QStringLiteral("console-ishard"));
        {
            Theme theme(qApp);
            theme.apply(ThemeChoice::Dark);
            test::saveScreenshot(m_window.get(), QStringLiteral("console-ishard-dark"));
            theme.apply(ThemeChoice::System);
        }

        QTest::mouseClick(p->startButton(), Qt::LeftButton);
        QVERIFY2(QTest::qWaitFor([&] { return p->lastStatus() && api::isFinal(p->lastStatus()->state); }, 60000),
                 qPrintable(p->jobState()->text() + QLatin1Char(' ') + p->messageLabel()->text()));
        QCOMPARE(p->lastStatus()->state, api::JobState::Finished);
        QVERIFY(p->openOutputButton()->isEnabled());
        client::Client c(m_cluster->proxyUrl());
        auto list = c.listAll("loose-shards", "");
        QVERIFY(list);
        QCOMPARE(static_cast<int>(list->size()), p->shardsModel()->rowCount());
        for (int r = 0; r < p->shardsModel()->rowCount(); ++r) {
            QCOMPARE((*list)[static_cast<std::size_t>(r)].name, p->shardsModel()->item(r, 0)->text().toStdString());
            auto bytes = c.getObject("loose-shards", (*list)[static_cast<std::size_t>(r)].name);
            QVERIFY(bytes);
            const auto members = tests::readShard(*bytes, archive::ArchiveFormat::Tar);
            QCOMPARE(static_cast<qulonglong>(members.size()),
                     p->shardsModel()->item(r, 2)->data(Qt::UserRole).toULongLong());
        }
    }

    void etlBeforeAndAfterOnFashionMnist()
    {
        std::vector<std::pair<std::string, std::string>> members;
        auto converted = cli::demo::convertFashionMnist(
            cli::demo::kFashionMnistDir, 6, [&](const std::string& name, const std::string& bytes) -> api::Status {
                members.push_back({name, bytes});
                return {};
            });
        // installers/deps.sh installs Debian's dataset-fashion-mnist: its absence is a failure, not a skip.
        QVERIFY2(converted.ok(), converted.ok() ? "" : ("Fashion-MNIST: " + converted.error().message).c_str());
        client::Client c(m_cluster->proxyUrl());
        for (const char* b : {"fmnist", "fmnist-small"}) QVERIFY(c.createBucket(b));
        std::string firstPng, firstCls;
        for (const auto& [name, bytes] : members) {
            const bool png = name.size() > 4 && name.compare(name.size() - 4, 4, ".png") == 0;
            if (png && firstPng.empty()) firstPng = name;
            if (!png && firstCls.empty() && name.find(".cls") != std::string::npos) firstCls = name;
            QVERIFY(c.putObject("fmnist", (png ? "img/" : "meta/") + name, bytes));
        }
        QVERIFY(c.putObject("fmnist", "fm-shard.tar", tests::makeShard(tests::toRecords(members))));

        m_window->showPage(m_window->pageIndex(QStringLiteral("ETL")));
        EtlPage* p = m_window->etlPage();
        QVERIFY(p);
        Tester tester(p->transformersModel(), Tester::FailureReportingMode::QtTest);
        p->refresh();
        // A spec without a command: the proxy's 400 names the field.
        p->specEdit()->setPlainText(QStringLiteral("{\"name\": \"thumbs\", \"communication\": \"io://\"}"));
        QTest::mouseClick(p->initButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(p->specMessage()->text().startsWith(QStringLiteral("Init failed")), 10000);
        QVERIFY2(p->specMessage()->text().contains(QStringLiteral("/command")), qPrintable(p->specMessage()->text()));
        // The real thing, in YAML: PIL's resize to 32x32 JPEG.
        p->specFormat()->setCurrentIndex(1);
        p->specEdit()->setPlainText(
            QStringLiteral("name: thumbs\ncommunication: io://\ncommand: [resize_image.py, \"32\"]\n"));
        QTest::mouseClick(p->initButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(p->etlBox()->findText(QStringLiteral("thumbs")) >= 0, 30000);
        QCOMPARE(p->etlBox()->currentText(), QStringLiteral("thumbs"));
        QCOMPARE(p->transformersModel()->item(0, 0)->text(), QStringLiteral("thumbs"));

        // Before and after on one sample.
        p->bucketBox()->setEditText(QStringLiteral("fmnist"));
        p->objectEdit()->setText(QString::fromStdString("img/" + firstPng));
        QTest::mouseClick(p->transformButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(p->transformsDone() == 1 && p->before()->kind() != Preview::Kind::Empty, 15000);
        QCOMPARE(p->before()->kind(), Preview::Kind::Image);
        QVERIFY2(p->before()->summary()->text().contains(QStringLiteral("image 28×28")),
                 qPrintable(p->before()->summary()->text()));
        QCOMPARE(p->after()->kind(), Preview::Kind::Image);
        QVERIFY2(p->after()->summary()->text().contains(QStringLiteral("image 32×32")),
                 qPrintable(p->after()->summary()->text()));
        QVERIFY(p->after()->summary()->text().contains(QStringLiteral("thumbs in %1 ms").arg(p->lastTransformMs())));
        test::saveScreenshot(m_window.get(), QStringLiteral("console-etl"));
        // etl_args: typed, the transform runs again by itself.
        QTest::keyClicks(p->argsEdit(), QStringLiteral("16x16"));
        QTRY_VERIFY_WITH_TIMEOUT(p->transformsDone() == 2, 15000);
        QVERIFY2(p->after()->summary()->text().contains(QStringLiteral("image 16×16")),
                 qPrintable(p->after()->summary()->text()));
        p->argsEdit()->clear();
        // A member of a shard.
        p->objectEdit()->setText(QStringLiteral("fm-shard.tar"));
        p->memberEdit()->setText(QString::fromStdString(firstPng));
        QTest::mouseClick(p->transformButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(p->transformsDone() == 3, 15000);
        QCOMPARE(p->before()->kind(), Preview::Kind::Image);
        QVERIFY(p->after()->summary()->text().contains(QStringLiteral("image 32×32")));
        // Not an image: the transformer fails, and the page says why with its stderr.
        p->objectEdit()->setText(QString::fromStdString("meta/" + firstCls));
        p->memberEdit()->clear();
        QTest::mouseClick(p->transformButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(p->transformsDone() == 4, 15000);
        QCOMPARE(p->after()->kind(), Preview::Kind::Error);
        QVERIFY2(p->after()->text().contains(QStringLiteral("thumbs")), qPrintable(p->after()->text()));
        Theme theme(qApp);
        theme.apply(ThemeChoice::Dark);
        test::saveScreenshot(m_window.get(), QStringLiteral("console-etl-dark"));
        theme.apply(ThemeChoice::System);

        // From the Buckets page's shard preview: a sample sent to the page.
        PreviewPanel* panel = m_window->bucketsPage()->previewPanel();
        panel->showObject(QStringLiteral("fmnist"), QStringLiteral("fm-shard.tar"));
        QTRY_VERIFY_WITH_TIMEOUT(panel->shardModel()->rowCount() == 6, 10000);
        panel->shardView()->selectRow(2);
        const int done = p->transformsDone();
        panel->transformSelected();
        QCOMPARE(m_window->currentPage(), m_window->pageIndex(QStringLiteral("ETL")));
        QCOMPARE(p->objectEdit()->text(), QStringLiteral("fm-shard.tar"));
        QVERIFY2(p->memberEdit()->text().endsWith(QStringLiteral(".png")), qPrintable(p->memberEdit()->text()));
        QTRY_VERIFY_WITH_TIMEOUT(p->transformsDone() == done + 1, 15000);
        QVERIFY(p->after()->summary()->text().contains(QStringLiteral("image 32×32")));

        // Run on bucket: every image under img/ into fmnist-small as .jpg.
        p->refresh();
        p->destinationBox()->setEditText(QStringLiteral("fmnist-small"));
        p->prefixEdit()->setText(QStringLiteral("img/"));
        p->extEdit()->setText(QStringLiteral("png:jpg"));
        // A dry run first, of three names by template: transformed and counted, nothing written.
        p->dryRunBox()->setChecked(true);
        p->prefixEdit()->setText(QString::fromStdString("img/" + firstPng.substr(0, firstPng.size() - 10)) +
                                 QStringLiteral("{000000..000002}.png"));
        QTest::mouseClick(p->runButton(), Qt::LeftButton);
        QVERIFY2(QTest::qWaitFor([&] { return p->lastStatus() && api::isFinal(p->lastStatus()->state); }, 60000),
                 qPrintable(p->jobState()->text()));
        QCOMPARE(p->lastStatus()->state, api::JobState::Finished);
        QCOMPARE(p->lastStatus()->progress.objectsDone, std::uint64_t{3});
        QVERIFY(!p->openOutputButton()->isEnabled());
        QVERIFY(c.listAll("fmnist-small", "") && c.listAll("fmnist-small", "")->empty());
        p->dryRunBox()->setChecked(false);
        p->prefixEdit()->setText(QStringLiteral("img/"));
        QTest::mouseClick(p->runButton(), Qt::LeftButton);
        QVERIFY2(QTest::qWaitFor([&] { return p->lastStatus() && api::isFinal(p->lastStatus()->state); }, 60000),
                 qPrintable(p->jobState()->text()));
        QCOMPARE(p->lastStatus()->state, api::JobState::Finished);
        QVERIFY(p->openOutputButton()->isEnabled());
        auto out = c.listAll("fmnist-small", "img/");
        QVERIFY(out);
        QCOMPARE(static_cast<int>(out->size()), 6);
        for (const auto& e : *out)
            QVERIFY2(e.name.size() > 4 && e.name.substr(e.name.size() - 4) == ".jpg", e.name.c_str());

        // Remove, after the confirmation.
        p->refresh();
        QTRY_VERIFY_WITH_TIMEOUT(p->transformersModel()->rowCount() == 1, 5000);
        auto* table = p->findChild<QTableView*>(QStringLiteral("etlTable"));
        table->setCurrentIndex(p->transformersModel()->index(0, 0));
        QString question;
        test::answerConfirmation(QStringLiteral("removeEtlConfirmation"), QMessageBox::Yes, &question);
        p->removeSelected();
        QVERIFY(question.contains(QStringLiteral("thumbs")));
        QTRY_VERIFY_WITH_TIMEOUT(p->transformersModel()->rowCount() == 0, 10000);
        QVERIFY(c.etlList() && c.etlList()->empty());
    }

private:
    void openConsole()
    {
        m_session = std::make_unique<ConsoleSession>(m_dir.filePath(QStringLiteral("console.db")));
        QVERIFY(m_session->specs() != nullptr);
        if (!m_theme) m_theme = std::make_unique<Theme>(qApp);
        m_window = std::make_unique<MainWindow>(m_session.get(), m_theme.get());
        m_window->resize(1280, 800);
        m_window->show();
        m_session->connectTo({QString(), QUrl(QString::fromStdString(m_cluster->proxyUrl())), QString()});
        QVERIFY(QTest::qWaitFor([&] { return m_session->connection()->state() == ClusterConnection::State::Connected; },
                                10000));
        m_window->showPage(m_window->pageIndex(QStringLiteral("dSort")));
        page()->refresh();
    }
    DsortPage* page() const { return m_window->dsortPage(); }

    QTemporaryDir m_dir;
    std::unique_ptr<tests::LocalCluster> m_cluster;
    std::unique_ptr<Theme> m_theme;
    std::unique_ptr<ConsoleSession> m_session;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestConsoleComposers)
#include "test_console_composers.moc"
