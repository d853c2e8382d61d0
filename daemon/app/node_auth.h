#pragma once
// What a node needs when auth is on, built from the cluster key every node
// already shares: the token service (its signing key derived from the
// cluster key, so every node verifies the proxy's tokens without another
// secret to distribute), the redirect signature (a second key derived the
// same way, so the two uses never share a key), the authorizer the server
// consults, and on the proxy the user store (<data_dir>/users.db).
//
// Token keys rotate: the proxy keeps a ring of key ids (api::TokenKeyRing,
// saved in users.db) and pushes it with the cluster metadata; every node
// derives each id's secret from the cluster key, so a rotation moves no
// secret between nodes. The newest key signs; older ones verify the tokens
// they signed until dropped, and dropping one refuses those tokens at every
// node. The first ring is the single key "cluster-v1" (version 1), so a
// cluster that never rotates behaves as before; changing cluster.key still
// invalidates every token.

#include "config.h"

#include "auth/request_authorizer.h"
#include "auth/request_signature.h"
#include "auth/token_service.h"
#include "auth/user_store.h"

#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace tessera::daemon {

class NodeAuth {
public:
    // Throws std::runtime_error when the user store cannot be opened (a
    // start-up failure).
    static std::unique_ptr<NodeAuth> forProxy(const Config& c, const std::string& clusterKey);
    static std::unique_ptr<NodeAuth> forTarget(const std::string& clusterKey);
    // Where the proxy keeps its users (and their S3 keys).
    static std::string userStorePath(const Config& c);
    // The key that seals the S3 secret keys in users.db (auth/secret_box.h):
    // <data_dir>/s3-secrets.key, mode 0600, made at the first start.
    static std::string s3SecretsKeyPath(const Config& c);
    // Says, as a warning banner, that nothing is checked.
    static void warnOpen(std::string_view role);

    const net::Authorizer& authorizer() const { return *m_authorizer; }
    auth::TokenService& tokens() { return *m_tokens; }
    auth::UserStore* users() { return m_users.get(); }
    // The ring this node signs and verifies with.
    api::TokenKeyRing tokenKeys() const;
    // Takes `ring` when it is newer than this node's (or always, with
    // `force`: a join reply or the proxy's own store); an older or equal
    // ring is ignored. BadRequest for a ring that is not valid.
    api::Status applyTokenKeys(const api::TokenKeyRing& ring, bool force = false);
    // Proxy only: adds a new random key id as the newest, saves the ring and
    // takes it. Conflict when the ring is full (drop an old key first).
    api::Result<api::TokenKeyRing> rotateTokenKey();
    // Proxy only: drops `kid`, saves and takes the ring. NotFound for an
    // unknown id; Conflict for the newest (it signs new tokens).
    api::Result<api::TokenKeyRing> dropTokenKey(std::string_view kid);

    // The "tsig=...&texp=..." a redirect of this request carries.
    std::string signRedirect(std::string_view method, std::string_view bucket, std::string_view object) const;

private:
    NodeAuth(const std::string& clusterKey, std::unique_ptr<auth::UserStore> users);

    // Callers hold m_ringMutex.
    api::Result<api::TokenKeyRing> saveAndApply(api::TokenKeyRing next);

    std::string m_clusterKey;
    mutable std::mutex m_ringMutex;  // orders ring changes; TokenService guards its own keys
    api::TokenKeyRing m_ring;
    std::unique_ptr<auth::UserStore> m_users;
    std::unique_ptr<auth::TokenService> m_tokens;
    std::unique_ptr<auth::RequestSignature> m_redirects;
    std::unique_ptr<auth::RequestAuthorizer> m_authorizer;
};

}  // namespace tessera::daemon
