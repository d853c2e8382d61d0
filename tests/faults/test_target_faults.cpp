// Acknowledged data around target outages and placement changes, against
// real processes: an away owner answers 503 naming itself (never 404, never
// an interim copy), versions are totally ordered per object, a rebalance
// never replaces a newer version, a deletion is never undone, appends made
// during a placement change survive it, only nodes with the cluster key
// join, and a dead mountpath is disabled and named.
#include "local_cluster.h"
#include "raw_connection.h"

#include "api/checksum.h"
#include "api/hrw.h"
#include "client/api_client.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTcpSocket>
#include <QTest>
#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

using namespace tessera;
using nlohmann::json;
using tessera::client::Body;
using tessera::client::HttpClient;
using tessera::client::Method;

namespace {

constexpr const char* kBucket = "faults";

HttpClient::Options noRetry()
{
    HttpClient::Options o;
    o.retriesOn503 = 0;
    return o;
}

std::string content(const std::string& name, int version) { return "v" + std::to_string(version) + " of " + name; }

// Where (which mountpath of which target) an object's file is on disk.
int mountpathHolding(const tests::LocalCluster& c, int target, const std::string& bucket, const std::string& name)
{
    const auto mps = c.targetMountpaths(target);
    for (std::size_t m = 0; m < mps.size(); ++m) {
        if (QFile::exists(QString::fromStdString(mps[m] + "/buckets/" + bucket + "/" + name))) {
            return static_cast<int>(m);
        }
    }
    return -1;
}

}  // namespace

class TestTargetFaults : public QObject {
    Q_OBJECT

private:
    tests::LocalCluster m_cluster{tests::LocalCluster::Options{3, 2, false, 200, 3, {"--rebalance-auto", "false"}, {}}};
    HttpClient m_http{noRetry()};

    std::string objUrl(const std::string& name, const std::string& bucket = kBucket)
    {
        return m_cluster.proxyUrl() + "/v1/objects/" + bucket + "/" + name;
    }
    int ownerIndex(tests::LocalCluster& c, const std::string& bucket, const std::string& name)
    {
        const auto smap = c.smap();
        const auto* owner = api::hrwTarget(smap, api::objectUname(bucket, name));
        for (int i = 0; i < c.targetCount(); ++i) {
            if (owner && c.targetId(i) == owner->id) return i;
        }
        return -1;
    }
    std::vector<std::string> namesOwnedBy(tests::LocalCluster& c, const std::string& bucket, int target,
                                          const std::string& prefix, std::size_t n)
    {
        std::vector<std::string> out;
        for (int i = 0; out.size() < n && i < 10000; ++i) {
            const auto name = prefix + std::to_string(i);
            if (ownerIndex(c, bucket, name) == target) out.push_back(name);
        }
        return out;
    }
    json waitForJob(HttpClient& http, const std::string& proxy, const std::string& id)
    {
        json st;
        (void)QTest::qWaitFor(
            [&] {
                auto r = http.send(Method::Get, proxy + "/v1/jobs/" + id);
                if (!r || r->status != 200) return false;
                st = json::parse(r->body);
                return st["state"] != "running";
            },
            30000);
        return st;
    }
    static void createBucket(HttpClient& http, const std::string& proxy, const std::string& bucket)
    {
        auto r = http.send(Method::Post, proxy + "/v1/buckets/" + bucket,
                           Body::string(json{{"action", "create-bck"}}.dump()));
        QVERIFY(r);
        QCOMPARE(r->status, 200);
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        createBucket(m_http, m_cluster.proxyUrl(), kBucket);
    }

