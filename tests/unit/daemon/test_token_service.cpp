// JWTs: a round trip, and each way a token is refused (alg none, another
// algorithm, unknown key, bad signature, expired, revoked, missing claims,
// wrong use), key rotation and the revoked list's export/import. Forged
// tokens are built with libjwt itself, as an attacker would.
#include "auth/token_service.h"

#include <QTest>
#include <cstdlib>
#include <jwt.h>

using namespace tessera;
using tessera::daemon::auth::TokenService;
using tessera::daemon::auth::TokenUse;

namespace {

const std::string kSecret(32, 'k');

struct Forged {
    jwt_alg_t alg = JWT_ALG_HS256;
    std::string kid = "known";
    std::string key = kSecret;
    bool withJti = true;
    bool withExp = true;
    std::int64_t iat = 1'000'000;
    std::int64_t exp = 1'000'000 + 600;
    std::string use = "access";
};

// A token built outside the service, with whatever header and claims.
std::string forge(const Forged& f)
{
    jwt_t* j = nullptr;
    if (jwt_new(&j) != 0) qFatal("jwt_new");
    const auto* key = f.alg == JWT_ALG_NONE ? nullptr : reinterpret_cast<const unsigned char*>(f.key.data());
    const int keyLen = f.alg == JWT_ALG_NONE ? 0 : static_cast<int>(f.key.size());
    if (jwt_set_alg(j, f.alg, key, keyLen) != 0) qFatal("jwt_set_alg");
    if (!f.kid.empty()) jwt_add_header(j, "kid", f.kid.c_str());
    jwt_add_grant(j, "sub", "alice");
    jwt_add_grant_int(j, "iat", f.iat);
    if (f.withExp) jwt_add_grant_int(j, "exp", f.exp);
    if (f.withJti) jwt_add_grant(j, "jti", "00112233445566778899aabbccddeeff");
    jwt_add_grant_bool(j, "admin", 1);
    jwt_add_grant(j, "use", f.use.c_str());
    char* s = jwt_encode_str(j);
    std::string out = s ? s : "";
    std::free(s);
    jwt_free(j);
    return out;
}

}  // namespace

class TestTokenService : public QObject {
    Q_OBJECT

private:
    std::int64_t m_now = 1'000'000;
    std::unique_ptr<TokenService> m_svc;

    std::string refusal(const std::string& token, TokenUse use = TokenUse::Access)
    {
        auto r = m_svc->verify(token, use);
        if (r) return "(accepted)";
        if (r.kind() != api::ErrorKind::Unauthorized) return "(wrong kind)";
        return r.error().message;
    }

private slots:
    void init()
    {
        m_now = 1'000'000;
        m_svc = std::make_unique<TokenService>([this] { return m_now; });
        QVERIFY(m_svc->addKey("known", kSecret).ok());  // now the signing key
    }

    void roundTrip()
    {
        auto t = m_svc->issue("alice", true, TokenUse::Access);
        QVERIFY(t.ok());
        QCOMPARE(t->claims.expiresAt, m_now + TokenService::kAccessLifetime);
        auto c = m_svc->verify(t->token, TokenUse::Access);
        QVERIFY(c.ok());
        QCOMPARE(c->subject, std::string("alice"));
        QCOMPARE(c->admin, true);
        QCOMPARE(c->issuedAt, m_now);
        QCOMPARE(c->expiresAt, m_now + 15 * 60);
        QCOMPARE(c->jti, t->claims.jti);
        QCOMPARE(c->jti.size(), std::size_t{32});
        // A token we forge the same way with the same key is accepted: the
        // forging helper is faithful, so the refusals below are about the
        // one thing each changes.
        QCOMPARE(refusal(forge({})), std::string("(accepted)"));
    }

