// TargetApi's shard and ETL handlers: a member read (archpath), matches
// (archregx), an append to a shard, a GET through an ETL (part of
// TargetApi; see target_api.h).
#include "target_api.h"

#include "api/byte_range.h"
#include "api/headers.h"
#include "api/object_meta.h"
#include "archive/member_match.h"
#include "archive/member_name.h"
#include "common/fd_io.h"

namespace tessera::daemon::target {

using net::Request;
using net::Response;

namespace {

// The body of a PUT with archpath, kept in an unnamed temporary file until
// it is complete; then the shard is rewritten with it (on a worker thread,
// serialized with other appends to the shard).
class AppendSink : public net::UploadSink {
public:
    // `prepare` runs before the append (brings a shard still on a peer here).
    AppendSink(ShardService& shards, api_util::ObjectRef ref, archive::ArchiveFormat format, std::string member,
               UniqueFd body, std::string selfId, std::function<api::Status()> prepare)
        : m_shards(shards), m_ref(std::move(ref)), m_format(format), m_member(std::move(member)),
          m_body(std::move(body)), m_selfId(std::move(selfId)), m_prepare(std::move(prepare))
    {
    }
    api::Status write(const char* data, std::size_t size) override
    {
        const auto limit = m_shards.limits().maxMemberSize;
        if (m_size + size > limit) {
            return api::Error{
                api::ErrorKind::TooLarge,
                "member larger than the limit of " + std::to_string(limit) + " bytes (archive_max_member_size)",
                {}};
        }
        if (const int err = writeAll(m_body.get(), data, size); err != 0) {
            return errnoError(err, "cannot write a temporary file");
        }
        m_size += size;
        return {};
    }
    Response finish() override
    {
        if (auto st = m_prepare(); !st) return Response::error(st.error());
        auto meta = m_shards.append(m_ref.bucket, m_ref.name, m_format, m_member, m_body.get(), m_size);
        if (!meta) return Response::error(meta.error());
        Response r;
        api::appendMetaHeaders(r.headers, *meta, m_selfId, true);
        return r;
    }

private:
    ShardService& m_shards;
    api_util::ObjectRef m_ref;
    archive::ArchiveFormat m_format;
    std::string m_member;
    UniqueFd m_body;
    std::uint64_t m_size = 0;
    std::string m_selfId;
    std::function<api::Status()> m_prepare;
};

// The selectors a shard read names. An empty value names nothing, as
// AIStore reads it (Go's query.Get): its Python SDK sends the selector it
// does not use empty (`archpath=X&archregx=`, `archpath=&archregx=Y`).
struct ArchSelectors {
    bool path = false;
    bool regx = false;
};

ArchSelectors archSelectors(const Request& req)
{
    return {!req.queryValue(api::kQpArchPath).empty(), !req.queryValue(api::kQpArchRegx).empty()};
}

}  // namespace

Response TargetApi::serveTransformed(const Request& req, const api_util::ObjectRef& ref, const OpenObject& obj)
{
    if (m_etl == nullptr) return Response::error(api::Error::notFound("ETL is not available on this node"));
    auto pipeline = etl::parsePipeline(req.queryValue(api::kQpEtlName), req.queryValue(api::kQpEtlPipeline));
    if (!pipeline) return Response::error(pipeline.error());
    const auto args = req.queryValue(api::kQpEtlArgs);
    if (args.size() > api::etl_limits::kMaxArgsParam) {
        return Response::error(api::Error::badRequest("etl_args longer than " +
                                                      std::to_string(api::etl_limits::kMaxArgsParam) + " bytes"));
    }
    const auto selectors = archSelectors(req);
    if (selectors.regx) {
        return Response::error(api::Error::badRequest("etl_name with archregx: transform one member (archpath)"));
    }
    const bool member = selectors.path;
    auto first = m_etl->find(pipeline->front());
    if (!first) return Response::error(first.error());
    if ((*first)->spec().communication == api::EtlComm::HPull && pipeline->size() == 1) {
        // The client reads the result from the transformer, which reads the
        // object from this target (the same query, without the ETL).
        auto query = req.query;
        query.erase(std::string(api::kQpEtlName));
        query.erase(std::string(api::kQpEtlPipeline));
        query.erase(std::string(api::kQpSmapVersion));
        auto url = (*first)->pullUrl(ref.bucket, ref.name, api::buildQuery(query));
        if (!url) return Response::error(url.error());
        return Response::redirect(*url);
    }
    etl::EtlInput in;
    in.bucket = ref.bucket;
    in.name = ref.name;
    std::optional<ShardPayload> payload;
    if (member) {
        auto format = archive::resolveFormat(ref.name, req.queryValue(api::kQpArchMime));
        if (!format) return Response::error(format.error());
        const auto path = req.queryValue(api::kQpArchPath);
        if (auto st = archive::validateMemberName(path, m_shards.limits().maxNameBytes); !st) {
            return Response::error(api::Error::badRequest("archpath: " + st.error().message));
        }
        auto got = m_shards.readMember(ref.bucket, ref.name, obj, *format, archive::normalizeMemberName(path));
        if (!got) return Response::error(got.error());
        payload = std::move(got.value());
        in.wholeObject = false;
        if (payload->file) {
            in.fd = payload->file->fd->get();
            in.offset = payload->file->offset;
            in.length = payload->file->length;
        } else {
            in.bytes = payload->bytes;
        }
    } else {
        in.fd = obj.fd->get();
        in.offset = 0;
        in.length = static_cast<std::uint64_t>(obj.meta.size);
    }
    auto out = m_etl->transform(*pipeline, in, args);
    if (!out) return Response::error(out.error());
    const auto size = out->size;
    auto range = api::parseRange(req.header("Range"), size);
    if (!range) {
        auto e = Response::error(range.error());
        if (range.kind() == api::ErrorKind::RangeNotSatisfiable) {
            e.header("Content-Range", "bytes */" + std::to_string(size));
        }
        return e;
    }
    Response r;
    r.header("Content-Type", "application/octet-stream");
    r.header(std::string(api::kHdrLocation), m_self.id);
    r.file = std::make_unique<net::FileRegion>();
    r.file->fd = out->fd;
    r.file->offset = 0;
    r.file->length = size;
    if (range->has_value()) {
        const auto& br = **range;
        r.status = 206;
        r.header("Content-Range", "bytes " + std::to_string(br.offset) + "-" +
                                      std::to_string(br.offset + br.length - 1) + "/" + std::to_string(size));
        r.file->offset = br.offset;
        r.file->length = br.length;
    }
    return r;
}

Response TargetApi::getFromShard(const Request& req, const api_util::ObjectRef& ref, const OpenObject& obj)
{
    const auto selectors = archSelectors(req);
    const bool one = selectors.path;
    if (one && selectors.regx) {
        return Response::error(api::Error::badRequest("archpath and archregx exclude each other: give one"));
    }
    auto format = archive::resolveFormat(ref.name, req.queryValue(api::kQpArchMime));
    if (!format) return Response::error(format.error());
    api::Result<ShardPayload> payload = api::Error::internal("unset");
    if (one) {
        const auto path = req.queryValue(api::kQpArchPath);
        if (auto st = archive::validateMemberName(path, m_shards.limits().maxNameBytes); !st) {
            return Response::error(api::Error::badRequest("archpath: " + st.error().message));
        }
        payload = m_shards.readMember(ref.bucket, ref.name, obj, *format, archive::normalizeMemberName(path));
    } else {
        auto matcher =
            archive::MemberMatcher::create(req.queryValue(api::kQpArchMode), req.queryValue(api::kQpArchRegx));
        if (!matcher) return Response::error(matcher.error());
        payload = m_shards.readMatches(ref.bucket, ref.name, obj, *format, *matcher);
    }
    if (!payload) return Response::error(payload.error());
    // Range applies to what is returned (the member, or the tar of the
    // matches), as it would to an object of those bytes.
    const std::uint64_t size = payload->file ? payload->file->length : payload->bytes.size();
    auto range = api::parseRange(req.header("Range"), size);
    if (!range) {
        auto e = Response::error(range.error());
        if (range.kind() == api::ErrorKind::RangeNotSatisfiable) {
            e.header("Content-Range", "bytes */" + std::to_string(size));
        }
        return e;
    }
    Response r;
    r.header("Content-Type", one ? "application/octet-stream" : "application/x-tar");
    r.header("Accept-Ranges", "bytes");
    r.header(std::string(api::kHdrArchiveIndex), payload->indexUse);
    r.header(std::string(api::kHdrLocation), m_self.id);
    if (payload->file) r.file = std::move(payload->file);
    else r.body = std::move(payload->bytes);
    if (range->has_value()) {
        const auto& br = **range;
        r.status = 206;
        r.header("Content-Range", "bytes " + std::to_string(br.offset) + "-" +
                                      std::to_string(br.offset + br.length - 1) + "/" + std::to_string(size));
        if (r.file) {
            r.file->offset += br.offset;
            r.file->length = br.length;
        } else {
            r.body = r.body.substr(static_cast<std::size_t>(br.offset), static_cast<std::size_t>(br.length));
        }
    }
    return r;
}

std::variant<Response, std::unique_ptr<net::UploadSink>> TargetApi::appendToShard(const Request& req,
                                                                                  const api_util::ObjectRef& ref)
{
    auto format = archive::resolveFormat(ref.name, req.queryValue(api::kQpArchMime));
    if (!format) return Response::error(format.error());
    const auto path = req.queryValue(api::kQpArchPath);
    if (auto st = archive::validateMemberName(path, m_shards.limits().maxNameBytes); !st) {
        return Response::error(api::Error::badRequest("archpath: " + st.error().message));
    }
    const auto limit = m_shards.limits().maxMemberSize;
    if (req.contentLength > limit) {
        return Response::error(
            api::Error{api::ErrorKind::TooLarge,
                       "member larger than the limit of " + std::to_string(limit) + " bytes (archive_max_member_size)",
                       {}});
    }
    auto body = m_store.openTempFile(ref.bucket, ref.name);
    if (!body) return Response::error(body.error());
    return std::unique_ptr<net::UploadSink>(
        std::make_unique<AppendSink>(m_shards, ref, *format, std::string(archive::normalizeMemberName(path)),
                                     std::move(body.value()), m_self.id, [this, ref] { return pullFromPeer(ref); }));
}

}  // namespace tessera::daemon::target
