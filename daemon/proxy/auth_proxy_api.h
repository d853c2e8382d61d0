#pragma once
// The proxy's users and tokens (auth on only):
//   POST   /v1/tokens                        login: LoginRequest -> TokenReply (access + refresh)
//   POST   /v1/tokens/refresh                RefreshRequest -> TokenReply (the refresh token is spent)
//   DELETE /v1/tokens                        RevokeRequest: the token is refused from now on
//   GET    /v1/whoami                        the caller's UserInfo
//   GET    /v1/users                         admins: every UserInfo
//   POST   /v1/users                         admins: NewUser (409 when the name is taken)
//   DELETE /v1/users/{user}                  admins
//   POST   /v1/users/{user}/grants           admins: Grant
//   DELETE /v1/users/{user}/grants/{bucket}/{permission}   admins
// Each route names its Access (net/router.h); the node's Authorizer checks
// it before the handler runs, so handlers only do the work. Changes to
// users and grants are logged with who made them (the audit trail until
// the feed carries them).
//
// Thread safety: handlers run on worker threads (a login hashes a password:
// 0.1 s); the store and the token service serialize themselves.

#include "auth/token_service.h"
#include "auth/user_store.h"
#include "net/router.h"

namespace tessera::daemon::proxy {

class AuthProxyApi {
public:
    AuthProxyApi(auth::UserStore& users, auth::TokenService& tokens) : m_users(users), m_tokens(tokens) {}
    void registerRoutes(net::Router& router);

private:
    net::Response login(const net::Request& req);
    net::Response refresh(const net::Request& req);
    net::Response revoke(const net::Request& req);
    net::Response whoami(const net::Request& req);
    net::Response listUsers(const net::Request& req);
    net::Response addUser(const net::Request& req);
    net::Response deleteUser(const net::Request& req);
    net::Response grant(const net::Request& req);
    net::Response revokeGrant(const net::Request& req);

    auth::UserStore& m_users;
    auth::TokenService& m_tokens;
};

}  // namespace tessera::daemon::proxy
