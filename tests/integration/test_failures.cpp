// Failures of real processes: a target killed mid-PUT, a target dropped from
// and rejoining the cluster map, a proxy restart.
#include "local_cluster.h"

#include "api/checksum.h"
#include "api/hrw.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTemporaryFile>
#include <QTest>
#include <atomic>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

using namespace tessera;
using tessera::client::Body;
using tessera::client::HttpClient;
using tessera::client::Method;

namespace {
int workFileCount(const std::vector<std::string>& mountpaths)
{
    int n = 0;
    for (const auto& mp : mountpaths) {
        n += static_cast<int>(QDir(QString::fromStdString(mp + "/.tessera/work")).entryList(QDir::Files).size());
    }
    return n;
}

// Work files a target process holds open: named ones in the work folders,
// and unnamed (O_TMPFILE) ones, which /proc shows as "<work folder>/#<inode> (deleted)".
int openWorkFiles(qint64 pid, const std::vector<std::string>& mountpaths)
{
    int n = workFileCount(mountpaths);
    const QDir fds(QString("/proc/%1/fd").arg(pid));
    for (const auto& fd : fds.entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::System)) {
        const auto target = QFileInfo(fds.filePath(fd)).symLinkTarget();
        if (target.contains("/.tessera/work/#")) ++n;
    }
    return n;
}
}  // namespace

class TestFailures : public QObject {
    Q_OBJECT

private:
    tests::LocalCluster m_cluster{tests::LocalCluster::Options{3, 2, false, 250, 3, {}}};
    HttpClient m_http;

    std::string objUrl(const std::string& name) { return m_cluster.proxyUrl() + "/v1/objects/fail/" + name; }
    int ownerIndex(const std::string& name)
    {
        const auto smap = m_cluster.smap();
        const auto* owner = api::hrwTarget(smap, api::objectUname("fail", name));
        for (int i = 0; i < m_cluster.targetCount(); ++i) {
            if (owner && m_cluster.targetId(i) == owner->id) return i;
        }
        return -1;
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        auto r = m_http.send(Method::Post, m_cluster.proxyUrl() + "/v1/buckets/fail",
                             Body::string(R"({"action":"create-bck"})"));
        QCOMPARE(r->status, 200);
    }

    void killTargetDuringLargePut()
    {
        const std::string name = "large/object.bin";
        const int owner = ownerIndex(name);
        QVERIFY(owner >= 0);
        // A previous complete version: must survive the interrupted overwrite.
        auto r = m_http.send(Method::Put, objUrl(name), Body::string("previous version"));
        QCOMPARE(r->status, 200);

        // 512 MiB file, streamed by a client thread while we kill the owner.
        QTemporaryFile big;
        QVERIFY(big.open());
        QVERIFY(big.resize(512LL << 20));
        big.close();
        std::atomic<bool> done{false};
        std::atomic<int> status{0};
        std::thread writer([&] {
            HttpClient::Options o;
            o.ioTimeout = std::chrono::seconds(20);
            HttpClient http(o);
            auto res = http.send(Method::Put, objUrl(name), Body::file(big.fileName().toStdString()));
            status = res ? res->status : -1;
            done = true;
        });
        // Wait until the work file is growing on the owner, then kill -9.
        const auto mps = m_cluster.targetMountpaths(owner);
        const auto pid = m_cluster.targetPid(owner);
        QVERIFY(QTest::qWaitFor([&] { return openWorkFiles(pid, mps) > 0 || done; }, 20000));
        QVERIFY2(!done, "the PUT finished before the target could be killed");
        m_cluster.killTarget(owner);
        writer.join();
        QVERIFY(status != 200);

        QVERIFY(m_cluster.restartTarget(owner));
        QVERIFY(m_cluster.waitForTargets(3, std::chrono::seconds(15)));
        // The leftover work file is gone, the old version is intact.
        QCOMPARE(workFileCount(mps), 0);
        QVERIFY(QTest::qWaitFor(
            [&] {
                auto g = m_http.send(Method::Get, objUrl(name));
                return g && g->status == 200;
            },
            10000));
        auto g = m_http.send(Method::Get, objUrl(name));
        QCOMPARE(g->body, std::string("previous version"));
        QCOMPARE(g->header("ais-checksum-value"), api::xxhash64Hex("previous version"));
    }

