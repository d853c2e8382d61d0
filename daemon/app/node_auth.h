#pragma once
// What a node needs when auth is on, built from the cluster key every node
// already shares: the token service (its signing key derived from the
// cluster key, so every node verifies the proxy's tokens without another
// secret to distribute), the redirect signature (a second key derived the
// same way, so the two uses never share a key), the authorizer the server
// consults, and on the proxy the user store (<data_dir>/users.db).
//
// Deriving the token key ties token validity to the cluster key: changing
// cluster.key invalidates every token, and TokenService's rotation stays
// in-process until keys travel with the cluster metadata.

#include "config.h"

#include "auth/request_authorizer.h"
#include "auth/request_signature.h"
#include "auth/token_service.h"
#include "auth/user_store.h"

#include <memory>
#include <string>
#include <string_view>

namespace tessera::daemon {

class NodeAuth {
public:
    // Throws std::runtime_error when the user store cannot be opened (a
    // start-up failure).
    static std::unique_ptr<NodeAuth> forProxy(const Config& c, const std::string& clusterKey);
    static std::unique_ptr<NodeAuth> forTarget(const std::string& clusterKey);
    // Where the proxy keeps its users.
    static std::string userStorePath(const Config& c);
    // Says, as a warning banner, that nothing is checked.
    static void warnOpen(std::string_view role);

    const net::Authorizer& authorizer() const { return *m_authorizer; }
    auth::TokenService& tokens() { return *m_tokens; }
    auth::UserStore* users() { return m_users.get(); }
    // The "tsig=...&texp=..." a redirect of this request carries.
    std::string signRedirect(std::string_view method, std::string_view bucket, std::string_view object) const;

private:
    NodeAuth(const std::string& clusterKey, std::unique_ptr<auth::UserStore> users);

    std::unique_ptr<auth::UserStore> m_users;
    std::unique_ptr<auth::TokenService> m_tokens;
    std::unique_ptr<auth::RequestSignature> m_redirects;
    std::unique_ptr<auth::RequestAuthorizer> m_authorizer;
};

}  // namespace tessera::daemon
