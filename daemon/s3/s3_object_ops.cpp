#include "s3_object_ops.h"

#include "s3_errors.h"

#include "api/headers.h"
#include "api/names.h"
#include "api/object_meta.h"
#include "api/s3_msg.h"

namespace tessera::daemon::s3 {

using net::Request;
using net::Response;

namespace {

// A GET's body from the target: spliced from the target's socket when the
// connection is plain, else read a piece at a time on the worker pool.
class Relay : public net::BodySource {
public:
    explicit Relay(std::unique_ptr<TargetCall> c) : m_call(std::move(c)) {}
    api::Result<std::size_t> read(char* buf, std::size_t cap) override { return m_call->readBody(buf, cap); }
    std::optional<Raw> takeRaw() override
    {
        auto raw = m_call->takeRawBody();
        if (!raw) return std::nullopt;
        return Raw{std::move(raw->buffered), raw->fd};
    }

private:
    std::unique_ptr<TargetCall> m_call;
};

}  // namespace

Response ObjectOps::getObject(const Request& req, bool head) const
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
    auto caller = m_ctx.authenticate(req, bucket, api::Permission::Read);
    if (!caller) return finish(fromError(caller.error(), resource));
    auto name = m_ctx.objectName(req);
    if (!name) return finish(fromError(name.error(), resource));
    const auto range = head ? std::string() : req.header("Range");
    auto opened = m_ctx.openRead(bucket, *name, head, range);
    if (!opened) return finish(fromError(opened.error(), resource));
    auto& [call, th] = *opened;
    if (th.status == 404) {
        if (!m_ctx.bucketExists(bucket)) return finish(m_ctx.noSuchBucket(bucket));
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

PutRelay::Started ObjectOps::putObject(const Request& req) const
{
    const auto bucket = req.param("bucket");
    const std::string resource = "/" + bucket + "/" + req.param("key");
    auto caller = m_ctx.authenticate(req, bucket, api::Permission::Write);
    if (!caller) return fromError(caller.error(), resource);
    auto name = m_ctx.objectName(req);
    if (!name) return fromError(name.error(), resource);
    if (!m_ctx.bucketExists(bucket)) return m_ctx.noSuchBucket(bucket);
    const auto copySource = req.header("x-amz-copy-source");
    if (!copySource.empty()) {
        return std::unique_ptr<net::UploadSink>(
            std::make_unique<AfterBody>([this, &req, bucket, name = *name, copySource, resource] {
                return copyObject(req, bucket, name, copySource, resource);
            }));
    }
    auto custom = customFromRequest(req);
    if (!custom) return fromError(custom.error(), resource);
    auto where = m_ctx.placement(bucket, *name, false);
    if (!where) return fromError(where.error(), resource);
    client::Headers h = m_ctx.keyHeader();
    if (!custom->empty()) h.emplace_back(std::string(api::kHdrCustomMd), api::formatCustomMd(*custom));
    return PutRelay::start(req, *caller, resource, kMaxObjectSize,
                           "Your proposed upload exceeds the maximum allowed size (5 TiB)", where->owner.publicNet.url,
                           objectTarget(bucket, *name, {{"s3", "true"}}, where->smapVersion), h, m_ctx.timeout,
                           "NoSuchBucket", [](const TargetHead& th, const std::string&) {
                               Response r;
                               r.header("ETag", viewOf([&th](std::string_view n) { return th.header(n); }).etag);
                               return r;
                           });
}

Response ObjectOps::deleteObject(const Request& req) const
{
    const auto bucket = req.param("bucket");
    const std::string resource = "/" + bucket + "/" + req.param("key");
    if (auto c = m_ctx.authenticate(req, bucket, api::Permission::Delete); !c) return fromError(c.error(), resource);
    if (!m_ctx.bucketExists(bucket)) return m_ctx.noSuchBucket(bucket);
    auto name = m_ctx.objectName(req);
    if (!name) return fromError(name.error(), resource);
    if (auto st = m_ctx.deleteNative(bucket, *name); !st) return fromError(st.error(), resource);
    Response ok;
    ok.status = 204;
    return ok;
}

Response ObjectOps::deleteObjects(const Request& req) const
{
    const auto bucket = req.param("bucket");
    const std::string resource = "/" + bucket;
    if (auto c = m_ctx.authenticate(req, bucket, api::Permission::Delete); !c) return fromError(c.error(), resource);
    if (!m_ctx.bucketExists(bucket)) return m_ctx.noSuchBucket(bucket);
    auto del = api::parseS3DeleteRequest(req.body);
    if (!del) return s3Error(400, "MalformedXML", del.error().message, resource);
    api::S3DeleteResult out;
    for (const auto& key : del->keys) {
        if (auto st = api::validateObjectName(key); !st) {
            out.errors.push_back({key, "InvalidArgument", st.error().message});
            continue;
        }
        if (auto st = m_ctx.deleteNative(bucket, key); !st) {
            out.errors.push_back({key, "InternalError", st.error().message});
            continue;
        }
        if (!del->quiet) out.deleted.push_back(key);
    }
    return xmlResponse(200, api::toXml(out));
}

api::Result<ObjectView> ObjectOps::copyStream(const std::string& srcBucket, const std::string& srcName,
                                              const std::string& dstBucket, const std::string& dstName,
                                              const std::optional<std::map<std::string, std::string>>& replaceMeta,
                                              const std::string& resource, std::optional<Response>& refused) const
{
    auto opened = m_ctx.openRead(srcBucket, srcName, false, "");
    if (!opened) return opened.error();
    auto& [src, th] = *opened;
    if (th.status == 404) return api::Error::notFound("NoSuchKey: The specified key does not exist.");
    if (th.status != 200) return api::Error::unavailable("reading the source failed with " + std::to_string(th.status));
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
    auto where = m_ctx.placement(dstBucket, dstName, false);
    if (!where) return where.error();
    client::Headers h = m_ctx.keyHeader();
    if (!custom.empty()) h.emplace_back(std::string(api::kHdrCustomMd), api::formatCustomMd(custom));
    auto dst = TargetCall::start(where->owner.publicNet.url, "PUT",
                                 objectTarget(dstBucket, dstName, {{"s3", "true"}}, where->smapVersion), h,
                                 *th.contentLength, m_ctx.timeout);
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

Response ObjectOps::copyObject(const Request& req, const std::string& bucket, const std::string& name,
                               const std::string& copySource, const std::string& resource) const
{
    auto src = parseCopySource(copySource);
    if (!src) return fromError(src.error(), resource);
    const auto& [srcBucket, srcName] = *src;
    if (!m_ctx.bucketExists(srcBucket)) return m_ctx.noSuchBucket(srcBucket);
    if (auto c = m_ctx.authenticate(req, srcBucket, api::Permission::Read); !c) return fromError(c.error(), resource);
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

}  // namespace tessera::daemon::s3
