#include "token_service.h"

#include "hmac_sha256.h"
#include "sodium_runtime.h"

#include "api/wire.h"

#include <chrono>
#include <cstdlib>
#include <jwt.h>
#include <memory>
#include <nlohmann/json.hpp>
#include <sodium.h>

namespace tessera::daemon::auth {

namespace {

constexpr const char* kAlg = "HS256";
constexpr std::size_t kJtiBytes = 16;

const char* useName(TokenUse u) { return u == TokenUse::Access ? "access" : "refresh"; }

std::int64_t maxLifetime(TokenUse u)
{
    return u == TokenUse::Access ? TokenService::kAccessLifetime : TokenService::kRefreshLifetime;
}

struct JwtFree {
    void operator()(jwt_t* j) const { jwt_free(j); }
};
using JwtPtr = std::unique_ptr<jwt_t, JwtFree>;
struct CFree {
    void operator()(char* p) const { std::free(p); }
};
using CString = std::unique_ptr<char, CFree>;

api::Error refused(std::string why) { return api::Error::unauthorized("token refused: " + std::move(why)); }

// Base64url without padding (RFC 7515); nullopt for anything else.
std::optional<std::string> fromBase64Url(std::string_view text)
{
    std::string out(text.size(), '\0');  // decoded is always shorter
    std::size_t len = 0;
    const char* end = nullptr;
    if (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), text.data(), text.size(), nullptr,
                          &len, &end, sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
        end != text.data() + text.size()) {
        return std::nullopt;
    }
    out.resize(len);
    return out;
}

}  // namespace

