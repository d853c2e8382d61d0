// The live feed with auth on, as a browser opens it: a page cannot put
// Authorization on a WebSocket upgrade, so it offers the subprotocols
// `tessera.feed.v1` and `tessera.bearer.<access token>`. Against a real
// 1 proxy + 1 target cluster, with Boost.Beast's WebSocket client (Qt 6.4's
// QWebSocket cannot offer subprotocols): the token in the subprotocol opens
// the feed, the answer selects `tessera.feed.v1` and never echoes the
// token, and messages arrive; a garbage, expired (signed with the cluster's
// real key) or revoked token is refused with 401 and a JSON error; a foreign
// Origin is still refused (403); a protocol list without tessera.feed.v1 or
// over 8 KiB is a 400.
#include "curl_run.h"
#include "local_cluster.h"

#include "auth/hmac_sha256.h"
#include "auth/token_service.h"

#include <QFile>
#include <QProcess>
#include <QTest>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/websocket/stream.hpp>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

using namespace tessera;
using nlohmann::json;
using tests::curl;

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;

namespace {

const char* kAdminPassword = "admin-password-1";
constexpr int kIntervalMs = 300;  // the proxy's --stats-interval-ms here
constexpr auto kWait = std::chrono::seconds(15);

using Headers = std::vector<std::pair<std::string, std::string>>;

QString bearer(const std::string& token) { return QString::fromStdString("Authorization: Bearer " + token); }

std::string protocols(const std::string& token) { return "tessera.feed.v1, tessera.bearer." + token; }

// One upgrade of /v1/ws with Beast's client, driven by its own io_context
// (every wait bounded by kWait: run_for, never a sleep).
struct Feed {
    asio::io_context ioc;
    websocket::stream<beast::tcp_stream> ws{ioc};
    websocket::response_type answer;  // the server's answer to the upgrade (101, or the refusal with its body)
    beast::error_code ec;
    bool done = false;

    Feed(int port, const Headers& headers)
    {
        auto& tcp = beast::get_lowest_layer(ws);
        tcp.expires_after(kWait);
        const asio::ip::tcp::endpoint ep(asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port));
        ws.set_option(websocket::stream_base::decorator([headers](websocket::request_type& req) {
            for (const auto& [name, value] : headers) req.set(name, value);
        }));
        tcp.async_connect(ep, [this, port](beast::error_code e) {
            if (e) {
                ec = e;
                done = true;
                ioc.stop();
                return;
            }
            beast::get_lowest_layer(ws).expires_never();
            ws.set_option(websocket::stream_base::timeout::suggested(beast::role_type::client));
            ws.async_handshake(answer, "127.0.0.1:" + std::to_string(port), "/v1/ws", [this](beast::error_code e2) {
                ec = e2;
                done = true;
                // A refused handshake leaves the stream's timer pending:
                // run_for must not wait for it.
                ioc.stop();
            });
        });
        ioc.run_for(kWait);
        if (!done) ec = asio::error::timed_out;
    }

    bool open() const { return !ec; }
    int status() const { return static_cast<int>(answer.result_int()); }
    std::string selected() const { return std::string(answer[http::field::sec_websocket_protocol]); }
    json errorBody() const { return json::parse(answer.body(), nullptr, false); }

    // The next message's type ("" on error or timeout).
    std::string next()
    {
        beast::flat_buffer buffer;
        bool got = false;
        beast::error_code readEc;
        ws.async_read(buffer, [&](beast::error_code e, std::size_t) {
            readEc = e;
            got = true;
            ioc.stop();
        });
        ioc.restart();
        ioc.run_for(kWait);
        if (!got || readEc) return {};
        auto j = json::parse(beast::buffers_to_string(buffer.data()), nullptr, false);
        return j.is_object() ? j.value("type", std::string()) : std::string();
    }
};

}  // namespace

