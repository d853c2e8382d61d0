// Data protection in the console, against a real local cluster: mirroring set
// to two copies through the bucket's properties dialog with clicks and keys,
// the cluster's properties changed and the reprotect job it starts followed to
// its end with its counter; the Protection column reading "at risk: copies
// being made", then "protected", then "at risk: target … away" once a target
// is killed (its objects still read); the cluster's refusals shown on the
// dialog's field and line; a scrub started from the Jobs page repairing a
// flipped byte, with its counters; a reprotect from the Buckets page's context
// menu. QAbstractItemModelTester on the bucket and job models throughout.
// Screenshots: console-protection (the dialog over the Buckets page, a target
// away) and console-protection-dark (the Jobs page with the counters).
#include "client/api_client.h"
#include "console_test_util.h"
#include "core/cluster_connection.h"
#include "core/rest_client.h"
#include "event_loop_wait.h"
#include "local_cluster.h"
#include "models/bucket_model.h"
#include "models/console_session.h"
#include "models/job_model.h"
#include "models/object_model.h"
#include "models/protection_state.h"
#include "ui/bucket_props_dialog.h"
#include "ui/buckets_page.h"
#include "ui/jobs_page.h"
#include "ui/main_window.h"
#include "ui/theme.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStyle>
#include <QStyleOptionButton>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <random>

using namespace tessera;
using namespace tessera::console;
using Tester = QAbstractItemModelTester;
using test::waitUntil;

namespace {

constexpr int kObjects = 20;
constexpr int kObjectSize = 4096;
const QString kMirrored = QStringLiteral("photos");

std::string nameOf(int i) { return "img-" + std::to_string(1000 + i) + ".jpg"; }

std::string objectBytes(int i)
{
    std::mt19937 rng(static_cast<std::uint32_t>(i) + 1);
    std::string s(kObjectSize, '\0');
    for (auto& c : s) c = static_cast<char>(rng());
    return s;
}

// Clicks a check box on its indicator (its centre may lie past the label).
void clickCheckBox(QCheckBox* box)
{
    QStyleOptionButton opt;
    opt.initFrom(box);
    const QRect indicator = box->style()->subElementRect(QStyle::SE_CheckBoxIndicator, &opt, box);
    QTest::mouseClick(box, Qt::LeftButton, {}, indicator.center());
}

// Replaces what the spin box shows with `text`, typed.
void typeInto(QSpinBox* box, const QString& text)
{
    box->setFocus(Qt::OtherFocusReason);
    QTest::keyClick(box, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(box, text);
}

api::Snode target(const char* id, bool away)
{
    api::Snode n;
    n.id = id;
    n.type = std::string(api::kRoleTarget);
    n.flags = away ? api::kSnodeAway : 0;
    return n;
}

}  // namespace

class TestConsoleProtection : public QObject {
    Q_OBJECT