std::int64_t TokenService::systemNow()
{
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

TokenService::TokenService(Clock clock) : m_clock(std::move(clock))
{
    // An empty ring has room; a failure here is a bug.
    if (auto kid = m_keys.rotate(); !kid) throw std::logic_error("token service: " + kid.error().message);
}

api::Result<IssuedToken> TokenService::issue(std::string_view subject, bool admin, TokenUse use, std::int64_t lifetime)
{
    std::lock_guard lock(m_mutex);
    return issueLocked(subject, admin, use, lifetime);
}

api::Result<IssuedToken> TokenService::issueLocked(std::string_view subject, bool admin, TokenUse use,
                                                   std::int64_t lifetime)
{
    if (lifetime == 0) lifetime = maxLifetime(use);
    if (lifetime < 1 || lifetime > maxLifetime(use)) {
        return api::Error::badRequest(std::string("a token's lifetime is 1 to ") + std::to_string(maxLifetime(use)) +
                                      " s for " + useName(use));
    }
    if (auto st = api::validateUserName(subject); !st) return st.error();
    const SigningKey* key = m_keys.newest();
    if (key == nullptr) return api::Error::internal("token service: no signing key");

    ensureSodium();
    unsigned char id[kJtiBytes];
    randombytes_buf(id, sizeof id);
    char hex[2 * kJtiBytes + 1];
    sodium_bin2hex(hex, sizeof hex, id, sizeof id);

    TokenClaims c;
    c.subject = std::string(subject);
    c.admin = admin;
    c.issuedAt = m_clock();
    c.expiresAt = c.issuedAt + lifetime;
    c.jti = hex;
    c.use = use;

    jwt_t* raw = nullptr;
    if (jwt_new(&raw) != 0) return api::Error::internal("libjwt: out of memory");
    JwtPtr jwt(raw);
    const auto* secret = reinterpret_cast<const unsigned char*>(key->secret.data());
    int rc = jwt_set_alg(jwt.get(), JWT_ALG_HS256, secret, static_cast<int>(key->secret.size()));
    rc = rc ? rc : jwt_add_header(jwt.get(), "kid", key->kid.c_str());
    // The claims as one wire type (shared/api/auth_msg.h), the one verify reads.
    const api::TokenClaimsWire wire{c.subject, c.issuedAt, c.expiresAt, c.jti, admin, useName(use)};
    rc = rc ? rc : jwt_add_grants_json(jwt.get(), nlohmann::json(wire).dump().c_str());
    if (rc != 0) return api::Error::internal("libjwt: cannot build a token (error " + std::to_string(rc) + ")");
    CString text(jwt_encode_str(jwt.get()));
    if (!text) return api::Error::internal("libjwt: cannot encode a token");
    return IssuedToken{std::string(text.get()), std::move(c)};
}

api::Result<api::TokenReply> TokenService::issuePair(std::string_view subject, bool admin)
{
    std::lock_guard lock(m_mutex);
    auto access = issueLocked(subject, admin, TokenUse::Access, 0);
    if (!access) return access.error();
    auto refresh = issueLocked(subject, admin, TokenUse::Refresh, 0);
    if (!refresh) return refresh.error();
    api::TokenReply reply;
    reply.token = std::move(access->token);
    reply.expiresAt = access->claims.expiresAt;
    reply.refreshToken = std::move(refresh->token);
    reply.refreshExpiresAt = refresh->claims.expiresAt;
    return reply;
}

api::Result<TokenClaims> TokenService::verify(std::string_view token, TokenUse use) const
{
    std::lock_guard lock(m_mutex);
    return verifyLocked(token, use);
}

api::Result<TokenClaims> TokenService::verifyLocked(std::string_view token, std::optional<TokenUse> use,
                                                    bool acceptRevoked) const
{
    if (token.empty()) return refused("empty");
    if (token.size() > api::auth_limits::kMaxTokenBytes) return refused("longer than any token issued here");
    const auto d1 = token.find('.');
    const auto d2 = d1 == std::string_view::npos ? d1 : token.find('.', d1 + 1);
    if (d2 == std::string_view::npos || token.find('.', d2 + 1) != std::string_view::npos) {
        return refused("not three base64url parts");
    }

    // The header first, by hand: libjwt would verify with whatever algorithm
    // the token names, and accept `none` when asked to.
    const auto headerText = fromBase64Url(token.substr(0, d1));
    if (!headerText) return refused("header is not base64url");
    const auto header = api::parseMessage<api::TokenHeader>(*headerText, "header");
    if (!header) return refused(header.error().message);
    if (header->alg != kAlg) return refused("algorithm \"" + header->alg + "\" is not accepted (HS256 only)");
    if (!header->typ.empty() && header->typ != "JWT") return refused("header type is not JWT");
    const SigningKey* key = m_keys.find(header->kid);
    if (key == nullptr) return refused("unknown key \"" + header->kid + "\"");

    // The signature, in constant time, before anything else reads the
    // payload (libjwt 1.10 compares signatures with strcmp).
    const auto sig = fromBase64Url(token.substr(d2 + 1));
    const auto mac = hmacSha256(key->secret, token.substr(0, d2));
    if (!sig || !sameBytes(*sig, std::string_view(reinterpret_cast<const char*>(mac.data()), mac.size()))) {
        return refused("bad signature");
    }

    jwt_t* raw = nullptr;
    const std::string text(token);
    if (jwt_decode(&raw, text.c_str(), reinterpret_cast<const unsigned char*>(key->secret.data()),
                   static_cast<int>(key->secret.size())) != 0) {
        return refused("malformed");
    }
    JwtPtr jwt(raw);
    if (jwt_get_alg(jwt.get()) != JWT_ALG_HS256) return refused("algorithm is not HS256");
    CString grants(jwt_get_grants_json(jwt.get(), nullptr));
    if (!grants) return refused("no claims");
    auto wire = api::parseMessage<api::TokenClaimsWire>(grants.get(), "claims");
    if (!wire) return refused(wire.error().message);

    TokenClaims c;
    c.subject = wire->sub;
    c.admin = wire->admin;
    c.issuedAt = wire->iat;
    c.expiresAt = wire->exp;
    c.jti = wire->jti;
    if (wire->use == "access") c.use = TokenUse::Access;
    else if (wire->use == "refresh") c.use = TokenUse::Refresh;
    else return refused("unknown use \"" + wire->use + "\"");
    if (c.subject.empty() || c.jti.empty()) return refused("empty sub or jti");

    const auto now = m_clock();
    if (c.issuedAt > now + kClockSkew) return refused("issued in the future");
    if (c.expiresAt <= c.issuedAt || c.expiresAt - c.issuedAt > maxLifetime(c.use)) {
        return refused("lifetime over the maximum");
    }
    if (c.expiresAt <= now) return refused("expired");
    if (use && c.use != *use) {
        return refused(std::string("a ") + useName(c.use) + " token where " + useName(*use) + " is needed");
    }
    if (!acceptRevoked && m_revoked.contains(c.jti)) return refused("revoked");
    return c;
}

api::Result<TokenClaims> TokenService::redeemRefresh(std::string_view token)
{
    std::lock_guard lock(m_mutex);
    auto c = verifyLocked(token, TokenUse::Refresh);
    if (!c) return c.error();
    if (auto st = m_revoked.add(c->jti, c->expiresAt, m_clock()); !st) return st.error();
    return c;
}

api::Status TokenService::revoke(std::string_view token)
{
    std::lock_guard lock(m_mutex);
    auto c = verifyLocked(token, std::nullopt, true);
    if (!c) return c.error();
    return m_revoked.add(c->jti, c->expiresAt, m_clock());
}

api::Status TokenService::revokeId(std::string_view jti, std::int64_t expiresAt)
{
    std::lock_guard lock(m_mutex);
    return m_revoked.add(jti, expiresAt, m_clock());
}

bool TokenService::isRevoked(std::string_view jti) const
{
    std::lock_guard lock(m_mutex);
    return m_revoked.contains(jti);
}

api::RevokedTokens TokenService::exportRevoked() const
{
    std::lock_guard lock(m_mutex);
    return m_revoked.exportList();
}

api::Status TokenService::importRevoked(const api::RevokedTokens& list)
{
    std::lock_guard lock(m_mutex);
    return m_revoked.importList(list, m_clock());
}

api::Result<std::string> TokenService::rotateKey()
{
    std::lock_guard lock(m_mutex);
    return m_keys.rotate();
}

api::Status TokenService::addKey(std::string kid, std::string secret)
{
    std::lock_guard lock(m_mutex);
    return m_keys.add(std::move(kid), std::move(secret));
}

api::Status TokenService::dropKey(std::string_view kid)
{
    std::lock_guard lock(m_mutex);
    return m_keys.drop(kid);
}

api::Status TokenService::replaceKeys(std::vector<SigningKey> keys)
{
    std::lock_guard lock(m_mutex);
    return m_keys.assign(std::move(keys));
}

std::vector<std::string> TokenService::keyIds() const
{
    std::lock_guard lock(m_mutex);
    return m_keys.kids();
}

}  // namespace tessera::daemon::auth
