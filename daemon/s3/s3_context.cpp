#include "s3_context.h"

#include "s3_errors.h"

#include "api/go_time_format.h"
#include "api/headers.h"
#include "api/hrw.h"
#include "api/names.h"
#include "api/paths.h"

#include <boost/beast/http/verb.hpp>

#include <cctype>

namespace tessera::daemon::s3 {

namespace http = boost::beast::http;
using net::Request;
using net::Response;

namespace {

constexpr std::string_view kBearerScheme = "bearer";

// The token of "Authorization: Bearer <token>" (the scheme is
// case-insensitive, RFC 7235); nullopt when the header is not a bearer one.
std::optional<std::string_view> bearerToken(std::string_view header)
{
    if (header.size() < kBearerScheme.size()) return std::nullopt;
    for (std::size_t i = 0; i < kBearerScheme.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(header[i])) != kBearerScheme[i]) return std::nullopt;
    }
    auto rest = header.substr(kBearerScheme.size());
    if (!rest.empty() && rest.front() != ' ') return std::nullopt;  // e.g. "Bearerx"
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    return rest;
}

}  // namespace

api::Result<S3Context::Caller> S3Context::authenticate(const Request& req, const std::string& bucket,
                                                       api::Permission permission) const
{
    auto c = verify(req);
    if (!c || !permits || bucket.empty()) return c;
    auto ok = permits(c->user, bucket, permission);
    if (!ok && c->bearer && ok.kind() == api::ErrorKind::NotFound) {
        // The token verified, but its user was removed since it was issued.
        return api::Error::unauthorized("InvalidToken: user \"" + c->user + "\" no longer exists");
    }
    if (!ok) return ok.error();
    if (!*ok) {
        return api::Error::forbidden("AccessDenied: user \"" + c->user + "\" may not " +
                                     std::string(api::permissionName(permission)) + " in bucket \"" + bucket + "\"");
    }
    return c;
}

api::Result<S3Context::Caller> S3Context::verify(const Request& req) const
{
    if (tokens) {
        const auto authorization = req.header("Authorization");  // the token views it
        if (const auto token = bearerToken(authorization)) {
            if (req.query.count("X-Amz-Algorithm") != 0 || req.query.count("X-Amz-Signature") != 0) {
                return api::Error::badRequest(
                    "InvalidArgument: a request carries a bearer token or a SigV4 signature, not both");
            }
            // Empty and oversized tokens are the token service's to refuse.
            auto user = tokens(*token);
            if (!user) return api::Error::unauthorized("InvalidToken: " + user.error().message);
            Caller c;
            c.user = std::move(user.value());
            c.bearer = true;
            return c;
        }
    }
    SignedRequest sr;
    const auto m = http::to_string(req.method);
    sr.method = std::string(m.data(), m.size());
    sr.path = req.path;
    sr.query = req.query;
    sr.header = [&req](std::string_view name) { return req.header(name); };
    auto sig = parseSigV4(sr);
    if (!sig) return sig.error();
    Caller c;
    c.sig = std::move(sig.value());
    if (!secrets) return c;
    if (!c.sig) return api::Error::forbidden("AccessDenied: anonymous requests are not allowed; sign with SigV4");
    auto found = secrets(c.sig->accessKey);
    if (!found) return found.error();
    const auto& key = *found;
    if (!key) {
        return api::Error::forbidden("InvalidAccessKeyId: the access key \"" + c.sig->accessKey + "\" does not exist");
    }
    if (auto st = verifySigV4(sr, *c.sig, key->secret, nowUnix()); !st) return st.error();
    c.signingKey = signingKey(key->secret, *c.sig);
    c.user = key->user;
    return c;
}

client::HttpClient& S3Context::http() const
{
    thread_local std::unique_ptr<client::HttpClient> c;
    if (!c) {
        client::HttpClient::Options o;
        o.ioTimeout = timeout;
        o.headers.emplace_back(std::string(api::kHdrClusterKey), clusterKey);
        c = std::make_unique<client::HttpClient>(o);
    }
    return *c;
}

client::Headers S3Context::keyHeader() const { return {{std::string(api::kHdrClusterKey), clusterKey}}; }