    BucketsPage* bucketsPage() const { return m_window->findChild<BucketsPage*>(); }
    BucketModel* buckets() const { return m_session->bucketsModels().buckets; }
    QString protectionOf(const QString& bucket, int role = Qt::DisplayRole) const
    {
        const int r = buckets()->rowOf(bucket);
        return r < 0 ? QString() : buckets()->data(buckets()->index(r, BucketModel::ProtectionColumn), role).toString();
    }
    // The newest job of `kind` (rows are newest first), -1 when none.
    int newestJob(const std::string& kind) const
    {
        JobModel* jobs = m_session->jobs();
        for (int r = 0; r < jobs->rowCount(); ++r) {
            if (jobs->job(r).kind == kind) return r;
        }
        return -1;
    }
    bool newestJobEnded(const std::string& kind, const QString& after) const
    {
        const int r = newestJob(kind);
        return r >= 0 && QString::fromStdString(m_session->jobs()->job(r).id) != after &&
               api::isFinal(m_session->jobs()->job(r).state);
    }
    // Opens the properties of `bucket` as a user does: its row, then Properties….
    BucketPropsDialog* openProperties(const QString& bucket)
    {
        BucketsPage* page = bucketsPage();
        const QModelIndex cell = buckets()->index(buckets()->rowOf(bucket), BucketModel::NameColumn);
        QTest::mouseClick(page->bucketView()->viewport(), Qt::LeftButton, {},
                          page->bucketView()->visualRect(cell).center());
        if (page->currentBucket() != bucket) return nullptr;
        QTest::mouseClick(page->propertiesButton(), Qt::LeftButton);
        BucketPropsDialog* dialog = page->propsDialog();
        return dialog != nullptr && dialog->isVisible() && dialog->bucket() == bucket ? dialog : nullptr;
    }
    void closeDialog(BucketPropsDialog* dialog)
    {
        QPointer<BucketPropsDialog> guard = dialog;
        QTest::mouseClick(dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Close), Qt::LeftButton);
        QVERIFY(!dialog->isVisible());
        // Deleted on close, later: QTest's wait runs the deferred deletions.
        QVERIFY(QTest::qWaitFor([&] { return guard.isNull(); }, 5000));
    }
    // The targets holding a file of photos/`name`.
    int holders(const std::string& name) const
    {
        int n = 0;
        for (int t = 0; t < m_cluster->targetCount(); ++t) {
            for (const auto& mp : m_cluster->targetMountpaths(t)) {
                n += QFile::exists(QString::fromStdString(mp + "/buckets/" + kMirrored.toStdString() + "/" + name));
            }
        }
        return n;
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("tessera-test"));
        QCoreApplication::setApplicationName(QStringLiteral("test_console_protection"));
        QSettings().clear();
        tests::LocalCluster::Options o;
        o.targets = 3;
        o.mountpaths = 1;
        // No rebalance of its own: the only jobs are the ones the test causes.
        o.extraProxyArgs = {QStringLiteral("--stats-interval-ms"), QStringLiteral("500"),
                            QStringLiteral("--rebalance-auto"), QStringLiteral("false")};
        // The bucket list's figures from the targets' usage scans, every second.
        o.extraTargetArgs = {QStringLiteral("--usage-scan-interval-ms"), QStringLiteral("1000")};
        m_cluster = std::make_unique<tests::LocalCluster>(o);
        QVERIFY2(m_cluster->start(), m_cluster->error().c_str());
        client::Client c(m_cluster->proxyUrl());
        for (const char* b : {"photos", "scratch", "doomed"}) QVERIFY(c.createBucket(b));
        for (int i = 0; i < kObjects; ++i) QVERIFY(c.putObject("photos", nameOf(i), objectBytes(i)));
        QVERIFY(c.putObject("scratch", "notes.txt", "not mirrored"));

