#pragma once
// Token ids (`jti`) revoked before their expiry. Each entry keeps the
// token's expiry and is pruned once it has passed: an expired token is
// refused anyway, so the set holds only tokens still alive, at most one
// refresh lifetime's worth of revocations. The set is exported and
// imported as api::RevokedTokens so it can travel with the cluster
// metadata and every node refuses a revoked token.
//
// Thread safety: none; the owner (TokenService) serializes calls.

#include "api/auth_msg.h"
#include "api/result.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace tessera::daemon::auth {

class RevokedTokenSet {
public:
    // Adds `jti` (expiring at `expiresAt`, unix seconds) after pruning at
    // `now`. Unavailable when kMaxRevokedTokens live entries remain.
    api::Status add(std::string_view jti, std::int64_t expiresAt, std::int64_t now);
    bool contains(std::string_view jti) const;
    // Drops the entries whose token expired before `now`.
    void prune(std::int64_t now);
    std::size_t size() const { return m_entries.size(); }

    // Sorted by jti.
    api::RevokedTokens exportList() const;
    // Merges `list` in (entries already present keep the later expiry),
    // dropping entries expired at `now`. Unavailable when the merge would
    // pass the limit; the set is then unchanged.
    api::Status importList(const api::RevokedTokens& list, std::int64_t now);

private:
    std::map<std::string, std::int64_t, std::less<>> m_entries;  // jti -> expires_at
};

}  // namespace tessera::daemon::auth
