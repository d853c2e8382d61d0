// The console's cluster pages against a real local cluster under load: the
// dashboard's charts grow as metrics arrive (repaints capped at ~2 Hz), node
// cards and the nodes table show every node, the jobs page shows a real
// rebalance and aborts a running ishard job through its confirmation, the
// keyboard shortcuts, the theme override and the window state. Every model
// runs under QAbstractItemModelTester the whole time. Screenshots of the
// Dashboard, Nodes and Jobs pages go to docs/images/.
#include "console_test_util.h"
#include "core/cluster_connection.h"
#include "core/rest_client.h"
#include "local_cluster.h"
#include "models/bucket_model.h"
#include "models/console_session.h"
#include "models/event_model.h"
#include "models/job_model.h"
#include "models/metrics_history.h"
#include "models/node_model.h"
#include "shard_test_util.h"
#include "ui/buckets_page.h"
#include "ui/capacity_bar.h"
#include "ui/dashboard_page.h"
#include "ui/jobs_page.h"
#include "ui/main_window.h"
#include "ui/node_card.h"
#include "ui/nodes_page.h"
#include "ui/theme.h"
#include "ui/throughput_chart.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <atomic>
#include <future>
#include <thread>

using namespace tessera;
using namespace tessera::console;
using Tester = QAbstractItemModelTester;

namespace {

constexpr int kObjectSize = 256 << 10;
constexpr int kLoadObjects = 32;

// GETs and PUTs of 256 KiB objects on one thread until stopped, so that the
// charts have real traffic to show.
class LoadRunner {
public:
    LoadRunner(const std::string& endpoint, const std::string& bucket)
        : m_thread([this, endpoint, bucket] {
              client::Client c(endpoint);
              const std::string data = tests::randomBytes(kObjectSize, 7);
              for (int i = 0; !m_stop; ++i) {
                  const std::string name = "o-" + std::to_string(i % kLoadObjects);
                  if (i % 3 == 0 || i < kLoadObjects) {
                      if (c.putObject(bucket, name, data)) ++m_puts;
                  } else if (auto got = c.getObject(bucket, name); got && got->size() == data.size()) {
                      ++m_gets;
                  }
              }
          })
    {
    }
    ~LoadRunner() { stop(); }
    void stop()
    {
        m_stop = true;
        if (m_thread.joinable()) {
            m_thread.join();
        }
    }
    int puts() const { return m_puts; }
    int gets() const { return m_gets; }

private:
    std::atomic<bool> m_stop{false};
    std::atomic<int> m_puts{0};
    std::atomic<int> m_gets{0};
    std::thread m_thread;
};

}  // namespace

