#pragma once
// The node's check of every request when auth is on (net::Authorizer): who
// the caller is, then whether the route's Access lets it in. In order:
//   1. an Open route: anyone;
//   2. the cluster key (header tessera-cluster-key): another node of the
//      cluster, which may call anything;
//   3. a redirect signature (tsig/texp, request_signature.h) on a bucket
//      route of a target: the proxy checked the caller and signed exactly
//      this method, bucket and object;
//   4. a bearer token (Authorization: Bearer ...; on a WebSocket route
//      without that header, a `tessera.bearer.<token>` entry of
//      Sec-WebSocket-Protocol, net/websocket_protocols.h): its user, the admin
//      flag, and on the proxy the user's grants in the UserStore. A target
//      has no user store, so there a non-admin token is refused on bucket
//      routes: users reach a target through the proxy's signed redirect.
// Missing or invalid credentials are Unauthorized (401), a known caller
// without the right is Forbidden (403).
//
// Compiled into the daemon library (it needs net::), like daemon/ec's
// services; the rest of daemon/auth stays free of daemon dependencies.
//
// Thread safety: authorize() may be called from any thread at once.

#include "request_signature.h"
#include "token_service.h"
#include "user_store.h"

#include "net/authorizer.h"

#include <string>

namespace tessera::daemon::auth {

class RequestAuthorizer : public net::Authorizer {
public:
    // `users` is nullptr on a target. All must outlive the authorizer.
    RequestAuthorizer(std::string clusterKey, const TokenService& tokens, const RequestSignature& redirects,
                      UserStore* users);

    api::Status authorize(net::Request& req, const net::Route& route) const override;

private:
    std::string m_clusterKey;
    const TokenService& m_tokens;
    const RequestSignature& m_redirects;
    UserStore* m_users;
};

}  // namespace tessera::daemon::auth
