// The one check of every request when auth is on: each route Access
// against each kind of caller (none, bad token, user token, admin token,
// the cluster key, a signed redirect), with the exact status kind
// (Unauthorized 401 / Forbidden 403) and, on a target, without a user store.
// The feed's token offered as a WebSocket subprotocol (a browser cannot set
// Authorization on an upgrade): the one parser of Sec-WebSocket-Protocol,
// and the same verification as a header token.
#include "auth/request_authorizer.h"
#include "net/websocket_protocols.h"

#include <QTemporaryDir>
#include <QTest>
#include <boost/beast/http/message.hpp>

using namespace tessera;
using namespace tessera::daemon;
using api::ErrorKind;
using api::Permission;
using net::Access;
namespace http = boost::beast::http;

namespace {

const std::string kClusterKey(48, 'c');

struct Call {
    http::request_header<> head;
    net::Request req;

    Call(http::verb method, std::string bucket, std::string object = {})
    {
        req.method = method;
        req.params["bucket"] = std::move(bucket);
        if (!object.empty()) req.params["name"] = std::move(object);
        req.headers = &head;
    }
    Call& header(const char* name, const std::string& value)
    {
        head.set(name, value);
        return *this;
    }
    Call& bearer(const std::string& token) { return header("Authorization", "Bearer " + token); }
};

net::Route route(Access a)
{
    net::Route r{http::verb::get, "/x", net::Exec::Inline, {}, {}};
    r.access = a;
    return r;
}

// A route like GET /v1/ws: it only accepts WebSocket upgrades.
net::Route wsRoute()
{
    net::Route r = route(Access::user());
    r.websocket = [](const net::Request&, net::AnyStream, http::request<http::empty_body>&&) {
        return std::optional<net::Response>();
    };
    return r;
}

std::string protocols(const std::string& token) { return "tessera.feed.v1, tessera.bearer." + token; }

}  // namespace

class TestRequestAuthorizer : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<auth::UserStore> m_users;
    auth::TokenService m_tokens;
    std::unique_ptr<auth::RequestSignature> m_sig;
    std::unique_ptr<auth::RequestAuthorizer> m_proxy;
    std::unique_ptr<auth::RequestAuthorizer> m_target;
    std::string m_alice;  // read on imgs
    std::string m_root;   // admin

    ErrorKind outcome(const auth::RequestAuthorizer& a, Call& c, Access access)
    {
        auto st = a.authorize(c.req, route(access));
        return st ? ErrorKind::Internal : st.kind();  // Internal stands for "allowed" here
    }

