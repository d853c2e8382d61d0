// HttpClient and FeedClient over TLS: certificates from a throwaway CA made
// with the openssl CLI, served by `openssl s_server -WWW` (an independent TLS
// implementation of the handshake) and by a small Beast server in this test
// (keep-alive, redirects between http and https, 100-continue, big bodies,
// the feed's WebSocket).
#include "client/feed_client.h"
#include "client/http_client.h"
#include "throwaway_ca.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>

#include <QTcpServer>
#include <QTest>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

using namespace tessera;
using namespace tessera::client;

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

constexpr std::size_t kBigBody = 3 * 1024 * 1024 + 17;  // several of the client's 1 MiB reads
constexpr std::chrono::milliseconds kSlowAnswer{1500};

char patternByte(std::size_t i) { return static_cast<char>('a' + i % 23); }

// A keep-alive HTTP/1.1 server on its own threads, plain or TLS, one thread
// per connection. Each response names the connection that carried it
// ("conn N"), so a test can tell reuse from reconnection.
//   /echo      "METHOD TARGET BODYSIZE conn N"
//   /big       kBigBody bytes of patternByte
//   /redirect  302 to the Location set with setRedirect (relative or absolute)
//   /slow      "late" after kSlowAnswer
//   /v1/ws     a WebSocket that sends "hello conn N", then echoes each message
class TestServer {
public:
    explicit TestServer(ssl::context* tls) : m_tls(tls), m_acceptor(m_ioc, tcp::endpoint(tcp::v4(), 0))
    {
        m_thread = std::thread([this] { acceptLoop(); });
    }
    ~TestServer()
    {
        m_stop = true;
        beast::error_code ec;
        tcp::socket poke(m_ioc);
        poke.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port()), ec);
        m_thread.join();
        for (auto& t : m_connections) t.join();
    }

    unsigned short port() const { return m_acceptor.local_endpoint().port(); }
    std::string url(const std::string& path) const
    {
        return std::string(m_tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(port()) + path;
    }
    void setRedirect(std::string location)
    {
        std::lock_guard lock(m_mutex);
        m_location = std::move(location);
    }
    int continues() const { return m_continues; }
    int accepted() const { return m_accepted; }

private:
    void acceptLoop()
    {
        for (;;) {
            beast::error_code ec;
            tcp::socket s(m_ioc);
            m_acceptor.accept(s, ec);
            if (m_stop || ec) return;
            const int id = ++m_accepted;
            m_connections.emplace_back([this, id, sock = std::move(s)]() mutable { serve(std::move(sock), id); });
        }
    }

    void serve(tcp::socket sock, int id)
    {
        beast::error_code ec;
        if (!m_tls) {
            exchanges(sock, id);
            sock.shutdown(tcp::socket::shutdown_both, ec);
            return;
        }
        ssl::stream<tcp::socket> s(std::move(sock), *m_tls);
        s.handshake(ssl::stream_base::server, ec);
        if (ec) return;
        exchanges(s, id);
        s.shutdown(ec);
    }

    template <typename Stream>
    void exchanges(Stream& s, int id)
    {
        beast::flat_buffer buffer;
        for (;;) {
            beast::error_code ec;
            http::request_parser<http::string_body> parser;
            parser.body_limit(64 << 20);
            http::read_header(s, buffer, parser, ec);
            if (ec) return;
            if (parser.get()[http::field::expect] == "100-continue") {
                ++m_continues;
                http::response<http::empty_body> go{http::status::continue_, 11};
                http::write(s, go, ec);
                if (ec) return;
            }
            http::read(s, buffer, parser, ec);
            if (ec) return;
            const auto& req = parser.get();
            if (websocket::is_upgrade(req)) {
                feed(s, req, id);
                return;
            }
            http::response<http::string_body> res{http::status::ok, 11};
            const std::string target(req.target());
            if (target == "/redirect") {
                std::lock_guard lock(m_mutex);
                res.result(http::status::found);
                res.set(http::field::location, m_location);
            } else if (target == "/slow") {
                std::this_thread::sleep_for(kSlowAnswer);
                res.body() = "late";
            } else if (target == "/big") {
                res.body().resize(kBigBody);
                for (std::size_t i = 0; i < kBigBody; ++i) res.body()[i] = patternByte(i);
            } else {
                res.body() = std::string(req.method_string()) + " " + target + " " + std::to_string(req.body().size()) +
                             " conn " + std::to_string(id);
            }
            res.keep_alive(req.keep_alive());
            res.prepare_payload();
            http::write(s, res, ec);
            if (ec || !req.keep_alive()) return;
        }
    }

    template <typename Stream>
    void feed(Stream& s, const http::request<http::string_body>& req, int id)
    {
        websocket::stream<Stream&> ws(s);
        beast::error_code ec;
        ws.accept(req, ec);
        if (ec) return;
        ws.text(true);
        ws.write(asio::buffer("hello conn " + std::to_string(id)), ec);
        for (beast::flat_buffer in; !ec; in.clear()) {
            ws.read(in, ec);
            if (!ec) ws.write(in.data(), ec);
        }
    }

    ssl::context* m_tls;
    asio::io_context m_ioc;
    tcp::acceptor m_acceptor;
    std::thread m_thread;
    std::vector<std::thread> m_connections;  // joined once the accept thread is gone
    std::atomic<bool> m_stop{false};
    std::atomic<int> m_continues{0};
    std::atomic<int> m_accepted{0};
    std::mutex m_mutex;
    std::string m_location;
};

}  // namespace

