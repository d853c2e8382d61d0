#include "s3_api.h"

#include "s3_bucket_ops.h"
#include "s3_context.h"
#include "s3_errors.h"
#include "s3_listing.h"
#include "s3_multipart.h"
#include "s3_object_ops.h"

#include "api/s3_msg.h"

#include <boost/beast/http/verb.hpp>

namespace tessera::daemon::s3 {

namespace http = boost::beast::http;
using net::Request;
using net::Response;

// The context and the handlers of each resource; the routes below choose
// between them by the request's subresource (?uploads, ?uploadId, ...).
struct S3Api::Impl {
    S3Context ctx;
    BucketOps buckets{ctx};
    Listing listing{ctx};
    ObjectOps objects{ctx};
    MultipartOps multipart{ctx};

    Response bucketGet(const Request& req) const
    {
        if (auto r = buckets.subresource(req)) return std::move(*r);
        if (req.hasQuery("uploads")) return multipart.listUploads(req);
        return listing.listObjects(req);
    }

    Response bucketPost(const Request& req) const
    {
        if (req.hasQuery("delete")) return objects.deleteObjects(req);
        return s3Error(400, "InvalidArgument", "unsupported POST on a bucket (only ?delete)",
                       "/" + req.param("bucket"));
    }

    Response objectGet(const Request& req) const
    {
        if (req.hasQuery("uploadId")) return multipart.listParts(req);
        return objects.getObject(req, false);
    }

    Response objectDelete(const Request& req) const
    {
        if (req.hasQuery("uploadId")) return multipart.abort(req);
        return objects.deleteObject(req);
    }

    Response objectPost(const Request& req) const
    {
        if (req.hasQuery("uploads")) return multipart.create(req);
        if (req.hasQuery("uploadId")) return multipart.complete(req);
        return s3Error(400, "InvalidArgument", "unsupported POST on an object (?uploads or ?uploadId)",
                       "/" + req.param("bucket") + "/" + req.param("key"));
    }

    PutRelay::Started objectPut(const Request& req) const
    {
        if (req.hasQuery("partNumber") || req.hasQuery("uploadId")) return multipart.uploadPart(req);
        return objects.putObject(req);
    }
};

S3Api::S3Api(MapSource smap, BucketSource bmd, NativeOps native, std::string selfUrl, std::string clusterKey,
             std::chrono::milliseconds timeout)
    : m_impl(std::make_unique<Impl>())
{
    auto& c = m_impl->ctx;
    c.smap = std::move(smap);
    c.bmd = std::move(bmd);
    c.native = std::move(native);
    c.selfUrl = std::move(selfUrl);
    c.clusterKey = std::move(clusterKey);
    c.timeout = timeout;
}

S3Api::~S3Api() = default;

void S3Api::setSecretLookup(SecretLookup f) { m_impl->ctx.secrets = std::move(f); }
void S3Api::setPermissionCheck(PermissionCheck f) { m_impl->ctx.permits = std::move(f); }
void S3Api::setTokenCheck(TokenCheck f) { m_impl->ctx.tokens = std::move(f); }

void S3Api::registerRoutes(net::Router& router, const std::string& prefix)
{
    using api::OpKind;
    using net::Exec;
    using net::Route;
    const Impl* impl = m_impl.get();
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
        [impl](const Request& r) { return impl->buckets.listBuckets(r); });
    add(
        http::verb::get, bucket, Exec::Worker, [impl](const Request& r) { return impl->bucketGet(r); }, 64 * 1024,
        OpKind::List);
    add(http::verb::put, bucket, Exec::Worker, [impl](const Request& r) { return impl->buckets.createBucket(r); });
    add(http::verb::delete_, bucket, Exec::Worker, [impl](const Request& r) { return impl->buckets.deleteBucket(r); });
    add(http::verb::head, bucket, Exec::Inline, [impl](const Request& r) { return impl->buckets.headBucket(r); });
    add(
        http::verb::post, bucket, Exec::Worker, [impl](const Request& r) { return impl->bucketPost(r); },
        api::kS3MaxXmlBody);
    add(
        http::verb::get, object, Exec::Worker, [impl](const Request& r) { return impl->objectGet(r); }, 64 * 1024,
        OpKind::Get);
    add(
        http::verb::head, object, Exec::Worker, [impl](const Request& r) { return impl->objects.getObject(r, true); },
        64 * 1024, OpKind::Head);
    add(
        http::verb::delete_, object, Exec::Worker, [impl](const Request& r) { return impl->objectDelete(r); },
        64 * 1024, OpKind::Delete);
    add(
        http::verb::post, object, Exec::Worker, [impl](const Request& r) { return impl->objectPost(r); },
        api::kS3MaxXmlBody);
    // Exec::Worker: the start connects to the owning target (and verifies
    // the signature), so it runs on the worker pool, as do the body's writes.
    Route put{http::verb::put, object, Exec::Worker, {}, [impl](const Request& r) { return impl->objectPut(r); }};
    put.op = OpKind::Put;
    router.add(net::needs(std::move(put), open));
}

}  // namespace tessera::daemon::s3