    void pairAndRefresh()
    {
        auto pair = m_svc->issuePair("bob", false);
        QVERIFY(pair.ok());
        QCOMPARE(pair->expiresAt, m_now + TokenService::kAccessLifetime);
        QCOMPARE(*pair->refreshExpiresAt, m_now + TokenService::kRefreshLifetime);
        // Neither kind stands in for the other.
        QCOMPARE(refusal(*pair->refreshToken, TokenUse::Access),
                 std::string("token refused: a refresh token where access is needed"));
        QCOMPARE(refusal(pair->token, TokenUse::Refresh),
                 std::string("token refused: a access token where refresh is needed"));
        // Redeemed once only.
        m_now += TokenService::kAccessLifetime + 1;
        QCOMPARE(refusal(pair->token), std::string("token refused: expired"));
        auto c = m_svc->redeemRefresh(*pair->refreshToken);
        QVERIFY(c.ok());
        QCOMPARE(c->subject, std::string("bob"));
        auto again = m_svc->redeemRefresh(*pair->refreshToken);
        QCOMPARE(again.error().message, std::string("token refused: revoked"));
    }

    void refusesAlgNone()
    {
        Forged f;
        f.alg = JWT_ALG_NONE;
        const auto token = forge(f);
        QVERIFY(token.back() == '.');  // no signature at all
        QCOMPARE(refusal(token), std::string("token refused: algorithm \"none\" is not accepted (HS256 only)"));
    }

    void refusesOtherAlgorithms()
    {
        Forged f;
        f.alg = JWT_ALG_HS384;  // right key, other hash
        QCOMPARE(refusal(forge(f)), std::string("token refused: algorithm \"HS384\" is not accepted (HS256 only)"));
        f.alg = JWT_ALG_HS512;
        QCOMPARE(refusal(forge(f)), std::string("token refused: algorithm \"HS512\" is not accepted (HS256 only)"));
    }

    void refusesUnknownOrMissingKey()
    {
        Forged f;
        f.kid = "someone-elses";
        QCOMPARE(refusal(forge(f)), std::string("token refused: unknown key \"someone-elses\""));
        f.kid.clear();
        QCOMPARE(refusal(forge(f)), std::string("token refused: header: /kid: required"));
    }

    void refusesBadSignature()
    {
        Forged f;
        f.key = std::string(32, 'x');  // a known kid, the wrong secret
        QCOMPARE(refusal(forge(f)), std::string("token refused: bad signature"));
        // A valid token with one payload character changed.
        auto t = m_svc->issue("alice", false, TokenUse::Access);
        QVERIFY(t.ok());
        std::string tampered = t->token;
        const auto dot = tampered.find('.');
        tampered[dot + 5] = tampered[dot + 5] == 'A' ? 'B' : 'A';
        QCOMPARE(refusal(tampered), std::string("token refused: bad signature"));
        QCOMPARE(refusal("abc"), std::string("token refused: not three base64url parts"));
        QCOMPARE(refusal("a.b.c.d"), std::string("token refused: not three base64url parts"));
        QCOMPARE(refusal("!!.b.c"), std::string("token refused: header is not base64url"));
    }

    void refusesMissingClaims()
    {
        Forged f;
        f.withJti = false;
        QCOMPARE(refusal(forge(f)), std::string("token refused: claims: /jti: required"));
        f = {};
        f.withExp = false;
        QCOMPARE(refusal(forge(f)), std::string("token refused: claims: /exp: required"));
        f = {};
        f.exp = f.iat + TokenService::kAccessLifetime + 1;  // longer than any access token
        QCOMPARE(refusal(forge(f)), std::string("token refused: lifetime over the maximum"));
        f = {};
        f.use = "root";
        QCOMPARE(refusal(forge(f)), std::string("token refused: unknown use \"root\""));
        f = {};
        f.iat = m_now + TokenService::kClockSkew + 1;
        f.exp = f.iat + 60;
        QCOMPARE(refusal(forge(f)), std::string("token refused: issued in the future"));
    }

    void refusesExpired()
    {
        auto t = m_svc->issue("alice", false, TokenUse::Access, 10);
        QVERIFY(t.ok());
        m_now += 9;
        QVERIFY(m_svc->verify(t->token, TokenUse::Access).ok());
        m_now += 1;
        QCOMPARE(refusal(t->token), std::string("token refused: expired"));
        QCOMPARE(m_svc->issue("alice", false, TokenUse::Access, TokenService::kAccessLifetime + 1).kind(),
                 api::ErrorKind::BadRequest);
    }

