// A listing waits for a target that is slow to answer its page (a first page
// walks all of a target's names: seconds for millions) up to the proxy's
// list_timeout_ms, not the peer timeout; past it, the page is a 503 naming
// the target. The slow target is a stopped process: the kernel still takes
// the proxy's connection, the answer comes when it resumes.
#include "local_cluster.h"

#include <QElapsedTimer>
#include <QScopeGuard>
#include <QTest>
#include <csignal>
#include <nlohmann/json.hpp>
#include <set>
#include <sys/types.h>
#include <thread>

using namespace tessera;
using tessera::client::Body;
using tessera::client::HttpClient;
using tessera::client::Method;

namespace {

constexpr int kObjects = 40;

// keepalives of 300 ms, 40 missed before a target is away: a target stopped
// for a few seconds stays present, so the listing asks it.
tests::LocalCluster::Options clusterOptions(QStringList proxyArgs)
{
    tests::LocalCluster::Options o;
    o.targets = 2;
    o.keepaliveMs = 300;
    o.maxMissed = 40;
    o.extraProxyArgs = std::move(proxyArgs);
    return o;
}

HttpClient noRetry()
{
    HttpClient::Options o;
    o.retriesOn503 = 0;
    return HttpClient(o);
}

bool fill(tests::LocalCluster& cluster)
{
    HttpClient http;
    auto r =
        http.send(Method::Post, cluster.proxyUrl() + "/v1/buckets/slow", Body::string(R"({"action":"create-bck"})"));
    if (!r || r->status != 200) return false;
    for (int i = 0; i < kObjects; ++i) {
        auto p =
            http.send(Method::Put, cluster.proxyUrl() + "/v1/objects/slow/obj-" + std::to_string(i), Body::string("x"));
        if (!p || p->status != 200) return false;
    }
    return true;
}

}  // namespace

class TestListTimeout : public QObject {
    Q_OBJECT

private slots:
    void slowTargetIsWaitedFor()
    {
        // The peer timeout is 3 s (LocalCluster); the target answers after 4 s.
        tests::LocalCluster cluster(clusterOptions({}));
        QVERIFY2(cluster.start(), cluster.error().c_str());
        QVERIFY(fill(cluster));
        const auto pid = static_cast<pid_t>(cluster.targetPid(0));
        QVERIFY(cluster.stopTarget(0));
        auto resume = qScopeGuard([pid] { ::kill(pid, SIGCONT); });
        std::thread waker([pid] {
            std::this_thread::sleep_for(std::chrono::milliseconds(4000));
            ::kill(pid, SIGCONT);
        });
        QElapsedTimer t;
        t.start();
        auto r = noRetry().send(Method::Get, cluster.proxyUrl() + "/v1/buckets/slow?pagesize=1000");
        const auto ms = t.elapsed();
        waker.join();
        QVERIFY2(r, r ? "" : r.error().message.c_str());
        QVERIFY2(r->status == 200, r->body.c_str());
        QVERIFY2(ms >= 3500, std::to_string(ms).c_str());  // it did wait for the stopped target
        const auto page = nlohmann::json::parse(r->body);
        std::set<std::string> names;
        for (const auto& e : page["entries"]) names.insert(e["name"].get<std::string>());
        QCOMPARE(names.size(), std::size_t{kObjects});
        QCOMPARE(page.value("continuation_token", std::string()), std::string());
    }

    void listTimeoutBoundsTheWait()
    {
        tests::LocalCluster cluster(clusterOptions({"--list-timeout-ms", "1000"}));
        QVERIFY2(cluster.start(), cluster.error().c_str());
        QVERIFY(fill(cluster));
        const auto pid = static_cast<pid_t>(cluster.targetPid(1));
        QVERIFY(cluster.stopTarget(1));
        auto resume = qScopeGuard([pid] { ::kill(pid, SIGCONT); });
        QElapsedTimer t;
        t.start();
        auto r = noRetry().send(Method::Get, cluster.proxyUrl() + "/v1/buckets/slow?pagesize=1000");
        const auto ms = t.elapsed();
        QVERIFY2(r, r ? "" : r.error().message.c_str());
        QCOMPARE(r->status, 503);
        QVERIFY2(ms >= 900 && ms < 2900, std::to_string(ms).c_str());
        const auto body = nlohmann::json::parse(r->body);
        const auto message = body["message"].get<std::string>();
        QVERIFY2(message.find("listing incomplete") != std::string::npos, message.c_str());
        QVERIFY2(message.find(cluster.targetId(1)) != std::string::npos, message.c_str());
        // Resumed: the same listing is whole again.
        QCOMPARE(::kill(pid, SIGCONT), 0);
        auto again = noRetry().send(Method::Get, cluster.proxyUrl() + "/v1/buckets/slow?pagesize=1000");
        QVERIFY2(again && again->status == 200, again ? again->body.c_str() : again.error().message.c_str());
        QCOMPARE(nlohmann::json::parse(again->body)["entries"].size(), std::size_t{kObjects});
    }
};

QTEST_GUILESS_MAIN(TestListTimeout)
#include "test_list_timeout.moc"
