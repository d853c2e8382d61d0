#include "node_auth.h"

#include "common/log.h"

#include "auth/hmac_sha256.h"
#include "auth/sodium_runtime.h"

#include "api/json_util.h"
#include "api/wire.h"

#include <algorithm>
#include <sodium.h>

#include <filesystem>
#include <stdexcept>

namespace tessera::daemon {

namespace {

// Labels that separate the keys derived from the cluster key.
constexpr std::string_view kTokenKeyLabel = "tessera token signing key v1";
constexpr std::string_view kRotatedKeyLabel = "tessera token signing key v2 ";
constexpr std::string_view kRedirectKeyLabel = "tessera redirect signing key v1";
// The first ring's key, derived as before keys rotated.
constexpr const char* kFirstKeyId = "cluster-v1";

std::string derive(const std::string& clusterKey, std::string_view label)
{
    const auto mac = auth::hmacSha256(clusterKey, label);
    return std::string(reinterpret_cast<const char*>(mac.data()), mac.size());
}

// A key id's secret: the same on every node holding the cluster key, and
// unknown to anyone without it (HMAC-SHA256 is a PRF).
std::string tokenKeySecret(const std::string& clusterKey, const std::string& kid)
{
    if (kid == kFirstKeyId) return derive(clusterKey, kTokenKeyLabel);
    return derive(clusterKey, std::string(kRotatedKeyLabel) + kid);
}

std::string randomKeyId()
{
    auth::ensureSodium();
    unsigned char id[8];
    randombytes_buf(id, sizeof id);
    char hex[2 * sizeof id + 1];
    sodium_bin2hex(hex, sizeof hex, id, sizeof id);
    return hex;
}

}  // namespace

NodeAuth::NodeAuth(const std::string& clusterKey, std::unique_ptr<auth::UserStore> users)
    : m_clusterKey(clusterKey), m_users(std::move(users))
{
    m_tokens = std::make_unique<auth::TokenService>();
    // The service starts with a random key; the first ring replaces it so
    // every node signs and verifies with the same keys.
    if (auto st = applyTokenKeys(api::TokenKeyRing{1, {kFirstKeyId}}, true); !st) {
        throw std::runtime_error("token key: " + st.error().message);
    }
    auto sig = auth::RequestSignature::create(derive(clusterKey, kRedirectKeyLabel));
    if (!sig) throw std::runtime_error("redirect key: " + sig.error().message);
    m_redirects = std::make_unique<auth::RequestSignature>(std::move(sig.value()));
    m_authorizer = std::make_unique<auth::RequestAuthorizer>(clusterKey, *m_tokens, *m_redirects, m_users.get());
}

std::string NodeAuth::userStorePath(const Config& c)
{
    return (std::filesystem::path(c.dataDir) / "users.db").string();
}

std::string NodeAuth::s3SecretsKeyPath(const Config& c)
{
    return (std::filesystem::path(c.dataDir) / "s3-secrets.key").string();
}

std::unique_ptr<NodeAuth> NodeAuth::forProxy(const Config& c, const std::string& clusterKey)
{
    const bool hadSealKey = std::filesystem::exists(s3SecretsKeyPath(c));
    auto box = auth::SecretBox::loadOrCreate(s3SecretsKeyPath(c));
    if (!box) throw std::runtime_error("S3 secrets key: " + box.error().message);
    auto users = auth::UserStore::open(userStorePath(c), std::move(box.value()));
    if (!users) throw std::runtime_error(users.error().message + " " + users.error().causedBy);
    if (!hadSealKey) {
        auto keys = (*users)->listS3Keys({});
        if (!keys) throw std::runtime_error("S3 keys: " + keys.error().message);
        if (!keys->empty()) {
            logWarn("auth: ", s3SecretsKeyPath(c), " was missing and is new: the ", keys->size(),
                    " S3 keys in users.db were sealed under the old one and are refused until remade "
                    "(tessera s3-key create)");
        }
    }
    auto all = (*users)->listUsers();
    if (!all) throw std::runtime_error(all.error().message);
    if (all->empty()) {
        logWarn("auth: no users yet; add the first admin on this host: tessera-node --data-dir ", c.dataDir,
                " user add NAME --admin (the password is read from stdin)");
    }
    logInfo("auth: on; ", all->size(), " users in ", userStorePath(c));
    auto ring = (*users)->tokenKeys();
    if (!ring) throw std::runtime_error("token keys: " + ring.error().message);
    std::unique_ptr<NodeAuth> node(new NodeAuth(clusterKey, std::move(users.value())));
    if (*ring) {
        if (auto st = node->applyTokenKeys(**ring, true); !st) {
            throw std::runtime_error("token keys: " + st.error().message);
        }
        logInfo("auth: token key ring v", (*ring)->version, ", ", (*ring)->kids.size(), " keys, signing with \"",
                (*ring)->kids.back(), "\"");
    }
    // Revocations made before a restart hold until those tokens expire.
    auto revoked = node->m_users->revokedTokens();
    if (!revoked) throw std::runtime_error("revoked tokens: " + revoked.error().message);
    if (*revoked) {
        if (auto st = node->m_tokens->importRevoked(**revoked); !st) {
            throw std::runtime_error("revoked tokens: " + st.error().message);
        }
        logInfo("auth: ", (*revoked)->tokens.size(), " revoked tokens kept from before the restart");
    }
    return node;
}

std::unique_ptr<NodeAuth> NodeAuth::forTarget(const std::string& clusterKey)
{
    logInfo("auth: on; clients reach this target through the proxy's signed redirects");
    return std::unique_ptr<NodeAuth>(new NodeAuth(clusterKey, nullptr));
}

void NodeAuth::warnOpen(std::string_view role)
{
    logWarn("**** AUTH IS OFF on this ", role,
            ": anyone who can reach its port can read, write and destroy all data; turn it on with",
            " {\"auth\": {\"enabled\": true}} or --auth-enabled true ****");
}

api::TokenKeyRing NodeAuth::tokenKeys() const
{
    std::lock_guard lock(m_ringMutex);
    return m_ring;
}

api::Status NodeAuth::applyTokenKeys(const api::TokenKeyRing& ring, bool force)
{
    // The same checks as the wire reader's, for rings made in this process.
    if (auto parsed = api::parseMessage<api::TokenKeyRing>(api::dumpJson(nlohmann::json(ring)), "token keys");
        !parsed) {
        return parsed.error();
    }
    std::lock_guard lock(m_ringMutex);
    if (!force && ring.version <= m_ring.version) return {};
    std::vector<auth::SigningKey> keys;
    for (const auto& kid : ring.kids) keys.push_back({kid, tokenKeySecret(m_clusterKey, kid)});
    if (auto st = m_tokens->replaceKeys(std::move(keys)); !st) return st;
    if (m_ring.version != 0 && m_ring != ring) {
        logInfo("auth: token key ring v", ring.version, ": ", ring.kids.size(), " keys, signing with \"",
                ring.kids.back(), "\"");
    }
    m_ring = ring;
    return {};
}

api::Result<api::TokenKeyRing> NodeAuth::saveAndApply(api::TokenKeyRing next)
{
    if (m_users == nullptr) return api::Error::internal("token keys change at the proxy only");
    if (auto st = m_users->saveTokenKeys(next); !st) return st.error();
    std::vector<auth::SigningKey> keys;
    for (const auto& kid : next.kids) keys.push_back({kid, tokenKeySecret(m_clusterKey, kid)});
    if (auto st = m_tokens->replaceKeys(std::move(keys)); !st) return st.error();
    m_ring = next;
    return next;
}

api::Result<api::TokenKeyRing> NodeAuth::rotateTokenKey()
{
    std::lock_guard lock(m_ringMutex);
    if (m_ring.kids.size() >= api::auth_limits::kMaxTokenKeys) {
        return api::Error::conflict("the token key ring holds " + std::to_string(api::auth_limits::kMaxTokenKeys) +
                                    " keys; drop the oldest (\"" + m_ring.kids.front() + "\") first");
    }
    api::TokenKeyRing next = m_ring;
    next.version += 1;
    next.kids.push_back(randomKeyId());
    return saveAndApply(std::move(next));
}

api::Result<api::TokenKeyRing> NodeAuth::dropTokenKey(std::string_view kid)
{
    std::lock_guard lock(m_ringMutex);
    const auto it = std::find(m_ring.kids.begin(), m_ring.kids.end(), kid);
    if (it == m_ring.kids.end()) return api::Error::notFound("no token key \"" + std::string(kid) + "\"");
    if (std::next(it) == m_ring.kids.end()) {
        return api::Error::conflict("token key \"" + std::string(kid) +
                                    "\" signs new tokens; rotate first, then drop it");
    }
    api::TokenKeyRing next = m_ring;
    next.version += 1;
    next.kids.erase(next.kids.begin() + (it - m_ring.kids.begin()));
    return saveAndApply(std::move(next));
}

std::string NodeAuth::signRedirect(std::string_view method, std::string_view bucket, std::string_view object) const
{
    return m_redirects->sign(method, bucket, object, auth::TokenService::systemNow());
}

}  // namespace tessera::daemon
