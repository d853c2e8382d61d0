#pragma once
// S3 multipart uploads. The parts live on the target that owns the final
// object (HRW of bucket/key) and are assembled there (target/multipart_store.h):
// the proxy relays each part's body to that target as PutObject does
// (PutRelay, no redirect), and the other calls are the target's internal
// multipart API (api/s3_multipart_msg.h) with the cluster key. Completion
// sends only the list of parts: no object byte crosses the proxy.
// ListMultipartUploads asks every target.
//
// An upload is tied to the target that owned its key when it began: after a
// placement change (a target joined or left) its parts are not found
// (NoSuchUpload) and the client uploads again.

#include "put_relay.h"
#include "s3_context.h"

namespace tessera::daemon::s3 {

class MultipartOps {
public:
    explicit MultipartOps(const S3Context& ctx) : m_ctx(ctx) {}

    net::Response create(const net::Request& req) const;
    // UploadPart (the body relayed to the owner). Blocks while it asks the
    // owner whether the upload exists. With x-amz-copy-source, UploadPartCopy:
    // the owner reads (a range of) the source object itself, from its disk or
    // from the source's owner; nothing passes through the proxy.
    PutRelay::Started uploadPart(const net::Request& req) const;
    net::Response complete(const net::Request& req) const;
    net::Response abort(const net::Request& req) const;
    net::Response listParts(const net::Request& req) const;
    net::Response listUploads(const net::Request& req) const;

private:
    // The upload's bucket, key and id from the request, checked, with the
    // owner of the key. An S3 error answer when they are not good.
    struct Target {
        std::string bucket;
        std::string key;
        std::string uploadId;
        std::string resource;
        S3Context::Caller caller;
        S3Context::Placement where;
        // <owner>/v1/internal/s3/<what>/<b>/<key>?upload_id=U&smap_version=V[&extra]
        std::string url(const std::string& path, const api::QueryMap& extra = {}) const;
    };
    // UploadPartCopy: the owner of the upload reads the source itself.
    net::Response copyPart(const net::Request& req, const Target& up, std::uint32_t partNumber) const;
    std::variant<net::Response, Target> target(const net::Request& req, api::Permission permission,
                                               bool needUploadId) const;

    const S3Context& m_ctx;
};

}  // namespace tessera::daemon::s3
