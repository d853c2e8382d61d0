// Hostile clients against real nodes: a slowloris flood does not starve
// completed requests, a huge body of the wrong shape to an internal endpoint
// is refused without being built in memory, and the over-capacity answer is
// well formed.
#include "local_cluster.h"
#include "raw_connection.h"

#include <QFile>
#include <QHostAddress>
#include <QTcpSocket>
#include <QTest>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

using namespace tessera;
using tessera::client::Body;
using tessera::client::HttpClient;
using tessera::client::Method;

namespace {

quint16 portOf(const std::string& url) { return static_cast<quint16>(std::stoi(url.substr(url.rfind(':') + 1))); }

// Peak resident memory of a process (VmHWM), in bytes.
qint64 peakRss(qint64 pid)
{
    QFile f(QString("/proc/%1/status").arg(pid));
    if (!f.open(QIODevice::ReadOnly)) return -1;
    for (const auto& line : f.readAll().split('\n')) {
        if (line.startsWith("VmHWM:")) return line.mid(6).trimmed().split(' ').front().toLongLong() * 1024;
    }
    return -1;
}

}  // namespace

class TestServerFaults : public QObject {
    Q_OBJECT

private:
    // A proxy with 64 slots, a 1 s head deadline under pressure; the share
    // of one address is the default (half).
    tests::LocalCluster m_cluster{
        tests::LocalCluster::Options{1, 1, false, 300, 3, {"--max-connections", "64", "--header-timeout-ms", "1000"}}};

    // A raw connection from `source` (TLS on a TLS cluster); nullptr when
    // refused — over TLS a connection past the caps is closed before the
    // handshake, so no answer can be read from it.
    std::unique_ptr<QTcpSocket> connectFrom(const QString& source, quint16 port)
    {
        return tests::openRaw(m_cluster, "127.0.0.1", port, source);
    }

private slots:
    void initTestCase() { QVERIFY2(m_cluster.start(), m_cluster.error().c_str()); }

    // D10: 200 connections from one address that never finish a request
    // head. That address gets its share of the slots and no more; other
    // clients are served at once; the flood's connections are closed at
    // the head deadline, freeing its own share again.
    void slowlorisDoesNotStarveOthers()
    {
        const auto port = portOf(m_cluster.proxyUrl());
        std::vector<std::unique_ptr<QTcpSocket>> flood;
        int refusedAtConnect = 0;  // TLS only: closed before the handshake
        for (int i = 0; i < 200; ++i) {
            auto s = connectFrom("127.0.0.2", port);
            if (!s && m_cluster.tls()) {
                ++refusedAtConnect;
                continue;
            }
            QVERIFY2(s, "cannot connect from 127.0.0.2");
            s->write("GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: ");  // and never more
            s->flush();
            flood.push_back(std::move(s));
        }
        // Normal clients: every request served.
        HttpClient::Options o;
        o.retriesOn503 = 0;
        o.ioTimeout = std::chrono::milliseconds(3000);
        int served = 0;
        for (int i = 0; i < 100; ++i) {
            HttpClient http(o);  // a new connection each time
            auto r = http.send(Method::Get, m_cluster.proxyUrl() + "/v1/health");
            served += r && r->status == 200 ? 1 : 0;
        }
        QCOMPARE(served, 100);
        // The flood got at most its share (32 of 64); the rest were refused
        // with a well-formed 503, and the deadline closes the ones it holds.
        int refused = 0;
        QVERIFY(QTest::qWaitFor(
            [&] {
                int open = 0;
                refused = refusedAtConnect;
                for (auto& s : flood) {
                    s->waitForReadyRead(1);
                    const auto got = s->peek(64);
                    if (got.startsWith("HTTP/1.1 503")) ++refused;
                    if (s->state() == QAbstractSocket::ConnectedState && !got.startsWith("HTTP/1.1")) ++open;
                }
                return open == 0;
            },
            8000));
        // Over TLS a flood connection holds a slot through its handshake and
        // is closed at the head deadline, freeing it for the next one, so how
        // many of the 200 were refused at the cap depends on the machine's
        // speed; that some were, and that others were served, is the point.
        if (m_cluster.tls()) QVERIFY2(refused >= 1, std::to_string(refused).c_str());
        else QVERIFY2(refused >= 200 - 32, std::to_string(refused).c_str());
    }

