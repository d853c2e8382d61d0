#include "key_ring.h"

#include "sodium_runtime.h"

#include <algorithm>
#include <sodium.h>

namespace tessera::daemon::auth {

KeyRing::~KeyRing()
{
    for (auto& k : m_keys) sodium_memzero(k.secret.data(), k.secret.size());
}

api::Result<std::string> KeyRing::rotate()
{
    ensureSodium();
    std::string secret(kKeyBytes, '\0');
    randombytes_buf(secret.data(), secret.size());
    unsigned char id[8];
    randombytes_buf(id, sizeof id);
    char hex[2 * sizeof id + 1];
    sodium_bin2hex(hex, sizeof hex, id, sizeof id);
    std::string kid(hex);
    if (auto st = add(kid, std::move(secret)); !st) return st.error();
    return kid;
}

api::Status KeyRing::add(std::string kid, std::string secret)
{
    if (secret.size() < kKeyBytes) {
        return api::Error::badRequest("a signing key has at least " + std::to_string(kKeyBytes) + " bytes");
    }
    const bool printable =
        std::all_of(kid.begin(), kid.end(), [](char c) { return c > ' ' && c < 0x7f && c != '"' && c != '\\'; });
    if (kid.empty() || kid.size() > 64 || !printable) {
        return api::Error::badRequest("a key id is 1 to 64 printable ASCII characters");
    }
    if (find(kid) != nullptr) return api::Error::conflict("key \"" + kid + "\" is already in the ring");
    if (m_keys.size() >= kMaxKeys) {
        return api::Error::conflict("the key ring holds " + std::to_string(kMaxKeys) + " keys; drop an old one first");
    }
    m_keys.push_back({std::move(kid), std::move(secret)});
    return {};
}

api::Status KeyRing::drop(std::string_view kid)
{
    auto it = std::find_if(m_keys.begin(), m_keys.end(), [&](const SigningKey& k) { return k.kid == kid; });
    if (it == m_keys.end()) return api::Error::notFound("no key \"" + std::string(kid) + "\"");
    if (std::next(it) == m_keys.end()) {
        return api::Error::conflict("key \"" + std::string(kid) + "\" signs new tokens; rotate before dropping it");
    }
    sodium_memzero(it->secret.data(), it->secret.size());
    m_keys.erase(it);
    return {};
}

api::Status KeyRing::assign(std::vector<SigningKey> keys)
{
    if (keys.empty()) return api::Error::badRequest("a key ring holds at least one key");
    KeyRing next;
    for (auto& k : keys) {
        if (auto st = next.add(std::move(k.kid), std::move(k.secret)); !st) return st;
    }
    std::swap(m_keys, next.m_keys);  // next's destructor wipes the old secrets
    return {};
}

const SigningKey* KeyRing::newest() const { return m_keys.empty() ? nullptr : &m_keys.back(); }

const SigningKey* KeyRing::find(std::string_view kid) const
{
    for (const auto& k : m_keys) {
        if (k.kid == kid) return &k;
    }
    return nullptr;
}

std::vector<std::string> KeyRing::kids() const
{
    std::vector<std::string> out;
    for (const auto& k : m_keys) out.push_back(k.kid);
    return out;
}

}  // namespace tessera::daemon::auth
