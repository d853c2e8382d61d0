// Planned restarts against real processes: a target stopped with SIGTERM
// goes into maintenance at once (not after its keepalives lapse), answers
// what it has read, exits 0, and comes back out of maintenance when it
// rejoins; a rolling restart of every target under load loses no
// acknowledged write and fails no request with anything but a 503 naming a
// target; start/stop-maintenance over REST and through the CLI. (A live
// target decommissioned: test_decommission.)
#include "local_cluster.h"
#include "planned_moves.h"

#include "api/bmd.h"
#include "api/hrw.h"
#include "client/api_client.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QScopeGuard>
#include <QTcpSocket>
#include <QTest>
#include <QUrl>
#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <thread>

using namespace tessera;
using nlohmann::json;
using tessera::client::Body;
using tessera::client::HttpClient;
using tessera::client::Method;

using namespace tessera::tests::moves;

class TestDrain : public QObject {
    Q_OBJECT

private slots:
    // SIGTERM under PUT/GET load of 64 KiB..1 MiB objects: maintenance at
    // once, exit 0 within the bound, no reset and no 500, every
    // acknowledged PUT intact after the restart, the flag gone.
    void sigtermDrainsUnderLoad()
    {
        // Keepalives lapse after 5 s: the maintenance flag comes long before.
        tests::LocalCluster c{tests::LocalCluster::Options{3, 1, false, 500, 10, {}, {"--drain-timeout-ms", "10000"}}};
        QVERIFY2(c.start(), c.error().c_str());
        createBucket(c.proxyUrl(), kBucket);
        const auto id = c.targetId(1);
        Load load(c, 4, false);
        QVERIFY(load.advance(40));

        const auto took = drainTarget(c, 1, std::chrono::milliseconds(2000), std::chrono::seconds(15));
        QVERIFY(took >= 0);
        qInfo("drained and exited in %lld ms", static_cast<long long>(took));
        QVERIFY2(c.targetLogTail(1).find("every request in flight was answered") != std::string::npos,
                 c.targetLogTail(1).c_str());
        QVERIFY(load.advance(30));  // with the target down: its objects answer 503 naming it

        QVERIFY(c.restartTarget(1));
        const auto back = c.smap().findTarget(id);
        QVERIFY(back != nullptr);
        QCOMPARE(back->flags, std::uint64_t{0});
        QVERIFY(load.advance(30));
        load.stop();
        load.verify(c.proxyUrl());
        QVERIFY2(load.tally().failures.empty(), load.tally().report().c_str());
        qInfo("%d operations, %d acknowledged writes, %d 503s naming a target", load.tally().ops.load(),
              load.tally().acked.load(), load.tally().unavailable.load());
        QVERIFY(load.tally().acked.load() > 0);
        QVERIFY2(load.tally().unavailable.load() > 0, "the drained target's objects were asked for while it was down");
    }