    // D9, D8, D3, D5: while an owner is away its objects answer 503 naming
    // it, for reads and writes; the listing says it is incomplete; nothing
    // is written elsewhere, so its return serves exactly what was acked.
    void awayOwnerAnswers503NamingIt()
    {
        const auto owned = namesOwnedBy(m_cluster, kBucket, 1, "away/o-", 12);
        const auto others = namesOwnedBy(m_cluster, kBucket, 2, "away/p-", 4);
        QCOMPARE(owned.size(), std::size_t{12});
        for (const auto& n : owned) {
            QCOMPARE(m_http.send(Method::Put, objUrl(n), Body::string(content(n, 1)))->status, 200);
        }
        for (const auto& n : others) {
            QCOMPARE(m_http.send(Method::Put, objUrl(n), Body::string(content(n, 1)))->status, 200);
        }
        const auto id = m_cluster.targetId(1);
        m_cluster.killTarget(1);
        QVERIFY(m_cluster.waitForTargets(2, std::chrono::seconds(5)));
        const auto smap = m_cluster.smap();
        QVERIFY2(smap.findTarget(id) != nullptr, "an away target stays in the map");
        QVERIFY(smap.findTarget(id)->away());

        for (const auto& n : owned) {
            for (auto m : {Method::Get, Method::Head, Method::Delete}) {
                auto r = m_http.send(m, objUrl(n));
                QVERIFY(r);
                QCOMPARE(r->status, 503);
                QVERIFY(!r->header("retry-after").empty());
                if (m != Method::Head) QVERIFY2(r->body.find(id) != std::string::npos, r->body.c_str());
            }
            auto put = m_http.send(Method::Put, objUrl(n), Body::string(content(n, 2)));
            QCOMPARE(put->status, 503);
        }
        // A client holding the map goes to a live target directly: it is told the same.
        auto direct = m_http.send(Method::Get, m_cluster.targetUrl(2) + "/v1/objects/" + kBucket + "/" + owned[0] +
                                                   "?smap_version=" + std::to_string(smap.version));
        QCOMPARE(direct->status, 503);
        QVERIFY(direct->body.find(id) != std::string::npos);
        // Objects of present targets are served all along.
        for (const auto& n : others) {
            auto r = m_http.send(Method::Get, objUrl(n));
            QCOMPARE(r->status, 200);
            QCOMPARE(r->body, content(n, 1));
        }
        auto list = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/buckets/" + kBucket + "?prefix=away/");
        QCOMPARE(list->status, 503);
        QVERIFY2(list->body.find("incomplete") != std::string::npos, list->body.c_str());
        QVERIFY(list->body.find(id) != std::string::npos);

        QVERIFY(m_cluster.restartTarget(1));
        QVERIFY(m_cluster.waitForTargets(3, std::chrono::seconds(10)));
        QVERIFY(!m_cluster.smap().findTarget(id)->away());
        for (const auto& n : owned) {
            auto r = m_http.send(Method::Get, objUrl(n));
            QCOMPARE(r->status, 200);
            QCOMPARE(r->body, content(n, 1));  // the acked version, not the refused one
        }
        list = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/buckets/" + kBucket + "?prefix=away/");
        QCOMPARE(list->status, 200);
        QCOMPARE(json::parse(list->body)["entries"].size(), owned.size() + others.size());
        // A deletion after the return is final.
        QCOMPARE(m_http.send(Method::Delete, objUrl(owned[0]))->status, 200);
        QCOMPARE(m_http.send(Method::Get, objUrl(owned[0]))->status, 404);
    }

