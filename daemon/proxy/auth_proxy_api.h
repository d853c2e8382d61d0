#pragma once
// The proxy's users and tokens (auth on only):
//   POST   /v1/tokens                        login: LoginRequest -> TokenReply (access + refresh)
//   POST   /v1/tokens/refresh                RefreshRequest -> TokenReply (the refresh token is spent;
//                                            its revocation reaches the targets with the next push)
//   DELETE /v1/tokens                        RevokeRequest: the token is refused from now on, by
//                                            every target too (the answer waits for their metasync)
//   GET    /v1/whoami                        the caller's UserInfo
//   GET    /v1/users                         admins: every UserInfo
//   POST   /v1/users                         admins: NewUser (409 when the name is taken)
//   DELETE /v1/users/{user}                  admins
//   PUT    /v1/users/{user}/password         admins: NewPassword
//   POST   /v1/users/{user}/grants           admins: Grant
//   DELETE /v1/users/{user}/grants/{bucket}/{permission}   admins
//   GET    /v1/tokens/keys                   admins: the token-key ring (TokenKeyRing: ids, never secrets)
//   POST   /v1/tokens/keys                   admins: rotate (a new newest key signs from now on)
//   PUT    /v1/tokens/keys                   admins: push the ring to every target again
//   DELETE /v1/tokens/keys/{kid}             admins: drop a key; the tokens it signed are refused
//   POST   /v1/users/{user}/s3-keys          admins or the user: NewS3Key -> S3KeyCreated (201;
//                                            the only answer that holds the secret)
//   GET    /v1/users/{user}/s3-keys          admins or the user: [S3KeyInfo] (no secrets)
//   DELETE /v1/users/{user}/s3-keys/{key}    admins or the user: the key is refused from the next request
//   GET    /v1/s3-keys                       admins: every user's keys
// A key change is saved and in force at the proxy first, then pushed to every
// present target and waited for, as a revocation is: 503 naming a target
// that did not take it (PUT pushes again; every later push carries it too).
// Each route names its Access (net/router.h); the node's Authorizer checks
// it before the handler runs, so handlers only do the work. Changes to
// users and grants are logged with who made them (the audit trail until
// the feed carries them).
//
// Thread safety: handlers run on worker threads (a login hashes a password:
// 0.1 s); the store and the token service serialize themselves.

#include "api/bmd.h"
#include "auth/login_throttle.h"
#include "auth/token_service.h"
#include "auth/user_store.h"
#include "net/router.h"

#include <functional>
#include <mutex>

namespace tessera::daemon::proxy {

class AuthProxyApi {
public:
    // What the node around this API provides (app/node_auth.h, PeerCalls).
    struct Hooks {
        // Sends the revoked-token list and the token-key ring to every
        // target and waits for their answers (PeerCalls::pushAuth over the
        // current map, with these words in its error).
        std::function<api::Status(std::string_view change, std::string_view retry)> pushAuth;
        std::function<api::TokenKeyRing()> tokenKeys;
        std::function<api::Result<api::TokenKeyRing>()> rotateKey;
        std::function<api::Result<api::TokenKeyRing>(std::string_view kid)> dropKey;
    };
    AuthProxyApi(auth::UserStore& users, auth::TokenService& tokens, Hooks hooks)
        : m_users(users), m_tokens(tokens), m_hooks(std::move(hooks))
    {
    }
    void registerRoutes(net::Router& router);
    // What GET /v1/buckets shows the caller (ProxyApi::BucketFilter): every
    // bucket to an admin and to another node (cluster key), else the ones
    // the user holds `list` on (by name or "*"), in the order given.
    // Unauthorized for a user removed since the token was issued.
    api::Result<std::vector<api::BucketRef>> visibleBuckets(const net::Request& req,
                                                            std::vector<api::BucketRef> all) const;

private:
    net::Response login(const net::Request& req);
    net::Response refresh(const net::Request& req);
    net::Response revoke(const net::Request& req);
    net::Response whoami(const net::Request& req);
    net::Response listUsers(const net::Request& req);
    net::Response addUser(const net::Request& req);
    net::Response deleteUser(const net::Request& req);
    net::Response setPassword(const net::Request& req);
    net::Response grant(const net::Request& req);
    net::Response revokeGrant(const net::Request& req);
    net::Response showKeys(const net::Request& req);
    net::Response rotateKey(const net::Request& req);
    net::Response pushKeys(const net::Request& req);
    net::Response dropKey(const net::Request& req);
    net::Response createS3Key(const net::Request& req);
    net::Response listUserS3Keys(const net::Request& req);
    net::Response deleteS3Key(const net::Request& req);
    net::Response listAllS3Keys(const net::Request& req);
    // The ring, after pushing it: 200, or the push's 503.
    net::Response answerKeyChange(const api::TokenKeyRing& ring);

    auth::UserStore& m_users;
    auth::TokenService& m_tokens;
    Hooks m_hooks;
    auth::LoginThrottle m_throttle;
    std::mutex m_revokeMutex;  // a revocation and the save of the list after it
};

}  // namespace tessera::daemon::proxy
