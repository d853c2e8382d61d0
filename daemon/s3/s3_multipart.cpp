#include "s3_multipart.h"

#include "multipart_paging.h"
#include "s3_errors.h"
#include "s3_object_ops.h"

#include "api/headers.h"
#include "api/names.h"
#include "api/s3_msg.h"
#include "api/s3_multipart_msg.h"
#include "api/uri.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace tessera::daemon::s3 {

using net::Request;
using net::Response;

std::string MultipartOps::Target::url(const std::string& path, const api::QueryMap& extra) const
{
    api::QueryMap q = extra;
    if (!uploadId.empty()) q["upload_id"] = uploadId;
    q[std::string(api::kQpSmapVersion)] = std::to_string(where.smapVersion);
    return where.owner.publicNet.url + path + "?" + api::buildQuery(q);
}

std::variant<Response, MultipartOps::Target> MultipartOps::target(const Request& req, api::Permission permission,
                                                                  bool needUploadId) const
{
    Target t;
    t.bucket = req.param("bucket");
    t.resource = "/" + t.bucket + "/" + req.param("key");
    auto caller = m_ctx.authenticate(req, t.bucket, permission);
    if (!caller) return fromError(caller.error(), t.resource);
    t.caller = std::move(*caller);
    if (!m_ctx.bucketExists(t.bucket)) return m_ctx.noSuchBucket(t.bucket);
    auto name = m_ctx.objectName(req);
    if (!name) return fromError(name.error(), t.resource);
    t.key = *name;
    if (needUploadId) {
        t.uploadId = req.queryValue("uploadId");
        if (!api::validMultipartId(t.uploadId)) return m_ctx.noSuchUpload(t.resource);
    }
    auto where = m_ctx.placement(t.bucket, t.key, false);
    if (!where) return fromError(where.error(), t.resource);
    t.where = std::move(*where);
    return t;
}

Response MultipartOps::create(const Request& req) const
{
    auto t = target(req, api::Permission::Write, false);
    if (auto* r = std::get_if<Response>(&t)) return std::move(*r);
    const auto& up = std::get<Target>(t);
    auto custom = customFromRequest(req);
    if (!custom) return fromError(custom.error(), up.resource);
    const auto body = nlohmann::json(api::MultipartCreate{std::move(*custom)}).dump();
    auto r = m_ctx.http().send(client::Method::Post, up.url(api::path::multipartUpload(up.bucket, up.key)),
                               client::Body::string(body), {{"Content-Type", "application/json"}});
    if (!r) return fromError(r.error(), up.resource);
    if (!r->isSuccess()) return fromNative(*r, up.resource, "NoSuchBucket");
    auto created = api::parseMessage<api::MultipartUpload>(r->body, "multipart upload");
    if (!created) return fromError(api::Error::badGateway(created.error().message), up.resource);
    return xmlResponse(200, api::toXml(api::S3InitiateUpload{up.bucket, up.key, created->uploadId}));
}

PutRelay::Started MultipartOps::uploadPart(const Request& req) const
{
    auto t = target(req, api::Permission::Write, true);
    if (auto* r = std::get_if<Response>(&t)) return std::move(*r);
    const auto& up = std::get<Target>(t);
    const auto pn = req.queryValue("partNumber");
    if (!allDigits(pn, 5) || std::stoul(pn) < 1 || std::stoul(pn) > api::kMultipartMaxParts) {
        return s3Error(400, "InvalidArgument", "partNumber must be 1..10000", up.resource);
    }
    if (!req.header("x-amz-copy-source").empty()) {
        return std::unique_ptr<net::UploadSink>(std::make_unique<AfterBody>(
            [this, &req, up, n = static_cast<std::uint32_t>(std::stoul(pn))] { return copyPart(req, up, n); }));
    }
    // Whether the upload exists, before the body flows: a target that
    // refuses a part only once its body is under way would be seen as a
    // broken connection, not as NoSuchUpload.
    // (A call of its own, never the thread's client: this runs on the
    // connection's I/O thread and must not wait to retry.)
    const auto base = up.where.owner.publicNet.url;
    auto probe =
        TargetCall::start(base, "HEAD", up.url(api::path::multipartUpload(up.bucket, up.key)).substr(base.size()),
                          m_ctx.keyHeader(), std::nullopt, m_ctx.timeout);
    if (!probe) return fromError(probe.error(), up.resource);
    auto exists = (*probe)->readHead(true);
    if (!exists) return fromError(exists.error(), up.resource);
    if (exists->status == 404) return m_ctx.noSuchUpload(up.resource);
    if (exists->status != 200) return fromStatus(exists->status, "", up.resource, "NoSuchUpload");
    const auto target = up.url(api::path::multipartPart(up.bucket, up.key), {{"part", pn}});
    return PutRelay::start(req, up.caller, up.resource, api::kMultipartMaxPartSize, "a part may be at most 5 GiB", base,
                           target.substr(base.size()), m_ctx.keyHeader(), m_ctx.timeout, "NoSuchUpload",
                           [resource = up.resource](const TargetHead&, const std::string& body) {
                               auto part = api::parseMessage<api::MultipartPart>(body, "part");
                               if (!part) return fromError(api::Error::badGateway(part.error().message), resource);
                               Response r;
                               r.header("ETag", "\"" + part->etag + "\"");
                               return r;
                           });
}