class TestFeedAuth : public QObject {
    Q_OBJECT

private:
    tests::LocalCluster m_cluster{[] {
        tests::LocalCluster::Options o;
        o.targets = 1;
        o.extraProxyArgs = {"--auth-enabled", "true", "--stats-interval-ms", QString::number(kIntervalMs)};
        o.extraTargetArgs = {"--auth-enabled", "true"};
        return o;
    }()};
    std::string m_admin;  // an access token
    int m_port = 0;

    QString url(const std::string& path) const { return QString::fromStdString(m_cluster.proxyUrl() + path); }

    std::string login(const std::string& user, const std::string& password)
    {
        const auto body = json{{"user", user}, {"password", password}}.dump();
        auto r = curl({"-X", "POST", url("/v1/tokens"), "--data-binary", QString::fromStdString(body)});
        if (r.status != 200) return {};
        auto j = json::parse(r.body, nullptr, false);
        return j.is_object() && j.contains("token") ? j["token"].get<std::string>() : std::string();
    }

    static Headers offer(const std::string& token) { return {{"Sec-WebSocket-Protocol", protocols(token)}}; }

    // A refusal of the upgrade: `status`, a JSON error body with that
    // status, and never a 101.
    static void verifyRefused(const Feed& f, int status, const std::string& says = {})
    {
        QVERIFY(!f.open());
        QCOMPARE(f.status(), status);
        const auto j = f.errorBody();
        QVERIFY2(j.is_object(), f.answer.body().c_str());
        QCOMPARE(j.value("status", 0), status);
        if (!says.empty())
            QVERIFY2(j.value("message", std::string()).find(says) != std::string::npos, f.answer.body().c_str());
    }

private slots:
    void initTestCase()
    {
        if (m_cluster.tls())
            QSKIP(
                "this test's WebSocket client speaks plain TCP; the browser test's auth part (test_web_console) opens "
                "the feed with the subprotocol over wss");
        QProcess p;
        p.start(tests::nodeBinary(), QStringList{"--role", "proxy", "--data-dir", m_cluster.dataDir() + "/proxy",
                                                 "user", "add", "admin", "--admin"});
        p.write(QByteArray(kAdminPassword) + "\n");
        p.closeWriteChannel();
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        m_admin = login("admin", kAdminPassword);
        QVERIFY(!m_admin.empty());
        const auto u = m_cluster.proxyUrl();
        m_port = std::stoi(u.substr(u.rfind(':') + 1));
    }

    void tokenInSubprotocolOpensTheFeed()
    {
        Feed f(m_port, offer(m_admin));
        QVERIFY2(f.open(), (f.ec.message() + ": " + f.answer.body()).c_str());
        QCOMPARE(f.status(), 101);
        // The feed's protocol is selected; the token is never echoed.
        QCOMPARE(f.selected(), std::string("tessera.feed.v1"));
        for (const auto& field : f.answer) {
            QVERIFY(std::string(field.value()).find(m_admin) == std::string::npos);
        }
        QCOMPARE(f.next(), std::string("snapshot"));
        // Metrics follow at the proxy's cadence.
        std::string type;
        for (int i = 0; i < 20 && type != "metrics"; ++i) type = f.next();
        QCOMPARE(type, std::string("metrics"));

        // A page served by the proxy itself (its own Origin) may use it too.
        auto headers = offer(m_admin);
        headers.emplace_back("Origin", m_cluster.proxyUrl());
        Feed page(m_port, headers);
        QVERIFY2(page.open(), page.answer.body().c_str());
        QCOMPARE(page.selected(), std::string("tessera.feed.v1"));
        QCOMPARE(page.next(), std::string("snapshot"));
    }

    void headerTokenStillWorks()
    {
        // The CLI's way, unchanged: no subprotocol offered, none selected.
        Feed f(m_port, {{"Authorization", "Bearer " + m_admin}});
        QVERIFY2(f.open(), f.answer.body().c_str());
        QCOMPARE(f.selected(), std::string());
        QCOMPARE(f.next(), std::string("snapshot"));
    }