    void targetDroppedAndRejoins()
    {
        // Objects owned by target 1.
        std::vector<std::string> owned;
        for (int i = 0; owned.size() < 20 && i < 1000; ++i) {
            const auto n = "rejoin/obj-" + std::to_string(i);
            if (ownerIndex(n) == 1) owned.push_back(n);
        }
        QCOMPARE(owned.size(), std::size_t{20});
        for (const auto& n : owned) {
            auto r = m_http.send(Method::Put, objUrl(n), Body::string("data of " + n));
            QCOMPARE(r->status, 200);
        }
        const auto before = m_cluster.smap().version;
        m_cluster.killTarget(1);
        QElapsedTimer timer;
        timer.start();
        // 3 missed keepalives of 250 ms: away well within 3 s.
        QVERIFY(m_cluster.waitForTargets(2, std::chrono::seconds(3)));
        qInfo("target marked away after %lld ms", static_cast<long long>(timer.elapsed()));
        auto smap = m_cluster.smap();
        QVERIFY(smap.version > before);
        // It stays in the map, away, and still owns its objects.
        QVERIFY(smap.findTarget(m_cluster.targetId(1)) != nullptr);
        QVERIFY(smap.findTarget(m_cluster.targetId(1))->away());
        HttpClient::Options once;
        once.retriesOn503 = 0;
        HttpClient noRetry(once);
        auto unavailable = noRetry.send(Method::Get, objUrl(owned.front()));
        QCOMPARE(unavailable->status, 503);
        QVERIFY(unavailable->body.find(m_cluster.targetId(1)) != std::string::npos);

        QVERIFY(m_cluster.restartTarget(1));
        QVERIFY(m_cluster.waitForTargets(3, std::chrono::seconds(10)));
        QVERIFY(!m_cluster.smap().findTarget(m_cluster.targetId(1))->away());
        for (const auto& n : owned) {
            auto r = m_http.send(Method::Get, objUrl(n));
            QVERIFY(r);
            QVERIFY2(r->status == 200, (std::to_string(r->status) + " " + r->finalUrl + " " + r->body).c_str());
            QCOMPARE(r->body, "data of " + n);
        }
    }

    void recreatedBucketIsEmptyAfterDestroyWithTargetDown()
    {
        auto r = m_http.send(Method::Post, m_cluster.proxyUrl() + "/v1/buckets/phoenix",
                             Body::string(R"({"action":"create-bck"})"));
        QCOMPARE(r->status, 200);
        std::string owned;
        for (int i = 0; owned.empty() && i < 1000; ++i) {
            const auto n = "obj-" + std::to_string(i);
            const auto smap = m_cluster.smap();
            const auto* owner = api::hrwTarget(smap, api::objectUname("phoenix", n));
            if (owner->id == m_cluster.targetId(2)) owned = n;
        }
        QVERIFY(!owned.empty());
        r = m_http.send(Method::Put, m_cluster.proxyUrl() + "/v1/objects/phoenix/" + owned, Body::string("old"));
        QCOMPARE(r->status, 200);

        m_cluster.killTarget(2);
        QVERIFY(m_cluster.waitForTargets(2, std::chrono::seconds(5)));
        r = m_http.send(Method::Delete, m_cluster.proxyUrl() + "/v1/buckets/phoenix");
        QCOMPARE(r->status, 200);
        QVERIFY(m_cluster.restartTarget(2));
        QVERIFY(m_cluster.waitForTargets(3, std::chrono::seconds(10)));

        r = m_http.send(Method::Post, m_cluster.proxyUrl() + "/v1/buckets/phoenix",
                        Body::string(R"({"action":"create-bck"})"));
        QCOMPARE(r->status, 200);
        r = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/buckets/phoenix");
        QCOMPARE(r->status, 200);
        QCOMPARE(nlohmann::json::parse(r->body)["entries"].size(), std::size_t{0});
        r = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/objects/phoenix/" + owned);
        QCOMPARE(r->status, 404);
    }