class TestHttpClientTls : public QObject {
    Q_OBJECT

    ThrowawayCa m_ca;
    QByteArray m_file;
    quint16 m_port = 0;       // s_server with a certificate for IP:127.0.0.1, DNS:localhost
    quint16 m_otherPort = 0;  // s_server with one for DNS:elsewhere.example, IP:192.0.2.1
    std::optional<ssl::context> m_serverTls;

    std::string url(quint16 port, const char* host = "127.0.0.1") const
    {
        return "https://" + std::string(host) + ":" + std::to_string(port) + "/file.txt";
    }

    static HttpClient::Options trusting(const QString& ca)
    {
        HttpClient::Options o;
        o.connectTimeout = std::chrono::milliseconds(3000);
        o.ioTimeout = std::chrono::milliseconds(3000);
        o.tls.caFile = ca.toStdString();
        return o;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_ca.create());
        QVERIFY(m_ca.issue(QStringLiteral("server"), "IP:127.0.0.1,DNS:localhost"));
        QVERIFY(m_ca.issue(QStringLiteral("other"), "DNS:elsewhere.example,IP:192.0.2.1"));
        for (int i = 0; i < 5000; ++i) m_file += static_cast<char>(i % 251);
        QVERIFY(m_ca.write(QStringLiteral("www/file.txt"), m_file));
        QVERIFY(m_ca.write(QStringLiteral("not-a-ca.pem"), "no certificate here\n"));
        m_port = m_ca.serve(QStringLiteral("server"));
        QVERIFY2(m_port != 0, "openssl s_server did not start");
        m_otherPort = m_ca.serve(QStringLiteral("other"));
        QVERIFY2(m_otherPort != 0, "openssl s_server did not start");