    // An operator removes an away target for good: its names move to the
    // others (which have no copy: 404), and the map no longer lists it.
    void decommissionAnAwayTarget()
    {
        tests::LocalCluster c{tests::LocalCluster::Options{2, 1, false, 200, 3, {"--rebalance-auto", "false"}, {}}};
        QVERIFY2(c.start(), c.error().c_str());
        HttpClient http(noRetry());
        createBucket(http, c.proxyUrl(), "dec");
        const auto body = [](const std::string& sid) {
            return json{{"action", "decommission-node"}, {"value", {{"sid", sid}}}}.dump();
        };
        // Bad messages are 400s (a present target's planned move: test_drain).
        auto r = http.send(Method::Put, c.proxyUrl() + "/v1/cluster", Body::string(body("nosuch")));
        QCOMPARE(r->status, 404);
        r = http.send(Method::Put, c.proxyUrl() + "/v1/cluster",
                      Body::string(json{{"action", "decommission-node"}}.dump()));
        QCOMPARE(r->status, 400);
        r = http.send(
            Method::Put, c.proxyUrl() + "/v1/cluster",
            Body::string(json{{"action", "decommission-node"}, {"value", {{"sid", "x"}, {"colour", 1}}}}.dump()));
        QCOMPARE(r->status, 400);
        QVERIFY(r->body.find("colour") != std::string::npos);
        r = http.send(Method::Put, c.proxyUrl() + "/v1/cluster", Body::string(json{{"action", "explode"}}.dump()));
        QCOMPARE(r->status, 400);

        const auto gone = namesOwnedBy(c, "dec", 1, "d-", 1).front();
        QCOMPARE(http.send(Method::Put, c.proxyUrl() + "/v1/objects/dec/" + gone, Body::string("x"))->status, 200);
        c.killTarget(1);
        QVERIFY(c.waitForTargets(1, std::chrono::seconds(5)));
        QCOMPARE(http.send(Method::Get, c.proxyUrl() + "/v1/objects/dec/" + gone)->status, 503);
        // The operator's command: tessera cluster decommission ID.
        QProcess cli;
        cli.start(TESSERA_CLI_BINARY, {"--endpoint", QString::fromStdString(c.proxyUrl()), "cluster", "decommission",
                                       QString::fromStdString(c.targetId(1))});
        QVERIFY(cli.waitForFinished(20000));
        QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
        QVERIFY(cli.readAllStandardOutput().contains("removed from the cluster map"));
        QCOMPARE(c.smap().tmap.size(), std::size_t{1});
        // Once more: it is unknown now (the C++ client says NotFound).
        QCOMPARE(client::Client(c.proxyUrl()).decommissionNode(c.targetId(1)).kind(), api::ErrorKind::NotFound);
        QCOMPARE(http.send(Method::Get, c.proxyUrl() + "/v1/objects/dec/" + gone)->status, 404);
        QCOMPARE(http.send(Method::Get, c.proxyUrl() + "/v1/buckets/dec")->status, 200);
    }

    // D14: concurrent PUTs of one new name get distinct, consecutive versions.
    void concurrentPutsGetDistinctVersions()
    {
        const std::string name = "versions/one";
        constexpr int kWriters = 8;
        std::mutex mutex;
        std::vector<std::string> versions;
        std::vector<std::thread> threads;
        for (int i = 0; i < kWriters; ++i) {
            threads.emplace_back([&, i] {
                HttpClient http;
                auto r = http.send(Method::Put, objUrl(name), Body::string(content(name, i)));
                std::lock_guard lock(mutex);
                versions.push_back(r && r->status == 200 ? r->header("ais-version") : "failed");
            });
        }
        for (auto& t : threads) t.join();
        std::set<std::string> distinct(versions.begin(), versions.end());
        QCOMPARE(distinct.size(), std::size_t{kWriters});
        for (int v = 1; v <= kWriters; ++v) QVERIFY2(distinct.count(std::to_string(v)), std::to_string(v).c_str());
        auto head = m_http.send(Method::Head, objUrl(name));
        QCOMPARE(head->header("ais-version"), std::to_string(kWriters));
    }

