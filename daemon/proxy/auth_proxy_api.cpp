#include "auth_proxy_api.h"

#include "common/log.h"

#include "api/auth_msg.h"
#include "api/s3_key_msg.h"
#include "api/wire.h"

#include <algorithm>
#include <optional>

namespace tessera::daemon::proxy {

using net::Access;
using net::Exec;
using net::Request;
using net::Response;
using net::Route;
namespace http = boost::beast::http;

namespace {
// Login and user bodies are a few hundred bytes; a password is at most 1 KiB.
constexpr std::size_t kMaxAuthBody = 16 * 1024;

Response answerStatus(const api::Status& st) { return st ? Response::ok() : Response::error(st.error()); }

// S3 keys are managed by admins and by their own user: a user may make and
// drop keys that act as themself, never as anyone else.
std::optional<Response> refuseUnlessSelfOrAdmin(const Request& req, const std::string& user)
{
    if (req.admin || (!req.user.empty() && req.user == user)) return std::nullopt;
    return Response::error(
        api::Error::forbidden("only an admin or \"" + user + "\" may manage the S3 keys of \"" + user + "\""));
}
}  // namespace

void AuthProxyApi::registerRoutes(net::Router& router)
{
    const auto add = [&](http::verb verb, const char* pattern, Exec exec, Response (AuthProxyApi::*fn)(const Request&),
                         Access access) {
        router.add(net::needs(Route{verb, pattern, exec, net::bind(this, fn), {}, kMaxAuthBody}, access));
    };
    add(http::verb::post, "/v1/tokens", Exec::Worker, &AuthProxyApi::login, Access::open());
    add(http::verb::post, "/v1/tokens/refresh", Exec::Worker, &AuthProxyApi::refresh, Access::open());
    // A worker: the revocation waits for every target's answer.
    add(http::verb::delete_, "/v1/tokens", Exec::Worker, &AuthProxyApi::revoke, Access::user());
    add(http::verb::get, "/v1/whoami", Exec::Worker, &AuthProxyApi::whoami, Access::user());
    add(http::verb::get, "/v1/users", Exec::Worker, &AuthProxyApi::listUsers, Access{});
    add(http::verb::post, "/v1/users", Exec::Worker, &AuthProxyApi::addUser, Access{});
    add(http::verb::delete_, "/v1/users/{user}", Exec::Worker, &AuthProxyApi::deleteUser, Access{});
    add(http::verb::put, "/v1/users/{user}/password", Exec::Worker, &AuthProxyApi::setPassword, Access{});
    add(http::verb::post, "/v1/users/{user}/grants", Exec::Worker, &AuthProxyApi::grant, Access{});
    add(http::verb::delete_, "/v1/users/{user}/grants/{bucket}/{permission}", Exec::Worker, &AuthProxyApi::revokeGrant,
        Access{});
    add(http::verb::get, "/v1/tokens/keys", Exec::Worker, &AuthProxyApi::showKeys, Access{});
    add(http::verb::post, "/v1/tokens/keys", Exec::Worker, &AuthProxyApi::rotateKey, Access{});
    add(http::verb::put, "/v1/tokens/keys", Exec::Worker, &AuthProxyApi::pushKeys, Access{});
    add(http::verb::delete_, "/v1/tokens/keys/{kid}", Exec::Worker, &AuthProxyApi::dropKey, Access{});
    add(http::verb::post, "/v1/users/{user}/s3-keys", Exec::Worker, &AuthProxyApi::createS3Key, Access::user());
    add(http::verb::get, "/v1/users/{user}/s3-keys", Exec::Worker, &AuthProxyApi::listUserS3Keys, Access::user());
    add(http::verb::delete_, "/v1/users/{user}/s3-keys/{key}", Exec::Worker, &AuthProxyApi::deleteS3Key,
        Access::user());
    add(http::verb::get, "/v1/s3-keys", Exec::Worker, &AuthProxyApi::listAllS3Keys, Access{});
}

api::Result<std::vector<api::BucketRef>> AuthProxyApi::visibleBuckets(const Request& req,
                                                                      std::vector<api::BucketRef> all) const
{
    if (req.user.empty() || req.admin) return all;
    auto user = m_users.user(req.user);
    if (!user) {
        if (user.kind() == api::ErrorKind::NotFound) {
            return api::Error::unauthorized("user \"" + req.user + "\" no longer exists");
        }
        return user.error();
    }
    if (user->admin) return all;  // as UserStore::check
    const auto mayList = [&](const std::string& bucket) {
        return std::any_of(user->grants.begin(), user->grants.end(), [&](const api::Grant& g) {
            return (g.bucket == bucket || g.bucket == api::kAnyBucket) &&
                   std::find(g.permissions.begin(), g.permissions.end(), api::Permission::List) != g.permissions.end();
        });
    };
    std::erase_if(all, [&](const api::BucketRef& b) { return !mayList(b.name); });
    return all;
}

Response AuthProxyApi::login(const Request& req)
{
    auto msg = api::parseMessage<api::LoginRequest>(req.body, "login");
    if (!msg) return Response::error(msg.error());
    const auto from = req.peer.to_string();
    if (const auto wait = m_throttle.wait(msg->user, from)) {
        const auto seconds = (wait->count() + 999) / 1000;
        auto r = Response::error(api::Error{api::ErrorKind::TooManyRequests,
                                            "too many failed logins for \"" + msg->user + "\" from " + from +
                                                "; retry in " + std::to_string(seconds) + " s",
                                            {}});
        r.setHeader("Retry-After", std::to_string(seconds));
        return r;
    }
    auto user = m_users.authenticate(msg->user, msg->password);
    if (!user) {
        if (user.kind() == api::ErrorKind::Unauthorized) m_throttle.failed(msg->user, from);
        logInfo("auth: login refused for \"", msg->user, "\" from ", from);
        return Response::error(user.error());
    }
    m_throttle.succeeded(msg->user, from);
    auto reply = m_tokens.issuePair(user->name, user->admin);
    if (!reply) return Response::error(reply.error());
    return Response::json(*reply);
}

Response AuthProxyApi::refresh(const Request& req)
{
    auto msg = api::parseMessage<api::RefreshRequest>(req.body, "refresh");
    if (!msg) return Response::error(msg.error());
    auto claims = m_tokens.redeemRefresh(msg->refreshToken);
    if (!claims) return Response::error(claims.error());
    // The user as it is now: removed users get nothing, the admin flag is current.
    auto user = m_users.user(claims->subject);
    if (!user) {
        if (user.kind() == api::ErrorKind::NotFound) {
            return Response::error(api::Error::unauthorized("user \"" + claims->subject + "\" no longer exists"));
        }
        return Response::error(user.error());
    }
    auto reply = m_tokens.issuePair(user->name, user->admin);
    if (!reply) return Response::error(reply.error());
    return Response::json(*reply);
}

Response AuthProxyApi::revoke(const Request& req)
{
    auto msg = api::parseMessage<api::RevokeRequest>(req.body, "revoke");
    if (!msg) return Response::error(msg.error());
    {
        // Saved before it is pushed, as a key change is: a revocation the
        // proxy answered survives its restart. One at a time, so a slower
        // save never writes an older list over a newer one.
        std::lock_guard lock(m_revokeMutex);
        if (auto st = m_tokens.revoke(msg->token); !st) return Response::error(st.error());
        if (auto st = m_users.saveRevokedTokens(m_tokens.exportRevoked()); !st) {
            return Response::error(api::Error::unavailable("the token is revoked here but could not be saved (" +
                                                           st.error().message + "): retry the revocation"));
        }
    }
    return answerStatus(m_hooks.pushAuth("the token is revoked", "retry the revocation"));
}

Response AuthProxyApi::showKeys(const Request&) { return Response::json(m_hooks.tokenKeys()); }

Response AuthProxyApi::answerKeyChange(const api::TokenKeyRing& ring)
{
    const auto change = "token key ring v" + std::to_string(ring.version) + " is in force";
    if (auto st = m_hooks.pushAuth(change, "push it again with PUT /v1/tokens/keys"); !st) {
        return Response::error(st.error());
    }
    return Response::json(ring);
}

Response AuthProxyApi::rotateKey(const Request& req)
{
    auto ring = m_hooks.rotateKey();
    if (!ring) return Response::error(ring.error());
    logInfo("audit: \"", req.user, "\" rotated the token key: \"", ring->kids.back(), "\" signs from ring v",
            ring->version);
    return answerKeyChange(*ring);
}

Response AuthProxyApi::pushKeys(const Request&) { return answerKeyChange(m_hooks.tokenKeys()); }

Response AuthProxyApi::dropKey(const Request& req)
{
    const auto kid = req.param("kid");
    if (auto st = api::validateKeyId(kid); !st) return Response::error(st.error());
    auto ring = m_hooks.dropKey(kid);
    if (!ring) return Response::error(ring.error());
    logInfo("audit: \"", req.user, "\" dropped token key \"", kid, "\" (ring v", ring->version,
            "); the tokens it signed are refused");
    return answerKeyChange(*ring);
}

Response AuthProxyApi::whoami(const Request& req)
{
    auto user = m_users.user(req.user);
    if (!user) {
        if (user.kind() == api::ErrorKind::NotFound) {
            return Response::error(api::Error::unauthorized("user \"" + req.user + "\" no longer exists"));
        }
        return Response::error(user.error());
    }
    return Response::json(*user);
}

Response AuthProxyApi::listUsers(const Request&)
{
    auto users = m_users.listUsers();
    if (!users) return Response::error(users.error());
    return Response::json(*users);
}

Response AuthProxyApi::addUser(const Request& req)
{
    auto msg = api::parseMessage<api::NewUser>(req.body, "new user");
    if (!msg) return Response::error(msg.error());
    if (auto st = m_users.addUser(msg->name, msg->password, msg->admin); !st) return Response::error(st.error());
    logInfo("audit: \"", req.user, "\" added user \"", msg->name, "\"", msg->admin ? " (admin)" : "");
    auto user = m_users.user(msg->name);
    if (!user) return Response::error(user.error());
    return Response::json(*user, 201);
}

Response AuthProxyApi::deleteUser(const Request& req)
{
    const auto name = req.param("user");
    if (auto st = m_users.deleteUser(name); !st) return Response::error(st.error());
    logInfo("audit: \"", req.user, "\" removed user \"", name, "\"");
    return Response::ok();
}

Response AuthProxyApi::setPassword(const Request& req)
{
    auto msg = api::parseMessage<api::NewPassword>(req.body, "password");
    if (!msg) return Response::error(msg.error());
    const auto name = req.param("user");
    if (auto st = m_users.setPassword(name, msg->password); !st) return Response::error(st.error());
    logInfo("audit: \"", req.user, "\" set the password of \"", name, "\"");
    return Response::ok();
}

Response AuthProxyApi::grant(const Request& req)
{
    auto msg = api::parseMessage<api::Grant>(req.body, "grant");
    if (!msg) return Response::error(msg.error());
    const auto name = req.param("user");
    if (auto st = m_users.grant(name, *msg); !st) return Response::error(st.error());
    logInfo("audit: \"", req.user, "\" granted \"", name, "\" ", nlohmann::json(*msg).dump());
    auto user = m_users.user(name);
    if (!user) return Response::error(user.error());
    return Response::json(*user);
}

Response AuthProxyApi::revokeGrant(const Request& req)
{
    const auto name = req.param("user");
    const auto bucket = req.param("bucket");
    const auto permission = api::permissionFromName(req.param("permission"));
    if (!permission) {
        return Response::error(api::Error::badRequest("\"" + req.param("permission") +
                                                      "\" is not read, list, write, delete or admin-bucket"));
    }
    if (auto st = m_users.revoke(name, bucket, *permission); !st) return Response::error(st.error());
    logInfo("audit: \"", req.user, "\" revoked ", req.param("permission"), " on \"", bucket, "\" from \"", name, "\"");
    return Response::ok();
}

Response AuthProxyApi::createS3Key(const Request& req)
{
    const auto name = req.param("user");
    if (auto refused = refuseUnlessSelfOrAdmin(req, name)) return std::move(*refused);
    api::NewS3Key msg;
    if (!req.body.empty()) {
        auto parsed = api::parseMessage<api::NewS3Key>(req.body, "new S3 key");
        if (!parsed) return Response::error(parsed.error());
        msg = std::move(*parsed);
    }
    auto key = m_users.createS3Key(name, msg.description);
    if (!key) return Response::error(key.error());
    logInfo("audit: \"", req.user, "\" created S3 key \"", key->key.accessKey, "\" for \"", name, "\"");
    auto r = Response::json(*key, 201);
    r.setHeader("Cache-Control", "no-store");  // the secret, this once
    return r;
}

Response AuthProxyApi::listUserS3Keys(const Request& req)
{
    const auto name = req.param("user");
    if (auto refused = refuseUnlessSelfOrAdmin(req, name)) return std::move(*refused);
    if (auto st = api::validateUserName(name); !st) return Response::error(st.error());
    auto keys = m_users.listS3Keys(name);
    if (!keys) return Response::error(keys.error());
    return Response::json(*keys);
}

Response AuthProxyApi::deleteS3Key(const Request& req)
{
    const auto name = req.param("user");
    const auto key = req.param("key");
    if (auto refused = refuseUnlessSelfOrAdmin(req, name)) return std::move(*refused);
    if (auto st = api::validateS3AccessKey(key); !st) return Response::error(st.error());
    if (auto st = m_users.deleteS3Key(name, key); !st) return Response::error(st.error());
    logInfo("audit: \"", req.user, "\" deleted S3 key \"", key, "\" of \"", name, "\"");
    return Response::ok();
}

Response AuthProxyApi::listAllS3Keys(const Request&)
{
    auto keys = m_users.listS3Keys({});
    if (!keys) return Response::error(keys.error());
    return Response::json(*keys);
}

}  // namespace tessera::daemon::proxy
