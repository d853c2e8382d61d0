// TargetApi: the S3 multipart uploads this target keeps as the owner of
// their final objects (multipart_store.h; the calls in
// api/s3_multipart_msg.h). Internal: the proxy's S3 front end calls them
// with the cluster key. Completion assembles the parts here, into the object
// through the same sink as a client's PUT (work file, checksum, copies or
// slices, rename), so a crash never leaves a partial object, and removes the
// upload once the object is committed.
#include "target_api.h"

#include "target_api_detail.h"

#include "api/headers.h"
#include "api/hrw.h"
#include "api/http_error.h"
#include "api/names.h"
#include "common/fd_io.h"
#include "common/log.h"

#include <algorithm>
#include <chrono>

namespace tessera::daemon::target {

namespace http = boost::beast::http;
using net::Exec;
using net::Request;
using net::Response;
using net::Route;

namespace {

constexpr std::string_view kQpUploadId = "upload_id";
constexpr std::string_view kQpPart = "part";
// CompleteMultipartUpload's list: 10,000 parts of ~60 bytes of JSON each.
constexpr std::size_t kMaxCompleteBody = 2 << 20;

// A part's body to its work file; committed when the body is whole.
class PartSink : public net::UploadSink {
public:
    explicit PartSink(std::unique_ptr<MultipartPartWriter> w) : m_writer(std::move(w)) {}
    api::Status write(const char* data, std::size_t size) override { return m_writer->write(data, size); }
    Response finish() override
    {
        auto part = m_writer->commit();
        if (!part) return Response::error(part.error());
        return Response::json(nlohmann::json(*part));
    }

private:
    std::unique_ptr<MultipartPartWriter> m_writer;
};

api::Result<std::uint32_t> partNumber(const Request& req)
{
    const auto pn = req.queryValue(kQpPart);
    std::int64_t n = 0;
    if (!detail::parseInt64(pn, n) || n < 1 || n > api::kMultipartMaxParts) {
        return api::Error::badRequest("InvalidArgument: partNumber must be 1..10000");
    }
    return static_cast<std::uint32_t>(n);
}

}  // namespace

void TargetApi::registerMultipartRoutes(net::Router& router)
{
    // Access (auth on): the default, for admins and the other nodes (the
    // cluster key): only the proxy's S3 front end calls these.
    const std::string upload = "/v1/internal/s3/uploads/{bucket}/{name...}";
    router.add(Route{http::verb::post, upload, Exec::Worker, net::bind(this, &TargetApi::multipartCreate), {}});
    router.add(Route{http::verb::head, upload, Exec::Worker, net::bind(this, &TargetApi::multipartHead), {}});
    router.add(Route{http::verb::get, upload, Exec::Worker, net::bind(this, &TargetApi::multipartParts), {}});
    router.add(Route{http::verb::delete_, upload, Exec::Worker, net::bind(this, &TargetApi::multipartAbort), {}});
    router.add(Route{http::verb::get,
                     "/v1/internal/s3/uploads/{bucket}",
                     Exec::Worker,
                     net::bind(this, &TargetApi::multipartList),
                     {}});
    router.add(
        Route{http::verb::put, "/v1/internal/s3/parts/{bucket}/{name...}", Exec::Inline, {}, [this](const Request& r) {
                  return multipartPart(r);
              }});
    router.add(Route{http::verb::post,
                     "/v1/internal/s3/part-copy/{bucket}/{name...}",
                     Exec::Worker,
                     net::bind(this, &TargetApi::multipartPartCopy),
                     {},
                     64 * 1024});
    Route complete{http::verb::post,
                   "/v1/internal/s3/complete/{bucket}/{name...}",
                   Exec::Worker,
                   net::bind(this, &TargetApi::multipartComplete),
                   {}};
    complete.maxBody = kMaxCompleteBody;
    router.add(std::move(complete));
}

api::Status TargetApi::checkMultipartOwner(const Request& req, const api_util::ObjectRef& ref)
{
    auto clientVersion = api_util::smapVersionParam(req);
    if (!clientVersion) return clientVersion.error();
    const auto smap = m_cache.smap();
    if (clientVersion->has_value() && **clientVersion > smap->version) {
        m_membership.requestRefresh();
        return api::Error::unavailable("cluster map v" + std::to_string(**clientVersion) +
                                       " is newer than this target's v" + std::to_string(smap->version) +
                                       "; retry shortly");
    }
    if (m_cache.bmd()->find(ref.bucket) == nullptr) {
        return api::Error::notFound("NoSuchBucket: The specified bucket does not exist");
    }
    const auto* owner = api::hrwTarget(*smap, api::objectUname(ref.bucket, ref.name));
    if (owner == nullptr || owner->id != m_self.id) {
        return api::Error::unavailable("target " + m_self.id + " does not own \"" + ref.bucket + "/" + ref.name +
                                       "\" in cluster map v" + std::to_string(smap->version) + "; retry");
    }
    return {};
}

api::Result<api::MultipartUpload> TargetApi::ownedUpload(const Request& req)
{
    auto ref = api_util::objectRef(req);
    if (!ref) return ref.error();
    if (auto st = checkMultipartOwner(req, *ref); !st) return st.error();
    return m_multipart->find(ref->bucket, ref->name, req.queryValue(kQpUploadId));
}

Response TargetApi::multipartCreate(const Request& req)
{
    auto ref = api_util::objectRef(req);
    if (!ref) return Response::error(ref.error());
    if (auto st = checkMultipartOwner(req, *ref); !st) return Response::error(st.error());
    auto msg = api::parseMessage<api::MultipartCreate>(req.body, "multipart create");
    if (!msg) return Response::error(msg.error());
    auto up = m_multipart->create(ref->bucket, ref->name, std::move(msg->custom));
    if (!up) return Response::error(up.error());
    return Response::json(nlohmann::json(*up));
}

Response TargetApi::multipartHead(const Request& req)
{
    auto up = ownedUpload(req);
    if (!up) return Response::error(up.error());
    return Response::ok();
}

Response TargetApi::multipartParts(const Request& req)
{
    auto up = ownedUpload(req);
    if (!up) return Response::error(up.error());
    auto parts = m_multipart->parts(*up);
    if (!parts) return Response::error(parts.error());
    return Response::json(nlohmann::json(api::MultipartPartList{std::move(*up), std::move(*parts)}));
}

Response TargetApi::multipartAbort(const Request& req)
{
    auto up = ownedUpload(req);
    if (!up) return Response::error(up.error());
    if (auto st = m_multipart->remove(*up); !st) return Response::error(st.error());
    Response r;
    r.status = 204;
    return r;
}

Response TargetApi::multipartList(const Request& req)
{
    auto bucket = api_util::bucketParam(req);
    if (!bucket) return Response::error(bucket.error());
    auto uploads = m_multipart->list(*bucket, req.queryValue("prefix"));
    if (!uploads) return Response::error(uploads.error());
    return Response::json(nlohmann::json(api::MultipartUploadList{std::move(*uploads)}));
}

std::variant<Response, std::unique_ptr<net::UploadSink>> TargetApi::multipartPart(const Request& req)
{
    if (req.header("Content-Length").empty()) {
        return Response::error(api::Error::badRequest("MissingContentLength: a part needs a Content-Length"));
    }
    auto n = partNumber(req);
    if (!n) return Response::error(n.error());
    auto up = ownedUpload(req);
    if (!up) return Response::error(up.error());
    auto w = m_multipart->beginPart(*up, *n, req.contentLength);
    if (!w) return Response::error(w.error());
    return std::unique_ptr<net::UploadSink>(std::make_unique<PartSink>(std::move(w.value())));
}

Response TargetApi::multipartPartCopy(const Request& req)
{
    auto n = partNumber(req);
    if (!n) return Response::error(n.error());
    auto up = ownedUpload(req);
    if (!up) return Response::error(up.error());
    auto src = api::parseMessage<api::MultipartPartCopy>(req.body, "multipart part copy");
    if (!src) return Response::error(src.error());
    if (m_cache.bmd()->find(src->bucket) == nullptr) {
        return Response::error(api::Error::notFound("NoSuchBucket: the source bucket does not exist"));
    }
    const auto smap = m_cache.smap();
    const auto* owner = api::hrwTarget(*smap, api::objectUname(src->bucket, src->key));
    if (owner == nullptr || owner->away()) {
        return Response::error(api::Error::unavailable("the target that owns the source is away; retry"));
    }
    const auto noSuchKey = [] { return api::Error::notFound("NoSuchKey: the source object does not exist"); };
    std::unique_ptr<MultipartPartWriter> writer;
    if (owner->id == m_self.id) {
        // The source is here: read from the disk.
        auto obj = m_store.open(src->bucket, src->key);
        if (!obj) return Response::error(obj.kind() == api::ErrorKind::NotFound ? noSuchKey() : obj.error());
        const auto size = static_cast<std::uint64_t>(std::max<std::int64_t>(obj->meta.size, 0));
        std::uint64_t first = 0;
        std::uint64_t length = size;
        if (src->first) {
            if (*src->first >= size) {
                return Response::error(api::Error{
                    api::ErrorKind::RangeNotSatisfiable, "InvalidRange: the range starts after the source's end", {}});
            }
            first = *src->first;
            length = std::min(*src->last, size - 1) - first + 1;
        }
        auto w = m_multipart->beginPart(*up, *n, length);
        if (!w) return Response::error(w.error());
        writer = std::move(w.value());
        auto st = copyRange(
            obj->fd->get(), first, length, [&writer](const char* p, std::size_t k) { return writer->write(p, k); },
            "cannot read the source");
        if (!st) return Response::error(st.error());
    } else {
        // From the source's owner, streamed into the part.
        auto w = m_multipart->beginPart(*up, *n, std::nullopt);
        if (!w) return Response::error(w.error());
        writer = std::move(w.value());
        auto o = detail::peerOptions(m_peerTimeout);
        o.followRedirects = true;  // to a holder of a copy, or the owner after a map change
        o.headers.emplace_back(std::string(api::kHdrClusterKey), m_clusterKey);
        client::HttpClient http(o);
        client::Headers h;
        if (src->first)
            h.emplace_back("Range", "bytes=" + std::to_string(*src->first) + "-" + std::to_string(*src->last));
        const client::Sink sink = [&writer](const char* p, std::size_t k) { return writer->write(p, k); };
        auto r = http.send(client::Method::Get,
                           owner->publicNet.url + api_util::objectTarget({src->bucket, src->key}, {}, smap->version),
                           {}, h, &sink);
        if (!r) return Response::error(r.error());
        if (r->status == 404) return Response::error(noSuchKey());
        if (r->status == 416) {
            return Response::error(api::Error{
                api::ErrorKind::RangeNotSatisfiable, "InvalidRange: the range starts after the source's end", {}});
        }
        if (!r->isSuccess()) return Response::error(api::errorFromResponse(r->status, r->body));
    }
    auto part = writer->commit();
    if (!part) return Response::error(part.error());
    return Response::json(nlohmann::json(*part));
}

Response TargetApi::multipartComplete(const Request& req)
{
    auto up = ownedUpload(req);
    if (!up) return Response::error(up.error());
    auto wanted = api::parseMessage<api::MultipartComplete>(req.body, "multipart complete");
    if (!wanted) return Response::error(wanted.error());
    auto parts = m_multipart->assemble(*up, *wanted);
    if (!parts) return Response::error(parts.error());
    if (parts->total > m_store.options().maxObjectSize) {
        return Response::error(api::Error{api::ErrorKind::TooLarge,
                                          "EntityTooLarge: the object would be larger than this target's limit of " +
                                              std::to_string(m_store.options().maxObjectSize) + " bytes",
                                          {}});
    }
    const api_util::ObjectRef ref{up->bucket, up->key};
    // The holders of a mirrored or erasure-coded object must all be present,
    // as for a client's PUT.
    auto holders = copyHolders(ref, true);
    if (!holders) return Response::error(holders.error());
    if (coded(ref.bucket)) {
        if (auto e = m_ec->holders(ref, true); !e) return Response::error(e.error());
    }
    const auto mtime =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    PutParams params;
    params.custom = up->custom;
    params.custom["s3-etag"] = parts->etag;
    params.custom["s3-mtime"] = std::to_string(mtime);
    auto started = objectSink(ref, Serve::Owner, std::move(holders.value()), std::move(params), false);
    if (auto* refused = std::get_if<Response>(&started)) return std::move(*refused);
    auto& sink = std::get<std::unique_ptr<net::UploadSink>>(started);
    // A plain copy loop: the object's xxhash is computed as it is written.
    for (std::size_t i = 0; i < parts->parts.size(); ++i) {
        auto st = copyRange(
            parts->parts[i].get(), 0, parts->sizes[i],
            [&sink](const char* p, std::size_t n) { return sink->write(p, n); }, "cannot read a part");
        if (!st) return Response::error(st.error());
    }
    auto done = sink->finish();
    if (done.status != 200) return done;
    // Committed: the parts go. A crash before this leaves the upload, and a
    // retried completion writes the same object again.
    if (auto st = m_multipart->remove(*up); !st) {
        logWarn("S3 multipart: upload ", up->uploadId,
                " completed; its parts stay until it expires: ", st.error().message);
    }
    return Response::json(nlohmann::json(api::MultipartCompleted{parts->etag, parts->total, mtime * 1000000000}));
}

}  // namespace tessera::daemon::target