    void objectsStayReachableWhenATargetJoins()
    {
        // Runs last but one: it leaves a fourth target in the cluster.
        auto r = m_http.send(Method::Post, m_cluster.proxyUrl() + "/v1/buckets/grow",
                             Body::string(R"({"action":"create-bck"})"));
        QCOMPARE(r->status, 200);
        constexpr int kObjects = 60;
        for (int i = 0; i < kObjects; ++i) {
            r = m_http.send(Method::Put, m_cluster.proxyUrl() + "/v1/objects/grow/o" + std::to_string(i),
                            Body::string("bytes of " + std::to_string(i)));
            QCOMPARE(r->status, 200);
        }
        const auto before = m_cluster.smap();
        QVERIFY(m_cluster.addTarget());
        const auto after = m_cluster.smap();
        int moved = 0;
        for (int i = 0; i < kObjects; ++i) {
            const auto uname = api::objectUname("grow", "o" + std::to_string(i));
            if (api::hrwTarget(before, uname)->id != api::hrwTarget(after, uname)->id) ++moved;
        }
        QVERIFY(moved > 0);  // some names now belong to the newcomer, which has none of them
        for (int i = 0; i < kObjects; ++i) {
            const auto url = m_cluster.proxyUrl() + "/v1/objects/grow/o" + std::to_string(i);
            r = m_http.send(Method::Get, url);
            QVERIFY(r);
            QCOMPARE(r->status, 200);
            QCOMPARE(r->body, "bytes of " + std::to_string(i));
            r = m_http.send(Method::Head, url);
            QCOMPARE(r->status, 200);
        }
        // A new write lands on the new owner; the listing shows each name once.
        r = m_http.send(Method::Put, m_cluster.proxyUrl() + "/v1/objects/grow/o0", Body::string("rewritten"));
        QCOMPARE(r->status, 200);
        r = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/objects/grow/o0");
        QCOMPARE(r->body, std::string("rewritten"));
        r = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/buckets/grow?pagesize=7");
        std::set<std::string> names;
        std::string token;
        for (int page = 0; page < 100; ++page) {
            r = m_http.send(Method::Get,
                            m_cluster.proxyUrl() + "/v1/buckets/grow?pagesize=7&continuation_token=" + token);
            auto j = nlohmann::json::parse(r->body);
            for (const auto& e : j["entries"]) QVERIFY(names.insert(e["name"].get<std::string>()).second);
            token = j["continuation_token"].get<std::string>();
            if (token.empty()) break;
        }
        QCOMPARE(static_cast<int>(names.size()), kObjects);
        // A name that exists nowhere is still a 404 (after asking the peers).
        r = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/objects/grow/never-written");
        QCOMPARE(r->status, 404);
        // Deleting a moved name removes the copy where it is.
        int movedIndex = -1;
        for (int i = 1; i < kObjects && movedIndex < 0; ++i) {
            const auto uname = api::objectUname("grow", "o" + std::to_string(i));
            if (api::hrwTarget(before, uname)->id != api::hrwTarget(after, uname)->id) movedIndex = i;
        }
        if (movedIndex > 0) {
            const auto url = m_cluster.proxyUrl() + "/v1/objects/grow/o" + std::to_string(movedIndex);
            r = m_http.send(Method::Delete, url);
            QCOMPARE(r->status, 200);
            r = m_http.send(Method::Get, url);
            QCOMPARE(r->status, 404);
        }
    }

    void proxyRestartKeepsBuckets()
    {
        for (const char* b : {"keep-a", "keep-b"}) {
            auto r = m_http.send(Method::Post, m_cluster.proxyUrl() + "/v1/buckets/" + b,
                                 Body::string(R"({"action":"create-bck"})"));
            QCOMPARE(r->status, 200);
        }
        auto r = m_http.send(Method::Put, m_cluster.proxyUrl() + "/v1/objects/keep-a/x", Body::string("kept"));
        QCOMPARE(r->status, 200);
        const auto smapBefore = m_cluster.smap().version;

        m_cluster.killProxy();
        QVERIFY(m_cluster.restartProxy());
        HttpClient fresh;
        r = fresh.send(Method::Get, m_cluster.proxyUrl() + "/v1/buckets");
        QCOMPARE(r->status, 200);
        auto list = nlohmann::json::parse(r->body);
        std::set<std::string> names;
        for (const auto& b : list) names.insert(b["name"].get<std::string>());
        QVERIFY(names.count("keep-a") && names.count("keep-b") && names.count("fail"));
        QVERIFY(m_cluster.waitForTargets(m_cluster.targetCount(), std::chrono::seconds(10)));
        QVERIFY(m_cluster.smap().version >= smapBefore);
        r = fresh.send(Method::Get, m_cluster.proxyUrl() + "/v1/objects/keep-a/x");
        QCOMPARE(r->status, 200);
        QCOMPARE(r->body, std::string("kept"));
    }
};

QTEST_GUILESS_MAIN(TestFailures)
#include "test_failures.moc"
