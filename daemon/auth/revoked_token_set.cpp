#include "revoked_token_set.h"

#include <algorithm>

namespace tessera::daemon::auth {

namespace {
api::Error full()
{
    return api::Error::unavailable("the revoked-token list holds " +
                                   std::to_string(api::auth_limits::kMaxRevokedTokens) + " live entries");
}
}  // namespace

api::Status RevokedTokenSet::add(std::string_view jti, std::int64_t expiresAt, std::int64_t now)
{
    prune(now);
    auto it = m_entries.find(jti);
    if (it != m_entries.end()) {
        it->second = std::max(it->second, expiresAt);
        return {};
    }
    if (m_entries.size() >= api::auth_limits::kMaxRevokedTokens) return full();
    m_entries.emplace(std::string(jti), expiresAt);
    return {};
}

bool RevokedTokenSet::contains(std::string_view jti) const { return m_entries.find(jti) != m_entries.end(); }

void RevokedTokenSet::prune(std::int64_t now)
{
    std::erase_if(m_entries, [now](const auto& e) { return e.second < now; });
}

api::RevokedTokens RevokedTokenSet::exportList() const
{
    api::RevokedTokens out;
    out.tokens.reserve(m_entries.size());
    for (const auto& [jti, exp] : m_entries) out.tokens.push_back({jti, exp});
    return out;
}

api::Status RevokedTokenSet::importList(const api::RevokedTokens& list, std::int64_t now)
{
    prune(now);
    auto merged = m_entries;
    for (const auto& t : list.tokens) {
        if (t.expiresAt < now) continue;
        auto [it, inserted] = merged.emplace(t.jti, t.expiresAt);
        if (!inserted) it->second = std::max(it->second, t.expiresAt);
        if (merged.size() > api::auth_limits::kMaxRevokedTokens) return full();
    }
    m_entries = std::move(merged);
    return {};
}

}  // namespace tessera::daemon::auth
