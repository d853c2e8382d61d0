// The live feed (/v1/ws) and node statistics against real processes: the
// snapshot and the metrics cadence, exact counters after a burst, control
// messages, origin checks, a client that never reads, a killed target, and
// Prometheus /metrics checked by promtool.
#include "feed_recorder.h"
#include "local_cluster.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QStandardPaths>
#include <QTest>
#include <QWebSocket>
#include <arpa/inet.h>
#include <chrono>
#include <memory>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace tessera;
using client::Body;
using client::Method;
using nlohmann::json;

using tests::FeedRecorder;
using tests::wallMs;

namespace {

constexpr int kIntervalMs = 500;  // the proxy's --stats-interval-ms here

std::uint64_t sumTargets(const json& metrics, const char* op)
{
    std::uint64_t n = 0;
    for (const auto& node : metrics["data"]["nodes"]) {
        if (node["role"] == "target") n += node["ops"][op]["n"].get<std::uint64_t>();
    }
    return n;
}

// A blocking client connection on a socket of its own, plain or (on a TLS
// cluster) TLS through OpenSSL with the cluster's CA: the two cases below
// need socket options Qt's sockets do not offer (a tiny receive buffer, a
// reset on close).
class FdConnection {
public:
    // nullptr when the connection or the handshake fails. `caFile` empty:
    // plain TCP. `receiveBuffer` > 0 sets SO_RCVBUF before connecting.
    static std::unique_ptr<FdConnection> open(int port, const std::string& caFile, int receiveBuffer = 0)
    {
        auto c = std::unique_ptr<FdConnection>(new FdConnection);
        c->m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
        if (c->m_fd < 0) return nullptr;
        if (receiveBuffer > 0) ::setsockopt(c->m_fd, SOL_SOCKET, SO_RCVBUF, &receiveBuffer, sizeof receiveBuffer);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(static_cast<std::uint16_t>(port));
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::connect(c->m_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return nullptr;
        if (caFile.empty()) return c;
        c->m_ctx = SSL_CTX_new(TLS_client_method());
        if (!c->m_ctx || SSL_CTX_load_verify_locations(c->m_ctx, caFile.c_str(), nullptr) != 1) return nullptr;
        SSL_CTX_set_verify(c->m_ctx, SSL_VERIFY_PEER, nullptr);
        c->m_ssl = SSL_new(c->m_ctx);
        if (!c->m_ssl || SSL_set_fd(c->m_ssl, c->m_fd) != 1 || SSL_set1_host(c->m_ssl, "127.0.0.1") != 1 ||
            SSL_connect(c->m_ssl) != 1) {
            return nullptr;
        }
        return c;
    }
    ~FdConnection()
    {
        if (m_ssl) SSL_free(m_ssl);  // no close_notify: the tests hang up hard
        if (m_ctx) SSL_CTX_free(m_ctx);
        if (m_fd >= 0) ::close(m_fd);
    }
    FdConnection(const FdConnection&) = delete;
    FdConnection& operator=(const FdConnection&) = delete;

    bool writeAll(const std::string& bytes)
    {
        if (m_ssl)
            return SSL_write(m_ssl, bytes.data(), static_cast<int>(bytes.size())) == static_cast<int>(bytes.size());
        return ::write(m_fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
    }
    // Reads up to the end of an answer's head, byte by byte, so that nothing
    // after it is consumed from the socket (over TLS, from the record).
    std::string readHead()
    {
        std::string head;
        char c = 0;
        while (head.find("\r\n\r\n") == std::string::npos) {
            const auto n = m_ssl ? SSL_read(m_ssl, &c, 1) : ::read(m_fd, &c, 1);
            if (n != 1) break;
            head += c;
        }
        return head;
    }
    // Closes with a reset (SO_LINGER 0), as a client that gives up does.
    void reset()
    {
        const linger hard{1, 0};
        ::setsockopt(m_fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
    }

private:
    FdConnection() = default;
    int m_fd = -1;
    SSL_CTX* m_ctx = nullptr;
    SSL* m_ssl = nullptr;
};

// Opens a connection with a tiny receive buffer, completes the WebSocket
// handshake by hand, and then never reads again.
std::unique_ptr<FdConnection> openStuckClient(int port, const std::string& caFile)
{
    auto c = FdConnection::open(port, caFile, 4096);
    if (!c) return nullptr;
    const std::string req = "GET /v1/ws HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                            "\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
                            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n";
    if (!c->writeAll(req)) return nullptr;
    if (c->readHead().rfind("HTTP/1.1 101", 0) != 0) return nullptr;
    return c;
}

int portOf(const std::string& url) { return std::stoi(url.substr(url.rfind(':') + 1)); }

// Sends a GET of `target` (path and query) to 127.0.0.1:`port`, reads the
// answer's head only, and hangs up with a reset, as a client that gives up
// mid-download does. Returns the head.
std::string getHeadThenHangUp(int port, const std::string& target, const std::string& caFile)
{
    auto c = FdConnection::open(port, caFile);
    if (!c) return {};
    std::string head;
    if (c->writeAll("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\n\r\n")) {
        head = c->readHead();
    }
    c->reset();
    return head;
}

}  // namespace

class TestFeed : public QObject {
    Q_OBJECT

private:
    // Stale after 3 x 500 ms; removed after 6 x 500 ms of missed keepalives.
    tests::LocalCluster m_cluster{
        tests::LocalCluster::Options{2,
                                     1,
                                     false,
                                     500,
                                     6,
                                     {"--stats-interval-ms", QString::number(kIntervalMs), "--ws-write-timeout-ms",
                                      "1000", "--ws-send-buffer", "4096"},
                                     {"--usage-scan-interval-ms", "1000"}}};
    client::HttpClient m_http;

    // The CA to verify the nodes with on a TLS cluster; empty on a plain one.
    std::string caFile() const { return m_cluster.tls() ? m_cluster.caFile().toStdString() : std::string(); }

    json proxyStats()
    {
        auto r = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/daemon?what=node_stats");
        if (!r || r->status != 200) return json();
        return json::parse(r->body, nullptr, false);
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        auto r = m_http.send(Method::Post, m_cluster.proxyUrl() + "/v1/buckets/feed",
                             Body::string("{\"action\":\"create-bck\"}"));
        QVERIFY(r);
        QCOMPARE(r->status, 200);
    }

    void snapshotThenMetricsWithinTwoIntervals()
    {
        FeedRecorder feed(m_cluster.proxyUrl());
        QVERIFY(feed.waitOpen());
        const int snap = feed.waitFor("snapshot", 0, 5000);
        QCOMPARE(snap, 0);  // the very first message
        const auto& s = feed.messages()[0].msg;
        QCOMPARE(s["seq"].get<int>(), 1);
        QVERIFY(s["ts"].get<std::int64_t>() > 0);
        QCOMPARE(s["data"]["smap"]["tmap"].size(), std::size_t{2});
        bool hasFeedBucket = false;
        for (const auto& b : s["data"]["buckets"]) hasFeedBucket |= b["name"] == "feed";
        QVERIFY(hasFeedBucket);
        QVERIFY(s["data"]["jobs"].is_array());
        QVERIFY(s["data"]["events"].is_array());

        const int m = feed.waitFor("metrics", 1, 2 * kIntervalMs + 1000);
        QVERIFY(m > 0);
        const auto& rec = feed.messages()[static_cast<std::size_t>(m)];
        QVERIFY2(
            rec.arrivedMs - feed.messages()[0].arrivedMs <= 2 * kIntervalMs,
            qPrintable(
                QString("first metrics %1 ms after the snapshot").arg(rec.arrivedMs - feed.messages()[0].arrivedMs)));
        const auto& data = rec.msg["data"];
        QCOMPARE(data["interval_ms"].get<int>(), kIntervalMs);
        QCOMPARE(data["nodes"].size(), std::size_t{3});  // the proxy and two targets
        for (const auto& n : data["nodes"]) {
            QVERIFY(n.contains("cpu_percent"));
            QVERIFY(n["rss_bytes"].get<std::uint64_t>() > 0);
            QCOMPARE(n["stale"].get<bool>(), false);
            if (n["role"] == "target") {
                QCOMPARE(n["mountpaths"].size(), std::size_t{1});
                QVERIFY(n["mountpaths"][0]["total"].get<std::uint64_t>() > 0);
            }
        }
        // seq grows by one per message.
        for (std::size_t i = 0; i < feed.messages().size(); ++i) {
            QCOMPARE(feed.messages()[i].msg["seq"].get<std::size_t>(), i + 1);
        }
    }

    void countersAreExactAfterABurst()
    {
        FeedRecorder feed(m_cluster.proxyUrl());
        QVERIFY(feed.waitOpen());
        const int first = feed.waitFor("metrics", 0, 5000);
        QVERIFY(first >= 0);
        const auto base = feed.messages()[static_cast<std::size_t>(first)].msg;
        const auto putBase = sumTargets(base, "put");
        const auto getBase = sumTargets(base, "get");

        constexpr int kPuts = 37;
        constexpr int kGets = 23;
        for (int i = 0; i < kPuts; ++i) {
            auto r = m_http.send(Method::Put, m_cluster.proxyUrl() + "/v1/objects/feed/burst-" + std::to_string(i),
                                 Body::string(std::string(100 + i, 'x')));
            QVERIFY(r);
            QCOMPARE(r->status, 200);
        }
        for (int i = 0; i < kGets; ++i) {
            auto r = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/objects/feed/burst-" + std::to_string(i));
            QVERIFY(r);
            QCOMPARE(r->status, 200);
        }
        const int done = feed.waitFor("metrics", static_cast<std::size_t>(first) + 1, 5000, [&](const json& m) {
            return sumTargets(m, "put") >= putBase + kPuts && sumTargets(m, "get") >= getBase + kGets;
        });
        QVERIFY(done > first);
        const auto& m = feed.messages()[static_cast<std::size_t>(done)].msg;
        QCOMPARE(sumTargets(m, "put"), putBase + kPuts);
        QCOMPARE(sumTargets(m, "get"), getBase + kGets);
        QCOMPARE(m["data"]["cluster"]["ops"]["put"]["n"].get<std::uint64_t>(), putBase + kPuts);

        // The same totals over REST, with bytes: the PUT sizes are known.
        auto r = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/cluster?what=node_stats");
        QVERIFY(r);
        QCOMPARE(r->status, 200);
        const auto stats = json::parse(r->body);
        std::uint64_t puts = 0, gets = 0, redirects = 0;
        for (const auto& [id, t] : stats["target"].items()) {
            puts += t["counters"]["put.n"].get<std::uint64_t>();
            gets += t["counters"]["get.n"].get<std::uint64_t>();
        }
        for (const auto& [id, p] : stats["proxy"].items()) {
            redirects += p["counters"]["put.redir.n"].get<std::uint64_t>();
        }
        QCOMPARE(puts, putBase + kPuts);
        QCOMPARE(gets, getBase + kGets);
        QVERIFY(redirects >= static_cast<std::uint64_t>(kPuts));  // every PUT went through the proxy's 307
    }

    // After the burst above, bucket "feed" holds exactly its 37 objects.
    void bucketUsageIsCounted()
    {
        std::uint64_t objects = 0, bytes = 0;
        const bool counted = QTest::qWaitFor(
            [&] {
                auto r = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/cluster?what=node_stats");
                if (!r || r->status != 200) return false;
                const auto stats = json::parse(r->body);
                objects = bytes = 0;
                std::uint64_t perMountpath = 0;
                for (const auto& [id, t] : stats["target"].items()) {
                    if (!t.contains("buckets") || !t["buckets"].contains("feed")) return false;
                    objects += t["buckets"]["feed"]["objects"].get<std::uint64_t>();
                    bytes += t["buckets"]["feed"]["bytes"].get<std::uint64_t>();
                    perMountpath += t["mountpaths"][0]["objects"].get<std::uint64_t>();
                }
                return objects == 37 && perMountpath == 37;
            },
            10000);
        QVERIFY2(counted, qPrintable(QString("objects %1").arg(objects)));
        std::uint64_t expectedBytes = 0;
        for (int i = 0; i < 37; ++i) expectedBytes += static_cast<std::uint64_t>(100 + i);
        QCOMPARE(bytes, expectedBytes);

        // A new feed session's snapshot carries the sums per bucket, as of
        // the proxy's latest reading (within an interval or two).
        json bucket;
        const bool inSnapshot = QTest::qWaitFor(
            [&] {
                FeedRecorder feed(m_cluster.proxyUrl());
                if (!feed.waitOpen() || feed.waitFor("snapshot", 0, 5000) != 0) return false;
                for (const auto& b : feed.messages()[0].msg["data"]["buckets"]) {
                    if (b["name"] == "feed") bucket = b;
                }
                return bucket.contains("objects") && bucket["objects"].get<std::uint64_t>() == 37;
            },
            5000);
        QVERIFY2(inSnapshot, bucket.dump().c_str());
        QCOMPARE(bucket["bytes"].get<std::uint64_t>(), expectedBytes);
        QVERIFY(bucket["usage_scanned_ns"].get<std::int64_t>() > 0);
    }

    // Between bucket changes, new usage figures come as `buckets` messages.
    void bucketUsageIsPushedWhenItChanges()
    {
        FeedRecorder feed(m_cluster.proxyUrl());
        QVERIFY(feed.waitOpen());
        QCOMPARE(feed.waitFor("snapshot", 0, 5000), 0);
        auto r = m_http.send(Method::Post, m_cluster.proxyUrl() + "/v1/buckets/pushed",
                             Body::string("{\"action\":\"create-bck\"}"));
        QVERIFY(r && r->status == 200);
        std::uint64_t bytes = 0;
        for (int i = 0; i < 5; ++i) {
            r = m_http.send(Method::Put, m_cluster.proxyUrl() + "/v1/objects/pushed/o" + std::to_string(i),
                            Body::string(std::string(1000 + i, 'p')));
            QVERIFY(r && r->status == 200);
            bytes += 1000 + static_cast<std::uint64_t>(i);
        }
        const auto figuresOf = [](const json& msg, const char* bucket) {
            for (const auto& b : msg["data"]["buckets"]) {
                if (b["name"] == bucket) return b;
            }
            return json();
        };
        // The targets rescan every second here: the next scans count the five.
        const int five = feed.waitFor("buckets", 1, 10000,
                                      [&](const json& m) { return figuresOf(m, "pushed").value("objects", 0) == 5; });
        QVERIFY(five > 0);
        const json b = figuresOf(feed.messages()[static_cast<std::size_t>(five)].msg, "pushed");
        QCOMPARE(b["bytes"].get<std::uint64_t>(), bytes);
        QVERIFY(b["usage_scanned_ns"].get<std::int64_t>() > 0);
        QVERIFY(b.contains("props"));
        // Every bucket is in it, "feed" with its 37.
        QCOMPARE(figuresOf(feed.messages()[static_cast<std::size_t>(five)].msg, "feed")["objects"].get<int>(), 37);
        // Two deleted: three, at the next scans.
        for (int i = 0; i < 2; ++i) {
            r = m_http.send(Method::Delete, m_cluster.proxyUrl() + "/v1/objects/pushed/o" + std::to_string(i));
            QVERIFY(r && r->status == 200);
        }
        const int three = feed.waitFor("buckets", static_cast<std::size_t>(five) + 1, 10000,
                                       [&](const json& m) { return figuresOf(m, "pushed").value("objects", 0) == 3; });
        QVERIFY(three > five);
        QCOMPARE(
            figuresOf(feed.messages()[static_cast<std::size_t>(three)].msg, "pushed")["bytes"].get<std::uint64_t>(),
            std::uint64_t{1002 + 1003 + 1004});
    }

    void controlMessagesAreValidated()
    {
        FeedRecorder feed(m_cluster.proxyUrl());
        QVERIFY(feed.waitOpen());
        QVERIFY(feed.waitFor("snapshot", 0, 5000) == 0);
        const std::vector<std::string> bad = {"not json",
                                              "[1,2]",
                                              "{\"subscribe\":\"metrics\"}",
                                              "{\"subscribe\":[\"metrics\",\"nope\"]}",
                                              "{\"interval_ms\":5}",
                                              "{\"interval_ms\":\"1000\"}",
                                              "{\"interval_ms\":999999}",
                                              "{\"hello\":1}",
                                              "{}"};
        std::size_t from = 1;
        for (const auto& b : bad) {
            feed.send(b);
            const int e = feed.waitFor("error", from, 3000);
            QVERIFY2(e > 0, b.c_str());
            QVERIFY(!feed.messages()[static_cast<std::size_t>(e)].msg["data"]["message"].get<std::string>().empty());
            from = static_cast<std::size_t>(e) + 1;
        }
        feed.sendBinary(QByteArray("\x01\x02\x03", 3));
        const int eb = feed.waitFor("error", from, 3000);
        QVERIFY(eb > 0);
        from = static_cast<std::size_t>(eb) + 1;
        QVERIFY(!feed.disconnected());

        // A valid change is acknowledged and takes effect: no metrics after it.
        feed.send("{\"subscribe\":[\"event\",\"smap\"],\"interval_ms\":1000}");
        const int ack = feed.waitFor("subscribed", from, 3000);
        QVERIFY(ack > 0);
        const auto& d = feed.messages()[static_cast<std::size_t>(ack)].msg["data"];
        QCOMPARE(d["interval_ms"].get<int>(), 1000);
        QVERIFY(d["topics"] == json({"smap", "event"}));
        QCOMPARE(feed.waitFor("metrics", static_cast<std::size_t>(ack) + 1, 3 * kIntervalMs), -1);
        QVERIFY(!feed.disconnected());
    }

    void abusiveClientsAreClosed()
    {
        // A message over 4 KiB: closed with 1009 (message too big).
        {
            QWebSocket ws;
            tests::openFeed(ws, m_cluster.proxyUrl());
            QVERIFY(QTest::qWaitFor([&] { return ws.state() == QAbstractSocket::ConnectedState; }, 5000));
            ws.sendTextMessage(QString(5000, 'x'));
            QVERIFY(QTest::qWaitFor([&] { return ws.state() == QAbstractSocket::UnconnectedState; }, 5000));
            QCOMPARE(static_cast<int>(ws.closeCode()), 1009);
        }
        // A flood of control messages: closed with 1008 (policy violation).
        {
            QWebSocket ws;
            tests::openFeed(ws, m_cluster.proxyUrl());
            QVERIFY(QTest::qWaitFor([&] { return ws.state() == QAbstractSocket::ConnectedState; }, 5000));
            for (int i = 0; i < 50; ++i) ws.sendTextMessage("{\"interval_ms\":1000}");
            QVERIFY(QTest::qWaitFor([&] { return ws.state() == QAbstractSocket::UnconnectedState; }, 5000));
            QCOMPARE(static_cast<int>(ws.closeCode()), 1008);
            QVERIFY(ws.closeReason().contains("messages per second"));
        }
        // The proxy is fine: a new client gets its snapshot.
        FeedRecorder after(m_cluster.proxyUrl());
        QVERIFY(after.waitOpen());
        QCOMPARE(after.waitFor("snapshot", 0, 5000), 0);
    }

    void originAndUpgradeAreChecked()
    {
        const client::Headers evil = {{"Connection", "Upgrade"},
                                      {"Upgrade", "websocket"},
                                      {"Sec-WebSocket-Version", "13"},
                                      {"Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="},
                                      {"Origin", "http://evil.example"}};
        auto r = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/ws", Body::none(), evil);
        QVERIFY(r);
        QCOMPARE(r->status, 403);
        QVERIFY(json::parse(r->body)["message"].get<std::string>().find("evil.example") != std::string::npos);

        // A plain GET (no upgrade) is a clear 400, not a hang.
        r = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/ws");
        QVERIFY(r);
        QCOMPARE(r->status, 400);

        // DNS rebinding: a page whose Origin matches the Host it sent (its
        // own name, resolved to the proxy) is refused all the same.
        client::Headers rebinding = evil;
        rebinding.back() = {"Origin", "http://attacker.example:" + std::to_string(portOf(m_cluster.proxyUrl()))};
        rebinding.emplace_back("Host", "attacker.example:" + std::to_string(portOf(m_cluster.proxyUrl())));
        r = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/ws", Body::none(), rebinding);
        QVERIFY(r);
        QCOMPARE(r->status, 403);

        // A page served by the proxy itself may connect.
        FeedRecorder same(m_cluster.proxyUrl(), QString::fromStdString(m_cluster.proxyUrl()));
        QVERIFY(same.waitOpen());
        QCOMPARE(same.waitFor("snapshot", 0, 5000), 0);

        const auto stats = proxyStats();
        QVERIFY(stats["feed"]["refused"].get<std::uint64_t>() >= 1);
    }

    // The audit trail: a control change (a bucket created, changed,
    // destroyed) is an `audit` event on the feed, named with its method,
    // path, action and status; an object write (data) and a read are not.
    void controlChangesAreAuditedOnTheFeed()
    {
        FeedRecorder feed(m_cluster.proxyUrl());
        QVERIFY(feed.waitOpen());
        QCOMPARE(feed.waitFor("snapshot", 0, 5000), 0);
        const auto url = m_cluster.proxyUrl() + "/v1/buckets/audited";
        auto r = m_http.send(Method::Post, url, Body::string("{\"action\":\"create-bck\"}"));
        QVERIFY(r && r->status == 200);
        r = m_http.send(Method::Put, m_cluster.proxyUrl() + "/v1/objects/audited/a.txt", Body::string("data"));
        QVERIFY(r && r->status == 200);
        r = m_http.send(Method::Get, url);
        QVERIFY(r && r->status == 200);
        r = m_http.send(Method::Delete, url);
        QVERIFY(r && r->status == 200);
        r = m_http.send(Method::Delete, url);  // gone: refused, and audited as such
        QVERIFY(r && r->status == 404);

        const auto isAudit = [](const std::string& text) {
            return [text](const json& m) {
                return m["data"]["kind"] == "audit" && m["data"]["message"].get<std::string>() == text;
            };
        };
        const int created =
            feed.waitFor("event", 0, 5000, isAudit("\"(auth off)\" POST /v1/buckets/audited action=create-bck -> 200"));
        QVERIFY(created > 0);
        const int destroyed = feed.waitFor("event", static_cast<std::size_t>(created), 5000,
                                           isAudit("\"(auth off)\" DELETE /v1/buckets/audited -> 200"));
        QVERIFY(destroyed > created);
        const int refused = feed.waitFor("event", static_cast<std::size_t>(destroyed), 5000,
                                         isAudit("\"(auth off)\" DELETE /v1/buckets/audited -> 404"));
        QVERIFY(refused > destroyed);
        QCOMPARE(feed.messages()[static_cast<std::size_t>(refused)].msg["data"].value("severity", std::string()),
                 std::string("warning"));
        int audits = 0;
        for (const auto& m : feed.messages()) {
            if (m.msg.value("type", "") == "event" && m.msg["data"]["kind"] == "audit") ++audits;
        }
        QCOMPARE(audits, 3);  // not the object PUT, not the listing
    }

    void stuckClientDoesNotDelayOthersAndIsClosed()
    {
        const auto closedBefore = proxyStats()["feed"]["closed_slow"].get<std::uint64_t>();
        auto stuck = openStuckClient(portOf(m_cluster.proxyUrl()), caFile());
        QVERIFY(stuck);

        FeedRecorder good(m_cluster.proxyUrl());
        QVERIFY(good.waitOpen());
        // The stuck client's buffers fill with metrics; then one write stalls
        // for --ws-write-timeout-ms and the proxy drops it.
        bool closed = QTest::qWaitFor(
            [&] {
                auto s = proxyStats();
                return s.is_object() && s["feed"]["closed_slow"].get<std::uint64_t>() > closedBefore;
            },
            30000);
        stuck.reset();
        QVERIFY2(closed, "the stuck client was never closed");

        // Every metrics message reached the good client within one interval
        // of being sent, and the cadence held.
        std::int64_t prevTs = 0;
        int count = 0;
        for (const auto& r : good.messages()) {
            if (r.msg.value("type", "") != "metrics") continue;
            const auto ts = r.msg["ts"].get<std::int64_t>();
            QVERIFY2(r.arrivedMs - ts <= kIntervalMs,
                     qPrintable(QString("metrics arrived %1 ms after being sent").arg(r.arrivedMs - ts)));
            if (prevTs != 0) {
                QVERIFY2(ts - prevTs <= 2 * kIntervalMs,
                         qPrintable(QString("%1 ms between metrics messages").arg(ts - prevTs)));
            }
            prevTs = ts;
            ++count;
        }
        QVERIFY(count >= 2);
        QVERIFY(!good.disconnected());
    }

    void clientAbortsAreCountedApartFromErrors()
    {
        // A 32 MiB object, far more than the sockets buffer, on the target that owns it.
        client::HttpClient::Options noFollow;
        noFollow.followRedirects = false;
        client::HttpClient direct(noFollow);
        auto r = m_http.send(Method::Post, m_cluster.proxyUrl() + "/v1/buckets/aborts",
                             Body::string("{\"action\":\"create-bck\"}"));
        QVERIFY(r && r->status == 200);
        auto redirect = direct.send(Method::Put, m_cluster.proxyUrl() + "/v1/objects/aborts/big");
        QVERIFY(redirect && redirect->status == 307);
        r = m_http.send(Method::Put, redirect->header("location"), Body::string(std::string(32 << 20, 'a')));
        QVERIFY(r && r->status == 200);
        redirect = direct.send(Method::Get, m_cluster.proxyUrl() + "/v1/objects/aborts/big");
        QVERIFY(redirect && redirect->status == 307);
        const auto owner = client::parseUrl(redirect->header("location"));
        QVERIFY(owner);
        std::string ownerId;
        for (int i = 0; i < m_cluster.targetCount(); ++i) {
            if (portOf(m_cluster.targetUrl(i)) == std::stoi(owner->port)) ownerId = m_cluster.targetId(i);
        }
        QVERIFY(!ownerId.empty());
        auto counters = [&] {
            auto st = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/cluster?what=node_stats");
            return st && st->status == 200 ? json::parse(st->body)["target"][ownerId]["counters"] : json();
        };
        const json before = counters();
        QVERIFY(before.contains("get.abort.n"));

        FeedRecorder feed(m_cluster.proxyUrl());
        QVERIFY(feed.waitOpen());
        QVERIFY(feed.waitFor("metrics", 0, 5000) >= 0);
        // The client reads the head of the answer, then gives up.
        const std::string head = getHeadThenHangUp(std::stoi(owner->port), owner->target, caFile());
        QVERIFY2(head.rfind("HTTP/1.1 200", 0) == 0, head.c_str());

        json after;
        QVERIFY(QTest::qWaitFor(
            [&] {
                after = counters();
                return after.value("get.abort.n", 0) > before["get.abort.n"].get<int>();
            },
            10000));
        QCOMPARE(after["get.abort.n"].get<int>(), before["get.abort.n"].get<int>() + 1);
        QCOMPARE(after["err.get.n"].get<int>(), before["err.get.n"].get<int>());
        QCOMPARE(after["get.n"].get<int>(), before["get.n"].get<int>());  // not a success either

        // The feed carries it apart too: the node's and the cluster's get
        // aborts, errors unchanged.
        const int m = feed.waitFor("metrics", 0, 5000, [&](const json& msg) {
            for (const auto& n : msg["data"]["nodes"]) {
                if (n["daemon_id"] == ownerId) return n["ops"]["get"].value("aborts", 0) == after["get.abort.n"];
            }
            return false;
        });
        QVERIFY(m >= 0);
        const auto& data = feed.messages()[static_cast<std::size_t>(m)].msg["data"];
        for (const auto& n : data["nodes"]) {
            if (n["daemon_id"] == ownerId)
                QCOMPARE(n["ops"]["get"]["errors"].get<int>(), after["err.get.n"].get<int>());
        }
        QVERIFY(data["cluster"]["ops"]["get"]["aborts"].get<int>() >= after["get.abort.n"].get<int>());

        // And Prometheus: a counter of its own, no 499 among the errors.
        auto text = m_http.send(Method::Get, std::string(owner->tls ? "https" : "http") + "://" + owner->host + ":" +
                                                 owner->port + "/metrics");
        QVERIFY(text && text->status == 200);
        const std::string line = "tessera_op_client_aborts_total{node_id=\"" + ownerId +
                                 "\",role=\"target\",op=\"get\"} " + std::to_string(after["get.abort.n"].get<int>()) +
                                 "\n";
        QVERIFY2(text->body.find(line) != std::string::npos, line.c_str());
        QVERIFY(text->body.find("status=\"499\"") == std::string::npos);
    }

    void promtoolAcceptsEveryNodesMetrics()
    {
        const QString promtool = QStandardPaths::findExecutable("promtool");
        if (promtool.isEmpty()) QSKIP("promtool not installed (Debian package prometheus; installers/deps.sh adds it)");
        std::vector<std::string> urls = {m_cluster.proxyUrl()};
        for (int i = 0; i < m_cluster.targetCount(); ++i) urls.push_back(m_cluster.targetUrl(i));
        for (const auto& u : urls) {
            auto r = m_http.send(Method::Get, u + "/metrics");
            QVERIFY(r);
            QCOMPARE(r->status, 200);
            QVERIFY(r->header("content-type").rfind("text/plain; version=0.0.4", 0) == 0);
            QVERIFY(r->body.find("tessera_op_duration_seconds_bucket{") != std::string::npos);
            QProcess p;
            p.start(promtool, {"check", "metrics"});
            QVERIFY(p.waitForStarted());
            p.write(QByteArray::fromStdString(r->body));
            p.closeWriteChannel();
            QVERIFY(p.waitForFinished(30000));
            QVERIFY2(p.exitCode() == 0,
                     qPrintable(QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError())));
        }
    }

    // Last: it changes the cluster.
    void killedTargetGoesStaleThenAway()
    {
        FeedRecorder feed(m_cluster.proxyUrl());
        QVERIFY(feed.waitOpen());
        QVERIFY(feed.waitFor("metrics", 0, 5000) > 0);
        const std::string victim = m_cluster.targetId(1);
        const auto killedAt = wallMs();
        m_cluster.killTarget(1);

        auto isEvent = [&](const char* kind) {
            return [&, kind](const json& m) { return m["data"]["kind"] == kind && m["data"]["node"] == victim; };
        };
        const int stale = feed.waitFor("event", 0, 10000, isEvent("node_stale"));
        QVERIFY(stale > 0);
        const int left = feed.waitFor("event", 0, 10000, isEvent("node_away"));
        QVERIFY(left > 0);
        QVERIFY2(stale < left, "a dead target shows as stale before the keepalive marks it away");
        const auto staleAfter = feed.messages()[static_cast<std::size_t>(stale)].arrivedMs - killedAt;
        QVERIFY2(staleAfter <= 4 * kIntervalMs, qPrintable(QString("stale after %1 ms").arg(staleAfter)));

        // The map keeps it, flagged away: it still owns its objects.
        const int smap = feed.waitFor("smap", 0, 10000, [&](const json& m) {
            return m["data"]["tmap"].contains(victim) &&
                   (m["data"]["tmap"][victim].value("flags", std::uint64_t{0}) & api::kSnodeAway) != 0;
        });
        QVERIFY(smap > 0);
        QCOMPARE(feed.messages()[static_cast<std::size_t>(smap)].msg["data"]["tmap"].size(), std::size_t{2});
        // Later metrics show it stale, with no rates.
        const int after = feed.waitFor("metrics", static_cast<std::size_t>(smap) + 1, 5000);
        QVERIFY(after > 0);
        bool listedStale = false;
        for (const auto& n : feed.messages()[static_cast<std::size_t>(after)].msg["data"]["nodes"]) {
            if (n["daemon_id"].get<std::string>() == victim) listedStale = n["stale"].get<bool>();
        }
        QVERIFY(listedStale);
    }
};

QTEST_GUILESS_MAIN(TestFeed)
#include "test_feed.moc"