    // D1: a delivered copy (rebalance) that started before a client's PUT
    // and finishes after it must not replace it: decided at commit.
    void deliveredCopyNeverRevertsANewerWrite()
    {
        const std::string name = "race/obj";
        const int owner = ownerIndex(m_cluster, kBucket, name);
        QCOMPARE(m_http.send(Method::Put, objUrl(name), Body::string("old version"))->status, 200);
        auto head = m_http.send(Method::Head, objUrl(name));
        const auto oldStamp = head->header("tessera-version-stamp");
        QVERIFY(!oldStamp.empty());
        const std::string body(256 * 1024, 'o');
        // A peer starts delivering an old copy (the stamp of the old version
        // with a different body would be refused for its checksum: send none).
        const auto raw = tests::openRaw(m_cluster, m_cluster.targetUrl(owner));
        QVERIFY(raw);
        QTcpSocket& s = *raw;
        const auto smapVersion = m_cluster.smap().version;
        const std::string headText = "PUT /v1/objects/" + std::string(kBucket) + "/" + name +
                                     "?rebalance=true&smap_version=" + std::to_string(smapVersion) +
                                     " HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) +
                                     "\r\nais-version: 1\r\ntessera-version-stamp: " + oldStamp + "\r\n\r\n";
        s.write(headText.data(), static_cast<qint64>(headText.size()));
        s.write(body.data(), static_cast<qint64>(body.size() / 2));
        QVERIFY(s.waitForBytesWritten(5000));
        // Meanwhile a client overwrites the object, and is acknowledged.
        auto put = m_http.send(Method::Put, objUrl(name), Body::string("new version"));
        QCOMPARE(put->status, 200);
        // The delivery completes: the owner keeps the client's version.
        s.write(body.data() + body.size() / 2, static_cast<qint64>(body.size() - body.size() / 2));
        QByteArray answer;
        QVERIFY(QTest::qWaitFor(
            [&] {
                s.waitForReadyRead(50);
                answer += s.readAll();
                return answer.contains("\r\n\r\n");
            },
            5000));
        QVERIFY2(answer.startsWith("HTTP/1.1 200"), answer.constData());
        QVERIFY2(answer.toLower().contains("tessera-transfer: superseded"), answer.constData());
        auto get = m_http.send(Method::Get, objUrl(name));
        QCOMPARE(get->body, std::string("new version"));
        QCOMPARE(get->header("ais-version"), std::string("2"));

        // A delivery without a version stamp is refused outright.
        auto forged = m_http.send(
            Method::Put, m_cluster.targetUrl(owner) + "/v1/objects/" + kBucket + "/" + name + "?rebalance=true",
            Body::string("forged"));
        QCOMPARE(forged->status, 400);
    }

    // D2, D3 and the tombstones: appends and deletions made while a
    // placement change is not yet rebalanced survive the rebalance.
    void appendsAndDeletesSurviveAPlacementChange()
    {
        tests::LocalCluster c{tests::LocalCluster::Options{2, 1, false, 200, 3, {"--rebalance-auto", "false"}, {}}};
        QVERIFY2(c.start(), c.error().c_str());
        HttpClient http(noRetry());
        createBucket(http, c.proxyUrl(), "move");
        const auto obj = [&](const std::string& n) { return c.proxyUrl() + "/v1/objects/move/" + n; };
        std::vector<std::string> shards, loose;
        for (int i = 0; i < 24; ++i) shards.push_back("shard-" + std::to_string(i) + ".tar");
        for (int i = 0; i < 24; ++i) loose.push_back("loose-" + std::to_string(i));
        for (const auto& s : shards) {
            for (int m = 0; m < 3; ++m) {
                auto r = http.send(Method::Put, obj(s) + "?archpath=m" + std::to_string(m) + ".txt",
                                   Body::string(s + " member " + std::to_string(m)));
                QCOMPARE(r->status, 200);
            }
        }
        for (const auto& n : loose) QCOMPARE(http.send(Method::Put, obj(n), Body::string(n))->status, 200);
        QVERIFY(c.addTarget());
        // Names now owned by the newcomer, which holds none of them yet.
        std::vector<std::string> movedShards, movedLoose;
        for (const auto& s : shards) {
            if (ownerIndex(c, "move", s) == 2) movedShards.push_back(s);
        }
        for (const auto& n : loose) {
            if (ownerIndex(c, "move", n) == 2) movedLoose.push_back(n);
        }
        QVERIFY(!movedShards.empty());
        QVERIFY(!movedLoose.empty());
        for (const auto& s : shards) {
            auto r = http.send(Method::Put, obj(s) + "?archpath=m3.txt", Body::string(s + " member 3"));
            QCOMPARE(r->status, 200);
        }
        for (const auto& n : movedLoose) QCOMPARE(http.send(Method::Delete, obj(n))->status, 200);
        for (const auto& n : movedLoose) QCOMPARE(http.send(Method::Get, obj(n))->status, 404);

        auto r = http.send(Method::Post, c.proxyUrl() + "/v1/jobs", Body::string(json{{"kind", "rebalance"}}.dump()));
        QCOMPARE(r->status, 200);
        const auto st = waitForJob(http, c.proxyUrl(), json::parse(r->body)["id"].get<std::string>());
        QCOMPARE(st["state"].get<std::string>(), std::string("finished"));
        for (const auto& s : shards) {
            for (int m = 0; m < 4; ++m) {
                auto g = http.send(Method::Get, obj(s) + "?archpath=m" + std::to_string(m) + ".txt");
                QVERIFY2(g->status == 200, (s + " m" + std::to_string(m) + ": " + g->body).c_str());
                QCOMPARE(g->body, s + " member " + std::to_string(m));
            }
        }
        for (const auto& n : movedLoose) {
            QCOMPARE(http.send(Method::Get, obj(n))->status, 404);
            for (int t = 0; t < c.targetCount(); ++t) QCOMPARE(mountpathHolding(c, t, "move", n), -1);
        }
        auto list = http.send(Method::Get, c.proxyUrl() + "/v1/buckets/move?prefix=loose-");
        QCOMPARE(list->status, 200);
        QCOMPARE(json::parse(list->body)["entries"].size(), loose.size() - movedLoose.size());
    }