    // A request whose head was read is answered, with Connection: close,
    // while the drain waits for it; an idle kept-alive connection is closed;
    // the target exits 0 once the answer is out.
    void inFlightAnsweredIdleClosed()
    {
        tests::LocalCluster c{tests::LocalCluster::Options{1, 1, false, 200, 3, {}, {"--drain-timeout-ms", "20000"}}};
        QVERIFY2(c.start(), c.error().c_str());
        createBucket(c.proxyUrl(), kBucket);
        const auto name = ownedBy(c, 0, "slow-");
        const auto idleConn = tests::openRaw(c, c.targetUrl(0));
        QVERIFY(idleConn);
        QTcpSocket& idle = *idleConn;
        idle.write("GET /v1/health?detail=true HTTP/1.1\r\nHost: t\r\n\r\n");
        QByteArray answer;
        QVERIFY(QTest::qWaitFor(
            [&] {
                answer += idle.readAll();
                return answer.contains("\"status\":\"ok\"");
            },
            5000));
        const std::size_t size = 1 << 20;
        const auto busyConn = startUpload(c, 0, name, size);
        QVERIFY(busyConn);
        QTcpSocket& busy = *busyConn;

        c.terminateTarget(0);
        QVERIFY(QTest::qWaitFor([&] { return c.smap().findTarget(c.targetId(0))->inMaintenance(); }, 3000));
        // The idle connection goes (after the redirect grace); the busy one stays.
        QVERIFY(QTest::qWaitFor([&] { return idle.state() == QAbstractSocket::UnconnectedState; }, 5000));
        QVERIFY(busy.state() == QAbstractSocket::ConnectedState);
        int code = -1;
        QVERIFY2(!c.waitForTargetExit(0, std::chrono::milliseconds(200), &code), "exited with a request in flight");

        const std::string body(size, 'd');
        busy.write(body.data(), static_cast<qint64>(body.size()));
        answer.clear();
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         answer += busy.readAll();
                         return answer.contains("\r\n\r\n");
                     },
                     10000),
                 (std::to_string(busy.bytesToWrite()) + " unsent, state " + std::to_string(busy.state()) + " " +
                  busy.errorString().toStdString())
                     .c_str());
        QVERIFY2(answer.startsWith("HTTP/1.1 200"), answer.constData());
        QVERIFY2(answer.contains("Connection: close"), answer.constData());
        QVERIFY(c.waitForTargetExit(0, std::chrono::seconds(10), &code));
        QCOMPARE(code, 0);
        QVERIFY2(c.targetLogTail(0).find("every request in flight was answered") != std::string::npos,
                 c.targetLogTail(0).c_str());

        QVERIFY(c.restartTarget(0));
        HttpClient http(noRetry());
        auto r = http.send(Method::Get, c.proxyUrl() + "/v1/objects/" + kBucket + "/" + name);
        QCOMPARE(r->status, 200);
        QVERIFY(r->body == body);
    }

    // drain_timeout_ms bounds the wait: a request that never finishes is
    // cut off and the target still exits 0. A second SIGTERM during a drain
    // exits at once.
    void drainIsBoundedSecondSignalExits()
    {
        tests::LocalCluster c{tests::LocalCluster::Options{1, 1, false, 200, 3, {}, {"--drain-timeout-ms", "1000"}}};
        QVERIFY2(c.start(), c.error().c_str());
        createBucket(c.proxyUrl(), kBucket);
        const auto stuck = startUpload(c, 0, ownedBy(c, 0, "stuck-"), 4096);
        QVERIFY(stuck);
        QElapsedTimer clock;
        clock.start();
        c.terminateTarget(0);
        int code = -1;
        QVERIFY(c.waitForTargetExit(0, std::chrono::seconds(10), &code));
        QCOMPARE(code, 0);
        QVERIFY2(clock.elapsed() >= 1000, "waited for the request in flight");
        QVERIFY2(c.targetLogTail(0).find("1 request(s) still in flight after 1000 ms") != std::string::npos,
                 c.targetLogTail(0).c_str());
        stuck->abort();

        // Again with a long bound, and a second signal.
        QVERIFY(c.restartTarget(0));
        const auto stuck2 = startUpload(c, 0, ownedBy(c, 0, "stuck-"), 4096);
        QVERIFY(stuck2);
        c.terminateTarget(0);
        QVERIFY(QTest::qWaitFor([&] { return c.smap().findTarget(c.targetId(0))->inMaintenance(); }, 3000));
        QVERIFY(QTest::qWaitFor([&] { return c.targetLogTail(0).find("draining") != std::string::npos; }, 3000));
        clock.restart();
        c.terminateTarget(0);
        QVERIFY(c.waitForTargetExit(0, std::chrono::seconds(5), &code));
        QCOMPARE(code, 0);
        QVERIFY2(clock.elapsed() < 900, "the second signal ends the drain at once");
        QVERIFY2(c.targetLogTail(0).find("during the drain: exiting now") != std::string::npos,
                 c.targetLogTail(0).c_str());
    }

    // Every target in turn: SIGTERM, exit 0, restart, under PUT/GET/DELETE.
    // Nothing acknowledged is lost, nothing fails but with a 503 naming a
    // target, and no rebalance runs (a restart changes no placement).
    void rollingRestartUnderMixedLoad()
    {
        tests::LocalCluster c{tests::LocalCluster::Options{
            3, 2, false, 300, 10, {"--rebalance-delay-ms", "0"}, {"--drain-timeout-ms", "10000"}}};
        QVERIFY2(c.start(), c.error().c_str());
        createBucket(c.proxyUrl(), kBucket);
        // The cluster's formation starts a rebalance; the restarts must not start another.
        const int formed = formationRebalances(c.proxyUrl(), 3);
        QVERIFY(formed > 0);
        Load load(c, 4, true);
        QVERIFY(load.advance(30));
        for (int i = 0; i < c.targetCount(); ++i) {
            // Keepalives would lapse after 3 s.
            QVERIFY2(drainTarget(c, i, std::chrono::milliseconds(1500), std::chrono::seconds(15)) >= 0,
                     c.targetId(i).c_str());
            QVERIFY(load.advance(10));
            QVERIFY(c.restartTarget(i));
            QVERIFY(c.waitForTargets(3, std::chrono::seconds(10)));
            QVERIFY(load.advance(10));
        }
        load.stop();
        load.verify(c.proxyUrl());
        QVERIFY2(load.tally().failures.empty(), load.tally().report().c_str());
        qInfo("%d operations, %d acknowledged writes and deletes, %d 503s naming a target", load.tally().ops.load(),
              load.tally().acked.load(), load.tally().unavailable.load());
        QVERIFY(load.tally().acked.load() > 0);
        QVERIFY(load.tally().unavailable.load() > 0);

        // A rebalance due would start within the coordinator's next rounds.
        QVERIFY(!QTest::qWaitFor([&] { return rebalances(c.proxyUrl()).count > formed; }, 1500));
    }

    // A bucket mirrored across targets (2 copies): while a target is drained
    // and down, every object reads back from the other holder and listings
    // are complete; writes of the names it holds answer 503 naming it; after
    // its return the reprotect runs and everything reads back as written.
    void mirroredBucketReadsThroughADrain()
    {
        tests::LocalCluster c{tests::LocalCluster::Options{3, 1, false, 300, 10, {"--rebalance-delay-ms", "0"}, {}}};
        QVERIFY2(c.start(), c.error().c_str());
        createBucket(c.proxyUrl(), kBucket);
        const int formed = formationRebalances(c.proxyUrl(), 3);
        QVERIFY(formed > 0);
        HttpClient http(noRetry());
        const json mirror{{"mirror", {{"enabled", true}, {"copies", 2}, {"across_targets", true}}}};
        auto r = http.send(Method::Patch, c.proxyUrl() + "/v1/buckets/" + kBucket,
                           Body::string(json{{"action", "set-bprops"}, {"value", mirror}}.dump()));
        QVERIFY2(r && r->status == 200, r ? r->body.c_str() : "");
        const auto pending = [&] {
            auto b = http.send(Method::Get, c.proxyUrl() + "/v1/cluster?what=bmd");
            return json::parse(b->body)["buckets"][kBucket]["mirror"].value("pending", true);
        };
        QVERIFY(QTest::qWaitFor([&] { return !pending(); }, 20000));

        std::map<std::string, std::string> data;
        for (int i = 0; i < 24; ++i) {
            const auto name = "m/o-" + std::to_string(i);
            data[name] = std::string(1024 + static_cast<std::size_t>(i) * 1000, static_cast<char>('a' + i % 26));
            const auto url = c.proxyUrl() + "/v1/objects/" + kBucket + "/" + name;
            QCOMPARE(http.send(Method::Put, url, Body::string(data[name]))->status, 200);
        }
        const auto id = c.targetId(1);
        QVERIFY(drainTarget(c, 1, std::chrono::milliseconds(1500), std::chrono::seconds(15)) >= 0);
        int refused = 0;
        for (auto& [name, bytes] : data) {
            const auto url = c.proxyUrl() + "/v1/objects/" + kBucket + "/" + name;
            r = http.send(Method::Get, url);
            QCOMPARE(r->status, 200);
            QVERIFY(r->body == bytes);
            r = http.send(Method::Put, url, Body::string("v2 " + name));
            if (r->status == 200) {
                bytes = "v2 " + name;
                continue;
            }
            QCOMPARE(r->status, 503);
            QVERIFY2(r->body.find("target " + id) != std::string::npos, r->body.c_str());
            QVERIFY2(r->body.find("in maintenance") != std::string::npos, r->body.c_str());
            ++refused;
        }
        QVERIFY2(refused > 0 && refused < static_cast<int>(data.size()), std::to_string(refused).c_str());
        r = http.send(Method::Get, c.proxyUrl() + "/v1/buckets/" + kBucket);
        QCOMPARE(r->status, 200);
        QCOMPARE(json::parse(r->body)["entries"].size(), data.size());

        QVERIFY(c.restartTarget(1));
        // The return starts a rebalance (with its reprotect) for the mirrored bucket.
        const int finishedBefore = rebalances(c.proxyUrl()).finishedOver(3);
        QVERIFY(QTest::qWaitFor(
            [&] {
                const auto r = rebalances(c.proxyUrl());
                return r.count == formed + 1 && !r.running;
            },
            20000));
        QCOMPARE(rebalances(c.proxyUrl()).finishedOver(3), finishedBefore + 1);
        for (const auto& [name, bytes] : data) {
            r = http.send(Method::Get, c.proxyUrl() + "/v1/objects/" + kBucket + "/" + name);
            QCOMPARE(r->status, 200);
            QVERIFY(r->body == bytes);
        }
    }

    // start-maintenance and stop-maintenance over REST and through the CLI,
    // with their refusals: 404 for an unknown id, 400 for the proxy's or a
    // bad value, 409 to stop one that is not running.
    void maintenanceActions()
    {
        tests::LocalCluster c{tests::LocalCluster::Options{2, 1, false, 200, 3, {}, {}}};
        QVERIFY2(c.start(), c.error().c_str());
        createBucket(c.proxyUrl(), kBucket);
        HttpClient http(noRetry());
        const auto cluster = c.proxyUrl() + "/v1/cluster";
        const auto t0 = c.targetId(0);
        const auto put = [&](const std::string& sid, const char* act) {
            return http.send(Method::Put, cluster, Body::string(action(act, sid)));
        };
        const auto message = [](const api::Result<client::Response>& r) {
            return json::parse(r->body).value("message", std::string());
        };

        auto r = put("nosuch", "start-maintenance");
        QCOMPARE(r->status, 404);
        QCOMPARE(message(r), std::string("target \"nosuch\" is not in the cluster map"));
        r = put(c.smap().primary.id, "start-maintenance");
        QCOMPARE(r->status, 400);
        QVERIFY2(message(r).find("is a proxy") != std::string::npos, r->body.c_str());
        r = http.send(Method::Put, cluster, Body::string(json{{"action", "start-maintenance"}}.dump()));
        QCOMPARE(r->status, 400);
        QCOMPARE(message(r), std::string("/value: must be a JSON object"));
        r = http.send(Method::Put, cluster, Body::string(action("start-maintenance", t0)),
                      {{"tessera-cluster-key", std::string(64, 'a')}});
        QCOMPARE(r->status, 403);

        // An object of t0's and the listing answer 503 naming it.
        const auto before = c.smap();
        std::string owned;
        for (int i = 0; owned.empty(); ++i) {
            const auto n = "m-" + std::to_string(i);
            if (api::hrwTarget(before, api::objectUname(kBucket, n))->id == t0) owned = n;
        }
        const auto obj = c.proxyUrl() + "/v1/objects/" + kBucket + "/" + owned;
        QCOMPARE(http.send(Method::Put, obj, Body::string("kept"))->status, 200);

        r = put(t0, "start-maintenance");
        QCOMPARE(r->status, 200);
        QCOMPARE(r->body, (json{{"smap_version", before.version + 1}}.dump()));
        auto smap = c.smap();
        QVERIFY(smap.findTarget(t0)->inMaintenance());
        QVERIFY(smap.findTarget(t0)->away());
        QVERIFY(!smap.findTarget(t0)->missedKeepalives());
        r = http.send(Method::Get, obj);
        QCOMPARE(r->status, 503);
        QVERIFY2(message(r).find("target " + t0) != std::string::npos, r->body.c_str());
        QVERIFY2(message(r).find("in maintenance") != std::string::npos, r->body.c_str());
        r = http.send(Method::Get, c.proxyUrl() + "/v1/buckets/" + kBucket);
        QCOMPARE(r->status, 503);
        QVERIFY2(message(r).find("listing incomplete: target " + t0) != std::string::npos, r->body.c_str());
        QVERIFY(message(r).find("in maintenance") != std::string::npos);
        // Twice is the same; a present target in maintenance cannot be decommissioned.
        r = put(t0, "start-maintenance");
        QCOMPARE(r->status, 200);
        QCOMPARE(json::parse(r->body)["smap_version"].get<std::int64_t>(), before.version + 1);
        QCOMPARE(put(t0, "decommission-node")->status, 409);
        // Its keepalives go on: it stays in maintenance, not away, and its id
        // cannot be taken over from another address.
        QVERIFY(!QTest::qWaitFor([&] { return c.smap().findTarget(t0)->missedKeepalives(); }, 1000));
        QFile keyFile(c.clusterKeyFile());
        QVERIFY(keyFile.open(QIODevice::ReadOnly));
        const json impostor{{"daemon_id", t0},
                            {"daemon_type", "target"},
                            {"public_net",
                             {{"node_ip_addr", "127.0.0.1"},
                              {"daemon_port", 9},
                              {"direct_url", std::string(c.tls() ? "https" : "http") + "://127.0.0.1:9"}}}};
        r = http.send(Method::Post, c.proxyUrl() + "/v1/cluster/join", Body::string(impostor.dump()),
                      {{"tessera-cluster-key", keyFile.readAll().trimmed().toStdString()}});
        QCOMPARE(r->status, 409);

        r = put(t0, "stop-maintenance");
        QCOMPARE(r->status, 200);
        QCOMPARE(json::parse(r->body)["smap_version"].get<std::int64_t>(), before.version + 2);
        QCOMPARE(c.smap().findTarget(t0)->flags, std::uint64_t{0});
        r = http.send(Method::Get, obj);
        QCOMPARE(r->status, 200);
        QCOMPARE(r->body, std::string("kept"));
        QCOMPARE(put("nosuch", "stop-maintenance")->status, 404);

        // The CLI: start, shown by cluster show, stop; its refusals exit 1.
        const auto cli = [&](const QStringList& args, QByteArray* out, QByteArray* err) {
            QProcess p;
            p.start(TESSERA_CLI_BINARY, QStringList{"--endpoint", QString::fromStdString(c.proxyUrl())} + args);
            if (!p.waitForFinished(20000)) return -1;
            if (out != nullptr) *out = p.readAllStandardOutput();
            if (err != nullptr) *err = p.readAllStandardError();
            return p.exitCode();
        };
        const auto t1 = QString::fromStdString(c.targetId(1));
        QByteArray out;
        QByteArray err;
        QCOMPARE(cli({"node", "maintenance", "start", t1}, &out, &err), 0);
        QVERIFY2(out.contains("is in maintenance"), out.constData());
        QCOMPARE(cli({"cluster", "show"}, &out, &err), 0);
        QVERIFY2(out.contains("target (maintenance)"), out.constData());
        QCOMPARE(cli({"node", "maintenance", "stop", t1}, &out, &err), 0);
        QVERIFY2(out.contains("is out of maintenance"), out.constData());
        QCOMPARE(cli({"cluster", "show"}, &out, &err), 0);
        QVERIFY(!out.contains("(maintenance)"));
        QCOMPARE(cli({"node", "maintenance", "start", "nosuch"}, &out, &err), 1);
        QVERIFY2(err.contains("not in the cluster map"), err.constData());
        QCOMPARE(cli({"node", "maintenance", "start", QString::fromStdString(c.smap().primary.id)}, &out, &err), 1);
        QVERIFY2(err.contains("is a proxy"), err.constData());
        QCOMPARE(cli({"node", "maintenance", "stop"}, &out, &err), 2);

        // A drained target is in maintenance and stopped: stopping its
        // maintenance is a 409 until it restarts, which clears the flag.
        QVERIFY(drainTarget(c, 1, std::chrono::milliseconds(2000), std::chrono::seconds(15)) >= 0);
        r = put(c.targetId(1), "stop-maintenance");
        QCOMPARE(r->status, 409);
        QVERIFY2(message(r).find("not sending keepalives") != std::string::npos, r->body.c_str());
        QCOMPARE(cli({"node", "maintenance", "stop", t1}, &out, &err), 1);
        QVERIFY2(err.contains("not sending keepalives"), err.constData());
        QVERIFY(c.smap().findTarget(c.targetId(1))->inMaintenance());
        QVERIFY(c.restartTarget(1));
        QCOMPARE(c.smap().findTarget(c.targetId(1))->flags, std::uint64_t{0});
    }
};

QTEST_GUILESS_MAIN(TestDrain)
#include "test_drain.moc"
