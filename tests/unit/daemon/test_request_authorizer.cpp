// The one check of every request when auth is on: each route Access
// against each kind of caller (none, bad token, user token, admin token,
// the cluster key, a signed redirect), with the exact status kind
// (Unauthorized 401 / Forbidden 403) and, on a target, without a user store.
#include "auth/request_authorizer.h"

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
};

QTEST_GUILESS_MAIN(TestRequestAuthorizer)
#include "test_request_authorizer.moc"