class TestConsolePages : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("tessera-test"));
        QCoreApplication::setApplicationName(QStringLiteral("test_console_pages"));
        QSettings().clear();
        tests::LocalCluster::Options o;
        o.targets = 3;
        o.extraProxyArgs = {QStringLiteral("--stats-interval-ms"), QStringLiteral("500")};
        o.extraTargetArgs = {QStringLiteral("--usage-scan-interval-ms"), QStringLiteral("1000")};
        m_cluster = std::make_unique<tests::LocalCluster>(o);
        QVERIFY2(m_cluster->start(), m_cluster->error().c_str());
        client::Client c(m_cluster->proxyUrl());
        QVERIFY(c.createBucket("load"));

        m_session = std::make_unique<ConsoleSession>(m_dir.filePath(QStringLiteral("console.db")));
        m_theme = std::make_unique<Theme>(qApp);
        for (QAbstractItemModel* model : std::initializer_list<QAbstractItemModel*>{
                 m_session->nodes(), m_session->jobs(), m_session->events(), m_session->metrics()}) {
            m_testers.push_back(std::make_unique<Tester>(model, Tester::FailureReportingMode::QtTest));
        }
        m_window = std::make_unique<MainWindow>(m_session.get(), m_theme.get());
        m_window->resize(1280, 800);
        m_window->show();
        m_session->connectTo({QString(), QUrl(QString::fromStdString(m_cluster->proxyUrl())), QString()});
        QVERIFY(QTest::qWaitFor([&] { return m_session->connection()->state() == ClusterConnection::State::Connected; },
                                10000));
    }

    void pagesShowTheSessionsModels()
    {
        // One REST client and one set of bucket models, the session's.
        auto* buckets = m_window->findChild<BucketsPage*>();
        QVERIFY(buckets != nullptr);
        QCOMPARE(buckets->bucketModel(), m_session->bucketsModels().buckets);
        QCOMPARE(buckets->objectModel(), m_session->bucketsModels().objects);
        QCOMPARE(buckets->uploadQueue(), m_session->bucketsModels().uploads);
        QCOMPARE(m_session->rest(), m_session->connection()->rest());
        QCOMPARE(m_session->rest()->endpoint(), QUrl(QString::fromStdString(m_cluster->proxyUrl())));
    }

    void bucketListShowsTheServersCounts()
    {
        // 25 objects; were the listing counted, a cap of 10 would show "≥ 10".
        client::Client c(m_cluster->proxyUrl());
        QVERIFY(c.createBucket("counted"));
        qint64 bytes = 0;
        for (int i = 0; i < 25; ++i) {
            QVERIFY(c.putObject("counted", "o" + std::to_string(i), std::string(100 + i, 'c')));
            bytes += 100 + i;
        }
        BucketModel* model = m_session->bucketsModels().buckets;
        model->setSummaryCap(10);
        auto figure = [&](int role) {
            const int r = model->rowOf(QStringLiteral("counted"));
            return r < 0 ? QVariant() : model->data(model->index(r, BucketModel::ObjectsColumn), role);
        };
        // The feed's figures, from the targets' next usage scans (every second here).
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         return figure(BucketModel::FromScanRole).toBool() &&
                                figure(BucketModel::ObjectCountRole).toLongLong() == 25;
                     },
                     15000),
                 qPrintable(figure(Qt::DisplayRole).toString()));
        QCOMPARE(figure(BucketModel::BytesRole).toLongLong(), bytes);
        QCOMPARE(figure(BucketModel::CappedRole).toBool(), false);
        QCOMPARE(figure(Qt::DisplayRole).toString(), QStringLiteral("25"));
        QVERIFY(figure(BucketModel::ScannedAtRole).toDateTime().isValid());
        QVERIFY2(figure(Qt::ToolTipRole).toString().contains(QLatin1String("usage scan at")),
                 qPrintable(figure(Qt::ToolTipRole).toString()));
        model->setSummaryCap(BucketModel::kDefaultSummaryCap);
    }

    void dashboardChartsGrowUnderLoad()
    {
        DashboardPage* dash = m_window->dashboard();
        m_window->showPage(m_window->pageIndex(QStringLiteral("Dashboard")));
        MetricsHistory* history = m_session->metrics();
        m_load = std::make_unique<LoadRunner>(m_cluster->proxyUrl(), "load");
        LoadRunner& load = *m_load;
        auto busyTicks = [&] {
            int n = 0;
            for (const auto& s : history->samples()) {
                n += s.getMBps > 0 && s.putMBps > 0 ? 1 : 0;
            }
            return n;
        };
        QVERIFY2(
            QTest::qWaitFor([&] { return busyTicks() >= 6; }, 20000),
            qPrintable(
                QStringLiteral("%1 busy ticks, %2 PUTs, %3 GETs").arg(busyTicks()).arg(load.puts()).arg(load.gets())));

        // The series grows by one point per tick, and repaints stay at ~2 Hz.
        ThroughputChart* chart = dash->throughputChart();
        QVERIFY(QTest::qWaitFor([&] { return chart->shownPointCount(0) == chart->pointCount(0); }, 2000));
        const int shownBefore = chart->shownPointCount(0);
        const int repaintsBefore = chart->repaints();
        QElapsedTimer timer;
        timer.start();
        QVERIFY(QTest::qWaitFor([&] { return chart->shownPointCount(0) >= shownBefore + 4; }, 10000));
        const auto elapsed = timer.elapsed();
        QCOMPARE(chart->pointCount(0), static_cast<int>(history->rowCount()));
        QVERIFY2(
            chart->repaints() - repaintsBefore <= elapsed / ThroughputChart::kRepaintInterval.count() + 1,
            qPrintable(QStringLiteral("%1 repaints in %2 ms").arg(chart->repaints() - repaintsBefore).arg(elapsed)));
        QCOMPARE(dash->opsChart()->pointCount(1), chart->pointCount(1));
        QVERIFY(dash->latencyChart()->pointCount(0) > 0);
        QVERIFY(load.gets() > 0 && load.puts() > 0);

        // One card per node; each target shows its two mountpaths.
        const int nodes = 1 + m_cluster->targetCount();
        QVERIFY(QTest::qWaitFor([&] { return static_cast<int>(dash->nodeCards().size()) == nodes; }, 5000));
        int bars = 0;
        for (NodeCard* card : dash->nodeCards()) {
            for (CapacityBar* bar : card->bars()) {
                ++bars;
                QVERIFY(!bar->level().isEmpty());
            }
        }
        QCOMPARE(bars, 2 * m_cluster->targetCount());
        // The snapshot's events: every target joined.
        int joined = 0;
        for (int r = 0; r < m_session->events()->rowCount(); ++r) {
            joined += m_session->events()->event(r).kind == "node_joined" ? 1 : 0;
        }
        QVERIFY2(joined >= m_cluster->targetCount(), qPrintable(QString::number(joined)));
        // Cards show the load (ops/s) of the latest tick.
        QVERIFY(QTest::qWaitFor(
            [&] {
                for (int r = 0; r < m_session->nodes()->rowCount(); ++r) {
                    if (m_session->nodes()->node(r).opsPerSec > 0) {
                        return true;
                    }
                }
                return false;
            },
            5000));
        QVERIFY(QTest::qWaitFor([&] { return chart->shownPointCount(0) == chart->pointCount(0); }, 2000));
        test::saveScreenshot(m_window.get(), QStringLiteral("console-dashboard"));
    }

    void nodesPageShowsEveryNodeAndItsSeries()
    {
        // Double-clicking a node's card on the dashboard opens its details.
        const QString target = QString::fromStdString(m_cluster->targetId(0));
        NodeCard* card =
            m_window->dashboard()->nodeCards().at(static_cast<std::size_t>(m_session->nodes()->rowOf(target)));
        QCOMPARE(card->nodeId(), target);
        QTest::mouseDClick(card, Qt::LeftButton);
        QCOMPARE(m_window->currentPage(), m_window->pageIndex(QStringLiteral("Nodes")));
        NodesPage* page = m_window->nodesPage();
        QCOMPARE(page->table()->model()->rowCount(), 1 + m_cluster->targetCount());
        NodeModel* nodes = m_session->nodes();
        for (int r = 0; r < nodes->rowCount(); ++r) {
            QCOMPARE(nodes->node(r).state, NodeState::Online);
            QVERIFY(nodes->node(r).hasMetrics);
            QVERIFY(nodes->node(r).uptimeNs > 0);
        }
        QCOMPARE(page->selectedNode(), target);
        QVERIFY(QTest::qWaitFor([&] { return page->nodeThroughputChart()->shownPointCount(0) > 5; }, 5000));
        test::saveScreenshot(m_window.get(), QStringLiteral("console-nodes"));
        m_load.reset();
    }

    void jobsPageShowsARealJobAndAbortsOne()
    {
        m_window->showPage(m_window->pageIndex(QStringLiteral("Jobs")));
        JobsPage* page = m_window->jobsPage();
        JobModel* jobs = m_session->jobs();
        client::Client c(m_cluster->proxyUrl());

        // A rebalance (nothing to move: it finishes at once) appears and ends finished.
        auto rebalance = c.startJob("rebalance");
        QVERIFY2(rebalance, rebalance ? "" : rebalance.error().message.c_str());
        const QString rebalanceId = QString::fromStdString(rebalance->id);
        QVERIFY(QTest::qWaitFor(
            [&] {
                const int r = jobs->rowOf(rebalanceId);
                return r >= 0 && jobs->job(r).state == api::JobState::Finished;
            },
            15000));
        const int rr = jobs->rowOf(rebalanceId);
        QCOMPARE(jobs->data(jobs->index(rr, JobModel::KindColumn)).toString(), QStringLiteral("rebalance"));
        QCOMPARE(jobs->data(jobs->index(rr, JobModel::ProgressColumn), JobModel::ProgressRole).toInt(), 100);
        page->selectJob(rebalanceId);
        QVERIFY(!page->abortButton()->isEnabled());  // nothing to abort

        // An ishard job long enough to abort: 96 samples of 1 MiB, one gzip shard each.
        QVERIFY(c.createBucket("raw"));
        QVERIFY(c.createBucket("shards"));
        std::map<std::string, std::string> raw;
        for (int i = 0; i < 96; ++i) {
            const std::string key = "s" + std::to_string(1000 + i);
            raw[key + ".bin"] = tests::randomBytes(std::size_t{1} << 20, 100 + i);
            raw[key + ".cls"] = std::to_string(i % 10);
        }
        auto put = std::async(std::launch::async, [&] { return tests::putAll(m_cluster->proxyUrl(), "raw", raw, 4); });
        QVERIFY(
            QTest::qWaitFor([&] { return put.wait_for(std::chrono::seconds(0)) == std::future_status::ready; }, 60000));
        QCOMPARE(put.get(), 0);
        QElapsedTimer sinceStart;
        sinceStart.start();
        auto ishard =
            c.startJob("ishard", {{"src_bck", "raw"}, {"dst_bck", "shards"}, {"sample_count", 1}, {"ext", ".tgz"}});
        QVERIFY2(ishard, ishard ? "" : ishard.error().message.c_str());
        const QString ishardId = QString::fromStdString(ishard->id);
        // Abort once it is under way, as an operator would (its first progress report, after
        // ~500 ms of the ~5 s it takes here).
        QVERIFY(QTest::qWaitFor(
            [&] {
                const int r = jobs->rowOf(ishardId);
                return r >= 0 && jobs->job(r).progress.objectsDone > 0;
            },
            10000));
        QCOMPARE(jobs->job(jobs->rowOf(ishardId)).state, api::JobState::Running);
        page->selectJob(ishardId);
        QVERIFY(page->abortButton()->isEnabled());

        // Cancel first: nothing happens.
        QString question;
        test::answerConfirmation(QStringLiteral("abortConfirmation"), QMessageBox::Cancel, &question);
        page->abortSelected();
        QVERIFY2(question.contains(ishardId), qPrintable(question));
        QVERIFY(page->statusText().contains(QLatin1String("left running")));
        // Then yes.
        test::answerConfirmation(QStringLiteral("abortConfirmation"), QMessageBox::Yes, &question);
        const qint64 abortAskedMs = sinceStart.elapsed();
        page->abortSelected();
        QVERIFY(QTest::qWaitFor([&] { return page->statusText().contains(QLatin1String("requested")); }, 10000));
        QVERIFY(QTest::qWaitFor([&] { return api::isFinal(jobs->job(jobs->rowOf(ishardId)).state); }, 30000));
        {
            const auto& j = jobs->job(jobs->rowOf(ishardId));
            QVERIFY2(
                j.state == api::JobState::Aborted,
                qPrintable(QStringLiteral("%1 (%5) after %2 ms, %3 objects done, abort asked %4 ms after the start")
                               .arg(QString::fromUtf8(api::jobStateName(j.state).data()))
                               .arg((j.endNs - j.startNs) / 1'000'000)
                               .arg(j.progress.objectsDone)
                               .arg(abortAskedMs)
                               .arg(QString::fromStdString(j.error))));
        }
        const int ir = jobs->rowOf(ishardId);
        QCOMPARE(jobs->data(jobs->index(ir, JobModel::StateColumn)).toString(), QStringLiteral("aborted"));
        QVERIFY(jobs->job(ir).progress.objectsDone < 192);
        auto server = c.job(ishard->id);
        QVERIFY(server);
        QCOMPARE(server->state, api::JobState::Aborted);
        QVERIFY(!page->abortButton()->isEnabled());
        test::saveScreenshot(m_window.get(), QStringLiteral("console-jobs"));
    }

    void killedTargetGoesStaleThenGone()
    {
        // Last of the cluster tests: one target is killed for good.
        NodeModel* nodes = m_session->nodes();
        const QString victim = QString::fromStdString(m_cluster->targetId(2));
        const int row = nodes->rowOf(victim);
        QVERIFY(row >= 0);
        auto eventCount = [&](const std::string& kind) {
            int n = 0;
            for (int r = 0; r < m_session->events()->rowCount(); ++r) {
                const auto& e = m_session->events()->event(r);
                n += e.kind == kind && e.node == victim.toStdString() ? 1 : 0;
            }
            return n;
        };
        m_cluster->killTarget(2);
        QVERIFY(QTest::qWaitFor([&] { return nodes->node(row).state != NodeState::Online; }, 10000));
        QVERIFY(QTest::qWaitFor([&] { return nodes->node(nodes->rowOf(victim)).state == NodeState::Away; }, 15000));
        QVERIFY(QTest::qWaitFor([&] { return eventCount("node_away") == 1; }, 5000));
        QCOMPARE(nodes->rowCount(), 1 + m_cluster->targetCount());                     // still listed, as away
        QCOMPARE(m_session->connection()->nodeCount(), 1 + m_cluster->targetCount());  // it keeps its objects
        // The dashboard's card says so too.
        NodeCard* card = m_window->dashboard()->nodeCards().at(static_cast<std::size_t>(nodes->rowOf(victim)));
        QVERIFY(card->findChildren<QLabel*>().size() >= 2);
        bool saysGone = false;
        for (QLabel* label : card->findChildren<QLabel*>()) {
            saysGone = saysGone || label->text().contains(QLatin1String("away"));
        }
        QVERIFY(saysGone);
        // What an operator sees: the dashboard with the away target's card.
        m_window->showPage(m_window->pageIndex(QStringLiteral("Dashboard")));
        QCoreApplication::processEvents();
        test::saveScreenshot(m_window.get(), QStringLiteral("console-target-away"));
    }

    void shortcutsNavigateRefreshAndSearch()
    {
        QApplication::setActiveWindow(m_window.get());
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        QTest::keyClick(m_window.get(), Qt::Key_2, Qt::ControlModifier);
        QCOMPARE(m_window->currentPage(), m_window->pageIndex(QStringLiteral("Nodes")));
        QTest::keyClick(m_window.get(), Qt::Key_1, Qt::ControlModifier);
        QCOMPARE(m_window->currentPage(), m_window->pageIndex(QStringLiteral("Dashboard")));
        QTest::keyClick(m_window.get(), Qt::Key_4, Qt::ControlModifier);
        QCOMPARE(m_window->currentPage(), m_window->pageIndex(QStringLiteral("Jobs")));
        // F5 re-reads the cluster: a new feed session begins with a snapshot.
        QSignalSpy snapshots(m_session->connection(), &ClusterConnection::snapshotReceived);
        QTest::keyClick(m_window.get(), Qt::Key_F5);
        QVERIFY(snapshots.wait(5000));
        QTest::keyClick(m_window.get(), Qt::Key_F, Qt::ControlModifier);
        auto* focused = qobject_cast<QLineEdit*>(QApplication::focusWidget());
        QVERIFY(focused);
        QVERIFY(m_window->jobsPage()->isAncestorOf(focused));
    }

    void themeOverrideAndWindowStatePersist()
    {
        QAction* dark = nullptr;
        for (QAction* a : m_window->findChildren<QAction*>()) {
            if (a->data().toString() == QLatin1String("dark")) {
                dark = a;
            }
        }
        QVERIFY(dark);
        dark->trigger();
        QVERIFY(isDarkPalette(QApplication::palette()));
        m_window->showPage(m_window->pageIndex(QStringLiteral("Dashboard")));
        QCoreApplication::processEvents();
        test::saveScreenshot(m_window.get(), QStringLiteral("console-dashboard-dark"));
        m_window->showPage(m_window->pageIndex(QStringLiteral("Nodes")));
        m_window->resize(1100, 700);
        m_window->close();
        QSettings settings;
        QCOMPARE(settings.value(QStringLiteral("view/theme")).toString(), QStringLiteral("dark"));
        QCOMPARE(settings.value(QStringLiteral("window/page")).toInt(), m_window->pageIndex(QStringLiteral("Nodes")));

        // A new window (a restarted console) comes back the same way.
        m_theme->apply(ThemeChoice::System);
        MainWindow again(m_session.get(), m_theme.get());
        QCOMPARE(again.currentPage(), again.pageIndex(QStringLiteral("Nodes")));
        QVERIFY(isDarkPalette(QApplication::palette()));
        QCOMPARE(again.size(), QSize(1100, 700));
        m_theme->apply(ThemeChoice::System);
        QVERIFY(!isDarkPalette(QApplication::palette()));
    }

    void cleanupTestCase()
    {
        m_load.reset();
        m_window.reset();
        m_testers.clear();
        m_session.reset();
        m_cluster.reset();
        QSettings().clear();
    }

private:
    QTemporaryDir m_dir;
    std::unique_ptr<tests::LocalCluster> m_cluster;
    std::unique_ptr<LoadRunner> m_load;
    std::unique_ptr<ConsoleSession> m_session;
    std::unique_ptr<Theme> m_theme;
    std::vector<std::unique_ptr<Tester>> m_testers;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestConsolePages)
#include "test_console_pages.moc"
