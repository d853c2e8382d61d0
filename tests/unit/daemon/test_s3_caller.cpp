// Who calls the S3 front end (S3Context::authenticate): a SigV4 signature
// as before, or, with a token check configured (auth on), a Tessera access
// token in "Authorization: Bearer" (the web console's way, since a page
// cannot sign SigV4 without an S3 secret). Against a real TokenService and
// UserStore, wired as the proxy wires them: the token's user with the same
// permission check (read yes, write no, another bucket no, an admin
// anything); Unauthorized (401) for garbage, a forged, expired, revoked or
// refresh token, one signed by a dropped key, an empty or oversized one, a
// removed user; a bearer call accepted with no S3 key anywhere while
// unsigned and SigV4 calls stay refused; a bearer token beside a presigned query is a 400; without a
// token check (auth off) a bearer header means what it meant before. The
// S3 error for Unauthorized is a 401 with WWW-Authenticate.
#include "auth/token_service.h"
#include "auth/user_store.h"
#include "s3/s3_context.h"
#include "s3/s3_errors.h"

#include <QTemporaryDir>
#include <QTest>
#include <boost/beast/http/message.hpp>

using namespace tessera;
using namespace tessera::daemon;
using api::ErrorKind;
using api::Permission;
namespace http = boost::beast::http;

namespace {

struct Call {
    http::request_header<> head;
    net::Request req;

    explicit Call(http::verb method = http::verb::get)
    {
        req.method = method;
        req.path = "/s3/imgs/a.jpg";
        req.headers = &head;
    }
    Call& header(const char* name, const std::string& value)
    {
        head.set(name, value);
        return *this;
    }
    Call& bearer(const std::string& token) { return header("Authorization", "Bearer " + token); }
};

}  // namespace

class TestS3Caller : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<auth::UserStore> m_users;
    std::int64_t m_now = auth::TokenService::systemNow();
    auth::TokenService m_tokens{[this] { return m_now; }};
    s3::S3Context m_ctx;
    std::string m_alice;  // read on imgs
    std::string m_root;   // admin

    ErrorKind outcome(Call& c, const std::string& bucket, Permission p, const s3::S3Context* ctx = nullptr)
    {
        auto r = (ctx ? *ctx : m_ctx).authenticate(c.req, bucket, p);
        return r ? ErrorKind::Internal : r.kind();  // Internal stands for "allowed" here
    }
    std::string message(Call& c, const std::string& bucket = "imgs", Permission p = Permission::Read)
    {
        auto r = m_ctx.authenticate(c.req, bucket, p);
        return r ? std::string() : r.error().message;
    }

