#pragma once
// S3 calls on objects: GetObject and HeadObject (relayed from the target
// that holds the object, with S3's conditions and one Range), PutObject
// (the body relayed to the owner: PutRelay), CopyObject (streamed from the
// source's target to the destination's owner), DeleteObject and
// DeleteObjects (through the native API).

#include "put_relay.h"
#include "s3_context.h"

#include <variant>

namespace tessera::daemon::s3 {

class ObjectOps {
public:
    explicit ObjectOps(const S3Context& ctx) : m_ctx(ctx) {}

    net::Response getObject(const net::Request& req, bool head) const;
    PutRelay::Started putObject(const net::Request& req) const;
    net::Response deleteObject(const net::Request& req) const;
    net::Response deleteObjects(const net::Request& req) const;

private:
    net::Response copyObject(const net::Request& req, const std::string& bucket, const std::string& name,
                             const std::string& copySource, const std::string& resource) const;
    // Streams bucket/name from its target into a new object `dstName` of
    // `dstBucket` with `replaceMeta` (nullopt: the source's S3 metadata);
    // the new object's view. `refused`: the destination's refusal.
    api::Result<ObjectView> copyStream(const std::string& srcBucket, const std::string& srcName,
                                       const std::string& dstBucket, const std::string& dstName,
                                       const std::optional<std::map<std::string, std::string>>& replaceMeta,
                                       const std::string& resource, std::optional<net::Response>& refused) const;

    const S3Context& m_ctx;
};

// A sink for requests whose work starts after their (empty) body: CopyObject,
// UploadPartCopy. `work` runs on the worker pool.
class AfterBody : public net::UploadSink {
public:
    explicit AfterBody(std::function<net::Response()> work) : m_work(std::move(work)) {}
    api::Status write(const char*, std::size_t) override { return {}; }
    net::Response finish() override { return m_work(); }

private:
    std::function<net::Response()> m_work;
};

}  // namespace tessera::daemon::s3
