#include "s3_api.h"

#include "aws_chunked_decoder.h"
#include "md5_stream.h"
#include "s3_errors.h"
#include "target_call.h"

#include "api/go_time_format.h"
#include "api/headers.h"
#include "api/hrw.h"
#include "api/json_util.h"
#include "api/names.h"
#include "api/object_list.h"
#include "api/object_meta.h"
#include "api/paths.h"
#include "api/s3_msg.h"
#include "client/http_client.h"
#include "common/log.h"

#include <algorithm>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/verb.hpp>
#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>
#include <openssl/evp.h>
#include <openssl/rand.h>

namespace tessera::daemon::s3 {

namespace http = boost::beast::http;
using net::Request;
using net::Response;

namespace {

// Where the parts of multipart uploads wait, in the upload's bucket: hidden
// from S3 listings, visible to the native API.
constexpr std::string_view kUploadsPrefix = ".s3-multipart/";
constexpr std::size_t kMaxUserMetadata = 2048;                    // S3's limit on x-amz-meta-* (names and values)
constexpr std::uint64_t kMaxObjectSize = std::uint64_t{5} << 40;  // 5 TiB, S3's single-object limit
constexpr std::uint64_t kMinPartSize = std::uint64_t{5} << 20;    // all parts but the last
constexpr std::uint64_t kMaxPartSize = std::uint64_t{5} << 30;
constexpr std::size_t kRelayChunk = 256 * 1024;

std::string lower(std::string_view s)
{
    std::string out(s);
    for (auto& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

std::string unquote(std::string s)
{
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return s.substr(1, s.size() - 2);
    return s;
}

std::string hexOf(std::string_view s) { return Md5Stream::toHex(std::string(s)); }

api::Result<std::string> unhex(std::string_view s)
{
    if (s.size() % 2 != 0) return api::Error::badRequest("InvalidArgument: malformed continuation token");
    std::string out;
    for (std::size_t i = 0; i < s.size(); i += 2) {
        auto d = [](char c) { return (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1; };
        const int a = d(s[i]), b = d(s[i + 1]);
        if (a < 0 || b < 0) return api::Error::badRequest("InvalidArgument: malformed continuation token");
        out.push_back(static_cast<char>(a * 16 + b));
    }
    return out;
}

// A custom-metadata value: ',', '%' and bytes outside printable ASCII escaped.
std::string encodeValue(std::string_view v)
{
    static const char* kHex = "0123456789ABCDEF";
    std::string out;
    for (char c : v) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u > 0x7e || c == ',' || c == '%') {
            out.push_back('%');
            out.push_back(kHex[u >> 4]);
            out.push_back(kHex[u & 15]);
        } else {
            out.push_back(c);
        }
    }
    return out;
}

std::string decodeValue(std::string_view v)
{
    auto d = api::percentDecode(v);
    return d ? *d : std::string(v);
}

std::string randomHex(std::size_t bytes)
{
    std::string raw(bytes, '\0');
    if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(bytes)) != 1) {
        // OpenSSL's generator failing is a broken installation.
        throw std::runtime_error("RAND_bytes failed");
    }
    return hexOf(raw);
}

std::int64_t nowUnix()
{
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// The S3 view of an object, from a target's (or the native API's) answer.
struct ObjectView {
    std::uint64_t size = 0;
    std::string etag;  // with quotes
    std::int64_t mtime = 0;
    std::string contentType;
    std::vector<std::pair<std::string, std::string>> userMeta;  // name without x-amz-meta-, value
    std::map<std::string, std::string> custom;                  // as stored
};

ObjectView viewOf(const std::function<std::string(std::string_view)>& header)
{
    ObjectView v;
    const auto attrs = api::attrsFromHeaders(header);
    v.size = static_cast<std::uint64_t>(std::max<std::int64_t>(attrs.size, 0));
    if (auto md = api::parseCustomMd(header(api::kHdrCustomMd)); md) v.custom = std::move(md.value());
    if (auto it = v.custom.find("s3-etag"); it != v.custom.end()) {
        v.etag = "\"" + it->second + "\"";
    } else {
        // Written by the native API: no MD5 was kept; the xxhash, marked
        // with "-1" so that clients do not compare it with an MD5.
        const auto x = header(api::kHdrChecksumValue);
        v.etag = "\"" + (x.empty() ? std::string("0") : x) + "-1\"";
    }
    if (auto it = v.custom.find("s3-mtime"); it != v.custom.end()) {
        v.mtime = std::atoll(it->second.c_str());
    } else {
        v.mtime = std::atoll(header(api::kHdrAtime).c_str()) / 1000000000;
    }
    if (auto it = v.custom.find("s3-ct"); it != v.custom.end()) v.contentType = decodeValue(it->second);
    for (const auto& [k, val] : v.custom) {
        if (k.rfind("s3m.", 0) == 0) v.userMeta.emplace_back(k.substr(4), decodeValue(val));
    }
    return v;
}

void addObjectHeaders(Response& r, const ObjectView& v)
{
    r.header("ETag", v.etag);
    r.header("Last-Modified", api::httpDate(v.mtime));
    r.header("Content-Type", v.contentType.empty() ? "binary/octet-stream" : v.contentType);
    r.header("Accept-Ranges", "bytes");
    for (const auto& [k, val] : v.userMeta) r.header("x-amz-meta-" + k, val);
}

// If-Match, If-None-Match, If-Modified-Since, If-Unmodified-Since (RFC 7232
// order). nullopt: go on; else the 304 or 412 to answer.
std::optional<Response> checkConditions(const Request& req, const ObjectView& v, const std::string& resource)
{
    const auto tag = unquote(v.etag);
    const auto matches = [&](const std::string& list) {
        std::size_t start = 0;
        while (start <= list.size()) {
            auto comma = list.find(',', start);
            std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            while (!item.empty() && item.front() == ' ') item.erase(0, 1);
            while (!item.empty() && item.back() == ' ') item.pop_back();
            if (item.rfind("W/", 0) == 0) item = item.substr(2);
            if (item == "*" || unquote(item) == tag) return true;
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        return false;
    };
    const auto ifMatch = req.header("If-Match");
    const auto ifNoneMatch = req.header("If-None-Match");
    if (!ifMatch.empty() && !matches(ifMatch)) {
        return s3Error(412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold",
                       resource);
    }
    if (ifMatch.empty()) {
        const auto ius = req.header("If-Unmodified-Since");
        if (!ius.empty()) {
            if (auto t = api::parseHttpDate(ius); t && v.mtime > *t) {
                return s3Error(412, "PreconditionFailed",
                               "At least one of the pre-conditions you specified did not hold", resource);
            }
        }
    }
    const auto notModified = [&] {
        Response r;
        r.status = 304;
        r.header("ETag", v.etag);
        r.header("Last-Modified", api::httpDate(v.mtime));
        return r;
    };
    if (!ifNoneMatch.empty()) {
        if (matches(ifNoneMatch)) return notModified();
    } else {
        const auto ims = req.header("If-Modified-Since");
        if (!ims.empty()) {
            if (auto t = api::parseHttpDate(ims); t && v.mtime <= *t) return notModified();
        }
    }
    return std::nullopt;
}

// The user metadata and Content-Type of a PUT as custom metadata.
api::Result<std::map<std::string, std::string>> customFromRequest(const Request& req)
{
    std::map<std::string, std::string> out;
    std::size_t total = 0;
    if (req.headers != nullptr) {
        for (const auto& f : *req.headers) {
            const auto name = lower(std::string_view(f.name_string().data(), f.name_string().size()));
            if (name.rfind("x-amz-meta-", 0) != 0) continue;
            const auto key = name.substr(11);
            if (key.empty() || !std::all_of(key.begin(), key.end(), [](char c) {
                    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
                })) {
                return api::Error::badRequest("InvalidArgument: metadata name \"" + key +
                                              "\" must be of a-z, 0-9, '-', '_' and '.'");
            }
            const std::string value(f.value());
            total += key.size() + value.size();
            out["s3m." + key] = encodeValue(value);
        }
    }
    if (total > kMaxUserMetadata) {
        return api::Error::badRequest("MetadataTooLarge: x-amz-meta-* headers exceed " +
                                      std::to_string(kMaxUserMetadata) + " bytes");
    }
    const auto ct = req.header("Content-Type");
    if (!ct.empty()) out["s3-ct"] = encodeValue(ct);
    return out;
}

std::string partName(const std::string& uploadId, std::uint32_t n)
{
    char num[8];
    std::snprintf(num, sizeof num, "%05u", n);
    return std::string(kUploadsPrefix) + uploadId + "/part-" + num;
}
std::string uploadMetaName(const std::string& uploadId) { return std::string(kUploadsPrefix) + uploadId + "/meta"; }

bool validUploadId(const std::string& id)
{
    return id.size() == 32 &&
           std::all_of(id.begin(), id.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// /v1/objects/<b>/<name>?<query>&smap_version=<v>
std::string objectTarget(const std::string& bucket, const std::string& name, api::QueryMap query,
                         std::int64_t smapVersion)
{
    query[std::string(api::kQpSmapVersion)] = std::to_string(smapVersion);
    return api::path::object(bucket, name) + "?" + api::buildQuery(query);
}

}  // namespace

struct S3Api::Impl {
    S3Api::MapSource smap;
    S3Api::BucketSource bmd;
    std::string selfUrl;
    std::string clusterKey;
    std::chrono::milliseconds timeout;
    SecretLookup secrets;
    PermissionCheck permits;
    std::string refuse;

    // What authenticate() found.
    struct Caller {
        std::optional<SigV4> sig;
        std::string signingKey;  // set when the signature was verified
        std::string user;        // the key's user (verified requests)
    };

    client::HttpClient& loopback() const
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

    client::Headers keyHeader() const { return {{std::string(api::kHdrClusterKey), clusterKey}}; }

    // Checks the request's signature and, with permissions configured (auth
    // on), that its user holds `permission` on `bucket` (empty: none needed).
    api::Result<Caller> authenticate(const Request& req, const std::string& bucket, api::Permission permission) const
    {
        auto c = verify(req);
        if (!c || !permits || bucket.empty()) return c;
        auto ok = permits(c->user, bucket, permission);
        if (!ok) return ok.error();
        if (!*ok) {
            return api::Error::forbidden("AccessDenied: user \"" + c->user + "\" may not " +
                                         std::string(api::permissionName(permission)) + " in bucket \"" + bucket +
                                         "\"");
        }
        return c;
    }

    api::Result<Caller> verify(const Request& req) const
    {
        if (!refuse.empty()) return api::Error::forbidden("AccessDenied: " + refuse);
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
        auto key = secrets(c.sig->accessKey);
        if (!key) {
            return api::Error::forbidden("InvalidAccessKeyId: the access key \"" + c.sig->accessKey +
                                         "\" does not exist");
        }
        if (auto st = verifySigV4(sr, *c.sig, key->secret, nowUnix()); !st) return st.error();
        c.signingKey = signingKey(key->secret, *c.sig);
        c.user = key->user;
        return c;
    }

    // ---- buckets -------------------------------------------------------

    Response listBuckets(const Request& req) const
    {
        if (auto c = authenticate(req, std::string(), api::Permission::Read); !c) return fromError(c.error(), "/");
        api::S3BucketList out;
        out.ownerId = "tessera";
        const auto buckets = bmd();
        const auto caller = verify(req);
        for (const auto& [name, props] : buckets->buckets) {
            if (permits && caller) {
                auto ok = permits(caller->user, name, api::Permission::List);
                if (!ok || !*ok) continue;
            }
            out.buckets.push_back({name, api::s3IsoTime(props.created / 1000000000)});
        }
        return xmlResponse(200, api::toXml(out));
    }

    Response bucketGet(const Request& req) const
    {
        const auto bucket = req.param("bucket");
        if (auto c = authenticate(req, bucket, api::Permission::List); !c) return fromError(c.error(), "/" + bucket);
        if (bmd()->find(bucket) == nullptr) return noSuchBucket(bucket);
        if (req.hasQuery("location")) {
            return xmlResponse(200, "<?xml version=\"1.0\" encoding=\"UTF-8\"?><LocationConstraint xmlns=\"" +
                                        std::string(api::kS3Xmlns) + "\"></LocationConstraint>");
        }
        if (req.hasQuery("uploads")) return listUploads(req, bucket);
        for (const char* sub : {"acl", "policy", "cors", "lifecycle", "website", "tagging", "replication"}) {
            if (req.hasQuery(sub)) {
                return s3Error(501, "NotImplemented", std::string("bucket ?") + sub + " is not supported",
                               "/" + bucket);
            }
        }
        if (req.hasQuery("versioning")) {
            return xmlResponse(200, "<?xml version=\"1.0\" encoding=\"UTF-8\"?><VersioningConfiguration xmlns=\"" +
                                        std::string(api::kS3Xmlns) + "\"/>");
        }
        return listObjects(req, bucket);
    }

    Response createBucket(const Request& req) const
    {
        const auto bucket = req.param("bucket");
        if (auto c = authenticate(req, bucket, api::Permission::AdminBucket); !c)
            return fromError(c.error(), "/" + bucket);
        if (auto st = api::validateBucketName(bucket); !st) {
            return s3Error(400, "InvalidBucketName", st.error().message, "/" + bucket);
        }
        if (!req.body.empty()) {
            // CreateBucketConfiguration (a LocationConstraint): any region is this cluster.
            if (req.body.find("<CreateBucketConfiguration") == std::string::npos) {
                return s3Error(400, "MalformedXML", "expected <CreateBucketConfiguration>", "/" + bucket);
            }
        }
        if (bmd()->find(bucket) != nullptr) {
            return s3Error(409, "BucketAlreadyOwnedByYou", "the bucket exists already", "/" + bucket);
        }
        auto r =
            loopback().send(client::Method::Post, selfUrl + api::path::bucket(bucket),
                            client::Body::string(R"({"action":"create-bck"})"), {{"Content-Type", "application/json"}});
        if (!r) return fromError(r.error(), "/" + bucket);
        if (r->status == 409) return s3Error(409, "BucketAlreadyOwnedByYou", "the bucket exists already", "/" + bucket);
        if (!r->isSuccess()) return fromNative(*r, "/" + bucket, "NoSuchBucket");
        Response ok;
        ok.header("Location", "/" + bucket);
        return ok;
    }

    Response deleteBucket(const Request& req) const
    {
        const auto bucket = req.param("bucket");
        if (auto c = authenticate(req, bucket, api::Permission::AdminBucket); !c)
            return fromError(c.error(), "/" + bucket);
        if (bmd()->find(bucket) == nullptr) return noSuchBucket(bucket);
        // Uploads in progress do not keep a bucket: look past their names
        // (all below ".s3-multipart0", as '/' < '0').
        auto page = nativeList(bucket, "", "", 1);
        if (page && !page->entries.empty() && page->entries.front().name.rfind(kUploadsPrefix, 0) == 0) {
            page = nativeList(bucket, "", ".s3-multipart0", 1);
        }
        if (!page) return fromError(page.error(), "/" + bucket);
        if (!page->entries.empty()) {
            return s3Error(409, "BucketNotEmpty", "The bucket you tried to delete is not empty", "/" + bucket);
        }
        auto r = loopback().send(client::Method::Delete, selfUrl + api::path::bucket(bucket));
        if (!r) return fromError(r.error(), "/" + bucket);
        if (!r->isSuccess()) return fromNative(*r, "/" + bucket, "NoSuchBucket");
        Response ok;
        ok.status = 204;
        return ok;
    }

    Response headBucket(const Request& req) const
    {
        const auto bucket = req.param("bucket");
        Response r;
        if (auto c = authenticate(req, bucket, api::Permission::Read); !c) {
            r = fromError(c.error(), "/" + bucket);
        } else if (bmd()->find(bucket) == nullptr) {
            r = noSuchBucket(bucket);
        }
        r.header("x-amz-bucket-region", "us-east-1");
        r.isHead = true;
        r.headContentLength = 0;
        return r;
    }

    // ---- listing -------------------------------------------------------

    api::Result<api::ObjectList> nativeList(const std::string& bucket, const std::string& prefix,
                                            const std::string& after, std::uint32_t pageSize) const
    {
        api::QueryMap q;
        if (!prefix.empty()) q["prefix"] = prefix;
        if (!after.empty()) q["continuation_token"] = after;
        q["pagesize"] = std::to_string(pageSize);
        q["props"] = "name,size,checksum,atime";
        // The listing's atime is AIStore's RFC822 unless asked: S3 needs RFC 3339.
        q["time_format"] = std::string(api::kGoRfc3339Nano);
        auto r = loopback().send(client::Method::Get, selfUrl + api::path::bucket(bucket) + "?" + api::buildQuery(q));
        if (!r) return r.error();
        if (r->status == 404) return api::Error::notFound("NoSuchBucket: the bucket does not exist");
        if (!r->isSuccess()) return api::Error::unavailable("listing failed: " + r->body);
        return api::parseObjectList(r->body);
    }

    Response listObjects(const Request& req, const std::string& bucket) const
    {
        const std::string resource = "/" + bucket;
        const bool v2 = req.queryValue("list-type") == "2";
        if (req.hasQuery("list-type") && !v2) {
            return s3Error(400, "InvalidArgument", "list-type must be 2", resource);
        }
        api::S3ObjectList out;
        out.v2 = v2;
        out.name = bucket;
        out.prefix = req.queryValue("prefix");
        out.delimiter = req.queryValue("delimiter");
        const auto enc = req.queryValue("encoding-type");
        if (!enc.empty() && enc != "url") return s3Error(400, "InvalidArgument", "encoding-type must be url", resource);
        out.encodingType = enc;
        if (req.hasQuery("max-keys")) {
            const auto mk = req.queryValue("max-keys");
            if (mk.empty() || mk.size() > 9 ||
                !std::all_of(mk.begin(), mk.end(), [](char c) { return c >= '0' && c <= '9'; })) {
                return s3Error(400, "InvalidArgument", "max-keys must be a non-negative whole number", resource);
            }
            out.maxKeys = std::min<std::uint32_t>(static_cast<std::uint32_t>(std::stoul(mk)), api::kS3MaxKeys);
        }
        std::string start;  // only names after this one
        if (v2) {
            out.startAfter = req.queryValue("start-after");
            start = out.startAfter;
            if (req.hasQuery("continuation-token")) {
                out.continuationToken = req.queryValue("continuation-token");
                auto t = unhex(out.continuationToken);
                if (!t || t->empty()) return s3Error(400, "InvalidArgument", "malformed continuation token", resource);
                start = std::max(start, *t);
            }
        } else {
            out.marker = req.queryValue("marker");
            start = out.marker;
        }
        // Names before the prefix cannot match: start there.
        std::string after = start;
        std::string lastPrefix;  // the last CommonPrefix emitted
        std::string lastEmitted;
        std::uint32_t count = 0;
        bool more = true;
        bool truncated = false;
        while (more && !truncated) {
            auto page = nativeList(bucket, out.prefix, after, api::kDefaultPageSize);
            if (!page) {
                if (page.kind() == api::ErrorKind::NotFound) return noSuchBucket(bucket);
                return fromError(page.error(), resource);
            }
            more = !page->continuationToken.empty() && !page->entries.empty();
            for (const auto& e : page->entries) {
                after = e.name;
                if (e.name <= start) continue;
                if (e.name.rfind(kUploadsPrefix, 0) == 0) continue;
                if (e.name.compare(0, out.prefix.size(), out.prefix) != 0) continue;
                std::string commonPrefix;
                if (!out.delimiter.empty()) {
                    const auto pos = e.name.find(out.delimiter, out.prefix.size());
                    if (pos != std::string::npos) commonPrefix = e.name.substr(0, pos + out.delimiter.size());
                }
                if (!commonPrefix.empty()) {
                    // A token that is a common prefix covers every name under it.
                    if (commonPrefix == lastPrefix || commonPrefix == start) continue;
                }
                if (count == out.maxKeys) {
                    truncated = out.maxKeys > 0;
                    break;
                }
                if (!commonPrefix.empty()) {
                    out.commonPrefixes.push_back(commonPrefix);
                    lastPrefix = commonPrefix;
                    lastEmitted = commonPrefix;
                } else {
                    api::S3Object o;
                    o.key = e.name;
                    o.size = e.size;
                    o.etag = "\"" + (e.checksum.empty() ? std::string("0") : e.checksum) + "-1\"";
                    o.lastModified = e.atime.size() >= 19 ? e.atime.substr(0, 19) + ".000Z" : api::s3IsoTime(0);
                    out.contents.push_back(std::move(o));
                    lastEmitted = e.name;
                }
                ++count;
            }
            if (out.maxKeys == 0) break;
        }
        out.isTruncated = truncated;
        out.keyCount = count;
        if (truncated) {
            if (v2) out.nextContinuationToken = hexOf(lastEmitted);
            else out.nextMarker = lastEmitted;
        }
        if (enc == "url") {
            const auto e = [](std::string& s) { s = api::percentEncode(s, true); };
            e(out.prefix);
            e(out.delimiter);
            e(out.startAfter);
            e(out.marker);
            e(out.nextMarker);
            for (auto& o : out.contents) e(o.key);
            for (auto& p : out.commonPrefixes) e(p);
        }
        return xmlResponse(200, api::toXml(out));
    }

    // ---- objects -------------------------------------------------------

    struct Placement {
        api::Snode owner;
        std::int64_t smapVersion = 0;
    };

    // The target to read (`read`) or write an object on.
    api::Result<Placement> placement(const std::string& bucket, const std::string& name, bool read) const
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

    api::Result<std::string> objectName(const Request& req) const
    {
        const auto key = req.param("key");
        if (auto st = api::validateObjectName(key); !st) {
            return api::Error::badRequest("InvalidArgument: object key not supported: " + st.error().message);
        }
        return key;
    }

    // Opens a GET or HEAD of bucket/name on its target, following a target's
    // redirect (its map is newer) once. The head is read.
    api::Result<std::pair<std::unique_ptr<TargetCall>, TargetHead>> openRead(const std::string& bucket,
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

    class Relay : public net::BodySource {
    public:
        explicit Relay(std::unique_ptr<TargetCall> c) : m_call(std::move(c)) {}
        api::Result<std::size_t> read(char* buf, std::size_t cap) override { return m_call->readBody(buf, cap); }

    private:
        std::unique_ptr<TargetCall> m_call;
    };

    Response getObject(const Request& req, bool head) const
    {
        const auto bucket = req.param("bucket");
        const std::string resource = "/" + bucket + "/" + req.param("key");
        auto finish = [head](Response r) {
            if (head) {
                r.headContentLength = r.body.size();
                r.isHead = true;
            }
            return r;
        };
        auto caller = authenticate(req, bucket, api::Permission::Read);
        if (!caller) return finish(fromError(caller.error(), resource));
        if (!head && req.hasQuery("uploadId")) return listParts(req);
        auto name = objectName(req);
        if (!name) return finish(fromError(name.error(), resource));
        const auto range = head ? std::string() : req.header("Range");
        auto opened = openRead(bucket, *name, head, range);
        if (!opened) return finish(fromError(opened.error(), resource));
        auto& [call, th] = *opened;
        if (th.status == 404) {
            if (bmd()->find(bucket) == nullptr) return finish(noSuchBucket(bucket));
            return finish(s3Error(404, "NoSuchKey", "The specified key does not exist.", resource));
        }
        if (th.status == 416) {
            return finish(s3Error(416, "InvalidRange", "The requested range is not satisfiable", resource));
        }
        if (th.status != 200 && th.status != 206) {
            std::string body;
            if (!head) {
                auto b = call->readSmallBody(64 * 1024);
                if (b) body = *b;
            }
            return finish(fromStatus(th.status, body, resource, "NoSuchKey"));
        }
        const auto view = viewOf([&th](std::string_view n) { return th.header(n); });
        if (auto c = checkConditions(req, view, resource)) return finish(std::move(*c));
        Response r;
        r.status = th.status;
        addObjectHeaders(r, view);
        if (th.status == 206) r.header("Content-Range", th.header("content-range"));
        if (head) {
            r.isHead = true;
            r.headContentLength = view.size;
            return r;
        }
        if (!th.contentLength) return s3Error(502, "InternalError", "target answered without a length", resource);
        r.sourceLength = *th.contentLength;
        r.source = std::make_shared<Relay>(std::move(call));
        return r;
    }

    Response deleteObject(const Request& req) const
    {
        const auto bucket = req.param("bucket");
        const std::string resource = "/" + bucket + "/" + req.param("key");
        if (auto c = authenticate(req, bucket, api::Permission::Delete); !c) return fromError(c.error(), resource);
        if (req.hasQuery("uploadId")) return abortUpload(req);
        if (bmd()->find(bucket) == nullptr) return noSuchBucket(bucket);
        auto name = objectName(req);
        if (!name) return fromError(name.error(), resource);
        if (auto st = deleteNative(bucket, *name); !st) return fromError(st.error(), resource);
        Response ok;
        ok.status = 204;
        return ok;
    }

    // Deletes one object through the native API; a missing one is no error.
    api::Status deleteNative(const std::string& bucket, const std::string& name) const
    {
        auto r = loopback().send(client::Method::Delete, selfUrl + api::path::object(bucket, name));
        if (!r) return r.error();
        if (r->status == 404 || r->isSuccess()) return {};
        return api::Error::unavailable("delete of " + name + " failed: " + std::to_string(r->status) + " " + r->body);
    }

    Response deleteObjects(const Request& req) const
    {
        const auto bucket = req.param("bucket");
        const std::string resource = "/" + bucket;
        if (auto c = authenticate(req, bucket, api::Permission::Delete); !c) return fromError(c.error(), resource);
        if (bmd()->find(bucket) == nullptr) return noSuchBucket(bucket);
        auto del = api::parseS3DeleteRequest(req.body);
        if (!del) return s3Error(400, "MalformedXML", del.error().message, resource);
        api::S3DeleteResult out;
        for (const auto& key : del->keys) {
            if (auto st = api::validateObjectName(key); !st) {
                out.errors.push_back({key, "InvalidArgument", st.error().message});
                continue;
            }
            if (auto st = deleteNative(bucket, key); !st) {
                out.errors.push_back({key, "InternalError", st.error().message});
                continue;
            }
            if (!del->quiet) out.deleted.push_back(key);
        }
        return xmlResponse(200, api::toXml(out));
    }

    // ---- writes --------------------------------------------------------

    // A PUT's body on its way to the target: aws-chunked decoded, hashed
    // when the client asked for a check, and written through except for its
    // last byte, which goes only once every check passed. A check that fails
    // drops the connection to the target with the body incomplete, and the
    // target stores nothing.
    class PutRelay : public net::UploadSink {
    public:
        struct Checks {
            std::string sha256;  // hex of the payload (signed payload), empty: none
            std::string md5;     // Content-MD5 (base64), empty: none
        };
        PutRelay(std::unique_ptr<TargetCall> call, std::uint64_t length, std::unique_ptr<AwsChunkedDecoder> decoder,
                 Checks checks, std::string resource, std::function<Response(const ObjectView&)> answer)
            : m_call(std::move(call)), m_length(length), m_decoder(std::move(decoder)), m_checks(std::move(checks)),
              m_resource(std::move(resource)), m_answer(std::move(answer))
        {
            if (!m_checks.sha256.empty()) {
                m_sha = {EVP_MD_CTX_new(), &EVP_MD_CTX_free};
                EVP_DigestInit_ex(m_sha.get(), EVP_sha256(), nullptr);
            }
            if (!m_checks.md5.empty()) m_md5.emplace();
        }

        api::Status write(const char* data, std::size_t size) override
        {
            if (m_decoder) {
                return m_decoder->feed(data, size, [this](const char* p, std::size_t n) { return forward(p, n); });
            }
            return forward(data, size);
        }

        Response finish() override
        {
            if (m_decoder && !m_decoder->done()) {
                return s3Error(400, "IncompleteBody", "the aws-chunked body ended before its final chunk", m_resource);
            }
            if (m_received != m_length) {
                return s3Error(400, "IncompleteBody",
                               "You did not provide the number of bytes specified by the Content-Length", m_resource);
            }
            if (m_sha) {
                unsigned char md[EVP_MAX_MD_SIZE];
                unsigned int n = 0;
                EVP_DigestFinal_ex(m_sha.get(), md, &n);
                if (hexOf(std::string(reinterpret_cast<char*>(md), n)) != m_checks.sha256) {
                    return s3Error(400, "XAmzContentSHA256Mismatch",
                                   "The provided 'x-amz-content-sha256' header does not match what was computed.",
                                   m_resource);
                }
            }
            if (m_md5) {
                if (base64(m_md5->digest()) != m_checks.md5) {
                    return s3Error(400, "BadDigest", "The Content-MD5 you specified did not match what we received.",
                                   m_resource);
                }
            }
            if (m_length > 0) {
                if (auto st = m_call->write(&m_last, 1); !st) return fromError(st.error(), m_resource);
            }
            auto th = m_call->readHead();
            if (!th) return fromError(th.error(), m_resource);
            auto body = m_call->readSmallBody(64 * 1024);
            if (th->status != 200) return fromStatus(th->status, body ? *body : "", m_resource, "NoSuchBucket");
            return m_answer(viewOf([&th](std::string_view n) { return th->header(n); }));
        }

    private:
        api::Status forward(const char* p, std::size_t n)
        {
            if (n == 0) return {};
            if (m_received + n > m_length) {
                return api::Error::badRequest("IncompleteBody: more bytes than the announced length");
            }
            if (m_sha) EVP_DigestUpdate(m_sha.get(), p, n);
            if (m_md5) m_md5->update(p, n);
            m_received += n;
            if (m_received == m_length) {
                m_last = p[n - 1];
                --n;
            }
            if (n == 0) return {};
            return m_call->write(p, n);
        }

        static std::string base64(const std::string& raw)
        {
            std::string out(4 * ((raw.size() + 2) / 3) + 1, '\0');
            const int n =
                EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(raw.data()), static_cast<int>(raw.size()));
            out.resize(static_cast<std::size_t>(n));
            return out;
        }

        std::unique_ptr<TargetCall> m_call;
        std::uint64_t m_length;
        std::unique_ptr<AwsChunkedDecoder> m_decoder;
        Checks m_checks;
        std::string m_resource;
        std::function<Response(const ObjectView&)> m_answer;
        std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> m_sha{nullptr, &EVP_MD_CTX_free};
        std::optional<Md5Stream> m_md5;
        std::uint64_t m_received = 0;
        char m_last = 0;
    };

    // A sink for requests whose work starts after their (empty) body:
    // CopyObject, UploadPartCopy. `work` runs on the worker pool.
    class AfterBody : public net::UploadSink {
    public:
        explicit AfterBody(std::function<Response()> work) : m_work(std::move(work)) {}
        api::Status write(const char*, std::size_t) override { return {}; }
        Response finish() override { return m_work(); }

    private:
        std::function<Response()> m_work;
    };

    using Started = std::variant<Response, std::unique_ptr<net::UploadSink>>;

    Started putObject(const Request& req) const
    {
        const auto bucket = req.param("bucket");
        const std::string resource = "/" + bucket + "/" + req.param("key");
        auto caller = authenticate(req, bucket, api::Permission::Write);
        if (!caller) return fromError(caller.error(), resource);
        auto name = objectName(req);
        if (!name) return fromError(name.error(), resource);
        if (bmd()->find(bucket) == nullptr) return noSuchBucket(bucket);
        const bool isPart = req.hasQuery("partNumber") || req.hasQuery("uploadId");
        std::uint32_t partNumber = 0;
        std::string uploadId;
        if (isPart) {
            uploadId = req.queryValue("uploadId");
            const auto pn = req.queryValue("partNumber");
            if (!validUploadId(uploadId)) return noSuchUpload(resource);
            if (pn.empty() || pn.size() > 5 ||
                !std::all_of(pn.begin(), pn.end(), [](char c) { return c >= '0' && c <= '9'; }) || std::stoul(pn) < 1 ||
                std::stoul(pn) > api::kS3MaxParts) {
                return s3Error(400, "InvalidArgument", "partNumber must be 1..10000", resource);
            }
            partNumber = static_cast<std::uint32_t>(std::stoul(pn));
        }
        const auto copySource = req.header("x-amz-copy-source");
        if (!copySource.empty()) {
            if (isPart) return s3Error(501, "NotImplemented", "UploadPartCopy is not supported", resource);
            return std::unique_ptr<net::UploadSink>(
                std::make_unique<AfterBody>([this, &req, bucket, name = *name, copySource, resource] {
                    return copyObject(req, bucket, name, copySource, resource);
                }));
        }
        // The payload's length: aws-chunked announces it in its own header.
        const auto& sig = caller->sig;
        const bool streaming = sig && sig->streaming();
        std::uint64_t length = req.contentLength;
        if (streaming) {
            const auto decoded = req.header("x-amz-decoded-content-length");
            if (decoded.empty() || decoded.size() > 15 ||
                !std::all_of(decoded.begin(), decoded.end(), [](char c) { return c >= '0' && c <= '9'; })) {
                return s3Error(411, "MissingContentLength", "an aws-chunked body needs x-amz-decoded-content-length",
                               resource);
            }
            length = std::stoull(decoded);
        } else if (req.header("Content-Length").empty() && req.hasBody) {
            return s3Error(411, "MissingContentLength", "You must provide the Content-Length HTTP header.", resource);
        }
        if (isPart && length > kMaxPartSize) {
            return s3Error(400, "EntityTooLarge", "a part may be at most 5 GiB", resource);
        }
        if (length > kMaxObjectSize) {
            return s3Error(400, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size (5 TiB)",
                           resource);
        }
        std::map<std::string, std::string> custom;
        if (!isPart) {
            auto c = customFromRequest(req);
            if (!c) return fromError(c.error(), resource);
            custom = std::move(c.value());
        } else if (!uploadExists(bucket, uploadId)) {
            return noSuchUpload(resource);
        }
        const std::string storedName = isPart ? partName(uploadId, partNumber) : *name;
        auto where = placement(bucket, storedName, false);
        if (!where) return fromError(where.error(), resource);
        client::Headers h = keyHeader();
        if (!custom.empty()) h.emplace_back(std::string(api::kHdrCustomMd), api::formatCustomMd(custom));
        auto call = TargetCall::start(where->owner.publicNet.url, "PUT",
                                      objectTarget(bucket, storedName, {{"s3", "true"}}, where->smapVersion), h, length,
                                      timeout);
        if (!call) return fromError(call.error(), resource);
        std::unique_ptr<AwsChunkedDecoder> decoder;
        if (streaming) decoder = std::make_unique<AwsChunkedDecoder>(caller->signingKey, *sig);
        PutRelay::Checks checks;
        if (!caller->signingKey.empty() && sig && !streaming && sig->payloadHash != kUnsignedPayload) {
            checks.sha256 = sig->payloadHash;
        }
        checks.md5 = req.header("Content-MD5");
        auto answer = [](const ObjectView& v) {
            Response r;
            r.header("ETag", v.etag);
            return r;
        };
        return std::unique_ptr<net::UploadSink>(std::make_unique<PutRelay>(
            std::move(call.value()), length, std::move(decoder), std::move(checks), resource, answer));
    }

    // Streams bucket/name from its target into a new object (or part)
    // `dstName` of `dstBucket` with `custom` metadata; answers the new view.
    api::Result<ObjectView> copyStream(const std::string& srcBucket, const std::string& srcName,
                                       const std::string& dstBucket, const std::string& dstName,
                                       const std::optional<std::map<std::string, std::string>>& replaceMeta,
                                       const std::string& resource, std::optional<Response>& refused) const
    {
        auto opened = openRead(srcBucket, srcName, false, "");
        if (!opened) return opened.error();
        auto& [src, th] = *opened;
        if (th.status == 404) return api::Error::notFound("NoSuchKey: The specified key does not exist.");
        if (th.status != 200)
            return api::Error::unavailable("reading the source failed with " + std::to_string(th.status));
        auto view = viewOf([&th](std::string_view n) { return th.header(n); });
        if (!th.contentLength) return api::Error::unavailable("source answered without a length");
        std::map<std::string, std::string> custom;
        if (replaceMeta) {
            custom = *replaceMeta;
        } else {
            for (const auto& [k, v] : view.custom) {
                if (k.rfind("s3m.", 0) == 0 || k == "s3-ct") custom[k] = v;
            }
        }
        auto where = placement(dstBucket, dstName, false);
        if (!where) return where.error();
        client::Headers h = keyHeader();
        if (!custom.empty()) h.emplace_back(std::string(api::kHdrCustomMd), api::formatCustomMd(custom));
        auto dst = TargetCall::start(where->owner.publicNet.url, "PUT",
                                     objectTarget(dstBucket, dstName, {{"s3", "true"}}, where->smapVersion), h,
                                     *th.contentLength, timeout);
        if (!dst) return dst.error();
        std::vector<char> buf(kRelayChunk);
        std::uint64_t copied = 0;
        while (copied < *th.contentLength) {
            auto n = src->readBody(buf.data(), buf.size());
            if (!n) return n.error();
            if (*n == 0) return api::Error::unavailable("the source ended early");
            if (auto st = (*dst)->write(buf.data(), *n); !st) return st.error();
            copied += *n;
        }
        auto dh = (*dst)->readHead();
        if (!dh) return dh.error();
        auto body = (*dst)->readSmallBody(64 * 1024);
        if (dh->status != 200) {
            refused = fromStatus(dh->status, body ? *body : "", resource, "NoSuchBucket");
            return api::Error::unavailable("copy refused");
        }
        return viewOf([&dh](std::string_view n) { return dh->header(n); });
    }

    Response copyObject(const Request& req, const std::string& bucket, const std::string& name,
                        const std::string& copySource, const std::string& resource) const
    {
        auto src = api::percentDecode(copySource);
        if (!src) return s3Error(400, "InvalidArgument", "malformed x-amz-copy-source", resource);
        std::string s = *src;
        if (auto q = s.find("?versionId="); q != std::string::npos) s.resize(q);
        if (!s.empty() && s.front() == '/') s.erase(0, 1);
        const auto slash = s.find('/');
        if (slash == std::string::npos || slash == 0 || slash + 1 == s.size()) {
            return s3Error(400, "InvalidArgument", "x-amz-copy-source must be <bucket>/<key>", resource);
        }
        const auto srcBucket = s.substr(0, slash);
        const auto srcName = s.substr(slash + 1);
        if (bmd()->find(srcBucket) == nullptr) return noSuchBucket(srcBucket);
        if (auto c = authenticate(req, srcBucket, api::Permission::Read); !c) return fromError(c.error(), resource);
        std::optional<std::map<std::string, std::string>> replace;
        const auto directive = req.header("x-amz-metadata-directive");
        if (directive == "REPLACE") {
            auto c = customFromRequest(req);
            if (!c) return fromError(c.error(), resource);
            replace = std::move(c.value());
        } else if (!directive.empty() && directive != "COPY") {
            return s3Error(400, "InvalidArgument", "x-amz-metadata-directive must be COPY or REPLACE", resource);
        } else if (srcBucket == bucket && srcName == name) {
            return s3Error(400, "InvalidRequest",
                           "This copy request is illegal because it is trying to copy an object to itself without "
                           "changing the object's metadata.",
                           resource);
        }
        std::optional<Response> refused;
        auto view = copyStream(srcBucket, srcName, bucket, name, replace, resource, refused);
        if (refused) return std::move(*refused);
        if (!view) return fromError(view.error(), "/" + srcBucket + "/" + srcName);
        return xmlResponse(200, api::toXml(api::S3CopyResult{view->etag, api::s3IsoTime(view->mtime), false}));
    }

    // ---- multipart upload ----------------------------------------------

    // Asks the target of the upload's record directly, never this proxy on
    // loopback: UploadPart checks it on the connection's I/O thread, and a
    // loopback call could land on that same thread.
    bool uploadExists(const std::string& bucket, const std::string& uploadId) const
    {
        auto r = openRead(bucket, uploadMetaName(uploadId), true, "");
        return r && r->second.status == 200;
    }

    Response noSuchUpload(const std::string& resource) const
    {
        return s3Error(404, "NoSuchUpload",
                       "The specified upload does not exist. The upload ID may be invalid, or the upload may have "
                       "been aborted or completed.",
                       resource);
    }

    Response bucketPost(const Request& req) const
    {
        const auto bucket = req.param("bucket");
        if (req.hasQuery("delete")) return deleteObjects(req);
        return s3Error(400, "InvalidArgument", "unsupported POST on a bucket (only ?delete)", "/" + bucket);
    }

    Response objectPost(const Request& req) const
    {
        const auto bucket = req.param("bucket");
        const std::string resource = "/" + bucket + "/" + req.param("key");
        if (auto c = authenticate(req, bucket, api::Permission::Write); !c) return fromError(c.error(), resource);
        if (bmd()->find(bucket) == nullptr) return noSuchBucket(bucket);
        auto name = objectName(req);
        if (!name) return fromError(name.error(), resource);
        if (req.hasQuery("uploads")) return createUpload(req, bucket, *name, resource);
        if (req.hasQuery("uploadId")) return completeUpload(req, bucket, *name, resource);
        return s3Error(400, "InvalidArgument", "unsupported POST on an object (?uploads or ?uploadId)", resource);
    }

    Response createUpload(const Request& req, const std::string& bucket, const std::string& name,
                          const std::string& resource) const
    {
        auto custom = customFromRequest(req);
        if (!custom) return fromError(custom.error(), resource);
        const auto id = randomHex(16);
        client::Headers h;
        if (!custom->empty()) h.emplace_back(std::string(api::kHdrCustomMd), api::formatCustomMd(*custom));
        // The upload's record: its key as the body, the final object's metadata as its own.
        auto r = loopback().send(client::Method::Put, selfUrl + api::path::object(bucket, uploadMetaName(id)),
                                 client::Body::string(name), h);
        if (!r) return fromError(r.error(), resource);
        if (!r->isSuccess()) return fromNative(*r, resource, "NoSuchBucket");
        return xmlResponse(200, api::toXml(api::S3InitiateUpload{bucket, name, id}));
    }

    // The upload's parts as stored: number -> (etag without quotes, size, mtime).
    api::Result<std::map<std::uint32_t, api::S3Part>> storedParts(const std::string& bucket,
                                                                  const std::string& uploadId) const
    {
        std::map<std::uint32_t, api::S3Part> out;
        const std::string prefix = std::string(kUploadsPrefix) + uploadId + "/part-";
        std::string after;
        while (true) {
            auto page = nativeList(bucket, prefix, after, api::kDefaultPageSize);
            if (!page) return page.error();
            for (const auto& e : page->entries) {
                after = e.name;
                const auto num = e.name.substr(prefix.size());
                if (num.size() != 5) continue;
                api::S3Part p;
                p.number = static_cast<std::uint32_t>(std::stoul(num));
                p.size = e.size;
                auto hr = loopback().send(client::Method::Head, selfUrl + api::path::object(bucket, e.name));
                if (!hr) return hr.error();
                if (hr->status != 200) continue;  // removed meanwhile
                const auto v = viewOf([&hr](std::string_view n) { return hr->header(n); });
                p.etag = v.etag;
                p.lastModified = api::s3IsoTime(v.mtime);
                out[p.number] = std::move(p);
            }
            if (page->continuationToken.empty() || page->entries.empty()) break;
        }
        return out;
    }

    Response completeUpload(const Request& req, const std::string& bucket, const std::string& name,
                            const std::string& resource) const
    {
        const auto id = req.queryValue("uploadId");
        if (!validUploadId(id)) return noSuchUpload(resource);
        auto meta = loopback().send(client::Method::Get, selfUrl + api::path::object(bucket, uploadMetaName(id)));
        if (!meta) return fromError(meta.error(), resource);
        if (meta->status == 404) return noSuchUpload(resource);
        if (!meta->isSuccess() || meta->body != name) return noSuchUpload(resource);
        auto wanted = api::parseS3CompleteUpload(req.body);
        if (!wanted) return s3Error(400, "MalformedXML", wanted.error().message, resource);
        auto stored = storedParts(bucket, id);
        if (!stored) return fromError(stored.error(), resource);
        std::uint32_t previous = 0;
        for (const auto& p : wanted->parts) {
            if (p.number <= previous) {
                return s3Error(400, "InvalidPartOrder", "The list of parts was not in ascending order.", resource);
            }
            previous = p.number;
        }
        Md5Stream etags;
        std::uint64_t total = 0;
        for (std::size_t i = 0; i < wanted->parts.size(); ++i) {
            const auto& p = wanted->parts[i];
            auto it = stored->find(p.number);
            if (it == stored->end() || unquote(it->second.etag) != unquote(p.etag)) {
                return s3Error(400, "InvalidPart",
                               "One or more of the specified parts could not be found or its ETag did not match.",
                               resource);
            }
            if (i + 1 < wanted->parts.size() && static_cast<std::uint64_t>(it->second.size) < kMinPartSize) {
                return s3Error(400, "EntityTooSmall", "a part other than the last is smaller than 5 MiB", resource);
            }
            auto raw = unhex(unquote(it->second.etag));
            if (!raw || raw->size() != 16) {
                return s3Error(400, "InvalidPart", "a part has no MD5 ETag", resource);
            }
            etags.update(raw->data(), raw->size());
            total += static_cast<std::uint64_t>(it->second.size);
        }
        if (total > kMaxObjectSize) return s3Error(400, "EntityTooLarge", "the object would exceed 5 TiB", resource);
        const std::string etag = etags.hex() + "-" + std::to_string(wanted->parts.size());
        // The object's metadata from the upload's record, and its S3 ETag.
        auto custom = api::parseCustomMd(meta->header(api::kHdrCustomMd));
        std::map<std::string, std::string> md = custom ? custom.value() : std::map<std::string, std::string>{};
        md["s3-etag"] = etag;
        auto where = placement(bucket, name, false);
        if (!where) return fromError(where.error(), resource);
        client::Headers h = keyHeader();
        h.emplace_back(std::string(api::kHdrCustomMd), api::formatCustomMd(md));
        auto dst =
            TargetCall::start(where->owner.publicNet.url, "PUT",
                              objectTarget(bucket, name, {{"s3", "true"}}, where->smapVersion), h, total, timeout);
        if (!dst) return fromError(dst.error(), resource);
        // The parts, in order, through this proxy into the object's target.
        std::vector<char> buf(kRelayChunk);
        for (const auto& p : wanted->parts) {
            auto opened = openRead(bucket, partName(id, p.number), false, "");
            if (!opened) return fromError(opened.error(), resource);
            auto& [src, th] = *opened;
            if (th.status != 200 || !th.contentLength ||
                *th.contentLength != static_cast<std::uint64_t>(stored->at(p.number).size)) {
                return s3Error(400, "InvalidPart", "a part changed while the upload completed", resource);
            }
            std::uint64_t left = *th.contentLength;
            while (left > 0) {
                auto n = src->readBody(buf.data(), buf.size());
                if (!n) return fromError(n.error(), resource);
                if (*n == 0) return fromError(api::Error::unavailable("a part ended early"), resource);
                if (auto st = (*dst)->write(buf.data(), *n); !st) return fromError(st.error(), resource);
                left -= std::min<std::uint64_t>(left, *n);
            }
        }
        auto dh = (*dst)->readHead();
        if (!dh) return fromError(dh.error(), resource);
        auto body = (*dst)->readSmallBody(64 * 1024);
        if (dh->status != 200) return fromStatus(dh->status, body ? *body : "", resource, "NoSuchBucket");
        removeUpload(bucket, id);
        return xmlResponse(200, api::toXml(api::S3CompleteResult{resource, bucket, name, "\"" + etag + "\""}));
    }

    // Removes an upload's parts and record (what cannot be removed now
    // stays visible to the native API).
    void removeUpload(const std::string& bucket, const std::string& id) const
    {
        auto parts = storedParts(bucket, id);
        if (parts) {
            for (const auto& [n, p] : *parts) {
                if (auto st = deleteNative(bucket, partName(id, n)); !st) {
                    logWarn("S3: part ", n, " of upload ", id, " stays: ", st.error().message);
                }
            }
        }
        if (auto st = deleteNative(bucket, uploadMetaName(id)); !st) {
            logWarn("S3: the record of upload ", id, " stays: ", st.error().message);
        }
    }

    Response abortUpload(const Request& req) const
    {
        const auto bucket = req.param("bucket");
        const std::string resource = "/" + bucket + "/" + req.param("key");
        const auto id = req.queryValue("uploadId");
        if (bmd()->find(bucket) == nullptr) return noSuchBucket(bucket);
        if (!validUploadId(id) || !uploadExists(bucket, id)) return noSuchUpload(resource);
        removeUpload(bucket, id);
        Response ok;
        ok.status = 204;
        return ok;
    }

    Response listParts(const Request& req) const
    {
        const auto bucket = req.param("bucket");
        const auto key = req.param("key");
        const std::string resource = "/" + bucket + "/" + key;
        const auto id = req.queryValue("uploadId");
        if (bmd()->find(bucket) == nullptr) return noSuchBucket(bucket);
        if (!validUploadId(id) || !uploadExists(bucket, id)) return noSuchUpload(resource);
        auto parts = storedParts(bucket, id);
        if (!parts) return fromError(parts.error(), resource);
        api::S3PartList out;
        out.bucket = bucket;
        out.key = key;
        out.uploadId = id;
        for (auto& [n, p] : *parts) out.parts.push_back(p);
        return xmlResponse(200, api::toXml(out));
    }

    Response listUploads(const Request& req, const std::string& bucket) const
    {
        api::S3UploadList out;
        out.bucket = bucket;
        out.prefix = req.queryValue("prefix");
        std::string after;
        while (true) {
            auto page = nativeList(bucket, std::string(kUploadsPrefix), after, api::kDefaultPageSize);
            if (!page) return fromError(page.error(), "/" + bucket);
            for (const auto& e : page->entries) {
                after = e.name;
                const auto rest = e.name.substr(kUploadsPrefix.size());
                if (rest.size() != 32 + 5 || rest.substr(32) != "/meta") continue;
                auto r = loopback().send(client::Method::Get, selfUrl + api::path::object(bucket, e.name));
                if (!r || !r->isSuccess()) continue;
                if (r->body.rfind(out.prefix, 0) != 0) continue;
                const auto mtime = std::atoll(r->header(api::kHdrAtime).c_str()) / 1000000000;
                out.uploads.push_back({r->body, rest.substr(0, 32), api::s3IsoTime(mtime)});
            }
            if (page->continuationToken.empty() || page->entries.empty()) break;
        }
        std::sort(out.uploads.begin(), out.uploads.end(),
                  [](const api::S3Upload& a, const api::S3Upload& b) { return a.key < b.key; });
        return xmlResponse(200, api::toXml(out));
    }

    Response noSuchBucket(const std::string& bucket) const
    {
        return s3Error(404, "NoSuchBucket", "The specified bucket does not exist", "/" + bucket);
    }
};

S3Api::S3Api(MapSource smap, BucketSource bmd, std::string selfUrl, std::string clusterKey,
             std::chrono::milliseconds timeout)
    : m_impl(std::make_unique<Impl>(
          Impl{std::move(smap), std::move(bmd), std::move(selfUrl), std::move(clusterKey), timeout, {}, {}, {}}))
{
}

S3Api::~S3Api() = default;

void S3Api::setSecretLookup(SecretLookup f) { m_impl->secrets = std::move(f); }
void S3Api::refuseAll(std::string why) { m_impl->refuse = std::move(why); }
void S3Api::setPermissionCheck(PermissionCheck f) { m_impl->permits = std::move(f); }

void S3Api::registerRoutes(net::Router& router, const std::string& prefix)
{
    using api::OpKind;
    using net::Exec;
    using net::Route;
    Impl* impl = m_impl.get();
    const auto open = net::Access::open();
    const std::string bucket = prefix + "/{bucket}";
    const std::string object = prefix + "/{bucket}/{key...}";
    const auto add = [&](http::verb v, const std::string& pattern, Exec exec, net::Handler h,
                         std::size_t maxBody = 64 * 1024, std::optional<OpKind> op = std::nullopt) {
        Route r{v, pattern, exec, std::move(h), {}, maxBody};
        r.op = op;
        router.add(net::needs(std::move(r), open));
    };
    add(http::verb::get, prefix.empty() ? "/" : prefix, Exec::Worker,
        [impl](const Request& r) { return impl->listBuckets(r); });
    add(
        http::verb::get, bucket, Exec::Worker, [impl](const Request& r) { return impl->bucketGet(r); }, 64 * 1024,
        OpKind::List);
    add(
        http::verb::put, bucket, Exec::Worker, [impl](const Request& r) { return impl->createBucket(r); }, 64 * 1024);
    add(http::verb::delete_, bucket, Exec::Worker, [impl](const Request& r) { return impl->deleteBucket(r); });
    add(http::verb::head, bucket, Exec::Inline, [impl](const Request& r) { return impl->headBucket(r); });
    add(
        http::verb::post, bucket, Exec::Worker, [impl](const Request& r) { return impl->bucketPost(r); },
        api::kS3MaxXmlBody);
    add(
        http::verb::get, object, Exec::Worker, [impl](const Request& r) { return impl->getObject(r, false); },
        64 * 1024, OpKind::Get);
    add(
        http::verb::head, object, Exec::Worker, [impl](const Request& r) { return impl->getObject(r, true); },
        64 * 1024, OpKind::Head);
    add(
        http::verb::delete_, object, Exec::Worker, [impl](const Request& r) { return impl->deleteObject(r); },
        64 * 1024, OpKind::Delete);
    add(
        http::verb::post, object, Exec::Worker, [impl](const Request& r) { return impl->objectPost(r); },
        api::kS3MaxXmlBody);
    Route put{http::verb::put, object, Exec::Inline, {}, [impl](const Request& r) { return impl->putObject(r); }};
    put.op = OpKind::Put;
    router.add(net::needs(std::move(put), open));
}

}  // namespace tessera::daemon::s3
