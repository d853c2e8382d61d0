#pragma once
// The S3 front end on the proxy: path-style S3 at /s3/<bucket>/<key>. No
// redirects: object bodies are relayed between the S3 client and the
// owning target (TargetCall), a chunk at a time, so unmodified SDKs work.
// Control calls (buckets, listing, deletes) go through the proxy's own
// native API on loopback, with the cluster key; multipart uploads live on
// the target that owns the final key (s3_multipart.h). The handlers are one
// class per resource (BucketOps, Listing, ObjectOps, MultipartOps) over one
// S3Context; this class routes to them. Objects written here are the
// same objects the native API sees; the S3 extras live in the object's
// custom metadata: "s3-etag" (MD5, computed by the target while it writes),
// "s3-mtime", "s3-ct" (Content-Type), "s3m.<name>" (x-amz-meta-<name>).
//
// Memory per relayed request: one 256 KiB chunk in the HTTP session and the
// relay's parser buffer; never the object.

#include "api/auth_msg.h"
#include "api/bmd.h"
#include "api/result.h"
#include "api/smap.h"
#include "net/router.h"
#include "proxy/bucket_lister.h"
#include "sigv4.h"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::daemon::s3 {

class S3Api {
public:
    // The proxy's current cluster map and buckets (any thread).
    using MapSource = std::function<std::shared_ptr<const api::Smap>()>;
    using BucketSource = std::function<std::shared_ptr<const api::Bmd>()>;
    // The proxy's own bucket operations, called in process: a handler runs
    // on a worker, and the same call through the proxy's HTTP port would
    // need another (with every worker waiting so, nothing is answered).
    struct NativeOps {
        proxy::BucketLister list;
        std::function<api::Status(const std::string& bucket)> createBucket;
        std::function<api::Status(const std::string& bucket)> destroyBucket;
    };
    // `selfUrl`: this proxy's URL (object deletes through its redirects).
    S3Api(MapSource smap, BucketSource bmd, NativeOps native, std::string selfUrl, std::string clusterKey,
          std::chrono::milliseconds timeout);
    ~S3Api();

    // Routes under `prefix` ("/s3"). Every route is Access::open(): the S3
    // front end checks S3 signatures itself.
    void registerRoutes(net::Router& router, const std::string& prefix = "/s3");

    // Set: signatures are verified with the secret of their access key
    // (nullopt: unknown key, InvalidAccessKeyId; an error: the key store
    // could not answer, 503 or 500 by its kind), and unsigned requests are
    // refused. Unset (auth off, no keys file): a well-formed signature is
    // accepted. Called from worker threads, once per request.
    struct Key {
        std::string secret;
        std::string user;  // the Tessera user the key acts as
    };
    using SecretLookup = std::function<api::Result<std::optional<Key>>(std::string_view accessKey)>;
    // Before the node serves requests.
    void setSecretLookup(SecretLookup f);

    // Set (auth on): a verified request's user must hold the operation's
    // permission on its bucket (read: GET/HEAD, list: listings, write: PUT
    // and multipart, delete: deletes, admin-bucket: create/delete bucket);
    // ListBuckets shows the buckets the user may list. Before the node serves.
    using PermissionCheck =
        std::function<api::Result<bool>(const std::string& user, const std::string& bucket, api::Permission p)>;
    void setPermissionCheck(PermissionCheck f);

    // Set (auth on): a request with "Authorization: Bearer <token>" acts as
    // the user of that Tessera access token; `f` verifies it as the native
    // API does (signature, key ring, expiry, revocation) and answers the
    // user, or Unauthorized. The permission check above then applies as for
    // a signed request. A browser cannot sign SigV4 without holding an S3
    // secret, so this is how the web console reads and writes object bytes
    // with auth on. Before the node serves requests.
    using TokenCheck = std::function<api::Result<std::string>(std::string_view token)>;
    void setTokenCheck(TokenCheck f);

    struct Impl;

private:
    std::unique_ptr<Impl> m_impl;
};

}  // namespace tessera::daemon::s3