private slots:
    void initTestCase()
    {
        auto users = auth::UserStore::open(m_dir.filePath("users.db").toStdString());
        QVERIFY(users.ok());
        m_users = std::move(users.value());
        QVERIFY(m_users->addUser("alice", "alice-password", false).ok());
        QVERIFY(m_users->addUser("root", "root-password", true).ok());
        QVERIFY(m_users->grant("alice", {"imgs", {Permission::Read}}).ok());
        auto sig = auth::RequestSignature::create(std::string(32, 's'));
        QVERIFY(sig.ok());
        m_sig = std::make_unique<auth::RequestSignature>(std::move(sig.value()));
        m_proxy = std::make_unique<auth::RequestAuthorizer>(kClusterKey, m_tokens, *m_sig, m_users.get());
        m_target = std::make_unique<auth::RequestAuthorizer>(kClusterKey, m_tokens, *m_sig, nullptr);
        m_alice = m_tokens.issue("alice", false, auth::TokenUse::Access)->token;
        m_root = m_tokens.issue("root", true, auth::TokenUse::Access)->token;
    }

    void proxyMatrix()
    {
        const auto allowed = ErrorKind::Internal;
        const auto read = Access::bucket(Permission::Read);
        const auto write = Access::bucket(Permission::Write);
        Call none(http::verb::get, "imgs", "a");
        QCOMPARE(outcome(*m_proxy, none, Access::open()), allowed);
        QCOMPARE(outcome(*m_proxy, none, Access::user()), ErrorKind::Unauthorized);
        QCOMPARE(outcome(*m_proxy, none, read), ErrorKind::Unauthorized);
        QCOMPARE(outcome(*m_proxy, none, Access{}), ErrorKind::Unauthorized);

        Call alice(http::verb::get, "imgs", "a");
        alice.bearer(m_alice);
        QCOMPARE(outcome(*m_proxy, alice, Access::user()), allowed);
        QCOMPARE(alice.req.user, std::string("alice"));
        QCOMPARE(outcome(*m_proxy, alice, read), allowed);
        QCOMPARE(outcome(*m_proxy, alice, write), ErrorKind::Forbidden);
        QCOMPARE(outcome(*m_proxy, alice, Access{}), ErrorKind::Forbidden);
        Call aliceOther(http::verb::get, "logs", "a");
        aliceOther.bearer(m_alice);
        QCOMPARE(outcome(*m_proxy, aliceOther, read), ErrorKind::Forbidden);

        Call root(http::verb::delete_, "logs", "a");
        root.bearer(m_root);
        QCOMPARE(outcome(*m_proxy, root, Access::bucket(Permission::Delete)), allowed);
        QCOMPARE(outcome(*m_proxy, root, Access{}), allowed);

        Call bad(http::verb::get, "imgs", "a");
        bad.bearer(m_alice + "x");
        QCOMPARE(outcome(*m_proxy, bad, Access::user()), ErrorKind::Unauthorized);
        Call basic(http::verb::get, "imgs", "a");
        basic.header("Authorization", "Basic YWxpY2U6cGFzc3dvcmQ=");
        QCOMPARE(outcome(*m_proxy, basic, Access::user()), ErrorKind::Unauthorized);
    }

    void clusterKey()
    {
        Call node(http::verb::put, "imgs", "a");
        node.header("tessera-cluster-key", kClusterKey);
        QCOMPARE(outcome(*m_target, node, Access{}), ErrorKind::Internal);
        Call wrong(http::verb::put, "imgs", "a");
        wrong.header("tessera-cluster-key", std::string(48, 'd'));
        QCOMPARE(outcome(*m_target, wrong, Access{}), ErrorKind::Unauthorized);
    }

    void signedRedirectAtTarget()
    {
        const auto write = Access::bucket(Permission::Write);
        const auto query = api::parseQuery(m_sig->sign("PUT", "imgs", "a/b", auth::TokenService::systemNow()));
        QVERIFY(query.ok());
        Call signedPut(http::verb::put, "imgs", "a/b");
        signedPut.req.query = *query;
        QCOMPARE(outcome(*m_target, signedPut, write), ErrorKind::Internal);
        // The same signature for another object, or another method.
        Call otherObject(http::verb::put, "imgs", "a/c");
        otherObject.req.query = *query;
        QCOMPARE(outcome(*m_target, otherObject, write), ErrorKind::Unauthorized);
        Call otherMethod(http::verb::delete_, "imgs", "a/b");
        otherMethod.req.query = *query;
        QCOMPARE(outcome(*m_target, otherMethod, Access::bucket(Permission::Delete)), ErrorKind::Unauthorized);
        // A signature opens bucket routes only.
        Call admin(http::verb::put, "imgs", "a/b");
        admin.req.query = *query;
        QCOMPARE(outcome(*m_target, admin, Access{}), ErrorKind::Unauthorized);
    }

    void tokensAtTarget()
    {
        // Without a user store a target takes an admin's token only.
        Call alice(http::verb::get, "imgs", "a");
        alice.bearer(m_alice);
        QCOMPARE(outcome(*m_target, alice, Access::bucket(Permission::Read)), ErrorKind::Forbidden);
        Call root(http::verb::get, "imgs", "a");
        root.bearer(m_root);
        QCOMPARE(outcome(*m_target, root, Access::bucket(Permission::Read)), ErrorKind::Internal);
    }

    void parseOfferedProtocols()
    {
        using net::parseOfferedProtocols;
        // Several entries, spaces and empty list elements around them.
        auto p = parseOfferedProtocols(" chat ,tessera.feed.v1,\t, tessera.bearer.a.b-c_d ,  ");
        QVERIFY(p.ok());
        QCOMPARE(p->count, std::size_t(3));
        QVERIFY(p->feed);
        QCOMPARE(p->bearer, std::string("a.b-c_d"));
        // Only the feed; only a bearer; nothing at all.
        p = parseOfferedProtocols("tessera.feed.v1");
        QVERIFY(p.ok() && p->feed && p->bearer.empty() && p->count == 1);
        p = parseOfferedProtocols("tessera.bearer.xyz");
        QVERIFY(p.ok() && !p->feed && p->bearer == "xyz");
        p = parseOfferedProtocols("");
        QVERIFY(p.ok() && p->count == 0 && !p->feed && p->bearer.empty());
        p = parseOfferedProtocols(" , ,");
        QVERIFY(p.ok() && p->count == 0);
        // Names are exact: neither a prefix nor another case is the feed.
        p = parseOfferedProtocols("tessera.feed.v10, TESSERA.FEED.V1");
        QVERIFY(p.ok() && !p->feed && p->count == 2);
        // Bad Request: a bearer entry without a token, two bearer entries,
        // an entry that is not a token, a value over 8 KiB.
        QCOMPARE(parseOfferedProtocols("tessera.feed.v1, tessera.bearer.").kind(), ErrorKind::BadRequest);
        QCOMPARE(parseOfferedProtocols("tessera.bearer.a, tessera.bearer.b").kind(), ErrorKind::BadRequest);
        QCOMPARE(parseOfferedProtocols("tessera.feed.v1, tessera.bearer.a b").kind(), ErrorKind::BadRequest);
        QCOMPARE(parseOfferedProtocols("tessera.feed.v1, \"quoted\"").kind(), ErrorKind::BadRequest);
        const std::string big = "tessera.feed.v1, tessera.bearer." + std::string(net::kMaxProtocolHeader, 'a');
        QCOMPARE(parseOfferedProtocols(big).kind(), ErrorKind::BadRequest);
        QVERIFY(parseOfferedProtocols(big).error().message.find("8192") != std::string::npos);
        // Exactly at the limit is fine.
        const std::string prefix = "tessera.bearer.";
        const std::string atLimit = prefix + std::string(net::kMaxProtocolHeader - prefix.size(), 'a');
        QVERIFY(parseOfferedProtocols(atLimit).ok());
    }

    void offeredProtocolsOverSeveralFields()
    {
        http::request_header<> head;
        head.insert(http::field::sec_websocket_protocol, "tessera.feed.v1");
        head.insert(http::field::sec_websocket_protocol, " tessera.bearer.tok");
        net::Request req;
        req.headers = &head;
        auto p = net::offeredProtocols(req);
        QVERIFY(p.ok());
        QVERIFY(p->feed);
        QCOMPARE(p->bearer, std::string("tok"));
        QCOMPARE(p->count, std::size_t(2));
        // Together over the limit, though each field is under it.
        http::request_header<> split;
        split.insert(http::field::sec_websocket_protocol, std::string(5000, 'a'));
        split.insert(http::field::sec_websocket_protocol, std::string(5000, 'b'));
        req.headers = &split;
        QCOMPARE(net::offeredProtocols(req).kind(), ErrorKind::BadRequest);
        net::Request none;
        QVERIFY(net::offeredProtocols(none).ok());
    }

    void tokenAsSubprotocol()
    {
        const auto ws = wsRoute();
        auto authorize = [&](const auth::RequestAuthorizer& a, Call& c) {
            auto st = a.authorize(c.req, ws);
            return st ? ErrorKind::Internal : st.kind();
        };
        Call alice(http::verb::get, "");
        alice.header("Sec-WebSocket-Protocol", protocols(m_alice));
        QCOMPARE(authorize(*m_proxy, alice), ErrorKind::Internal);
        QCOMPARE(alice.req.user, std::string("alice"));
        QVERIFY(!alice.req.admin);
        Call root(http::verb::get, "");
        root.header("Sec-WebSocket-Protocol", protocols(m_root));
        QCOMPARE(authorize(*m_proxy, root), ErrorKind::Internal);
        QVERIFY(root.req.admin);
        // Garbage, a changed signature, no token, only the feed protocol.
        Call garbage(http::verb::get, "");
        garbage.header("Sec-WebSocket-Protocol", protocols("not.a.token"));
        QCOMPARE(authorize(*m_proxy, garbage), ErrorKind::Unauthorized);
        Call forged(http::verb::get, "");
        forged.header("Sec-WebSocket-Protocol", protocols(m_alice + "x"));
        QCOMPARE(authorize(*m_proxy, forged), ErrorKind::Unauthorized);
        Call none(http::verb::get, "");
        QCOMPARE(authorize(*m_proxy, none), ErrorKind::Unauthorized);
        Call feedOnly(http::verb::get, "");
        feedOnly.header("Sec-WebSocket-Protocol", "tessera.feed.v1");
        QCOMPARE(authorize(*m_proxy, feedOnly), ErrorKind::Unauthorized);
        // A header that cannot be read is a Bad Request, before any token.
        Call twice(http::verb::get, "");
        twice.header("Sec-WebSocket-Protocol", "tessera.bearer." + m_alice + ", tessera.bearer." + m_root);
        QCOMPARE(authorize(*m_proxy, twice), ErrorKind::BadRequest);
        Call big(http::verb::get, "");
        big.header("Sec-WebSocket-Protocol", protocols(std::string(9000, 'a')));
        QCOMPARE(authorize(*m_proxy, big), ErrorKind::BadRequest);
        // The Authorization header wins when both are there.
        Call both(http::verb::get, "");
        both.bearer(m_root).header("Sec-WebSocket-Protocol", protocols("not.a.token"));
        QCOMPARE(authorize(*m_proxy, both), ErrorKind::Internal);
        QVERIFY(both.req.admin);
        Call badHeader(http::verb::get, "");
        badHeader.bearer("not.a.token").header("Sec-WebSocket-Protocol", protocols(m_root));
        QCOMPARE(authorize(*m_proxy, badHeader), ErrorKind::Unauthorized);
        // Other routes never read the subprotocol.
        Call plain(http::verb::get, "");
        plain.header("Sec-WebSocket-Protocol", protocols(m_root));
        QCOMPARE(outcome(*m_proxy, plain, Access::user()), ErrorKind::Unauthorized);
    }

    void subprotocolTokenRevokedOrExpired()
    {
        std::int64_t now = 1'800'000'000;
        auth::TokenService tokens([&now] { return now; });
        auth::RequestAuthorizer proxy(kClusterKey, tokens, *m_sig, m_users.get());
        const auto ws = wsRoute();
        const auto a = tokens.issue("alice", false, auth::TokenUse::Access, 60)->token;
        const auto b = tokens.issue("alice", false, auth::TokenUse::Access, 600)->token;
        auto with = [&](const std::string& token) {
            Call c(http::verb::get, "");
            c.header("Sec-WebSocket-Protocol", protocols(token));
            auto st = proxy.authorize(c.req, ws);
            return st ? ErrorKind::Internal : st.kind();
        };
        QCOMPARE(with(a), ErrorKind::Internal);
        QVERIFY(tokens.revoke(b).ok());
        QCOMPARE(with(b), ErrorKind::Unauthorized);
        now += 120;
        QCOMPARE(with(a), ErrorKind::Unauthorized);
        // A refresh token is not an access token, here as in the header.
        const auto refresh = tokens.issue("alice", false, auth::TokenUse::Refresh)->token;
        QCOMPARE(with(refresh), ErrorKind::Unauthorized);
    }
};

QTEST_GUILESS_MAIN(TestRequestAuthorizer)
#include "test_request_authorizer.moc"
