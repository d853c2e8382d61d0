// The console's local state without a cluster: connection profiles and the
// metric history in SQLite (both survive closing and reopening the
// database), and the models' contracts under QAbstractItemModelTester with
// typed inputs (the live-cluster tests feed them real data).
#include "api/feed.h"
#include "core/metrics_store.h"
#include "core/profile_store.h"
#include "models/event_filter_model.h"
#include "models/event_model.h"
#include "models/job_model.h"
#include "models/metrics_history.h"
#include "models/node_model.h"
#include "sqlite/sqlite_db.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace tessera;
using namespace tessera::console;

namespace {

api::Snode snode(const std::string& id, const std::string& type, int port)
{
    api::Snode n;
    n.id = id;
    n.type = type;
    n.publicNet = {"127.0.0.1", port, "http://127.0.0.1:" + std::to_string(port)};
    return n;
}

api::ClusterEvent makeEvent(std::int64_t ts, const std::string& severity, const std::string& kind,
                            const std::string& node)
{
    api::ClusterEvent e;
    e.tsMs = ts;
    e.severity = severity;
    e.kind = kind;
    e.node = node;
    e.message = kind + " on " + node;
    return e;
}

const QString kClusterA = QStringLiteral("http://127.0.0.1:8080");

}  // namespace

