// The S3 front end's data path through the proxy, under the conditions a
// relay must survive: a client that reads slowly gets every byte of a GET
// (the spliced relay waits for room instead of blocking or dropping), a
// target that stops taking a PUT's body stalls that PUT only (the proxy's
// I/O threads keep answering everyone else), and a target killed mid-GET
// ends the client's connection short instead of leaving it hanging.
#include "local_cluster.h"
#include "raw_connection.h"

#include "api/hrw.h"
#include "api/paths.h"
#include "client/http_client.h"

#include <QCryptographicHash>
#include <QDeadlineTimer>
#include <QScopeGuard>
#include <QTest>
#include <csignal>
#include <cstring>
#include <functional>
#include <random>
#include <sys/types.h>

using namespace tessera;
using client::Body;
using client::Method;

namespace {
std::string randomBytes(std::size_t n, unsigned seed)
{
    std::mt19937_64 rng(seed);
    std::string s(n, '\0');
    for (std::size_t i = 0; i + 8 <= n; i += 8) {
        const auto v = rng();
        std::memcpy(s.data() + i, &v, 8);
    }
    return s;
}

QByteArray md5(const QByteArray& b) { return QCryptographicHash::hash(b, QCryptographicHash::Md5); }

// What a raw GET read: the head and as much of the body as came before the
// connection ended or `timeoutMs` of silence.
struct RawAnswer {
    QByteArray head;
    QByteArray body;
    qint64 contentLength = -1;
    bool closed = false;  // the node closed the connection
};

RawAnswer rawGet(const tests::LocalCluster& cluster, const std::string& path, qint64 readBuffer, qint64 stopAfter = -1,
                 const std::function<void()>& atStop = {})
{
    RawAnswer out;
    auto sock = tests::openRaw(cluster, cluster.proxyUrl());
    if (!sock) return out;
    // A small read buffer keeps the node's socket full, so the relay keeps
    // meeting a destination without room.
    sock->setReadBufferSize(readBuffer);
    sock->write(QByteArray::fromStdString("GET " + path + " HTTP/1.1\r\nHost: tessera\r\n\r\n"));
    QByteArray buf;
    bool stopped = false;
    while (true) {
        if (sock->bytesAvailable() == 0 && !sock->waitForReadyRead(15000)) {
            out.closed = sock->state() != QAbstractSocket::ConnectedState;
            break;
        }
        buf += sock->readAll();
        if (out.contentLength < 0) {
            const auto end = buf.indexOf("\r\n\r\n");
            if (end < 0) continue;
            out.head = buf.left(end + 4);
            buf.remove(0, end + 4);
            for (const auto& line : out.head.split('\n')) {
                if (line.toLower().startsWith("content-length:"))
                    out.contentLength = line.mid(15).trimmed().toLongLong();
            }
        }
        out.body += buf;
        buf.clear();
        if (out.contentLength >= 0 && out.body.size() >= out.contentLength) break;
        if (!stopped && stopAfter >= 0 && out.body.size() >= stopAfter) {
            stopped = true;
            if (atStop) atStop();
        }
    }
    return out;
}
}  // namespace

class TestS3Relay : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<tests::LocalCluster> m_cluster;
    client::HttpClient m_http;

    std::string s3(const std::string& path) const { return m_cluster->proxyUrl() + "/s3" + path; }
    int ownerOf(const std::string& bucket, const std::string& key)
    {
        const auto smap = m_cluster->smap();
        const auto* owner = api::hrwTarget(smap, api::objectUname(bucket, key));
        for (int i = 0; owner != nullptr && i < m_cluster->targetCount(); ++i) {
            if (m_cluster->targetId(i) == owner->id) return i;
        }
        return -1;
    }
    bool put(const std::string& key, const std::string& data)
    {
        auto r = m_http.send(Method::Put, s3("/relay/" + key), Body::string(data));
        return r && r->status == 200;
    }