Response MultipartOps::copyPart(const Request& req, const Target& up, std::uint32_t partNumber) const
{
    auto src = parseCopySource(req.header("x-amz-copy-source"));
    if (!src) return fromError(src.error(), up.resource);
    api::MultipartPartCopy msg;
    msg.bucket = src->first;
    msg.key = src->second;
    if (!m_ctx.bucketExists(msg.bucket)) return m_ctx.noSuchBucket(msg.bucket);
    if (auto c = m_ctx.authenticate(req, msg.bucket, api::Permission::Read); !c)
        return fromError(c.error(), up.resource);
    if (auto st = api::validateObjectName(msg.key); !st) {
        return s3Error(400, "InvalidArgument", "copy source key not supported: " + st.error().message, up.resource);
    }
    const auto range = req.header("x-amz-copy-source-range");
    if (!range.empty()) {
        // S3 takes only "bytes=first-last" here, both ends given.
        const auto dash = range.find('-');
        const bool ok = range.rfind("bytes=", 0) == 0 && dash != std::string::npos &&
                        allDigits(range.substr(6, dash - 6), 19) && allDigits(range.substr(dash + 1), 19);
        if (!ok) {
            return s3Error(400, "InvalidArgument", "x-amz-copy-source-range must be bytes=first-last", up.resource);
        }
        msg.first = std::stoull(range.substr(6, dash - 6));
        msg.last = std::stoull(range.substr(dash + 1));
        if (*msg.first > *msg.last) {
            return s3Error(400, "InvalidArgument", "x-amz-copy-source-range: last is before first", up.resource);
        }
        if (*msg.last - *msg.first >= api::kMultipartMaxPartSize) {
            return s3Error(400, "EntityTooLarge", "a part may be at most 5 GiB", up.resource);
        }
    }
    auto r = m_ctx.http().send(
        client::Method::Post,
        up.url(api::path::multipartPartCopy(up.bucket, up.key), {{"part", std::to_string(partNumber)}}),
        client::Body::string(nlohmann::json(msg).dump()), {{"Content-Type", "application/json"}});
    if (!r) return fromError(r.error(), up.resource);
    if (!r->isSuccess()) return fromNative(*r, up.resource, "NoSuchUpload");
    auto part = api::parseMessage<api::MultipartPart>(r->body, "part");
    if (!part) return fromError(api::Error::badGateway(part.error().message), up.resource);
    return xmlResponse(
        200, api::toXml(api::S3CopyResult{"\"" + part->etag + "\"", api::s3IsoTime(part->mtimeNs / 1000000000), true}));
}

Response MultipartOps::complete(const Request& req) const
{
    auto t = target(req, api::Permission::Write, true);
    if (auto* r = std::get_if<Response>(&t)) return std::move(*r);
    const auto& up = std::get<Target>(t);
    auto wanted = api::parseS3CompleteUpload(req.body);
    if (!wanted) return s3Error(400, "MalformedXML", wanted.error().message, up.resource);
    api::MultipartComplete msg;
    for (const auto& p : wanted->parts) msg.parts.push_back({p.number, unquote(p.etag)});
    // Only the list goes to the owner; it assembles the parts itself.
    auto r =
        m_ctx.http().send(client::Method::Post, up.url(api::path::multipartComplete(up.bucket, up.key)),
                          client::Body::string(nlohmann::json(msg).dump()), {{"Content-Type", "application/json"}});
    if (!r) return fromError(r.error(), up.resource);
    if (!r->isSuccess()) return fromNative(*r, up.resource, "NoSuchUpload");
    auto done = api::parseMessage<api::MultipartCompleted>(r->body, "multipart completed");
    if (!done) return fromError(api::Error::badGateway(done.error().message), up.resource);
    return xmlResponse(200,
                       api::toXml(api::S3CompleteResult{up.resource, up.bucket, up.key, "\"" + done->etag + "\""}));
}

Response MultipartOps::abort(const Request& req) const
{
    auto t = target(req, api::Permission::Delete, true);
    if (auto* r = std::get_if<Response>(&t)) return std::move(*r);
    const auto& up = std::get<Target>(t);
    auto r = m_ctx.http().send(client::Method::Delete, up.url(api::path::multipartUpload(up.bucket, up.key)));
    if (!r) return fromError(r.error(), up.resource);
    if (!r->isSuccess()) return fromNative(*r, up.resource, "NoSuchUpload");
    Response ok;
    ok.status = 204;
    return ok;
}