        m_serverTls.emplace(ssl::context::tls_server);
        m_serverTls->use_certificate_chain_file(m_ca.path(QStringLiteral("server.pem")).toStdString());
        m_serverTls->use_private_key_file(m_ca.path(QStringLiteral("server.key")).toStdString(), ssl::context::pem);
    }

    void parseUrlSchemes()
    {
        struct Case {
            const char* url;
            bool tls;
            const char* host;
            const char* port;
            const char* target;
        };
        const Case good[] = {
            {"http://h", false, "h", "80", "/"},
            {"https://h/v1/x?y=1", true, "h", "443", "/v1/x?y=1"},
            {"https://127.0.0.1:8443/a", true, "127.0.0.1", "8443", "/a"},
            {"HTTPS://h:1", true, "h", "1", "/"},
            {"https://[::1]/", true, "::1", "443", "/"},
        };
        for (const auto& c : good) {
            auto u = parseUrl(c.url);
            QVERIFY2(u.ok(), c.url);
            QVERIFY2(u->tls == c.tls, c.url);
            QCOMPARE(u->host, std::string(c.host));
            QCOMPARE(u->port, std::string(c.port));
            QCOMPARE(u->target, std::string(c.target));
        }
        for (const char* bad : {"ftp://h/", "wss://h/", "h:80", "://h"}) {
            auto u = parseUrl(bad);
            QVERIFY2(!u.ok(), bad);
            QCOMPARE(u.kind(), api::ErrorKind::BadRequest);
            QCOMPARE(u.error().message, "only http:// and https:// URLs are supported: \"" + std::string(bad) + "\"");
        }
        auto noHost = parseUrl("https:///x");
        QVERIFY(!noHost.ok());
        QCOMPARE(noHost.kind(), api::ErrorKind::BadRequest);
    }

    void getWithTheClusterCa()
    {
        HttpClient http(trusting(m_ca.caFile()));
        for (const char* host : {"127.0.0.1", "localhost"}) {
            auto r = http.send(Method::Get, url(m_port, host));
            QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
            QCOMPARE(r->status, 200);
            QCOMPARE(QByteArray::fromStdString(r->body), m_file);
        }
    }

    void unknownCaIsRefused()
    {
        HttpClient::Options o = trusting(QString());  // the system's store, which does not know this CA
        HttpClient http(o);
        auto r = http.send(Method::Get, url(m_port));
        QVERIFY(!r.ok());
        QCOMPARE(r.kind(), api::ErrorKind::Unavailable);
        const auto& m = r.error().message;
        QVERIFY2(m.rfind("TLS handshake with 127.0.0.1:" + std::to_string(m_port) + " failed: ", 0) == 0, m.c_str());
        QVERIFY2(m.find("certificate") != std::string::npos, m.c_str());
        QVERIFY2(m.find("local issuer") != std::string::npos, m.c_str());
        QVERIFY(failedBeforeSending(r.error()));
        QVERIFY(failedOnCertificate(r.error()));
    }

    void insecureAcceptsAnyCertificate()
    {
        HttpClient::Options o;
        o.tls.insecure = true;
        HttpClient http(o);
        for (quint16 port : {m_port, m_otherPort}) {
            auto r = http.send(Method::Get, url(port));
            QVERIFY2(r.ok(), r.ok() ? "" : r.error().message.c_str());
            QCOMPARE(r->status, 200);
            QCOMPARE(QByteArray::fromStdString(r->body), m_file);
        }
    }

    void certificateForAnotherHostIsRefused()
    {
        HttpClient http(trusting(m_ca.caFile()));
        auto byIp = http.send(Method::Get, url(m_otherPort));
        QVERIFY(!byIp.ok());
        QCOMPARE(byIp.kind(), api::ErrorKind::Unavailable);
        QVERIFY2(byIp.error().message.find("IP address mismatch") != std::string::npos, byIp.error().message.c_str());
        QVERIFY(failedBeforeSending(byIp.error()));
        QVERIFY(failedOnCertificate(byIp.error()));

        auto byName = http.send(Method::Get, url(m_otherPort, "localhost"));
        QVERIFY(!byName.ok());
        QVERIFY2(byName.error().message.find("hostname mismatch") != std::string::npos, byName.error().message.c_str());
        QVERIFY(failedOnCertificate(byName.error()));

        // The same client still reaches the right server: the refusal left
        // nothing behind.
        auto good = http.send(Method::Get, url(m_port));
        QVERIFY2(good.ok(), good.ok() ? "" : good.error().message.c_str());
        QCOMPARE(good->status, 200);
    }

    void badCaFileIsNamed_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("why");
        QTest::newRow("missing") << "no-such-ca.pem"
                                 << "No such file or directory";
        QTest::newRow("not PEM") << "not-a-ca.pem"
                                 << "";
    }

    void badCaFileIsNamed()
    {
        QFETCH(QString, file);
        QFETCH(QString, why);
        const std::string path = m_ca.path(file).toStdString();
        TestServer plain(nullptr);  // before the client: its idle connection closes first
        HttpClient http(trusting(QString::fromStdString(path)));
        auto r = http.send(Method::Get, url(m_port));
        QVERIFY(!r.ok());
        QCOMPARE(r.kind(), api::ErrorKind::BadRequest);
        const auto& m = r.error().message;
        QVERIFY2(m.rfind("cannot load the CA file \"" + path + "\": ", 0) == 0, m.c_str());
        QVERIFY2(m.find(why.toStdString()) != std::string::npos, m.c_str());
        QVERIFY(!failedOnCertificate(r.error()));
        // http:// needs no CA: the file is read only for https.
        auto p = http.send(Method::Get, plain.url("/echo"));
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().message.c_str());
        QCOMPARE(p->status, 200);
    }

    void keepAliveUploadsAndBigBodies()
    {
        TestServer server(&*m_serverTls);
        HttpClient http(trusting(m_ca.caFile()));
        auto first = http.send(Method::Get, server.url("/echo"));
        QVERIFY2(first.ok(), first.ok() ? "" : first.error().message.c_str());
        QCOMPARE(first->body, std::string("GET /echo 0 conn 1"));

        // Over the 64 KiB threshold: Expect: 100-continue, on the kept connection.
        const std::string big(100 * 1024, 'x');
        auto put = http.send(Method::Put, server.url("/echo"), Body::string(big));
        QVERIFY2(put.ok(), put.ok() ? "" : put.error().message.c_str());
        QCOMPARE(put->body, "PUT /echo " + std::to_string(big.size()) + " conn 1");
        QCOMPARE(server.continues(), 1);

        const QString path = m_ca.path(QStringLiteral("upload.bin"));
        QVERIFY(m_ca.write(QStringLiteral("upload.bin"), QByteArray(300 * 1024, 'y')));
        auto file = http.send(Method::Put, server.url("/echo"), Body::file(path.toStdString()));
        QVERIFY2(file.ok(), file.ok() ? "" : file.error().message.c_str());
        QCOMPARE(file->body, std::string("PUT /echo 307200 conn 1"));
        QCOMPARE(server.continues(), 2);

        auto whole = http.send(Method::Get, server.url("/big"));
        QVERIFY2(whole.ok(), whole.ok() ? "" : whole.error().message.c_str());
        QCOMPARE(whole->body.size(), kBigBody);
        bool same = true;
        for (std::size_t i = 0; i < kBigBody && same; ++i) same = whole->body[i] == patternByte(i);
        QVERIFY(same);

        std::string sunk;
        const Sink sink = [&](const char* data, std::size_t n) -> api::Status {
            sunk.append(data, n);
            return {};
        };
        auto streamed = http.send(Method::Get, server.url("/big"), {}, {}, &sink);
        QVERIFY2(streamed.ok(), streamed.ok() ? "" : streamed.error().message.c_str());
        QVERIFY(streamed->body.empty());
        QCOMPARE(sunk, whole->body);
        QCOMPARE(server.accepted(), 1);
    }

    void redirectsKeepOrChangeTheScheme()
    {
        TestServer tls(&*m_serverTls);
        TestServer plain(nullptr);
        HttpClient http(trusting(m_ca.caFile()));

        // A relative Location stays on https.
        tls.setRedirect("/echo");
        auto relative = http.send(Method::Get, tls.url("/redirect"));
        QVERIFY2(relative.ok(), relative.ok() ? "" : relative.error().message.c_str());
        QCOMPARE(relative->status, 200);
        QCOMPARE(relative->finalUrl, tls.url("/echo"));
        QCOMPARE(relative->body, std::string("GET /echo 0 conn 1"));

        // http -> https and https -> http: the Location's scheme decides,
        // and each scheme keeps its own pooled connection.
        plain.setRedirect(tls.url("/echo"));
        auto up = http.send(Method::Get, plain.url("/redirect"));
        QVERIFY2(up.ok(), up.ok() ? "" : up.error().message.c_str());
        QCOMPARE(up->finalUrl, tls.url("/echo"));
        QCOMPARE(up->body, std::string("GET /echo 0 conn 1"));

        tls.setRedirect(plain.url("/echo"));
        auto down = http.send(Method::Get, tls.url("/redirect"));
        QVERIFY2(down.ok(), down.ok() ? "" : down.error().message.c_str());
        QCOMPARE(down->finalUrl, plain.url("/echo"));
        QCOMPARE(down->body, std::string("GET /echo 0 conn 1"));
        QCOMPARE(tls.accepted(), 1);
        QCOMPARE(plain.accepted(), 1);
    }

    void feedOverWss()
    {
        TestServer server(&*m_serverTls);
        const std::string endpoint = server.url("");
        HttpClient::Options::Tls trusted;
        trusted.caFile = m_ca.caFile().toStdString();
        {
            auto feed = FeedClient::connect(endpoint, {}, trusted);
            QVERIFY2(feed.ok(), feed.ok() ? "" : feed.error().message.c_str());
            auto first = (*feed)->next();
            QVERIFY2(first.ok(), first.ok() ? "" : first.error().message.c_str());
            QCOMPARE(*first, std::string("hello conn 1"));
            QVERIFY((*feed)->subscribe({"metrics"}, 0));
            auto echo = (*feed)->next();
            QVERIFY(echo.ok());
            QCOMPARE(*echo, std::string(R"({"subscribe":["metrics"]})"));
        }

        auto refused = FeedClient::connect(endpoint, {}, {});
        QVERIFY(!refused.ok());
        QCOMPARE(refused.kind(), api::ErrorKind::Unavailable);
        QVERIFY2(refused.error().message.rfind("TLS handshake with 127.0.0.1:", 0) == 0,
                 refused.error().message.c_str());
        QVERIFY(failedOnCertificate(refused.error()));

        HttpClient::Options::Tls insecure;
        insecure.insecure = true;
        auto unchecked = FeedClient::connect(endpoint, {}, insecure);
        QVERIFY2(unchecked.ok(), unchecked.ok() ? "" : unchecked.error().message.c_str());
        auto hello = (*unchecked)->next();
        QVERIFY(hello.ok());
        QCOMPARE(*hello, std::string("hello conn 3"));
    }

    void silentServerTimesOutInTheHandshake()
    {
        QTcpServer silent;  // listens (the kernel completes the connect) but never answers
        QVERIFY(silent.listen(QHostAddress::LocalHost, 0));
        HttpClient::Options o = trusting(m_ca.caFile());
        o.connectTimeout = std::chrono::milliseconds(300);
        HttpClient http(o);
        auto r = http.send(Method::Get, "https://127.0.0.1:" + std::to_string(silent.serverPort()) + "/");
        QVERIFY(!r.ok());
        QCOMPARE(r.kind(), api::ErrorKind::Timeout);
        QVERIFY2(r.error().message.rfind("TLS handshake with 127.0.0.1:", 0) == 0, r.error().message.c_str());
        QVERIFY(failedBeforeSending(r.error()));
        QVERIFY(!failedOnCertificate(r.error()));
    }

    void ioTimeoutAppliesOverTls()
    {
        TestServer server(&*m_serverTls);
        HttpClient::Options o = trusting(m_ca.caFile());
        o.ioTimeout = std::chrono::milliseconds(300);
        HttpClient http(o);
        auto r = http.send(Method::Get, server.url("/slow"));
        QVERIFY(!r.ok());
        QCOMPARE(r.kind(), api::ErrorKind::Timeout);
        QVERIFY2(r.error().message == "read response: timed out", r.error().message.c_str());
        QVERIFY(!failedBeforeSending(r.error()));  // the request went out: its outcome is unknown
        // The client goes on with a new connection.
        auto next = http.send(Method::Get, server.url("/echo"));
        QVERIFY2(next.ok(), next.ok() ? "" : next.error().message.c_str());
        QCOMPARE(next->body, std::string("GET /echo 0 conn 2"));
    }

    void plainServerOnAnHttpsUrl()
    {
        TestServer plain(nullptr);
        HttpClient http(trusting(m_ca.caFile()));
        auto r = http.send(Method::Get, "https://127.0.0.1:" + std::to_string(plain.port()) + "/echo");
        QVERIFY(!r.ok());
        QCOMPARE(r.kind(), api::ErrorKind::Unavailable);
        QVERIFY2(r.error().message.rfind("TLS handshake with 127.0.0.1:", 0) == 0, r.error().message.c_str());
        QVERIFY(failedBeforeSending(r.error()));
        QVERIFY(!failedOnCertificate(r.error()));
    }
};

QTEST_GUILESS_MAIN(TestHttpClientTls)
#include "test_http_client_tls.moc"
