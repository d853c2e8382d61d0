#pragma once
// What every S3 handler works with: the proxy's cluster map and buckets, the
// way to reach the proxy's native API and the targets (with the cluster
// key), and the caller's identity (the SigV4 check and, auth on, its
// permission on the bucket). The handlers (BucketOps, Listing, ObjectOps,
// MultipartOps) hold a const reference to one context.
//
// Thread safety: configured before the node serves requests; const
// afterwards, used from any thread.

#include "s3_api.h"
#include "s3_util.h"
#include "sigv4.h"
#include "target_call.h"

#include "api/object_list.h"
#include "api/smap.h"
#include "client/http_client.h"
#include "net/request.h"
#include "net/response.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace tessera::daemon::s3 {

struct S3Context {
    S3Api::MapSource smap;
    S3Api::BucketSource bmd;
    S3Api::NativeOps native;  // the proxy's listing and bucket operations, in process
    std::string selfUrl;      // this proxy (its native API, on loopback)
    std::string clusterKey;
    std::chrono::milliseconds timeout{60000};
    S3Api::SecretLookup secrets;
    S3Api::PermissionCheck permits;
    S3Api::TokenCheck tokens;  // set: "Authorization: Bearer" is a Tessera access token

    // What authenticate() found.
    struct Caller {
        std::optional<SigV4> sig;  // none for a bearer call
        std::string signingKey;    // set when the signature was verified
        std::string user;          // the key's or the token's user (verified requests)
        bool bearer = false;       // identified by a Tessera access token
    };
    // Identifies the caller (a SigV4 signature, or with `tokens` set a
    // bearer token) and, with permissions configured (auth on), checks that
    // its user holds `permission` on `bucket` (empty: none needed).
    // Forbidden for a bad signature or a missing permission; Unauthorized
    // (401) for a bearer token that does not verify or whose user is gone.
    api::Result<Caller> authenticate(const net::Request& req, const std::string& bucket,
                                     api::Permission permission) const;
    // The identification alone.
    api::Result<Caller> verify(const net::Request& req) const;

    // A client of this thread for the proxy's native API and the targets'
    // internal calls: it sends the cluster key and follows redirects.
    client::HttpClient& http() const;
    client::Headers keyHeader() const;

    struct Placement {
        api::Snode owner;
        std::int64_t smapVersion = 0;
    };
    // The target to read (`read`: a holder of a copy when the owner is
    // away) or write bucket/name on.
    api::Result<Placement> placement(const std::string& bucket, const std::string& name, bool read) const;
    // The request's key as a Tessera object name (InvalidArgument otherwise).
    api::Result<std::string> objectName(const net::Request& req) const;
    bool bucketExists(const std::string& bucket) const;
    // Opens a GET or HEAD of bucket/name on its target, following a target's
    // redirect (its map is newer) up to twice. The head is read.
    api::Result<std::pair<std::unique_ptr<TargetCall>, TargetHead>> openRead(const std::string& bucket,
                                                                             const std::string& name, bool head,
                                                                             const std::string& range) const;
    // One page of the native listing of `bucket` (names after `after`).
    api::Result<api::ObjectList> nativeList(const std::string& bucket, const std::string& prefix,
                                            const std::string& after, std::uint32_t pageSize) const;
    // Deletes one object through the native API; a missing one is no error.
    api::Status deleteNative(const std::string& bucket, const std::string& name) const;

    net::Response noSuchBucket(const std::string& bucket) const;
    net::Response noSuchUpload(const std::string& resource) const;
};

}  // namespace tessera::daemon::s3