api::Result<S3Context::Placement> S3Context::placement(const std::string& bucket, const std::string& name,
                                                       bool read) const
{
    const auto map = smap();
    const auto buckets = bmd();
    const auto* props = buckets->find(bucket);
    if (props == nullptr) return api::Error::notFound("NoSuchBucket: The specified bucket does not exist");
    if (map->tmap.empty()) return api::Error::unavailable("no targets in the cluster");
    const auto* owner = api::hrwTarget(*map, api::objectUname(bucket, name));
    if (owner == nullptr) return api::Error::unavailable("no target can own objects");
    if (owner->away()) {
        if (read) {
            for (const auto* h : api::readTargets(*map, props, bucket, name)) {
                if (!h->away()) return Placement{*h, map->version};
            }
        }
        return api::Error::unavailable("the target that owns the object is away; retry when it returns");
    }
    return Placement{*owner, map->version};
}

api::Result<std::string> S3Context::objectName(const Request& req) const
{
    const auto key = req.param("key");
    if (auto st = api::validateObjectName(key); !st) {
        return api::Error::badRequest("InvalidArgument: object key not supported: " + st.error().message);
    }
    return key;
}

bool S3Context::bucketExists(const std::string& bucket) const { return bmd()->find(bucket) != nullptr; }

api::Result<std::pair<std::unique_ptr<TargetCall>, TargetHead>> S3Context::openRead(const std::string& bucket,
                                                                                    const std::string& name, bool head,
                                                                                    const std::string& range) const
{
    auto where = placement(bucket, name, true);
    if (!where) return where.error();
    std::string base = where->owner.publicNet.url;
    std::string target = objectTarget(bucket, name, {}, where->smapVersion);
    client::Headers h = keyHeader();
    if (!range.empty()) h.emplace_back("Range", range);
    for (int hop = 0; hop < 3; ++hop) {
        auto call = TargetCall::start(base, head ? "HEAD" : "GET", target, h, std::nullopt, timeout);
        if (!call) return call.error();
        auto rh = (*call)->readHead(head);
        if (!rh) return rh.error();
        if (rh->status == 307 || rh->status == 308) {
            auto url = client::parseUrl(rh->header("location"));
            if (!url) return api::Error::unavailable("a target redirected to a bad location");
            base = std::string(url->tls ? "https://" : "http://") + url->host + ":" + url->port;
            target = url->target;
            continue;
        }
        return std::make_pair(std::move(call.value()), std::move(rh.value()));
    }
    return api::Error::unavailable("too many redirects between targets; retry");
}

api::Result<api::ObjectList> S3Context::nativeList(const std::string& bucket, const std::string& prefix,
                                                   const std::string& after, std::uint32_t pageSize) const
{
    api::QueryMap q;
    if (!prefix.empty()) q["prefix"] = prefix;
    if (!after.empty()) q["continuation_token"] = after;
    q["pagesize"] = std::to_string(pageSize);
    q["props"] = "name,size,checksum,atime";
    // The listing's atime is AIStore's RFC822 unless asked: S3 needs RFC 3339.
    q["time_format"] = std::string(api::kGoRfc3339Nano);
    auto lr = api::listRequestFromQuery(q);
    if (!lr) return lr.error();
    // In process, not through the proxy's HTTP port (S3Api::NativeOps). The
    // query is parsed as the native route parses it: the same checks.
    auto page = native.list(bucket, *lr);
    if (!page && page.kind() == api::ErrorKind::NotFound) {
        return api::Error::notFound("NoSuchBucket: the bucket does not exist");
    }
    return page;
}

api::Status S3Context::deleteNative(const std::string& bucket, const std::string& name) const
{
    auto r = http().send(client::Method::Delete, selfUrl + api::path::object(bucket, name));
    if (!r) return r.error();
    if (r->status == 404 || r->isSuccess()) return {};
    return api::Error::unavailable("delete of " + name + " failed: " + std::to_string(r->status) + " " + r->body);
}

Response S3Context::noSuchBucket(const std::string& bucket) const
{
    return s3Error(404, "NoSuchBucket", "The specified bucket does not exist", "/" + bucket);
}

Response S3Context::noSuchUpload(const std::string& resource) const
{
    return s3Error(404, "NoSuchUpload",
                   "The specified upload does not exist. The upload ID may be invalid, or the upload may have been "
                   "aborted or completed.",
                   resource);
}

}  // namespace tessera::daemon::s3