private slots:
    void initTestCase()
    {
        tests::LocalCluster::Options o;
        // A stopped target stays in the map for the length of a test.
        o.maxMissed = 100;
        m_cluster = std::make_unique<tests::LocalCluster>(o);
        QVERIFY2(m_cluster->start(), m_cluster->error().c_str());
        auto r = m_http.send(Method::Put, s3("/relay"));
        QVERIFY(r);
        QCOMPARE(r->status, 200);
    }

    void slowReaderGetsEveryByte()
    {
        const auto data = randomBytes(24 << 20, 1);
        QVERIFY(put("slow", data));
        const auto a = rawGet(*m_cluster, "/s3/relay/slow", 16 * 1024);
        QVERIFY2(a.head.startsWith("HTTP/1.1 200"), a.head.constData());
        QCOMPARE(a.contentLength, qint64(data.size()));
        QCOMPARE(a.body.size(), qint64(data.size()));
        QCOMPARE(md5(a.body), md5(QByteArray::fromStdString(data)));
        // A range of it, relayed the same way.
        auto r = m_http.send(Method::Get, s3("/relay/slow"), Body::none(), {{"Range", "bytes=1000000-9999999"}});
        QVERIFY(r);
        QCOMPARE(r->status, 206);
        QVERIFY(r->body == data.substr(1000000, 9000000));
    }

    void stalledTargetStallsOnlyItsPut()
    {
        const std::string key = "stalled";
        const auto data = randomBytes(64 << 20, 2);
        const int owner = ownerOf("relay", key);
        QVERIFY(owner >= 0);
        // An object another target holds, read through the relay meanwhile.
        std::string other;
        for (int i = 0; other.empty() && i < 100; ++i) {
            if (ownerOf("relay", "other-" + std::to_string(i)) != owner) other = "other-" + std::to_string(i);
        }
        QVERIFY(!other.empty());
        QVERIFY(put(other, "still served"));
        const auto pid = static_cast<pid_t>(m_cluster->targetPid(owner));
        QVERIFY(m_cluster->stopTarget(owner));
        auto resume = qScopeGuard([pid] { ::kill(pid, SIGCONT); });

        auto sock = tests::openRaw(*m_cluster, m_cluster->proxyUrl());
        QVERIFY(sock);
        sock->write(QByteArray::fromStdString(
            "PUT /s3/relay/" + key + " HTTP/1.1\r\nHost: tessera\r\nContent-Length: " + std::to_string(data.size()) +
            "\r\n\r\n"));
        sock->write(data.data(), static_cast<qint64>(data.size()));
        // Until the kernel takes no more: the relay's write to the stopped
        // target blocks, and everything between fills up behind it.
        QDeadlineTimer deadline(30000);
        while (sock->waitForBytesWritten(700)) {
            QVERIFY2(!deadline.hasExpired(), "the PUT never stalled");
        }
        // Bytes the test's socket still holds (over TLS, encrypted or not).
        auto* ssl = qobject_cast<QSslSocket*>(sock.get());
        auto pending = [&] { return sock->bytesToWrite() + (ssl ? ssl->encryptedBytesToWrite() : 0); };
        QVERIFY(pending() > 0);

        // Everyone else is still answered: fresh connections, spread over
        // the proxy's I/O threads, each within 3 s (health, and a relayed GET
        // from another target).
        client::HttpClient::Options quick;
        quick.ioTimeout = std::chrono::milliseconds(3000);
        client::HttpClient http(quick);
        for (int i = 0; i < 8; ++i) {
            auto h = http.send(Method::Get, m_cluster->proxyUrl() + std::string(api::path::kHealth));
            QVERIFY2(h, h ? "" : h.error().message.c_str());
            QCOMPARE(h->status, 200);
            auto g = http.send(Method::Get, s3("/relay/" + other));
            QVERIFY2(g, g ? "" : g.error().message.c_str());
            QCOMPARE(g->status, 200);
            QCOMPARE(g->body, std::string("still served"));
        }

        // The target resumes: the stalled PUT completes and stored every byte.
        QCOMPARE(::kill(pid, SIGCONT), 0);
        while (pending() > 0) QVERIFY2(sock->waitForBytesWritten(15000), "the PUT did not resume");
        QByteArray answer;
        while (!answer.contains("\r\n\r\n")) {
            QVERIFY2(sock->waitForReadyRead(15000), answer.constData());
            answer += sock->readAll();
        }
        QVERIFY2(answer.startsWith("HTTP/1.1 200"), answer.constData());
        auto back = m_http.send(Method::Get, s3("/relay/" + key));
        QVERIFY(back);
        QCOMPARE(back->status, 200);
        QVERIFY(back->body == data);
    }

    // Last: it kills a target.
    void targetKilledMidGetEndsTheConnection()
    {
        const std::string key = "killed";
        const auto data = randomBytes(96 << 20, 3);
        QVERIFY(put(key, data));
        const int owner = ownerOf("relay", key);
        QVERIFY(owner >= 0);
        const auto a =
            rawGet(*m_cluster, "/s3/relay/" + key, 64 * 1024, 1 << 20, [this, owner] { m_cluster->killTarget(owner); });
        QVERIFY2(a.head.startsWith("HTTP/1.1 200"), a.head.constData());
        QCOMPARE(a.contentLength, qint64(data.size()));
        // Short, and ended by the proxy (not by the test's 15 s of silence).
        QVERIFY2(a.body.size() < a.contentLength, QByteArray::number(a.body.size()).constData());
        QVERIFY(a.closed);
        QVERIFY(a.body == QByteArray::fromStdString(data.substr(0, static_cast<std::size_t>(a.body.size()))));
        // The proxy goes on.
        auto h = m_http.send(Method::Get, m_cluster->proxyUrl() + std::string(api::path::kHealth));
        QVERIFY(h);
        QCOMPARE(h->status, 200);
    }
};

QTEST_GUILESS_MAIN(TestS3Relay)
#include "test_s3_relay.moc"
