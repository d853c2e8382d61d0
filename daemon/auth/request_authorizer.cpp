#include "request_authorizer.h"

#include "hmac_sha256.h"

#include "api/headers.h"
#include "net/websocket_protocols.h"

#include <boost/beast/http/verb.hpp>

namespace tessera::daemon::auth {

namespace {

constexpr std::string_view kBearer = "Bearer ";

// The token of "Authorization: Bearer <token>"; empty when there is none.
std::string_view bearerToken(std::string_view header)
{
    if (header.size() <= kBearer.size()) return {};
    // The scheme is case-insensitive (RFC 7235).
    for (std::size_t i = 0; i < kBearer.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(header[i])) !=
            std::tolower(static_cast<unsigned char>(kBearer[i]))) {
            return {};
        }
    }
    return header.substr(kBearer.size());
}

}  // namespace

RequestAuthorizer::RequestAuthorizer(std::string clusterKey, const TokenService& tokens,
                                     const RequestSignature& redirects, UserStore* users)
    : m_clusterKey(std::move(clusterKey)), m_tokens(tokens), m_redirects(redirects), m_users(users)
{
}

api::Status RequestAuthorizer::authorize(net::Request& req, const net::Route& route) const
{
    using Kind = net::Access::Kind;
    const auto& access = route.access;
    if (access.kind == Kind::Open) return {};

    const auto key = req.header(api::kHdrClusterKey);
    if (!key.empty()) {
        if (!sameBytes(key, m_clusterKey)) return api::Error::unauthorized("wrong cluster key");
        return {};
    }

    const bool bucketRoute = access.kind == Kind::Bucket;
    if (bucketRoute && req.hasQuery(RequestSignature::kSigParam)) {
        const auto method = boost::beast::http::to_string(req.method);
        return m_redirects.verify(std::string_view(method.data(), method.size()), req.param("bucket"),
                                  req.param("name"), req.queryValue(RequestSignature::kSigParam),
                                  req.queryValue(RequestSignature::kExpParam), TokenService::systemNow());
    }

    const auto header = req.header("Authorization");
    std::string_view token = bearerToken(header);
    std::string offeredToken;
    if (header.empty() && route.websocket) {
        // A browser cannot set Authorization on a WebSocket upgrade: the
        // token may come as a tessera.bearer.<token> subprotocol instead,
        // and is verified below exactly like a header token.
        auto offered = net::offeredProtocols(req);
        if (!offered) return offered.error();
        offeredToken = std::move(offered->bearer);
        token = offeredToken;
        if (token.empty()) {
            return api::Error::unauthorized("this call needs a token (Authorization: Bearer ..., or a \"" +
                                            std::string(net::kBearerProtocolPrefix) +
                                            "<token>\" WebSocket subprotocol; POST /v1/tokens)");
        }
    }
    if (token.empty()) {
        return api::Error::unauthorized("this call needs a token (Authorization: Bearer ...; POST /v1/tokens)");
    }
    auto claims = m_tokens.verify(token, TokenUse::Access);
    if (!claims) return claims.error();
    req.user = claims->subject;
    req.admin = claims->admin;

    if (access.kind == Kind::User || claims->admin) return {};
    if (access.kind == Kind::Admin) {
        return api::Error::forbidden("\"" + claims->subject + "\" is not an admin; this call is for admins");
    }
    // A bucket route for a user who is not an admin.
    const auto bucket = req.param("bucket");
    const auto what = std::string(api::permissionName(access.permission));
    if (m_users == nullptr) {
        return api::Error::forbidden("a target accepts only an admin's token directly; send \"" + claims->subject +
                                     "\"'s requests through the proxy");
    }
    auto allowed = m_users->check(claims->subject, bucket, access.permission);
    if (!allowed) {
        if (allowed.kind() == api::ErrorKind::NotFound) {
            return api::Error::unauthorized("user \"" + claims->subject + "\" no longer exists");
        }
        return allowed.error();
    }
    if (!*allowed) {
        return api::Error::forbidden("\"" + claims->subject + "\" may not " + what + " bucket \"" + bucket + "\"");
    }
    return {};
}

}  // namespace tessera::daemon::auth