class TestConsoleStores : public QObject {
    Q_OBJECT
private slots:
    void profilesPersistAndTheLastUsedReopens()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("sub/console.db"));
        {
            auto store = ProfileStore::open(db);
            QVERIFY2(store, store ? "" : store.error().message.c_str());
            QVERIFY((*store)->save({QStringLiteral("lab"), QUrl(QStringLiteral("http://10.0.0.5:8080")), {}}));
            QVERIFY((*store)->save(
                {QStringLiteral("laptop"), QUrl(QStringLiteral("http://127.0.0.1:8080")), QStringLiteral("s3cret")}));
            QVERIFY((*store)->markUsed(QStringLiteral("laptop")));
            QVERIFY((*store)->markUsed(QStringLiteral("lab")));
            // Replacing keeps one row per name.
            QVERIFY((*store)->save({QStringLiteral("lab"), QUrl(QStringLiteral("http://10.0.0.6:8080")), {}}));
            // Invalid profiles are refused and change nothing.
            const auto bad = (*store)->save({QString(), QUrl(QStringLiteral("http://x:1")), {}});
            QVERIFY(!bad);
            QCOMPARE(bad.kind(), api::ErrorKind::BadRequest);
            QCOMPARE((*store)->save({QStringLiteral("ftp"), QUrl(QStringLiteral("ftp://x")), {}}).kind(),
                     api::ErrorKind::BadRequest);
            QCOMPARE((*store)->remove(QStringLiteral("nope")).kind(), api::ErrorKind::NotFound);
            QCOMPARE((*store)->markUsed(QStringLiteral("nope")).kind(), api::ErrorKind::NotFound);
        }
        auto store = ProfileStore::open(db);
        QVERIFY(store);
        const auto all = (*store)->profiles();
        QVERIFY(all);
        QCOMPARE(all->size(), std::size_t{2});
        QCOMPARE(all->at(0),
                 (ConnectionProfile{QStringLiteral("lab"), QUrl(QStringLiteral("http://10.0.0.6:8080")), {}}));
        QCOMPARE(all->at(1), (ConnectionProfile{QStringLiteral("laptop"), QUrl(QStringLiteral("http://127.0.0.1:8080")),
                                                QStringLiteral("s3cret")}));
        const auto last = (*store)->lastUsed();
        QVERIFY(last && last->has_value());
        QCOMPARE(last->value().name, QStringLiteral("lab"));
        QVERIFY((*store)->remove(QStringLiteral("lab")));
        const auto after = (*store)->lastUsed();
        QVERIFY(after && after->has_value());
        QCOMPARE(after->value().name, QStringLiteral("laptop"));
    }

    void profilesKeepTheirTlsSettings()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("console.db"));
        const ConnectionProfile secure{QStringLiteral("secure"),
                                       QUrl(QStringLiteral("https://10.0.0.5:8443")),
                                       {},
                                       TlsSettings{QStringLiteral("/etc/tessera/ca.pem"), false}};
        const ConnectionProfile lab{
            QStringLiteral("lab"), QUrl(QStringLiteral("https://lab:8443")), {}, TlsSettings{QString(), true}};
        {
            auto store = ProfileStore::open(db);
            QVERIFY(store);
            QVERIFY((*store)->save(secure));
            QVERIFY((*store)->save(lab));
            QVERIFY((*store)->markUsed(QStringLiteral("secure")));
        }
        auto store = ProfileStore::open(db);
        QVERIFY(store);
        const auto found = (*store)->find(QStringLiteral("secure"));
        QVERIFY(found && found->has_value());
        QCOMPARE(found->value(), secure);
        const auto all = (*store)->profiles();
        QVERIFY(all);
        QCOMPARE(all->size(), std::size_t{2});
        QCOMPARE(all->at(0), lab);
        const auto last = (*store)->lastUsed();
        QVERIFY(last && last->has_value());
        QCOMPARE(last->value(), secure);
    }

    void profilesOfAnOlderDatabaseReadAsChecked()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("console.db"));
        {
            // The table as written before profiles had TLS settings.
            auto old = sqlite::SqliteDb::open(db.toStdString(),
                                              "CREATE TABLE profiles (name TEXT PRIMARY KEY NOT NULL, endpoint TEXT "
                                              "NOT NULL, token TEXT NOT NULL DEFAULT '', last_used_ms INTEGER NOT "
                                              "NULL DEFAULT 0);"
                                              "INSERT INTO profiles (name, endpoint) VALUES ('old', 'http://h:1');");
            QVERIFY2(old, old ? "" : old.error().message.c_str());
        }
        auto store = ProfileStore::open(db);
        QVERIFY2(store, store ? "" : store.error().message.c_str());
        const auto old = (*store)->find(QStringLiteral("old"));
        QVERIFY(old && old->has_value());
        QCOMPARE(old->value().endpoint, QUrl(QStringLiteral("http://h:1")));
        QCOMPARE(old->value().tls, TlsSettings{});
        QVERIFY((*store)->save({QStringLiteral("old"),
                                QUrl(QStringLiteral("https://h:1")),
                                {},
                                TlsSettings{QStringLiteral("ca.pem"), false}}));
        QCOMPARE((*store)->find(QStringLiteral("old"))->value().tls.caFile, QStringLiteral("ca.pem"));
    }

    void endpointsAreNormalized()
    {
        QCOMPARE(normalizeEndpoint(QStringLiteral("127.0.0.1:8080")), QUrl(QStringLiteral("http://127.0.0.1:8080")));
        QCOMPARE(normalizeEndpoint(QStringLiteral(" http://h:1/v1/x?y ")), QUrl(QStringLiteral("http://h:1")));
        QVERIFY(!normalizeEndpoint(QStringLiteral("ftp://h")).isValid());
        QVERIFY(!normalizeEndpoint(QString()).isValid());
    }

    void metricHistorySurvivesARestart()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("console.db"));
        const std::int64_t now = 1'800'000'000'000;
        std::vector<MetricsSample> written;
        {
            auto store = MetricsStore::open(db);
            QVERIFY(store);
            MetricsHistory history(store->get());
            QAbstractItemModelTester tester(&history, QAbstractItemModelTester::FailureReportingMode::QtTest);
            history.setSource(kClusterA, now - 720'000);
            // 12 minutes at one sample per second: the first two minutes age out.
            for (int i = 0; i < 720; ++i) {
                MetricsSample s{now - 720'000 + i * 1000, 1.0 * i, 2.0 * i, 3.0 * i, 4.0 * i, 0.5, 0.75, i % 7 * 1.0};
                history.append(s);
                written.push_back(s);
            }
            QCOMPARE(history.rowCount(), 601);  // [now-600 s, now-1 s]
            QCOMPARE(history.samples().front().tsMs, now - 601'000);
            // Not newer than the last one: ignored (a snapshot's replay).
            history.append(written.back());
            QCOMPARE(history.rowCount(), 601);
            QCOMPARE(history.data(history.index(600, MetricsHistory::PutOpsColumn)).toDouble(), 4.0 * 719);
        }
        auto store = MetricsStore::open(db);
        QVERIFY(store);
        MetricsHistory reopened(store->get());
        QAbstractItemModelTester tester(&reopened, QAbstractItemModelTester::FailureReportingMode::QtTest);
        reopened.setSource(kClusterA, now);  // the window [now-600 s, now]
        QCOMPARE(reopened.rowCount(), 600);
        const std::vector<MetricsSample> expected(written.end() - 600, written.end());
        QVERIFY(std::equal(expected.begin(), expected.end(), reopened.samples().begin()));
        // A later start sees less of it.
        MetricsHistory later(store->get());
        later.setSource(kClusterA, now + 300'000);
        QCOMPARE(later.rowCount(), 300);
        // Another cluster has its own (here: empty) history.
        later.setSource(QStringLiteral("http://10.0.0.9:8080"), now);
        QCOMPARE(later.rowCount(), 0);
        later.setSource(kClusterA, now);
        QCOMPARE(later.rowCount(), 600);
    }

    void historyFromBeforeClientAbortsStillOpens()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("console.db"));
        {
            // The table as an older console wrote it: no aborts_per_sec.
            auto db = sqlite::SqliteDb::open(path.toStdString());
            QVERIFY(db);
            QVERIFY(
                (*db)->exec("CREATE TABLE metrics_samples (endpoint TEXT NOT NULL, ts_ms INTEGER NOT NULL, "
                            "get_mbps REAL NOT NULL, put_mbps REAL NOT NULL, get_ops REAL NOT NULL, "
                            "put_ops REAL NOT NULL, get_p99_ms REAL NOT NULL, put_p99_ms REAL NOT NULL, "
                            "errors_per_sec REAL NOT NULL)"));
            QVERIFY((*db)->exec("INSERT INTO metrics_samples VALUES ('http://a:1', 1000, 1, 2, 3, 4, 5, 6, 0.5)"));
        }
        auto store = MetricsStore::open(path);
        QVERIFY2(store, store ? "" : store.error().message.c_str());
        QVERIFY((*store)->append(QStringLiteral("http://a:1"), {2000, 1, 2, 3, 4, 5, 6, 0.25, 1.5}));
        auto rows = (*store)->load(QStringLiteral("http://a:1"), 0, 10);
        QVERIFY(rows);
        QCOMPARE(rows->size(), std::size_t{2});
        QCOMPARE((*rows)[0], (MetricsSample{1000, 1, 2, 3, 4, 5, 6, 0.5, 0}));
        QCOMPARE((*rows)[1], (MetricsSample{2000, 1, 2, 3, 4, 5, 6, 0.25, 1.5}));
        // Opened again: the column is there once.
        store->reset();
        auto again = MetricsStore::open(path);
        QVERIFY(again);
        QCOMPARE((*again)->load(QStringLiteral("http://a:1"), 0, 10)->size(), std::size_t{2});
    }

    void onlyNewTicksEnterTheHistory()
    {
        MetricsHistory history;
        QAbstractItemModelTester tester(&history, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto decoded = api::decodeFeedMessage(
            "{\"type\":\"metrics\",\"seq\":3,\"ts\":5000,\"data\":{\"interval_ms\":1000,\"nodes\":["
            "{\"daemon_id\":\"t1\",\"role\":\"target\",\"cpu_percent\":3.5,"
            "\"ops\":{\"get\":{\"ops_s\":10,\"bytes_s\":2000000}}}],"
            "\"cluster\":{\"nodes\":1,\"stale\":0,\"ops\":{\"get\":{\"ops_s\":10,\"bytes_s\":2000000,"
            "\"p99_ns\":3000000,\"errors_s\":0.5},\"put\":{\"errors_s\":0.25},"
            "\"lst\":{\"aborts_s\":2}}}}}");
        QVERIFY2(decoded, decoded ? "" : decoded.error().message.c_str());
        QCOMPARE(decoded->seq, std::int64_t{3});
        const auto& update = std::get<api::MetricsUpdate>(decoded->payload);
        history.addMetrics(update);
        QCOMPARE(history.rowCount(), 1);
        const MetricsSample& s = history.samples().back();
        QCOMPARE(s.tsMs, std::int64_t{5000});
        QCOMPARE(s.getMBps, 2.0);
        QCOMPARE(s.getOps, 10.0);
        QCOMPARE(s.getP99Ms, 3.0);
        QCOMPARE(s.errorsPerSec, 0.75);
        QCOMPARE(s.abortsPerSec, 2.0);  // the client's aborts are not errors
        QCOMPARE(history.data(history.index(0, MetricsHistory::AbortsColumn)).toDouble(), 2.0);
        QCOMPARE(history.nodeSeries(QStringLiteral("t1")).size(), std::size_t{1});
        QCOMPARE(history.nodeSeries(QStringLiteral("t1")).back().cpuPercent, 3.5);
        // The same round again, and a snapshot's copy of a later one: no new tick.
        history.addMetrics(update);
        api::MetricsUpdate fromSnapshot = update;
        fromSnapshot.tsMs = 6000;
        fromSnapshot.fromSnapshot = true;
        history.addMetrics(fromSnapshot);
        QCOMPARE(history.rowCount(), 1);
        // Not a feed message: a clear error, nothing else.
        QCOMPARE(api::decodeFeedMessage("[1,2]").kind(), api::ErrorKind::BadRequest);
        QCOMPARE(api::decodeFeedMessage("{\"type\":\"metrics\"}").kind(), api::ErrorKind::BadRequest);
        QVERIFY(std::holds_alternative<api::UnknownFeedMessage>(
            api::decodeFeedMessage("{\"type\":\"future\",\"seq\":1,\"data\":{}}")->payload));
    }

    void nodeModelFollowsTheMapAndMetrics()
    {
        NodeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        api::Smap smap;
        smap.version = 3;
        smap.pmap["p1"] = snode("p1", "proxy", 8080);
        smap.tmap["tb"] = snode("tb", "target", 8082);
        smap.tmap["ta"] = snode("ta", "target", 8081);
        model.setSmap(smap);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.node(0).id, QStringLiteral("p1"));
        QCOMPARE(model.node(1).id, QStringLiteral("ta"));
        QCOMPARE(model.node(2).id, QStringLiteral("tb"));

        api::MetricsUpdate m;
        api::NodeMetrics ta;
        ta.id = "ta";
        ta.role = "target";
        ta.cpuPercent = 12.5;
        ta.ops[0].opsPerSec = 100;
        ta.ops[1].opsPerSec = 20;
        api::MountpathStats mp;
        mp.path = "/d1";
        mp.total = 1000;
        mp.used = 960;
        mp.fs = "8:1";
        api::MountpathStats sameDisk = mp;  // a second mountpath on the same filesystem
        sameDisk.path = "/d2";
        ta.mountpaths = {mp, sameDisk};
        api::NodeMetrics tb = ta;
        tb.id = "tb";
        tb.stale = true;
        m.nodes = {ta, tb};
        model.setMetrics(m);
        QCOMPARE(model.node(1).opsPerSec, 120.0);
        QCOMPARE(model.data(model.index(1, NodeModel::StateColumn)).toString(), QStringLiteral("online"));
        QCOMPARE(model.data(model.index(2, NodeModel::StateColumn)).toString(), QStringLiteral("stale"));
        QCOMPARE(model.data(model.index(1, NodeModel::CapacityColumn), NodeModel::CapacityFractionRole).toDouble(),
                 0.96);
        // The shared disk counts once.
        QCOMPARE(model.node(1).totalBytes(), std::uint64_t{1000});
        QCOMPARE(model.node(1).usedBytes(), std::uint64_t{960});

        // In maintenance, away, back: the state column says which.
        smap.tmap["tb"].flags = api::kSnodeMaintenance;
        model.setSmap(smap);
        QCOMPARE(model.data(model.index(2, NodeModel::StateColumn)).toString(), QStringLiteral("maintenance"));
        smap.tmap["tb"].flags = api::kSnodeAway;
        model.setSmap(smap);
        QCOMPARE(model.data(model.index(2, NodeModel::StateColumn)).toString(), QStringLiteral("away"));
        smap.tmap["tb"].flags = 0;
        model.setSmap(smap);
        QCOMPARE(model.data(model.index(2, NodeModel::StateColumn)).toString(), QStringLiteral("online"));
        // Decommissioning: present, and a metrics round does not make it online.
        smap.tmap["tb"].flags = api::kSnodeDecommissioning;
        model.setSmap(smap);
        QCOMPARE(model.node(2).state, NodeState::Decommissioning);
        model.setMetrics(m);
        QCOMPARE(model.data(model.index(2, NodeModel::StateColumn)).toString(), QStringLiteral("decommissioning"));
        smap.tmap["tb"].flags = 0;
        model.setSmap(smap);
        QCOMPARE(model.data(model.index(2, NodeModel::StateColumn)).toString(), QStringLiteral("online"));

        smap.tmap.erase("tb");
        smap.version = 4;
        model.setSmap(smap);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.data(model.index(2, NodeModel::StateColumn)).toString(), QStringLiteral("gone"));
        smap.tmap["tb"] = snode("tb", "target", 8082);
        model.setSmap(smap);
        QCOMPARE(model.data(model.index(2, NodeModel::StateColumn)).toString(), QStringLiteral("online"));
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void goneNodesAgeOut()
    {
        using namespace std::chrono_literals;
        auto now = std::chrono::steady_clock::time_point{} + 1h;
        NodeModel model(nullptr, [&] { return now; });
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        api::Smap smap;
        smap.version = 3;
        smap.pmap["p1"] = snode("p1", "proxy", 8080);
        for (const char* id : {"ta", "tb", "tc"}) smap.tmap[id] = snode(id, "target", 8081);
        model.setSmap(smap);
        QCOMPARE(model.rowCount(), 4);

        // tb leaves; 4 minutes later tc does.
        smap.tmap.erase("tb");
        model.setSmap(smap);
        QCOMPARE(model.node(2).state, NodeState::Gone);
        now += 4min;
        smap.tmap.erase("tc");
        model.setSmap(smap);
        QCOMPARE(model.node(3).state, NodeState::Gone);

        // A second short of the limit, tb is still listed...
        now += NodeModel::kGoneRetention - 4min - 1s;
        model.removeExpired();
        QCOMPARE(model.rowCount(), 4);
        QVERIFY(removed.isEmpty());
        // ...and at the limit the next metrics round drops it, and only it.
        now += 1s;
        model.setMetrics(api::MetricsUpdate{});
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(removed.size(), 1);
        QCOMPARE(removed.last().at(1).toInt(), 2);
        QCOMPARE(model.rowOf(QStringLiteral("tb")), -1);
        QCOMPARE(model.node(2).id, QStringLiteral("tc"));
        QCOMPARE(model.node(2).state, NodeState::Gone);
        now += 4min;
        model.removeExpired();
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.rowOf(QStringLiteral("tc")), -1);

        // A node that comes back is online again and does not age; when it
        // leaves again its ten minutes start over.
        smap.tmap.erase("ta");
        model.setSmap(smap);
        QCOMPARE(model.node(1).state, NodeState::Gone);
        now += 9min;
        smap.tmap["ta"] = snode("ta", "target", 8081);
        model.setSmap(smap);
        QCOMPARE(model.node(1).state, NodeState::Online);
        now += 20min;
        model.removeExpired();
        QCOMPARE(model.rowCount(), 2);
        smap.tmap.erase("ta");
        model.setSmap(smap);
        now += 9min;
        model.removeExpired();
        QCOMPARE(model.node(1).state, NodeState::Gone);
        now += 1min;
        model.removeExpired();
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.node(0).id, QStringLiteral("p1"));
        // Gone for good, then back after all: a row again, online.
        smap.tmap["ta"] = snode("ta", "target", 8081);
        model.setSmap(smap);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.node(1).state, NodeState::Online);
    }

    void jobModelOrdersNewestFirstAndUpdatesInPlace()
    {
        JobModel model(nullptr, [] { return std::int64_t{10'000'000'000}; });
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        api::JobStatus a;
        a.id = "rebalance-a";
        a.kind = "rebalance";
        a.startNs = 1'000'000'000;
        a.phase = "scan";
        api::JobStatus b = a;
        b.id = "ishard-b";
        b.kind = "ishard";
        b.startNs = 2'000'000'000;
        b.progress.objectsTotal = 200;
        b.progress.objectsDone = 50;
        model.setJobs({a, b});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.data(model.index(0, JobModel::IdColumn)).toString(), QStringLiteral("ishard-b"));
        QCOMPARE(model.data(model.index(0, JobModel::ProgressColumn), JobModel::ProgressRole).toInt(), 25);
        QCOMPARE(model.data(model.index(1, JobModel::ProgressColumn), JobModel::ProgressRole).toInt(), -1);
        QCOMPARE(model.data(model.index(1, JobModel::ElapsedColumn)).toString(), QStringLiteral("0:09"));
        a.state = api::JobState::Aborted;
        a.endNs = 4'000'000'000;
        a.error = "aborted";
        model.updateJob(a);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.data(model.index(1, JobModel::StateColumn)).toString(), QStringLiteral("aborted"));
        QCOMPARE(model.data(model.index(1, JobModel::ElapsedColumn)).toString(), QStringLiteral("0:03"));
    }

    void eventModelIsNewestFirstWithoutDuplicatesAndFilters()
    {
        EventModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        EventFilterModel filter;
        filter.setSourceModel(&model);
        QAbstractItemModelTester filterTester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.addEvent(makeEvent(2000, "warning", "node_stale", "t2"));
        model.addEvent(makeEvent(3000, "error", "mountpath_full", "t1"));
        // A snapshot replay after a reconnect: the known ones are not added again.
        model.addEvents({makeEvent(1000, "info", "node_joined", "t1"), makeEvent(2000, "warning", "node_stale", "t2"),
                         makeEvent(3000, "error", "mountpath_full", "t1")});
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.event(0).tsMs, std::int64_t{3000});
        QCOMPARE(model.event(2).tsMs, std::int64_t{1000});
        filter.setMinimumSeverity(1);
        QCOMPARE(filter.rowCount(), 2);
        filter.setText(QStringLiteral("t2"));
        QCOMPARE(filter.rowCount(), 1);
        QCOMPARE(filter.data(filter.index(0, EventModel::KindColumn)).toString(), QStringLiteral("node_stale"));
        filter.setMinimumSeverity(0);
        filter.setText(QStringLiteral("joined"));
        QCOMPARE(filter.rowCount(), 1);
        for (int i = 0; i < EventModel::kMaxEvents + 5; ++i) {
            model.addEvent(makeEvent(10'000 + i, "info", "node_recovered", "t" + std::to_string(i)));
        }
        QCOMPARE(model.rowCount(), EventModel::kMaxEvents);
        QCOMPARE(model.event(0).tsMs, std::int64_t{10'000 + EventModel::kMaxEvents + 4});
    }
};

QTEST_GUILESS_MAIN(TestConsoleStores)
#include "test_console_stores.moc"