    // D4: joining, keepalives and metadata pushes need the cluster key; an
    // id cannot be taken over while its target is alive.
    void onlyKeyHoldersJoin()
    {
        QFile keyFile(m_cluster.clusterKeyFile());
        QVERIFY(keyFile.open(QIODevice::ReadOnly));
        const auto key = keyFile.readAll().trimmed().toStdString();
        QVERIFY(key.size() >= 32);
        const auto before = m_cluster.smap();
        const std::string rogue =
            json{{"daemon_id", "trogue"},
                 {"daemon_type", "target"},
                 {"public_net",
                  {{"node_ip_addr", "127.0.0.1"},
                   {"daemon_port", 9},
                   {"direct_url", std::string(m_cluster.tls() ? "https" : "http") + "://127.0.0.1:9"}}}}
                .dump();
        const auto join = m_cluster.proxyUrl() + "/v1/cluster/join";
        auto r = m_http.send(Method::Post, join, Body::string(rogue));
        QCOMPARE(r->status, 403);
        r = m_http.send(Method::Post, join, Body::string(rogue), {{"tessera-cluster-key", std::string(64, 'a')}});
        QCOMPARE(r->status, 403);
        // With the key, a live target's id at another address is refused.
        auto takeover = json::parse(rogue);
        takeover["daemon_id"] = m_cluster.targetId(0);
        r = m_http.send(Method::Post, join, Body::string(takeover.dump()), {{"tessera-cluster-key", key}});
        QCOMPARE(r->status, 409);
        r = m_http.send(Method::Post, m_cluster.proxyUrl() + "/v1/cluster/keepalive",
                        Body::string(json{{"daemon_id", m_cluster.targetId(0)}}.dump()));
        QCOMPARE(r->status, 403);
        // A target takes a new map only from the key holder.
        json forged = before;
        forged["version"] = before.version + 100;
        forged["tmap"].erase(m_cluster.targetId(0));
        r = m_http.send(Method::Put, m_cluster.targetUrl(0) + "/v1/metasync",
                        Body::string(json{{"smap", forged}}.dump()));
        QCOMPARE(r->status, 403);
        const auto after = m_cluster.smap();
        QCOMPARE(after.version, before.version);
        QVERIFY(after.tmap == before.tmap);
        auto snode = m_http.send(Method::Get, m_cluster.targetUrl(0) + "/v1/daemon?what=smap");
        QCOMPARE(json::parse(snode->body)["version"].get<std::string>(),
                 std::to_string(before.version));  // AIStore: a string
        // The key is not shown by the configuration endpoint.
        auto cfg = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/daemon?what=config&format=tessera");
        QVERIFY(cfg->body.find(key) == std::string::npos);
    }

