// The HTTP server's limits, seen from a raw socket: connection cap, header
// size, malformed requests, body limits, keep-alive with pipelining.
#include "local_cluster.h"
#include "raw_connection.h"

#include <QElapsedTimer>
#include <QTcpSocket>
#include <QTest>
#include <memory>
#include <nlohmann/json.hpp>

using namespace tessera;

class TestServerLimits : public QObject {
    Q_OBJECT

private:
    tests::LocalCluster m_cluster{tests::LocalCluster::Options{
        1, 1, false, 300, 3, {"--max-connections", "4", "--max-connections-per-address", "4"}}};
    quint16 m_port = 0;

    // A raw connection to the proxy (TLS with the cluster's CA on a TLS cluster).
    std::unique_ptr<QTcpSocket> connectRaw() { return tests::openRaw(m_cluster, "127.0.0.1", m_port); }
    // Reads until the peer closes or `until` appears; returns what arrived.
    QByteArray readAnswer(QTcpSocket& s, const QByteArray& until = {}, int ms = 5000)
    {
        QByteArray got;
        (void)QTest::qWaitFor(
            [&] {
                s.waitForReadyRead(50);
                got += s.readAll();
                return (!until.isEmpty() && got.contains(until)) || s.state() == QAbstractSocket::UnconnectedState;
            },
            ms);
        return got + s.readAll();
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        m_port = static_cast<quint16>(QString::fromStdString(m_cluster.proxyUrl()).section(':', -1).toUInt());
    }

    void malformedRequestIs400()
    {
        auto s = connectRaw();
        QVERIFY(s);
        s->write("THIS IS NOT HTTP\r\n\r\n");
        const auto ans = readAnswer(*s);
        QVERIFY2(ans.startsWith("HTTP/1.1 400"), ans.constData());
        QVERIFY(ans.contains("\"status\":400"));
    }

    void oversizedHeaderIs431()
    {
        auto s = connectRaw();
        QVERIFY(s);
        s->write("GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: " + QByteArray(20000, 'a') + "\r\n\r\n");
        const auto ans = readAnswer(*s);
        QVERIFY2(ans.startsWith("HTTP/1.1 431 Request Header Fields Too Large"), ans.left(200).constData());
        QVERIFY(ans.contains("\"status\":431"));
    }

    // The request line and the fields each under 16 KiB, the head over it.
    void oversizedHeadInTwoHalvesIs431()
    {
        auto s = connectRaw();
        QVERIFY(s);
        s->write("GET /v1/health?pad=" + QByteArray(10000, 'p') +
                 " HTTP/1.1\r\nHost: x\r\nX-Big: " + QByteArray(10000, 'a') + "\r\n\r\n");
        const auto ans = readAnswer(*s);
        QVERIFY2(ans.startsWith("HTTP/1.1 431 Request Header Fields Too Large"), ans.left(200).constData());
        QVERIFY(ans.contains("\"status\":431"));
    }

    void createBucketBodyIsChecked()
    {
        client::HttpClient http;
        const auto url = m_cluster.proxyUrl() + "/v1/buckets/strict";
        // Control bodies over 1 MiB are 413, even where the route takes more
        // (the archive action's list of names).
        const std::string big =
            nlohmann::json{{"action", "create-bck"}, {"name", std::string(std::size_t{1} << 20, 'n')}}.dump();
        auto r = http.send(client::Method::Post, url, client::Body::string(big));
        QCOMPARE(r->status, 413);
        r = http.send(client::Method::Post, url,
                      client::Body::string(nlohmann::json{{"action", "create-bck"}, {"colour", "blue"}}.dump()));
        QCOMPARE(r->status, 400);
        QVERIFY2(r->body.find("colour") != std::string::npos, r->body.c_str());
        r = http.send(
            client::Method::Post, url,
            client::Body::string(
                nlohmann::json{{"action", "create-bck"}, {"value", {{"checksum", {{"type", "md5"}}}}}}.dump()));
        QCOMPARE(r->status, 400);
        r = http.send(client::Method::Head, url);
        QCOMPARE(r->status, 404);  // nothing was created
        r = http.send(client::Method::Post, url, client::Body::string(nlohmann::json{{"action", "create-bck"}}.dump()));
        QCOMPARE(r->status, 200);
    }

    void oversizedControlBodyIs413()
    {
        auto s = connectRaw();
        QVERIFY(s);
        // Past the 16 MiB that bucket actions (an archive action listing names) may take.
        s->write("POST /v1/buckets/huge HTTP/1.1\r\nHost: x\r\nContent-Length: 17000000\r\n\r\n");
        const auto ans = readAnswer(*s);
        QVERIFY2(ans.startsWith("HTTP/1.1 413"), ans.left(200).constData());
        client::HttpClient http;
        auto r = http.send(client::Method::Head, m_cluster.proxyUrl() + "/v1/buckets/huge");
        QCOMPARE(r->status, 404);  // nothing was created
    }

    void pipelinedKeepAlive()
    {
        auto s = connectRaw();
        QVERIFY(s);
        s->write("GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/nowhere HTTP/1.1\r\nHost: x\r\n\r\n");
        const auto ans = readAnswer(*s, "no such endpoint");
        QCOMPARE(ans.count("HTTP/1.1 "), 2);
        QVERIFY(ans.startsWith("HTTP/1.1 200"));
        QVERIFY(ans.contains("HTTP/1.1 404"));
        QCOMPARE(s->state(), QAbstractSocket::ConnectedState);  // still open
    }

    void connectionCap()
    {
        // Hold four live keep-alive connections (a target's keepalive may
        // briefly take a slot: a refused one is simply opened again).
        // Refused attempts are retried for up to 10 s, a little apart: a
        // burst of them could all fall within one keepalive's slot.
        std::vector<std::unique_ptr<QTcpSocket>> held;
        QElapsedTimer since;
        since.start();
        while (held.size() < 4 && since.elapsed() < 10000) {
            auto s = connectRaw();
            QVERIFY(s);
            s->write("GET /v1/health?detail=true HTTP/1.1\r\nHost: x\r\n\r\n");
            const auto ans = readAnswer(*s, "\"status\":\"ok\"");
            if (ans.startsWith("HTTP/1.1 200") && s->state() == QAbstractSocket::ConnectedState) {
                held.push_back(std::move(s));
            } else {
                QTest::qWait(20);
            }
        }
        QCOMPARE(held.size(), std::size_t{4});
        auto extra = connectRaw();
        if (m_cluster.tls()) {
            // Over TLS the connection is closed before any handshake: no
            // CPU spent on a client that cannot be served.
            QVERIFY(!extra);
        } else {
            QVERIFY(extra);
            const auto ans = readAnswer(*extra);
            QVERIFY2(ans.startsWith("HTTP/1.1 503"), ans.constData());
            QVERIFY(ans.contains("too many connections"));
        }
        held.clear();
        // Capacity comes back once the others are gone.
        QVERIFY(QTest::qWaitFor(
            [&] {
                client::HttpClient http;
                auto r = http.send(client::Method::Get, m_cluster.proxyUrl() + "/v1/health");
                return r && r->status == 200;
            },
            5000));
    }
};

QTEST_GUILESS_MAIN(TestServerLimits)
#include "test_server_limits.moc"