private slots:
    void initTestCase()
    {
        auto users = auth::UserStore::open(m_dir.filePath("users.db").toStdString());
        QVERIFY(users.ok());
        m_users = std::move(users.value());
        QVERIFY(m_users->addUser("alice", "alice-password", false).ok());
        QVERIFY(m_users->addUser("carol", "carol-password", false).ok());
        QVERIFY(m_users->addUser("root", "root-password", true).ok());
        QVERIFY(m_users->grant("alice", {"imgs", {Permission::Read}}).ok());
        QVERIFY(m_users->grant("carol", {"imgs", {Permission::Read}}).ok());
        // As the proxy wires it (daemon/app/proxy_node.cpp), auth on with an S3 keys file.
        m_ctx.secrets = [](std::string_view ak) -> std::optional<s3::S3Api::Key> {
            if (ak == "AKIDALICE") return s3::S3Api::Key{"alice-secret", "alice"};
            return std::nullopt;
        };
        m_ctx.permits = [this](const std::string& user, const std::string& bucket, Permission p) {
            return m_users->check(user, bucket, p);
        };
        m_ctx.tokens = [this](std::string_view token) -> api::Result<std::string> {
            auto claims = m_tokens.verify(token, auth::TokenUse::Access);
            if (!claims) return claims.error();
            return claims->subject;
        };
        m_alice = m_tokens.issue("alice", false, auth::TokenUse::Access)->token;
        m_root = m_tokens.issue("root", true, auth::TokenUse::Access)->token;
    }

    void bearerIsTheTokensUser()
    {
        Call get;
        get.bearer(m_alice);
        auto c = m_ctx.authenticate(get.req, "imgs", Permission::Read);
        QVERIFY2(c.ok(), c ? "" : c.error().message.c_str());
        QCOMPARE(c->user, std::string("alice"));
        QVERIFY(c->bearer);
        QVERIFY(!c->sig.has_value());  // a plain body: no aws-chunked, no payload hash to check
        QVERIFY(c->signingKey.empty());
        // The scheme is case-insensitive, extra spaces before the token are fine.
        Call lower;
        lower.header("Authorization", "bearer   " + m_alice);
        QCOMPARE(outcome(lower, "imgs", Permission::Read), ErrorKind::Internal);
        // ListBuckets (no bucket): identified, filtered by the caller later.
        QCOMPARE(outcome(get, "", Permission::Read), ErrorKind::Internal);
    }

    void samePermissionCheckAsSignedCalls()
    {
        Call put(http::verb::put);
        put.bearer(m_alice);
        QCOMPARE(outcome(put, "imgs", Permission::Write), ErrorKind::Forbidden);
        QVERIFY(message(put, "imgs", Permission::Write).find("AccessDenied") == 0);
        Call other;
        other.bearer(m_alice);
        QCOMPARE(outcome(other, "logs", Permission::Read), ErrorKind::Forbidden);
        QCOMPARE(outcome(other, "imgs", Permission::List), ErrorKind::Forbidden);
        Call admin(http::verb::delete_);
        admin.bearer(m_root);
        QCOMPARE(outcome(admin, "logs", Permission::Delete), ErrorKind::Internal);
        QCOMPARE(outcome(admin, "any", Permission::AdminBucket), ErrorKind::Internal);
    }

    void badTokensAreUnauthorized()
    {
        const auto refused = [this](const std::string& header, const char* says) {
            Call c;
            c.header("Authorization", header);
            auto r = m_ctx.authenticate(c.req, "imgs", Permission::Read);
            QVERIFY(!r);
            QCOMPARE(r.kind(), ErrorKind::Unauthorized);
            QVERIFY2(r.error().message.find("InvalidToken: ") == 0, r.error().message.c_str());
            QVERIFY2(r.error().message.find(says) != std::string::npos, r.error().message.c_str());
        };
        refused("Bearer not.a.token", "token refused");
        auto forged = m_alice;
        forged.back() = forged.back() == 'A' ? 'B' : 'A';
        refused("Bearer " + forged, "token refused");
        refused("Bearer", "empty");
        refused("Bearer    ", "empty");
        refused("Bearer " + std::string(5000, 'a'), "longer than any token");
        // A refresh token is not an access token, here as on the native API.
        auto pair = m_tokens.issuePair("alice", false);
        QVERIFY(pair.ok());
        refused("Bearer " + pair->refreshToken.value_or(""), "token refused");
    }

    void expiredRevokedAndDroppedKeys()
    {
        auto shortLived = m_tokens.issue("alice", false, auth::TokenUse::Access, 60);
        QVERIFY(shortLived.ok());
        Call c;
        c.bearer(shortLived->token);
        QCOMPARE(outcome(c, "imgs", Permission::Read), ErrorKind::Internal);
        m_now += 3600;
        QCOMPARE(outcome(c, "imgs", Permission::Read), ErrorKind::Unauthorized);
        QVERIFY2(message(c).find("expired") != std::string::npos, message(c).c_str());
        m_now -= 3600;

        auto revoked = m_tokens.issue("alice", false, auth::TokenUse::Access);
        QVERIFY(revoked.ok());
        Call r;
        r.bearer(revoked->token);
        QCOMPARE(outcome(r, "imgs", Permission::Read), ErrorKind::Internal);
        QVERIFY(m_tokens.revoke(revoked->token).ok());
        QCOMPARE(outcome(r, "imgs", Permission::Read), ErrorKind::Unauthorized);
        QVERIFY2(message(r).find("revoked") != std::string::npos, message(r).c_str());

        // The key ring: a token of a dropped key stops verifying.
        const auto oldKid = m_tokens.keyIds().front();
        auto oldToken = m_tokens.issue("alice", false, auth::TokenUse::Access);
        QVERIFY(oldToken.ok());
        QVERIFY(m_tokens.rotateKey().ok());
        Call k;
        k.bearer(oldToken->token);
        QCOMPARE(outcome(k, "imgs", Permission::Read), ErrorKind::Internal);  // older keys verify until dropped
        QVERIFY(m_tokens.dropKey(oldKid).ok());
        QCOMPARE(outcome(k, "imgs", Permission::Read), ErrorKind::Unauthorized);
        // Tokens of the new key work; the fixture's own were of the dropped one.
        m_alice = m_tokens.issue("alice", false, auth::TokenUse::Access)->token;
        m_root = m_tokens.issue("root", true, auth::TokenUse::Access)->token;
    }

    void removedUserIsUnauthorized()
    {
        auto carol = m_tokens.issue("carol", false, auth::TokenUse::Access);
        QVERIFY(carol.ok());
        Call c;
        c.bearer(carol->token);
        QCOMPARE(outcome(c, "imgs", Permission::Read), ErrorKind::Internal);
        QVERIFY(m_users->deleteUser("carol").ok());
        QCOMPARE(outcome(c, "imgs", Permission::Read), ErrorKind::Unauthorized);
        QVERIFY2(message(c).find("no longer exists") != std::string::npos, message(c).c_str());
    }

    void unsignedAndSignedKeepTheirMeaning()
    {
        // Unsigned: refused when keys are configured.
        Call none;
        QCOMPARE(outcome(none, "imgs", Permission::Read), ErrorKind::Forbidden);
        QVERIFY(message(none).find("anonymous requests are not allowed") != std::string::npos);
        // A SigV4 header still goes to the signature check (a bad one is 403, not 401).
        Call sig;
        sig.header("Authorization",
                   "AWS4-HMAC-SHA256 Credential=AKIDALICE/20260101/us-east-1/s3/aws4_request, "
                   "SignedHeaders=host;x-amz-date, Signature=00");
        sig.header("x-amz-date", "20260101T000000Z");
        sig.header("host", "127.0.0.1");
        auto r = m_ctx.authenticate(sig.req, "imgs", Permission::Read);
        QVERIFY(!r);
        QVERIFY(r.kind() == ErrorKind::Forbidden || r.kind() == ErrorKind::BadRequest);
        QVERIFY2(r.error().message.find("InvalidToken") == std::string::npos, r.error().message.c_str());
        // A scheme that only starts like Bearer is not a token.
        Call almost;
        almost.header("Authorization", "Bearerish " + m_alice);
        QVERIFY(outcome(almost, "imgs", Permission::Read) != ErrorKind::Internal);
        QVERIFY(outcome(almost, "imgs", Permission::Read) != ErrorKind::Unauthorized);
        // A token beside a presigned query: one or the other.
        Call both;
        both.bearer(m_alice);
        both.req.query["X-Amz-Algorithm"] = "AWS4-HMAC-SHA256";
        QCOMPARE(outcome(both, "imgs", Permission::Read), ErrorKind::BadRequest);
        QVERIFY(message(both).find("not both") != std::string::npos);
    }

    void bearerWorksWithoutAnyS3Key()
    {
        // Auth on and no S3 key anywhere (no keys file, none in the store):
        // unsigned calls are refused, tokens still work.
        s3::S3Context ctx;
        ctx.secrets = [](std::string_view) -> api::Result<std::optional<s3::S3Api::Key>> {
            return std::optional<s3::S3Api::Key>();
        };
        ctx.permits = m_ctx.permits;
        ctx.tokens = m_ctx.tokens;
        Call get;
        get.bearer(m_alice);
        QCOMPARE(outcome(get, "imgs", Permission::Read, &ctx), ErrorKind::Internal);
        Call put(http::verb::put);
        put.bearer(m_alice);
        QCOMPARE(outcome(put, "imgs", Permission::Write, &ctx), ErrorKind::Forbidden);
        Call none;
        QCOMPARE(outcome(none, "imgs", Permission::Read, &ctx), ErrorKind::Forbidden);
        auto r = ctx.authenticate(none.req, "imgs", Permission::Read);
        QVERIFY2(!r && r.error().message.find("anonymous") != std::string::npos,
                 r ? "accepted" : r.error().message.c_str());
        Call garbage;
        garbage.bearer("garbage");
        QCOMPARE(outcome(garbage, "imgs", Permission::Read, &ctx), ErrorKind::Unauthorized);
    }

    void authOffIgnoresNothingNew()
    {
        // No token check (auth off): a bearer header is what it was before,
        // a malformed SigV4 Authorization (400), never a token.
        s3::S3Context off;
        Call c;
        c.bearer(m_alice);
        auto r = off.authenticate(c.req, "imgs", Permission::Read);
        QVERIFY(!r);
        QCOMPARE(r.kind(), ErrorKind::BadRequest);
        QVERIFY2(r.error().message.find("AuthorizationHeaderMalformed") == 0, r.error().message.c_str());
        Call none;
        QCOMPARE(outcome(none, "imgs", Permission::Read, &off), ErrorKind::Internal);
    }

    void unauthorizedIsA401()
    {
        auto r = s3::fromError(api::Error::unauthorized("InvalidToken: token refused: expired"), "/imgs/a.jpg");
        QCOMPARE(r.status, 401);
        bool challenge = false;
        for (const auto& [name, value] : r.headers)
            challenge |= name == "WWW-Authenticate" && value.find("Bearer") == 0;
        QVERIFY(challenge);
        QVERIFY(r.body.find("<Code>InvalidToken</Code>") != std::string::npos);
        QCOMPARE(s3::fromError(api::Error::forbidden("AccessDenied: no"), "/imgs").status, 403);
    }
};

QTEST_GUILESS_MAIN(TestS3Caller)
#include "test_s3_caller.moc"