        m_session = std::make_unique<ConsoleSession>(m_dir.filePath(QStringLiteral("console.db")));
        m_theme = std::make_unique<Theme>(qApp);
        for (QAbstractItemModel* model : std::initializer_list<QAbstractItemModel*>{buckets(), m_session->jobs()}) {
            m_testers.push_back(std::make_unique<Tester>(model, Tester::FailureReportingMode::QtTest));
        }
        // Every state the mirrored bucket's cell goes through, in order.
        auto record = [this] {
            const QString text = protectionOf(kMirrored);
            if (!text.isEmpty() && (m_seen.isEmpty() || m_seen.last() != text)) m_seen << text;
        };
        connect(buckets(), &QAbstractItemModel::dataChanged, this, record);
        connect(buckets(), &QAbstractItemModel::modelReset, this, record);
        m_window = std::make_unique<MainWindow>(m_session.get(), m_theme.get());
        m_window->resize(1280, 800);
        m_window->show();
        m_session->connectTo({QString(), QUrl(QString::fromStdString(m_cluster->proxyUrl())), QString()});
        QVERIFY(
            waitUntil([&] { return m_session->connection()->state() == ClusterConnection::State::Connected; }, 10000));
        // The snapshot's map: the targets the dialog offers copies on.
        QVERIFY(waitUntil([&] { return buckets()->targetCount() == m_cluster->targetCount(); }, 10000));
    }

    // The words for each state, from the conf and the map alone.
    void protectionStatesSayWhatHolds()
    {
        api::Smap map;
        map.tmap["ta"] = target("ta", false);
        map.tmap["tb"] = target("tb", false);
        map.tmap["tc"] = target("tc", false);
        const api::MirrorConf off;
        const api::MirrorConf two{.enabled = true, .copies = 2, .acrossTargets = true};
        api::MirrorConf pending = two;
        pending.pending = true;
        api::MirrorConf disabled = two;
        disabled.enabled = false;

        QCOMPARE(protectionState(off, map).text(), QStringLiteral("—"));
        QCOMPARE(protectionState(off, map).level, ProtectionLevel::Unprotected);
        QCOMPARE(protectionState(disabled, map).text(), QStringLiteral("—"));
        QCOMPARE(protectionState(two, map).text(), QStringLiteral("2 copies · protected"));
        QCOMPARE(protectionState(two, map).level, ProtectionLevel::Protected);
        QCOMPARE(protectionState(pending, map).text(), QStringLiteral("2 copies · at risk: copies being made"));
        QCOMPARE(protectionState(pending, map).level, ProtectionLevel::AtRisk);

        map.tmap["tb"] = target("tb", true);
        QCOMPARE(protectionState(two, map).text(), QStringLiteral("2 copies · at risk: target tb away"));
        QCOMPARE(protectionState(pending, map).text(),
                 QStringLiteral("2 copies · at risk: target tb away; copies being made"));
        QVERIFY(!protectionState(two, map).explanation().contains(QLatin1String("are all on them")));
        QVERIFY(protectionState(off, map).explanation().contains(QLatin1String("answer 503")));
        // Copies on the disks of one target: the map's away targets do not change it.
        const api::MirrorConf disks{.enabled = true, .copies = 2, .acrossTargets = false};
        QCOMPARE(protectionState(disks, map).text(), QStringLiteral("2 copies on disks · protected"));
        QVERIFY(protectionState(disks, map).explanation().contains(QLatin1String("not while its target is away")));
        map.tmap["ta"] = target("ta", true);
        QCOMPARE(protectionState(two, map).text(), QStringLiteral("2 copies · at risk: targets ta, tb away"));
        QVERIFY2(protectionState(two, map).explanation().contains(QLatin1String("are all on them answers 503")),
                 qPrintable(protectionState(two, map).explanation()));
    }

    // Two copies set through the dialog: the cluster's props change, the
    // reprotect job it starts makes one copy of each object, the bucket is at
    // risk until it ends and protected after.
    void mirroringSetThroughTheDialog()
    {
        m_window->showPage(m_window->pageIndex(QStringLiteral("Buckets")));
        QVERIFY2(waitUntil([&] { return protectionOf(kMirrored) == QStringLiteral("—"); }, 10000),
                 qPrintable(protectionOf(kMirrored)));
        QCOMPARE(protectionOf(QStringLiteral("scratch")), QStringLiteral("—"));
        BucketPropsDialog* dialog = openProperties(kMirrored);
        QVERIFY(dialog);
        QVERIFY(!dialog->mirrorBox()->isChecked());
        QVERIFY(!dialog->copiesBox()->isEnabled());
        QVERIFY(dialog->acrossBox()->isChecked());
        QVERIFY(!dialog->acrossBox()->isEnabled());
        QVERIFY(dialog->acrossBox()->toolTip().contains(QLatin1String("a whole target can fail")));
        QCOMPARE(dialog->copiesBox()->minimum(), 2);
        QCOMPARE(dialog->copiesBox()->maximum(), m_cluster->targetCount());  // the cluster map's targets
        QVERIFY(!dialog->applyButton()->isEnabled());                        // nothing changed yet

        clickCheckBox(dialog->mirrorBox());
        QVERIFY(dialog->mirrorBox()->isChecked());
        QVERIFY(dialog->copiesBox()->isEnabled());
        typeInto(dialog->copiesBox(), QStringLiteral("3"));
        QCOMPARE(dialog->copiesBox()->value(), 3);
        typeInto(dialog->copiesBox(), QStringLiteral("2"));
        QCOMPARE(dialog->copiesBox()->value(), 2);
        QVERIFY(dialog->applyButton()->isEnabled());
        QTest::mouseClick(dialog->applyButton(), Qt::LeftButton);
        QVERIFY(dialog->isApplying());
        QVERIFY(waitUntil([&] { return !dialog->isApplying(); }, 15000));
        QVERIFY2(dialog->statusText().startsWith(QLatin1String("Saved: 2 copies across targets.")),
                 qPrintable(dialog->statusText()));
        QVERIFY(dialog->copiesError().isEmpty());
        QVERIFY(!dialog->applyButton()->isEnabled());  // the form is what the cluster has

        // On the cluster.
        client::Client c(m_cluster->proxyUrl());
        auto props = c.bucketProps(kMirrored.toStdString());
        QVERIFY2(props, props ? "" : props.error().message.c_str());
        QCOMPARE(props->mirror.enabled, true);
        QCOMPARE(props->mirror.copies, 2);
        QCOMPARE(props->mirror.acrossTargets, true);

        // The reprotect job the change started, to its end: one copy sent per object.
        JobModel* jobs = m_session->jobs();
        QVERIFY(waitUntil([&] { return newestJobEnded("reprotect", {}); }, 30000));
        const int row = newestJob("reprotect");
        const api::JobStatus& job = jobs->job(row);
        QVERIFY2(job.state == api::JobState::Finished, job.error.c_str());
        QCOMPARE(job.progress.counters.count("copies_sent"), std::size_t{1});
        QCOMPARE(job.progress.counters.at("copies_sent"), std::uint64_t{kObjects});
        QCOMPARE(jobs->data(jobs->index(row, JobModel::CountersColumn)).toString(),
                 QStringLiteral("copies sent %1").arg(kObjects));
        for (int i = 0; i < kObjects; ++i) QCOMPARE(holders(nameOf(i)), 2);

        // The column: at risk while the copies were made, protected once the cluster says so.
        QVERIFY2(waitUntil([&] { return protectionOf(kMirrored) == QStringLiteral("2 copies · protected"); }, 15000),
                 qPrintable(m_seen.join(QStringLiteral(" | "))));
        const auto atRisk = m_seen.indexOf(QStringLiteral("2 copies · at risk: copies being made"));
        QVERIFY2(atRisk >= 0 && atRisk < m_seen.lastIndexOf(QStringLiteral("2 copies · protected")),
                 qPrintable(m_seen.join(QStringLiteral(" | "))));
        QVERIFY(!c.bucketProps(kMirrored.toStdString())->mirror.pending);
        // The bucket list counts each object once, copies or not: each
        // target's usage scan counts the objects it owns (a scan every second
        // here), not the copies it keeps for the others.
        const QModelIndex figures = buckets()->index(buckets()->rowOf(kMirrored), BucketModel::ObjectsColumn);
        QVERIFY2(waitUntil(
                     [&] {
                         return figures.data(BucketModel::FromScanRole).toBool() &&
                                figures.data(BucketModel::ObjectCountRole).toLongLong() == kObjects;
                     },
                     10000),
                 qPrintable(figures.data().toString()));
        QCOMPARE(figures.data(BucketModel::BytesRole).toLongLong(), qint64{kObjects} * kObjectSize);
        // The dialog follows while open.
        auto* now = dialog->findChild<QLabel*>(QStringLiteral("protectionState"));
        QVERIFY2(waitUntil([&] { return now->text().contains(QStringLiteral(">2 copies · protected</b>")); }, 5000),
                 qPrintable(now->text()));
        closeDialog(dialog);
    }

    // The cluster's refusal of a value lands on its field; an error that names
    // no field (the bucket destroyed meanwhile) on the dialog's line.
    void refusalsShowOnTheDialog()
    {
        // A map the console has not caught up with (a target decommissioned
        // meanwhile): it lists a fourth target the cluster no longer has.
        api::Smap stale = m_session->connection()->smap();
        stale.tmap["tghost"] = target("tghost", false);
        buckets()->setSmap(stale);
        QCOMPARE(buckets()->targetCount(), 4);
        BucketPropsDialog* dialog = openProperties(kMirrored);
        QVERIFY(dialog);
        QVERIFY(dialog->mirrorBox()->isChecked());
        QCOMPARE(dialog->copiesBox()->value(), 2);
        QCOMPARE(dialog->copiesBox()->maximum(), 4);
        typeInto(dialog->copiesBox(), QStringLiteral("4"));
        QTest::mouseClick(dialog->applyButton(), Qt::LeftButton);
        QVERIFY(waitUntil([&] { return !dialog->isApplying(); }, 15000));
        QVERIFY2(dialog->copiesError().contains(QLatin1String("mirror.copies is 4 but the cluster has 3 target(s)")),
                 qPrintable(dialog->copiesError() + " / " + dialog->statusText()));
        QCOMPARE(dialog->statusText(), QStringLiteral("Not applied."));
        QVERIFY(dialog->copiesBox()->property("invalid").toBool());
        client::Client c(m_cluster->proxyUrl());
        QCOMPARE(c.bucketProps(kMirrored.toStdString())->mirror.copies, 2);  // nothing changed
        // Editing the value clears the message.
        QTest::keyClick(dialog->copiesBox(), Qt::Key_Down);
        QCOMPARE(dialog->copiesBox()->value(), 3);
        QVERIFY(dialog->copiesError().isEmpty());
        QVERIFY(!dialog->copiesBox()->property("invalid").toBool());
        closeDialog(dialog);
        buckets()->setSmap(m_session->connection()->smap());
        QCOMPARE(buckets()->targetCount(), m_cluster->targetCount());

        // A bucket destroyed while its dialog is open.
        dialog = openProperties(QStringLiteral("doomed"));
        QVERIFY(dialog);
        clickCheckBox(dialog->mirrorBox());
        QVERIFY(c.destroyBucket("doomed"));
        QTest::mouseClick(dialog->applyButton(), Qt::LeftButton);
        QVERIFY(waitUntil([&] { return !dialog->isApplying(); }, 15000));
        QCOMPARE(dialog->statusText(), QStringLiteral("Not applied: bucket \"doomed\" does not exist"));
        QVERIFY(dialog->copiesError().isEmpty());
        closeDialog(dialog);
        QVERIFY(waitUntil([&] { return buckets()->rowOf(QStringLiteral("doomed")) < 0; }, 10000));
    }

    // A scrub of the mirrored bucket started on the Jobs page finds the one
    // damaged copy and replaces it from the good one.
    void scrubStartedOnTheJobsPage()
    {
        const std::string victim = nameOf(7);
        std::string path;
        for (int t = 0; t < m_cluster->targetCount() && path.empty(); ++t) {
            for (const auto& mp : m_cluster->targetMountpaths(t)) {
                const std::string p = mp + "/buckets/photos/" + victim;
                if (QFile::exists(QString::fromStdString(p))) path = p;
            }
        }
        QVERIFY(!path.empty());
        {
            QFile f(QString::fromStdString(path));
            QVERIFY(f.open(QIODevice::ReadWrite));
            QVERIFY(f.seek(100));
            char ch = 0;
            QVERIFY(f.getChar(&ch));
            QVERIFY(f.seek(100));
            QVERIFY(f.putChar(static_cast<char>(ch ^ 0x5a)));
        }

        m_window->showPage(m_window->pageIndex(QStringLiteral("Jobs")));
        JobsPage* page = m_window->jobsPage();
        QCOMPARE(page->startKindBox()->currentData().toString(), QStringLiteral("scrub"));
        QComboBox* bucketBox = page->startBucketBox();
        QCOMPARE(bucketBox->currentData().toString(), QString());  // all buckets
        QVERIFY(bucketBox->findData(kMirrored) >= 0);
        QVERIFY(bucketBox->findData(QStringLiteral("doomed")) < 0);  // the list follows the buckets
        bucketBox->setFocus(Qt::OtherFocusReason);
        QTest::keyClicks(bucketBox, QStringLiteral("ph"));
        QCOMPARE(bucketBox->currentData().toString(), kMirrored);
        QTest::mouseClick(page->startButton(), Qt::LeftButton);
        QVERIFY(waitUntil([&] { return page->statusText().contains(QLatin1String("started")); }, 10000));
        QVERIFY2(page->statusText().endsWith(QStringLiteral("started on 3 target(s) for bucket photos.")),
                 qPrintable(page->statusText()));
        QVERIFY(page->statusText().startsWith(QLatin1String("scrub-")));

        JobModel* jobs = m_session->jobs();
        QVERIFY(waitUntil([&] { return newestJobEnded("scrub", {}); }, 30000));
        const int row = newestJob("scrub");
        const api::JobStatus& job = jobs->job(row);
        QVERIFY2(job.state == api::JobState::Finished, job.error.c_str());
        QVERIFY(page->statusText().startsWith(QString::fromStdString(job.id)));
        // Every copy read: 20 objects on 2 targets each.
        QCOMPARE(jobs->data(jobs->index(row, JobModel::CountersColumn)).toString(),
                 QStringLiteral("checked %1 · corrupt 1 · repaired 1 · unrepairable 0").arg(2 * kObjects));
        const QString perTarget = jobs->data(jobs->index(row, JobModel::CountersColumn), Qt::ToolTipRole).toString();
        for (int t = 0; t < m_cluster->targetCount(); ++t) {
            QVERIFY2(perTarget.contains(QString::fromStdString(m_cluster->targetId(t)) + ": checked "),
                     qPrintable(perTarget));
        }
        // The selected row is the new job.
        const QModelIndexList selected = page->table()->selectionModel()->selectedRows();
        QCOMPARE(selected.size(), 1);
        QCOMPARE(selected.first().data(JobModel::JobIdRole).toString(), QString::fromStdString(job.id));
        QFile repaired(QString::fromStdString(path));
        QVERIFY(repaired.open(QIODevice::ReadOnly));
        QVERIFY(repaired.readAll().toStdString() == objectBytes(7));

        // A bucket gone since the list was read: the cluster's refusal on the status line, no job.
        const int jobsBefore = jobs->rowCount();
        page->startBucketJob(QStringLiteral("scrub"), QStringLiteral("gone-bucket"));
        QVERIFY(!page->startButton()->isEnabled());  // one start at a time
        QVERIFY(waitUntil([&] { return page->statusText().contains(QLatin1String("not started")); }, 10000));
        QCOMPARE(page->statusText(),
                 QStringLiteral("scrub of gone-bucket not started: bucket \"gone-bucket\" does not exist"));
        QVERIFY(page->startButton()->isEnabled());
        QCOMPARE(jobs->rowCount(), jobsBefore);
    }

    // "Re-protect bucket" in the bucket list's context menu: on the Jobs page,
    // a reprotect that finds nothing to send.
    void reprotectFromTheBucketsMenu()
    {
        m_window->showPage(m_window->pageIndex(QStringLiteral("Buckets")));
        BucketsPage* page = bucketsPage();
        const QModelIndex cell = buckets()->index(buckets()->rowOf(kMirrored), BucketModel::NameColumn);
        emit page->bucketView()->customContextMenuRequested(page->bucketView()->visualRect(cell).center());
        QMenu* menu = nullptr;
        QVERIFY(waitUntil(
            [&] {
                for (QWidget* w : QApplication::topLevelWidgets()) {
                    if (auto* m = qobject_cast<QMenu*>(w); m && m->isVisible()) menu = m;
                }
                return menu != nullptr;
            },
            5000));
        QStringList texts;
        for (QAction* a : menu->actions()) {
            if (!a->isSeparator()) texts << a->text();
        }
        QCOMPARE(texts, QStringList({QStringLiteral("Properties…"), QStringLiteral("Scrub bucket"),
                                     QStringLiteral("Re-protect bucket"), QStringLiteral("Destroy…")}));
        QCOMPARE(page->currentBucket(), kMirrored);
        const QString before = QString::fromStdString(m_session->jobs()->job(newestJob("reprotect")).id);
        menu->findChild<QAction*>(QStringLiteral("reprotect"))->trigger();
        menu->close();

        QCOMPARE(m_window->currentPage(), m_window->pageIndex(QStringLiteral("Jobs")));
        JobsPage* jobsPage = m_window->jobsPage();
        QCOMPARE(jobsPage->startKindBox()->currentData().toString(), QStringLiteral("reprotect"));
        QCOMPARE(jobsPage->startBucketBox()->currentData().toString(), kMirrored);
        QVERIFY(waitUntil([&] { return jobsPage->statusText().contains(QLatin1String("for bucket photos")); }, 10000));
        QVERIFY2(jobsPage->statusText().startsWith(QLatin1String("reprotect-")), qPrintable(jobsPage->statusText()));
        QVERIFY(waitUntil([&] { return newestJobEnded("reprotect", before); }, 30000));
        JobModel* jobs = m_session->jobs();
        const int row = newestJob("reprotect");
        QCOMPARE(jobs->job(row).state, api::JobState::Finished);
        QCOMPARE(jobs->data(jobs->index(row, JobModel::CountersColumn)).toString(), QStringLiteral("copies sent 0"));
        QCOMPARE(protectionOf(kMirrored), QStringLiteral("2 copies · protected"));
    }

    // A target killed: the mirrored bucket is at risk, naming it, and its
    // objects still read; the bucket without copies says what it loses.
    void killedTargetPutsTheBucketAtRisk()
    {
        m_window->showPage(m_window->pageIndex(QStringLiteral("Buckets")));
        // The bucket list's figures (the targets' usage scans) before a target goes.
        const QModelIndex figures = buckets()->index(buckets()->rowOf(kMirrored), BucketModel::ObjectsColumn);
        QVERIFY2(waitUntil([&] { return figures.data(BucketModel::ObjectCountRole).toLongLong() == kObjects; }, 10000),
                 qPrintable(figures.data().toString()));
        const QString victim = QString::fromStdString(m_cluster->targetId(1));
        m_cluster->killTarget(1);
        const QString expected = QStringLiteral("2 copies · at risk: target %1 away").arg(victim);
        QVERIFY2(waitUntil([&] { return protectionOf(kMirrored) == expected; }, 20000),
                 qPrintable(protectionOf(kMirrored)));
        QCOMPARE(buckets()
                     ->data(buckets()->index(buckets()->rowOf(kMirrored), BucketModel::ProtectionColumn),
                            BucketModel::ProtectionLevelRole)
                     .toInt(),
                 static_cast<int>(ProtectionLevel::AtRisk));
        QVERIFY(protectionOf(kMirrored, Qt::ToolTipRole).contains(victim));
        QCOMPARE(protectionOf(QStringLiteral("scratch")), QStringLiteral("—"));
        QVERIFY(protectionOf(QStringLiteral("scratch"), Qt::ToolTipRole).contains(QLatin1String("answer 503")));

        // Every object is read through the console's REST client, from a copy where its owner is away.
        RestClient* rest = m_session->rest();
        int read = 0;
        for (int i = 0; i < kObjects; ++i) {
            rest->readHead(kMirrored, QString::fromStdString(nameOf(i)), kObjectSize, this,
                           [&read, i](api::Result<RangeData> data) {
                               if (data && data->bytes.toStdString() == objectBytes(i)) ++read;
                           });
        }
        QVERIFY2(waitUntil([&] { return read == kObjects; }, 20000), qPrintable(QString::number(read)));

        // What an operator sees: the list, and the bucket's properties saying why.
        BucketPropsDialog* dialog = openProperties(kMirrored);
        QVERIFY(dialog);
        QVERIFY(dialog->findChild<QLabel*>(QStringLiteral("protectionState"))->text().contains(expected));
        QVERIFY(waitUntil([&] { return bucketsPage()->objectModel()->rowCount() == kObjects; }, 10000));

        test::saveScreenshotWithDialog(m_window.get(), dialog, QStringLiteral("console-protection"));
        closeDialog(dialog);
    }

    void darkJobsPage()
    {
        m_theme->apply(ThemeChoice::Dark);
        QVERIFY(isDarkPalette(QApplication::palette()));
        m_window->showPage(m_window->pageIndex(QStringLiteral("Jobs")));
        m_window->jobsPage()->selectJob(QString::fromStdString(m_session->jobs()->job(newestJob("scrub")).id));
        QCoreApplication::processEvents();
        test::saveScreenshot(m_window.get(), QStringLiteral("console-protection-dark"));
        m_theme->apply(ThemeChoice::System);
    }

    void cleanupTestCase()
    {
        m_window.reset();
        m_testers.clear();
        m_session.reset();
        m_cluster.reset();
        QSettings().clear();
    }

private:
    QTemporaryDir m_dir;
    std::unique_ptr<tests::LocalCluster> m_cluster;
    std::unique_ptr<ConsoleSession> m_session;
    std::unique_ptr<Theme> m_theme;
    std::vector<std::unique_ptr<Tester>> m_testers;
    std::unique_ptr<MainWindow> m_window;
    QStringList m_seen;  // the mirrored bucket's Protection cell, each change
};

QTEST_MAIN(TestConsoleProtection)
#include "test_console_protection.moc"