    // D7: a mountpath whose directory is replaced by a file is disabled:
    // its objects answer 503 naming it, the others are served, the listing
    // is a 503 naming it (never a 500 or a silently short page), and the
    // node's statistics show it.
    void deadMountpathIsDisabledAndNamed()
    {
        tests::LocalCluster c{tests::LocalCluster::Options{1, 2, false, 200, 3, {}, {}}};
        QVERIFY2(c.start(), c.error().c_str());
        HttpClient http(noRetry());
        createBucket(http, c.proxyUrl(), "disk");
        std::vector<std::string> onMp[2];
        for (int i = 0; i < 40; ++i) {
            const auto n = "d/o-" + std::to_string(i);
            QCOMPARE(http.send(Method::Put, c.proxyUrl() + "/v1/objects/disk/" + n, Body::string(n))->status, 200);
            const int mp = mountpathHolding(c, 0, "disk", n);
            QVERIFY(mp >= 0);
            onMp[mp].push_back(n);
        }
        QVERIFY(!onMp[0].empty() && !onMp[1].empty());
        const auto dead = QString::fromStdString(c.targetMountpaths(0)[1]);
        QVERIFY(QDir().rename(dead, dead + ".gone"));
        QFile blocker(dead);
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();

        for (const auto& n : onMp[1]) {
            auto r = http.send(Method::Get, c.proxyUrl() + "/v1/objects/disk/" + n);
            QCOMPARE(r->status, 503);
            QVERIFY2(r->body.find("mountpath") != std::string::npos, r->body.c_str());
            QVERIFY(r->body.find(dead.toStdString()) != std::string::npos);
            QCOMPARE(http.send(Method::Put, c.proxyUrl() + "/v1/objects/disk/" + n, Body::string("x"))->status, 503);
            QCOMPARE(http.send(Method::Delete, c.proxyUrl() + "/v1/objects/disk/" + n)->status, 503);
        }
        for (const auto& n : onMp[0]) {
            auto r = http.send(Method::Get, c.proxyUrl() + "/v1/objects/disk/" + n);
            QCOMPARE(r->status, 200);
            QCOMPARE(r->body, n);
        }
        auto list = http.send(Method::Get, c.proxyUrl() + "/v1/buckets/disk");
        QCOMPARE(list->status, 503);
        QVERIFY(list->body.find(dead.toStdString()) != std::string::npos);
        auto stats = http.send(Method::Get, c.targetUrl(0) + "/v1/daemon?what=node_stats");
        QCOMPARE(stats->status, 200);
        const auto mps = json::parse(stats->body)["mountpaths"];
        bool named = false;
        for (const auto& mp : mps) {
            if (mp["path"] == dead.toStdString()) {
                named = mp["state"] == "error" && mp["error"].get<std::string>().find("disabled") != std::string::npos;
            }
        }
        QVERIFY2(named, stats->body.c_str());

        // The disk comes back; after a restart every object is there.
        QVERIFY(QFile::remove(dead));
        QVERIFY(QDir().rename(dead + ".gone", dead));
        c.killTarget(0);
        QVERIFY(c.restartTarget(0));
        QVERIFY(c.waitForTargets(1, std::chrono::seconds(10)));
        for (const auto& part : onMp) {
            for (const auto& n : part) {
                auto r = http.send(Method::Get, c.proxyUrl() + "/v1/objects/disk/" + n);
                QCOMPARE(r->status, 200);
                QCOMPARE(r->body, n);
            }
        }
        list = http.send(Method::Get, c.proxyUrl() + "/v1/buckets/disk");
        QCOMPARE(list->status, 200);
        QCOMPARE(json::parse(list->body)["entries"].size(), std::size_t{40});
    }
};

QTEST_GUILESS_MAIN(TestTargetFaults)
#include "test_target_faults.moc"