    void badTokensAreRefused()
    {
        // No token at all, only the protocol.
        verifyRefused(Feed(m_port, {{"Sec-WebSocket-Protocol", "tessera.feed.v1"}}), 401, "tessera.bearer.");
        verifyRefused(Feed(m_port, {}), 401);
        // Garbage, and a real token with its signature changed.
        verifyRefused(Feed(m_port, offer("not.a.token")), 401, "token refused");
        auto forged = m_admin;
        forged.back() = forged.back() == 'A' ? 'B' : 'A';
        verifyRefused(Feed(m_port, offer(forged)), 401, "token refused");
        // A refresh token is not an access token, here as in the header.
        const auto body = json{{"user", "admin"}, {"password", kAdminPassword}}.dump();
        auto pair =
            json::parse(curl({"-X", "POST", url("/v1/tokens"), "--data-binary", QString::fromStdString(body)}).body,
                        nullptr, false);
        QVERIFY(pair.is_object() && pair.contains("refresh_token"));
        verifyRefused(Feed(m_port, offer(pair["refresh_token"].get<std::string>())), 401, "token refused");
    }

    void expiredTokenIsRefused()
    {
        // An admin token signed with the cluster's own first key (derived
        // from the cluster key as the nodes derive it) that expired an
        // hour ago: refused for its expiry, not its signature.
        QFile keyFile(m_cluster.clusterKeyFile());
        QVERIFY(keyFile.open(QIODevice::ReadOnly));
        const auto clusterKey = keyFile.readAll().trimmed().toStdString();
        const auto mac = daemon::auth::hmacSha256(clusterKey, "tessera token signing key v1");
        const std::string secret(reinterpret_cast<const char*>(mac.data()), mac.size());
        const auto past = daemon::auth::TokenService::systemNow() - 3600;
        daemon::auth::TokenService old([past] { return past; });
        QVERIFY(old.replaceKeys({{"cluster-v1", secret}}).ok());
        const auto expired = old.issue("admin", true, daemon::auth::TokenUse::Access, 60);
        QVERIFY(expired.ok());
        // The same token through the header is refused for the same reason.
        auto viaHeader = curl({"-H", bearer(expired->token), url("/v1/whoami")});
        QCOMPARE(viaHeader.status, 401);
        QVERIFY2(viaHeader.body.find("expired") != std::string::npos, viaHeader.body.c_str());
        verifyRefused(Feed(m_port, offer(expired->token)), 401, "expired");
    }

    void revokedTokenIsRefused()
    {
        const auto token = login("admin", kAdminPassword);
        QVERIFY(!token.empty());
        {
            Feed before(m_port, offer(token));
            QVERIFY(before.open());
        }
        const auto body = json{{"token", token}}.dump();
        auto revoked = curl(
            {"-X", "DELETE", "-H", bearer(token), url("/v1/tokens"), "--data-binary", QString::fromStdString(body)});
        QCOMPARE(revoked.status, 200);
        verifyRefused(Feed(m_port, offer(token)), 401, "revoked");
    }

    void originAndProtocolListAreChecked()
    {
        // A valid token does not let a foreign page in.
        auto evil = offer(m_admin);
        evil.emplace_back("Origin", "http://evil.example");
        verifyRefused(Feed(m_port, evil), 403, "evil.example");
        // A list without the feed's protocol, an unreadable list, one over 8 KiB.
        verifyRefused(Feed(m_port, {{"Sec-WebSocket-Protocol", "chat, tessera.bearer." + m_admin}}), 400,
                      "tessera.feed.v1");
        verifyRefused(Feed(m_port, {{"Sec-WebSocket-Protocol", protocols(m_admin) + ", tessera.bearer.x"}}), 400);
        verifyRefused(Feed(m_port, offer(std::string(9000, 'a'))), 400, "8192");
    }
};

QTEST_GUILESS_MAIN(TestFeedAuth)
#include "test_feed_auth.moc"
