// The typed client in direct mode: object calls skip the proxy, and a stale
// cached map falls back to redirects or the proxy without failing the call.
#include "local_cluster.h"

#include "api/hrw.h"
#include "client/api_client.h"

#include <QTest>
#include <nlohmann/json.hpp>

using namespace tessera;

class TestClientDirect : public QObject {
    Q_OBJECT

private:
    tests::LocalCluster m_cluster{tests::LocalCluster::Options{3, 1, false, 250, 3, {}}};

    std::int64_t proxyRequests()
    {
        client::HttpClient http;
        auto r = http.send(client::Method::Get, m_cluster.proxyUrl() + "/v1/daemon?what=node_stats");
        return r ? nlohmann::json::parse(r->body).value("requests", std::int64_t{-1}) : -1;
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        client::Client c(m_cluster.proxyUrl());
        QVERIFY(c.createBucket("direct").ok());
    }

    void objectCallsSkipTheProxy()
    {
        client::Client c(m_cluster.proxyUrl());
        c.setDirect(true);
        const auto before = proxyRequests();
        for (int i = 0; i < 50; ++i) {
            const auto name = "d/" + std::to_string(i);
            QVERIFY(c.putObject("direct", name, "payload " + std::to_string(i)).ok());
            auto got = c.getObject("direct", name);
            QVERIFY(got.ok());
            QCOMPARE(*got, "payload " + std::to_string(i));
            auto head = c.headObject("direct", name);
            QVERIFY(head.ok());
            QCOMPARE(head->size, static_cast<std::int64_t>(got->size()));
        }
        QVERIFY(c.deleteObject("direct", "d/0").ok());
        QCOMPARE(c.headObject("direct", "d/0").kind(), api::ErrorKind::NotFound);
        // 200 object calls. Through the proxy that would be 200 more requests
        // there; directly, the proxy sees the map fetch and the targets'
        // keepalives (12 a second here) only.
        const auto after = proxyRequests();
        QVERIFY2(after - before < 100, qPrintable(QString("proxy saw %1 requests").arg(after - before)));
        // A proxy-mode client of the same objects agrees.
        client::Client viaProxy(m_cluster.proxyUrl());
        QCOMPARE(*viaProxy.getObject("direct", "d/7"), std::string("payload 7"));
    }

    void staleMapFallsBack()
    {
        client::Client c(m_cluster.proxyUrl());
        c.setDirect(true);
        QVERIFY(c.putObject("direct", "warmup", "x").ok());  // caches the 3-target map
        // An object whose owner is about to disappear.
        const auto smap = m_cluster.smap();
        std::string name;
        for (int i = 0; name.empty() && i < 1000; ++i) {
            const auto n = "stale/" + std::to_string(i);
            if (api::hrwTarget(smap, api::objectUname("direct", n))->id == m_cluster.targetId(0)) name = n;
        }
        QVERIFY(!name.empty());
        m_cluster.killTarget(0);
        QVERIFY(m_cluster.waitForTargets(2, std::chrono::seconds(5)));
        // The cached owner is away: the call goes through the proxy, which
        // names it; nothing is written anywhere else.
        auto put = c.putObject("direct", name, "rerouted");
        QVERIFY(!put.ok());
        QCOMPARE(put.error().kind, api::ErrorKind::Unavailable);
        QVERIFY2(put.error().message.find(m_cluster.targetId(0)) != std::string::npos, put.error().message.c_str());

        // The target comes back: a client holding the map that marks it away
        // goes through the proxy, and the bytes are right.
        client::Client old(m_cluster.proxyUrl());
        old.setDirect(true);
        std::string warm;  // a name a present target owns
        for (int i = 0; warm.empty() && i < 1000; ++i) {
            const auto n = "warmup2-" + std::to_string(i);
            if (api::hrwTarget(smap, api::objectUname("direct", n))->id != m_cluster.targetId(0)) warm = n;
        }
        QVERIFY(old.putObject("direct", warm, "y").ok());  // caches the map with target 0 away
        QVERIFY(m_cluster.restartTarget(0));
        QVERIFY(m_cluster.waitForTargets(3, std::chrono::seconds(10)));
        QVERIFY(old.putObject("direct", "after-rejoin/" + name, "fresh").ok());
        QCOMPARE(*old.getObject("direct", "after-rejoin/" + name), std::string("fresh"));
        client::Client viaProxy(m_cluster.proxyUrl());
        QCOMPARE(*viaProxy.getObject("direct", "after-rejoin/" + name), std::string("fresh"));
    }
};

QTEST_GUILESS_MAIN(TestClientDirect)
#include "test_client_direct.moc"