    void rotation()
    {
        auto old = m_svc->issue("alice", false, TokenUse::Access);
        QVERIFY(old.ok());
        auto kid = m_svc->rotateKey();
        QVERIFY(kid.ok());
        QCOMPARE(m_svc->keyIds().back(), *kid);
        auto fresh = m_svc->issue("alice", false, TokenUse::Access);
        QVERIFY(fresh.ok());
        // Both verify while both keys are in the ring.
        QVERIFY(m_svc->verify(old->token, TokenUse::Access).ok());
        QVERIFY(m_svc->verify(fresh->token, TokenUse::Access).ok());
        // The newest key cannot go; the old one can, and its tokens with it.
        QCOMPARE(m_svc->dropKey(*kid).kind(), api::ErrorKind::Conflict);
        QVERIFY(m_svc->dropKey("known").ok());
        QCOMPARE(m_svc->dropKey("known").kind(), api::ErrorKind::NotFound);
        QCOMPARE(refusal(old->token), std::string("token refused: unknown key \"known\""));
        QVERIFY(m_svc->verify(fresh->token, TokenUse::Access).ok());
        QCOMPARE(m_svc->addKey("short", "too short").kind(), api::ErrorKind::BadRequest);
    }

    void replaceKeysAtOnce()
    {
        auto old = m_svc->issue("alice", false, TokenUse::Access);
        QVERIFY(old.ok());
        const std::string second(32, 's');
        QVERIFY(m_svc->replaceKeys({{"known", kSecret}, {"second", second}}).ok());
        QCOMPARE(m_svc->keyIds(), (std::vector<std::string>{"known", "second"}));
        QVERIFY(m_svc->verify(old->token, TokenUse::Access).ok());
        auto fresh = m_svc->issue("alice", false, TokenUse::Access);
        QVERIFY(fresh.ok());
        // A bad ring changes nothing.
        QCOMPARE(m_svc->replaceKeys({{"a", second}, {"a", second}}).kind(), api::ErrorKind::Conflict);
        QCOMPARE(m_svc->replaceKeys({}).kind(), api::ErrorKind::BadRequest);
        QCOMPARE(m_svc->keyIds(), (std::vector<std::string>{"known", "second"}));
        // Without "known", the tokens it signed are refused; the new signer's stay.
        QVERIFY(m_svc->replaceKeys({{"second", second}}).ok());
        QCOMPARE(refusal(old->token), std::string("token refused: unknown key \"known\""));
        QVERIFY(m_svc->verify(fresh->token, TokenUse::Access).ok());
    }

    void revokingTwiceIsARetry()
    {
        auto t = m_svc->issue("alice", false, TokenUse::Access);
        QVERIFY(t.ok());
        QVERIFY(m_svc->revoke(t->token).ok());
        QVERIFY(m_svc->revoke(t->token).ok());
        QCOMPARE(refusal(t->token), std::string("token refused: revoked"));
    }

    void revocationTravels()
    {
        auto t = m_svc->issue("alice", false, TokenUse::Access);
        QVERIFY(t.ok());
        QVERIFY(m_svc->revoke(t->token).ok());
        QCOMPARE(refusal(t->token), std::string("token refused: revoked"));
        QCOMPARE(m_svc->revoke("not.a.token").kind(), api::ErrorKind::Unauthorized);

        // Another node with the same key refuses it once it imports the list.
        const auto list = m_svc->exportRevoked();
        QCOMPARE(list.tokens.size(), std::size_t{1});
        QCOMPARE(list.tokens[0].jti, t->claims.jti);
        QCOMPARE(list.tokens[0].expiresAt, t->claims.expiresAt);
        TokenService other([this] { return m_now; });
        QVERIFY(other.addKey("known", kSecret).ok());
        QVERIFY(other.verify(t->token, TokenUse::Access).ok());
        QVERIFY(other.importRevoked(list).ok());
        QVERIFY(!other.verify(t->token, TokenUse::Access).ok());
        QVERIFY(other.isRevoked(t->claims.jti));

        // Entries go once the token has expired anyway.
        m_now = t->claims.expiresAt + 1;
        QVERIFY(m_svc->revokeId("ffff", m_now + 60).ok());
        const auto later = m_svc->exportRevoked();
        QCOMPARE(later.tokens.size(), std::size_t{1});
        QCOMPARE(later.tokens[0].jti, std::string("ffff"));
    }
};

QTEST_GUILESS_MAIN(TestTokenService)
#include "test_token_service.moc"
