#include "s3_bucket_ops.h"

#include "s3_errors.h"

#include "api/names.h"
#include "api/paths.h"
#include "api/s3_msg.h"

namespace tessera::daemon::s3 {

using net::Request;
using net::Response;

Response BucketOps::listBuckets(const Request& req) const
{
    auto caller = m_ctx.authenticate(req, std::string(), api::Permission::Read);
    if (!caller) return fromError(caller.error(), "/");
    api::S3BucketList out;
    out.ownerId = "tessera";
    const auto buckets = m_ctx.bmd();
    for (const auto& [name, props] : buckets->buckets) {
        if (m_ctx.permits) {
            auto ok = m_ctx.permits(caller->user, name, api::Permission::List);
            if (!ok || !*ok) continue;
        }
        out.buckets.push_back({name, api::s3IsoTime(props.created / 1000000000)});
    }
    return xmlResponse(200, api::toXml(out));
}

std::optional<Response> BucketOps::subresource(const Request& req) const
{
    const auto bucket = req.param("bucket");
    const bool location = req.hasQuery("location");
    const bool versioning = req.hasQuery("versioning");
    const char* unsupported = nullptr;
    for (const char* sub : {"acl", "policy", "cors", "lifecycle", "website", "tagging", "replication"}) {
        if (req.hasQuery(sub)) unsupported = sub;
    }
    if (!location && !versioning && unsupported == nullptr) return std::nullopt;
    if (auto c = m_ctx.authenticate(req, bucket, api::Permission::List); !c) return fromError(c.error(), "/" + bucket);
    if (!m_ctx.bucketExists(bucket)) return m_ctx.noSuchBucket(bucket);
    if (location) {
        return xmlResponse(200, "<?xml version=\"1.0\" encoding=\"UTF-8\"?><LocationConstraint xmlns=\"" +
                                    std::string(api::kS3Xmlns) + "\"></LocationConstraint>");
    }
    if (unsupported != nullptr) {
        return s3Error(501, "NotImplemented", std::string("bucket ?") + unsupported + " is not supported",
                       "/" + bucket);
    }
    return xmlResponse(200, "<?xml version=\"1.0\" encoding=\"UTF-8\"?><VersioningConfiguration xmlns=\"" +
                                std::string(api::kS3Xmlns) + "\"/>");
}

Response BucketOps::createBucket(const Request& req) const
{
    const auto bucket = req.param("bucket");
    if (auto c = m_ctx.authenticate(req, bucket, api::Permission::AdminBucket); !c) {
        return fromError(c.error(), "/" + bucket);
    }
    if (auto st = api::validateBucketName(bucket); !st) {
        return s3Error(400, "InvalidBucketName", st.error().message, "/" + bucket);
    }
    if (!req.body.empty()) {
        // CreateBucketConfiguration (a LocationConstraint): any region is this cluster.
        if (req.body.find("<CreateBucketConfiguration") == std::string::npos) {
            return s3Error(400, "MalformedXML", "expected <CreateBucketConfiguration>", "/" + bucket);
        }
    }
    if (m_ctx.bucketExists(bucket)) {
        return s3Error(409, "BucketAlreadyOwnedByYou", "the bucket exists already", "/" + bucket);
    }
    if (auto st = m_ctx.native.createBucket(bucket); !st) {
        if (st.kind() == api::ErrorKind::Conflict) {
            return s3Error(409, "BucketAlreadyOwnedByYou", "the bucket exists already", "/" + bucket);
        }
        return fromError(st.error(), "/" + bucket);
    }
    Response ok;
    ok.header("Location", "/" + bucket);
    return ok;
}

Response BucketOps::deleteBucket(const Request& req) const
{
    const auto bucket = req.param("bucket");
    if (auto c = m_ctx.authenticate(req, bucket, api::Permission::AdminBucket); !c) {
        return fromError(c.error(), "/" + bucket);
    }
    if (!m_ctx.bucketExists(bucket)) return m_ctx.noSuchBucket(bucket);
    // Uploads in progress are not objects (their parts wait on the targets)
    // and go with the bucket.
    auto page = m_ctx.nativeList(bucket, "", "", 1);
    if (!page) return fromError(page.error(), "/" + bucket);
    if (!page->entries.empty()) {
        return s3Error(409, "BucketNotEmpty", "The bucket you tried to delete is not empty", "/" + bucket);
    }
    if (auto st = m_ctx.native.destroyBucket(bucket); !st) {
        if (st.kind() == api::ErrorKind::NotFound) return m_ctx.noSuchBucket(bucket);
        return fromError(st.error(), "/" + bucket);
    }
    Response ok;
    ok.status = 204;
    return ok;
}

Response BucketOps::headBucket(const Request& req) const
{
    const auto bucket = req.param("bucket");
    Response r;
    if (auto c = m_ctx.authenticate(req, bucket, api::Permission::Read); !c) {
        r = fromError(c.error(), "/" + bucket);
    } else if (!m_ctx.bucketExists(bucket)) {
        r = m_ctx.noSuchBucket(bucket);
    }
    r.header("x-amz-bucket-region", "us-east-1");
    r.isHead = true;
    r.headContentLength = 0;
    return r;
}

}  // namespace tessera::daemon::s3
