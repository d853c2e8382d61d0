#pragma once
// ListObjectsV2 and ListObjects (v1) over the proxy's native listing:
// prefix, delimiter (CommonPrefixes), max-keys, continuation-token (the hex
// of the last name given), start-after, marker, encoding-type=url. The ETag
// of a listed object is its xxhash form (docs/s3.md): the listing does not
// read each object's metadata.

#include "s3_context.h"

namespace tessera::daemon::s3 {

class Listing {
public:
    explicit Listing(const S3Context& ctx) : m_ctx(ctx) {}

    net::Response listObjects(const net::Request& req) const;

private:
    const S3Context& m_ctx;
};

}  // namespace tessera::daemon::s3