    // D12: the over-capacity answer is the standard JSON error, with a
    // Content-Length equal to its body.
    void overCapacityAnswerIsWellFormed()
    {
        const auto port = portOf(m_cluster.proxyUrl());
        std::vector<std::unique_ptr<QTcpSocket>> held;
        if (m_cluster.tls()) {
            // Over TLS there is no answer to check: the connections past this
            // address's 32 slots are closed before the handshake.
            int handshakes = 0;
            for (int i = 0; i < 40; ++i) {
                auto s = connectFrom("127.0.0.3", port);
                if (!s) continue;
                ++handshakes;
                s->write("GET /v1/health HTTP/1.1\r\nHost: x\r\n");
                held.push_back(std::move(s));
            }
            QVERIFY2(handshakes <= 32 && handshakes >= 16, std::to_string(handshakes).c_str());
            return;
        }
        for (int i = 0; i < 40; ++i) {
            auto s = connectFrom("127.0.0.3", port);
            QVERIFY(s);
            s->write("GET /v1/health HTTP/1.1\r\nHost: x\r\n");
            s->flush();
            held.push_back(std::move(s));
        }
        // Past this address's 32 slots: refused, and closed after the answer.
        QTcpSocket* refused = nullptr;
        QByteArray answer;
        QVERIFY(QTest::qWaitFor(
            [&] {
                for (auto& s : held) {
                    s->waitForReadyRead(1);
                    if (s->peek(12) == "HTTP/1.1 503") refused = s.get();
                }
                return refused != nullptr;
            },
            3000));
        QVERIFY(QTest::qWaitFor(
            [&] {
                refused->waitForReadyRead(10);
                answer += refused->readAll();
                return refused->state() == QAbstractSocket::UnconnectedState;
            },
            3000));
        const auto split = answer.indexOf("\r\n\r\n");
        QVERIFY(split > 0);
        const auto head = answer.left(split).toLower();
        const auto body = answer.mid(split + 4);
        const auto cl = head.indexOf("content-length: ");
        QVERIFY(cl > 0);
        const auto length = head.mid(cl + 16).split('\r').front().toInt();
        QCOMPARE(length, body.size());
        QVERIFY(head.contains("retry-after: 1"));
        const auto j = nlohmann::json::parse(body.toStdString());
        QCOMPARE(j["status"].get<int>(), 503);
        QVERIFY(j["message"].get<std::string>().find("too many connections") != std::string::npos);
    }

    // D11: 100 MiB of JSON array sent where an object is expected is
    // refused by a pass over the text, never built into a document (which
    // took a target from 10 MiB to 1.7 GiB).
    void hugeBodyOfTheWrongShapeIsNotBuilt()
    {
        std::string body;
        body.reserve(std::size_t{100} << 20);
        body += '[';
        while (body.size() < (std::size_t{100} << 20)) body += "[1,2,3,4,5,6,7,8],";
        body += "[0]]";
        HttpClient::Options o;
        o.retriesOn503 = 0;
        HttpClient http(o);
        auto r = http.send(Method::Post, m_cluster.targetUrl(0) + "/v1/internal/jobs", Body::string(body));
        QVERIFY(r);
        QCOMPARE(r->status, 400);
        QVERIFY2(r->body.find("must be a JSON object") != std::string::npos, r->body.c_str());
        const auto peak = peakRss(m_cluster.targetPid(0));
        qInfo("target peak RSS after a 100 MiB array: %lld MiB", static_cast<long long>(peak >> 20));
        // The body itself is held once (100 MiB); no document of it is built.
        QVERIFY2(peak > 0 && peak < (std::int64_t{200} << 20), std::to_string(peak).c_str());
        // Deep nesting is refused the same way.
        r = http.send(Method::Post, m_cluster.targetUrl(0) + "/v1/internal/jobs",
                      Body::string("{\"a\":" + std::string(100, '[') + std::string(100, ']') + "}"));
        QCOMPARE(r->status, 400);
        QVERIFY2(r->body.find("nested deeper") != std::string::npos, r->body.c_str());
    }
};

QTEST_GUILESS_MAIN(TestServerFaults)
#include "test_server_faults.moc"