Response MultipartOps::listParts(const Request& req) const
{
    auto t = target(req, api::Permission::Read, true);
    if (auto* r = std::get_if<Response>(&t)) return std::move(*r);
    const auto& up = std::get<Target>(t);
    const auto maxParts = parsePageSize(req.queryValue("max-parts"), "max-parts");
    if (!maxParts) return fromError(maxParts.error(), up.resource);
    const auto marker = parsePartMarker(req.queryValue("part-number-marker"));
    if (!marker) return fromError(marker.error(), up.resource);
    auto r = m_ctx.http().send(client::Method::Get, up.url(api::path::multipartUpload(up.bucket, up.key)));
    if (!r) return fromError(r.error(), up.resource);
    if (!r->isSuccess()) return fromNative(*r, up.resource, "NoSuchUpload");
    auto parts = api::parseMessage<api::MultipartPartList>(r->body, "multipart parts");
    if (!parts) return fromError(api::Error::badGateway(parts.error().message), up.resource);
    api::S3PartList out;
    out.bucket = up.bucket;
    out.key = up.key;
    out.uploadId = up.uploadId;
    out.maxParts = *maxParts;
    out.partNumberMarker = *marker;
    auto page = pageParts(std::move(parts->parts), *marker, *maxParts);
    out.isTruncated = page.truncated;
    out.nextPartNumberMarker = page.nextMarker;
    for (const auto& p : page.parts) {
        out.parts.push_back({p.number, "\"" + p.etag + "\"", static_cast<std::int64_t>(p.size),
                             api::s3IsoTime(p.mtimeNs / 1000000000)});
    }
    return xmlResponse(200, api::toXml(out));
}

Response MultipartOps::listUploads(const Request& req) const
{
    const auto bucket = req.param("bucket");
    const std::string resource = "/" + bucket;
    if (auto c = m_ctx.authenticate(req, bucket, api::Permission::List); !c) return fromError(c.error(), resource);
    if (!m_ctx.bucketExists(bucket)) return m_ctx.noSuchBucket(bucket);
    api::S3UploadList out;
    out.bucket = bucket;
    out.prefix = req.queryValue("prefix");
    out.delimiter = req.queryValue("delimiter");
    out.keyMarker = req.queryValue("key-marker");
    out.uploadIdMarker = req.queryValue("upload-id-marker");
    out.encodingType = req.queryValue("encoding-type");
    if (!out.encodingType.empty() && out.encodingType != "url") {
        return s3Error(400, "InvalidArgument", "encoding-type must be url", resource);
    }
    const auto maxUploads = parsePageSize(req.queryValue("max-uploads"), "max-uploads");
    if (!maxUploads) return fromError(maxUploads.error(), resource);
    out.maxUploads = *maxUploads;
    std::vector<api::MultipartUpload> all;
    // Every target keeps the uploads of the keys it owns: all are asked, and
    // a listing that would miss one's is refused rather than incomplete.
    const auto map = m_ctx.smap();
    for (const auto& [id, node] : map->tmap) {
        if (node.away()) {
            return fromError(api::Error::unavailable("target " + id + " is away: its uploads cannot be listed"),
                             resource);
        }
        api::QueryMap q;
        if (!out.prefix.empty()) q["prefix"] = out.prefix;
        auto r = m_ctx.http().send(client::Method::Get, node.publicNet.url + api::path::multipartUploads(bucket) +
                                                            (q.empty() ? "" : "?" + api::buildQuery(q)));
        if (!r) return fromError(r.error(), resource);
        if (!r->isSuccess()) return fromNative(*r, resource, "NoSuchBucket");
        auto list = api::parseMessage<api::MultipartUploadList>(r->body, "multipart uploads");
        if (!list) return fromError(api::Error::badGateway(list.error().message), resource);
        for (auto& u : list->uploads) all.push_back(std::move(u));
    }
    auto page =
        pageUploads(std::move(all), {out.prefix, out.delimiter, out.keyMarker, out.uploadIdMarker, out.maxUploads});
    out.isTruncated = page.truncated;
    out.nextKeyMarker = std::move(page.nextKeyMarker);
    out.nextUploadIdMarker = std::move(page.nextUploadIdMarker);
    out.commonPrefixes = std::move(page.commonPrefixes);
    for (const auto& u : page.uploads) {
        out.uploads.push_back({u.key, u.uploadId, api::s3IsoTime(u.initiatedNs / 1000000000)});
    }
    if (out.encodingType == "url") {
        const auto e = [](std::string& v) { v = api::percentEncode(v, true); };
        for (auto* v : {&out.prefix, &out.delimiter, &out.keyMarker, &out.nextKeyMarker}) e(*v);
        for (auto& u : out.uploads) e(u.key);
        for (auto& p : out.commonPrefixes) e(p);
    }
    return xmlResponse(200, api::toXml(out));
}

}  // namespace tessera::daemon::s3
