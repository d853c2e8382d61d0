#pragma once
// S3 calls on the service and on buckets: ListBuckets, CreateBucket,
// DeleteBucket, HeadBucket and the bucket subresources answered without a
// listing (?location, ?versioning; ?acl, ?policy, ... are NotImplemented).
// Buckets are created and destroyed through the proxy's native API.

#include "s3_context.h"

namespace tessera::daemon::s3 {

class BucketOps {
public:
    explicit BucketOps(const S3Context& ctx) : m_ctx(ctx) {}

    net::Response listBuckets(const net::Request& req) const;
    net::Response createBucket(const net::Request& req) const;
    net::Response deleteBucket(const net::Request& req) const;
    net::Response headBucket(const net::Request& req) const;
    // GET /<b>?<subresource>: nullopt when the request is a listing.
    std::optional<net::Response> subresource(const net::Request& req) const;

private:
    const S3Context& m_ctx;
};

}  // namespace tessera::daemon::s3
