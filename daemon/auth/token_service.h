#pragma once
// Signed tokens (JWT, RFC 7519) issued by the proxy after a login and
// checked by every node: HS256 only, the `kid` header naming the key in the
// KeyRing that signed it, and the claims
//   sub    the user name
//   iat    issued at (unix seconds)
//   exp    expires at (unix seconds)
//   jti    a random id (32 hex digits), the handle for revocation
//   admin  the user's cluster-wide admin flag when the token was issued
//   use    "access" or "refresh"
//
// Refresh: a login answers an access token (kAccessLifetime, 15 min) and a
// refresh token (kRefreshLifetime, 24 h), as OAuth2 and MinIO's STS do. The
// access token is what requests carry; when it expires the client trades
// the refresh token (once: redeeming revokes it) for a new pair, and the
// proxy re-reads the user then, so a removed user or a lost admin flag
// takes effect within one access lifetime without a password prompt every
// 15 minutes. Neither kind is accepted in place of the other.
//
// Verification refuses (Unauthorized, with the reason): a token that is not
// three base64url parts; a header with an `alg` other than HS256 (`none`,
// HS384, RS256 ...), without a `kid`, with an unknown `kid` or with fields
// other than alg/typ/kid; a bad signature (checked in constant time before
// libjwt parses anything); a missing or mistyped claim; an `iat` in the
// future or a lifetime over its kind's maximum; an expired token; the wrong
// `use`; a revoked `jti`.
//
// Thread safety: all members may be called from any thread (one mutex).

#include "key_ring.h"
#include "revoked_token_set.h"

#include "api/auth_msg.h"
#include "api/result.h"

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::daemon::auth {

enum class TokenUse { Access, Refresh };

struct TokenClaims {
    std::string subject;
    bool admin = false;
    std::int64_t issuedAt = 0;
    std::int64_t expiresAt = 0;
    std::string jti;
    TokenUse use = TokenUse::Access;
};

struct IssuedToken {
    std::string token;
    TokenClaims claims;
};

class TokenService {
public:
    // Unix seconds; a test passes its own clock.
    using Clock = std::function<std::int64_t()>;
    static std::int64_t systemNow();

    // Short so that a leaked access token is worth little and the revoked
    // list stays small; long enough that a client refreshes rarely.
    static constexpr std::int64_t kAccessLifetime = 15 * 60;
    static constexpr std::int64_t kRefreshLifetime = 24 * 60 * 60;
    // Nodes' clocks may differ by this much: a token issued "in the future"
    // by up to this is accepted.
    static constexpr std::int64_t kClockSkew = 60;

    // Starts with one fresh random key.
    explicit TokenService(Clock clock = &TokenService::systemNow);

    // A token for `subject` of the given use and lifetime (its kind's
    // default, or shorter). BadRequest for a lifetime outside
    // 1..its kind's maximum.
    api::Result<IssuedToken> issue(std::string_view subject, bool admin, TokenUse use, std::int64_t lifetime = 0);
    // The answer to a login or refresh: an access and a refresh token.
    api::Result<api::TokenReply> issuePair(std::string_view subject, bool admin);
    // The claims of a valid token of `use` (see the list above).
    api::Result<TokenClaims> verify(std::string_view token, TokenUse use) const;
    // Verifies a refresh token and revokes it in the same step, so it can
    // be traded once only; the caller then issues a new pair.
    api::Result<TokenClaims> redeemRefresh(std::string_view token);

    // Revokes a token of either use (it must verify, or be revoked already:
    // an invalid token needs no revoking). Unauthorized when it does not
    // verify.
    api::Status revoke(std::string_view token);
    api::Status revokeId(std::string_view jti, std::int64_t expiresAt);
    bool isRevoked(std::string_view jti) const;
    api::RevokedTokens exportRevoked() const;
    api::Status importRevoked(const api::RevokedTokens& list);

    // Key rotation: a new newest key (its id); older keys verify until dropped.
    api::Result<std::string> rotateKey();
    api::Status addKey(std::string kid, std::string secret);
    api::Status dropKey(std::string_view kid);
    // The whole ring at once (KeyRing::assign): tokens of a key no longer
    // in it stop verifying from this call on.
    api::Status replaceKeys(std::vector<SigningKey> keys);
    std::vector<std::string> keyIds() const;

private:
    // `use` nullopt: either kind. `acceptRevoked`: a revoked token passes
    // (revoking again is how a caller retries a revocation that did not
    // reach every target).
    api::Result<TokenClaims> verifyLocked(std::string_view token, std::optional<TokenUse> use,
                                          bool acceptRevoked = false) const;
    api::Result<IssuedToken> issueLocked(std::string_view subject, bool admin, TokenUse use, std::int64_t lifetime);

    Clock m_clock;
    mutable std::mutex m_mutex;
    KeyRing m_keys;
    RevokedTokenSet m_revoked;
};

}  // namespace tessera::daemon::auth
