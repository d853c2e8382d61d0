#include "node_auth.h"

#include "common/log.h"

#include "auth/hmac_sha256.h"

#include <filesystem>
#include <stdexcept>

namespace tessera::daemon {

namespace {

// Labels that separate the keys derived from the cluster key.
constexpr std::string_view kTokenKeyLabel = "tessera token signing key v1";
constexpr std::string_view kRedirectKeyLabel = "tessera redirect signing key v1";
constexpr const char* kTokenKeyId = "cluster-v1";

std::string derive(const std::string& clusterKey, std::string_view label)
{
    const auto mac = auth::hmacSha256(clusterKey, label);
    return std::string(reinterpret_cast<const char*>(mac.data()), mac.size());
}

}  // namespace

NodeAuth::NodeAuth(const std::string& clusterKey, std::unique_ptr<auth::UserStore> users) : m_users(std::move(users))
{
    m_tokens = std::make_unique<auth::TokenService>();
    // The service starts with a random key; the derived one replaces it so
    // every node signs and verifies with the same key.
    const auto initial = m_tokens->keyIds();
    if (auto st = m_tokens->addKey(kTokenKeyId, derive(clusterKey, kTokenKeyLabel)); !st) {
        throw std::runtime_error("token key: " + st.error().message);
    }
    for (const auto& kid : initial) {
        if (auto st = m_tokens->dropKey(kid); !st) throw std::runtime_error("token key: " + st.error().message);
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

std::unique_ptr<NodeAuth> NodeAuth::forProxy(const Config& c, const std::string& clusterKey)
{
    auto users = auth::UserStore::open(userStorePath(c));
    if (!users) throw std::runtime_error(users.error().message + " " + users.error().causedBy);
    auto all = (*users)->listUsers();
    if (!all) throw std::runtime_error(all.error().message);
    if (all->empty()) {
        logWarn("auth: no users yet; add the first admin on this host: tessera-node --data-dir ", c.dataDir,
                " user add NAME --admin (the password is read from stdin)");
    }
    logInfo("auth: on; ", all->size(), " users in ", userStorePath(c));
    return std::unique_ptr<NodeAuth>(new NodeAuth(clusterKey, std::move(users.value())));
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

std::string NodeAuth::signRedirect(std::string_view method, std::string_view bucket, std::string_view object) const
{
    return m_redirects->sign(method, bucket, object, auth::TokenService::systemNow());
}

}  // namespace tessera::daemon
