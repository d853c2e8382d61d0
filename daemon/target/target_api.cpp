#include "target_api.h"

#include "copy_transfer.h"
#include "put_sink.h"
#include "target_api_detail.h"

#include "common/log.h"

#include "api/byte_range.h"
#include "api/checksum.h"
#include "api/cluster_msg.h"
#include "api/headers.h"
#include "api/hrw.h"
#include "api/http_error.h"
#include "api/json_util.h"
#include "api/object_meta.h"
#include "client/http_client.h"
#include "common/fd_io.h"
#include "meta/node_identity.h"
#include "net/request_params.h"

#include <cerrno>
#include <cstring>
#include <limits>

namespace tessera::daemon::target {

namespace http = boost::beast::http;
using net::Exec;
using net::Request;
using net::Response;
using net::Route;
using namespace detail;

namespace {

// A client's request (not another node's): it carries no cluster key.
bool fromClient(const Request& req) { return req.header(api::kHdrClusterKey).empty(); }

bool isHex16(const std::string& s)
{
    if (s.size() != 16) return false;
    for (char c : s) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    }
    return true;
}

// A GET that names a member (archpath) or a pattern (archregx). An empty
// value names nothing, as AIStore reads it (Go's query.Get): its Python SDK
// 1.2 sends `archpath=` with every GET, the current one the unused selector
// empty beside the other (target_api_shards.cpp, archSelectors).
bool names(const Request& req, std::string_view key)
{
    const auto it = req.query.find(key);
    return it != req.query.end() && !it->second.empty();
}

bool isShardRead(const Request& req) { return names(req, api::kQpArchPath) || names(req, api::kQpArchRegx); }

}  // namespace

TargetApi::TargetApi(api::Snode self, ObjectStore& store, ShardService& shards, MetaCache& cache,
                     Membership& membership, std::chrono::milliseconds peerTimeout,
                     std::function<nlohmann::json()> nodeInfo, std::function<api::NodeStats()> nodeStats,
                     stats::StatsRecorder& recorder, std::string clusterKey)
    : m_self(std::move(self)), m_store(store), m_shards(shards), m_cache(cache), m_membership(membership),
      m_peerTimeout(peerTimeout), m_nodeInfo(std::move(nodeInfo)), m_nodeStats(std::move(nodeStats)),
      m_recorder(recorder), m_clusterKey(std::move(clusterKey))
{
}

void TargetApi::registerRoutes(net::Router& router)
{
    const std::string obj = "/v1/objects/{bucket}/{name...}";
    using api::OpKind;
    // Access (auth on): a client reaches these through the proxy's signed
    // redirect (or with an admin's token); the rest is for the other nodes.
    using net::Access;
    using P = api::Permission;
    router.add(net::needs(
        net::counted(Route{http::verb::put, obj, Exec::Inline, {}, [this](const Request& r) { return putObject(r); }},
                     OpKind::Put),
        Access::bucket(P::Write)));
    // GET and HEAD run on the connection's strand (an open, an fstat and an
    // xattr read) and move to the worker pool only to hash a whole object or
    // to ask the peers for one that is missing here.
    router.add(net::needs(
        net::counted(Route{http::verb::get, obj, Exec::InlineFirst, net::bind(this, &TargetApi::getObject), {}},
                     OpKind::Get),
        Access::bucket(P::Read)));
    router.add(net::needs(
        net::counted(Route{http::verb::head, obj, Exec::InlineFirst, net::bind(this, &TargetApi::headObject), {}},
                     OpKind::Head),
        Access::bucket(P::Read)));
    router.add(net::needs(
        net::counted(Route{http::verb::delete_, obj, Exec::Worker, net::bind(this, &TargetApi::deleteObject), {}},
                     OpKind::Delete),
        Access::bucket(P::Delete)));
    router.add(net::needs(
        net::counted(
            Route{http::verb::get, "/v1/buckets/{bucket}", Exec::Worker, net::bind(this, &TargetApi::listObjects), {}},
            OpKind::List),
        Access::bucket(P::List)));
    router.add(Route{http::verb::delete_,
                     "/v1/internal/buckets/{bucket}",
                     Exec::Worker,
                     net::bind(this, &TargetApi::destroyBucket),
                     {}});
    Route ms{http::verb::put, "/v1/metasync", Exec::Inline, net::bind(this, &TargetApi::metasync), {}};
    ms.maxBody = 16 << 20;
    router.add(std::move(ms));
    router.add(net::needs(Route{http::verb::get, "/v1/health", Exec::Inline, net::bind(this, &TargetApi::health), {}},
                          Access::open()));
    router.add(Route{http::verb::get, "/v1/daemon", Exec::Worker, net::bind(this, &TargetApi::daemonInfo), {}});
    if (m_multipart != nullptr) registerMultipartRoutes(router);
}

std::optional<Response> TargetApi::redirectIfNotOwner(const Request& req, const api_util::ObjectRef& ref, Serve* how)
{
    auto clientVersion = api_util::smapVersionParam(req);
    if (!clientVersion) return Response::error(clientVersion.error());
    auto smap = m_cache.smap();
    if (smap->tmap.empty()) {
        return Response::error(api::Error::unavailable("target has not joined the cluster yet"));
    }
    if (clientVersion->has_value() && **clientVersion > smap->version) {
        m_membership.requestRefresh();
        return Response::error(api::Error::unavailable("cluster map v" + std::to_string(**clientVersion) +
                                                       " is newer than this target's v" +
                                                       std::to_string(smap->version) + "; retry shortly"));
    }
    const auto bmd = m_cache.bmd();
    const auto* props = bmd->find(ref.bucket);
    const auto bucketMissing = [&] {
        return Response::error(api::Error::notFound("bucket \"" + ref.bucket + "\" does not exist"));
    };
    const bool read = req.method == http::verb::get || req.method == http::verb::head;
    if (req.hasQuery(api::kQpCopy)) {
        // Between the holders of a mirrored object's copies: this copy only.
        if (!read && !meta::sameSecret(std::string(req.header(api::kHdrClusterKey)), m_clusterKey)) {
            return Response::error(
                api::Error{api::ErrorKind::Forbidden,
                           "writing a copy needs the cluster key (header " + std::string(api::kHdrClusterKey) + ")",
                           {}});
        }
        if (props == nullptr) return bucketMissing();
        if (how != nullptr) *how = Serve::Copy;
        return std::nullopt;
    }
    // The hot path (a read at its owner) allocates nothing: the holders of
    // copies are looked up only when the owner is away.
    const auto* owner = api::hrwTarget(*smap, api::objectUname(ref.bucket, ref.name));
    if (owner == nullptr) return Response::error(api::Error::unavailable("no targets in the cluster map"));
    if (owner->away() && owner->id != m_self.id && !req.hasQuery(kQpLocal)) {
        // Copies of a mirrored object, or slices and copies of an erasure-coded one.
        const auto readers = api::readTargets(*smap, props, ref.bucket, ref.name);
        if (read && readers.size() > 1 && props != nullptr) {
            // The first present holder reads its copy (or rebuilds the object).
            for (const auto* h : readers) {
                if (h->away()) continue;
                if (h->id == m_self.id) {
                    if (how != nullptr) *how = Serve::StandIn;
                    return std::nullopt;
                }
                return Response::redirect(h->publicNet.url + api_util::objectTarget(ref, req.query, smap->version));
            }
            std::string names;
            for (const auto* h : readers) names += (names.empty() ? "" : ", ") + h->id;
            return Response::error(api::Error::unavailable("every target that holds a copy of the object (" + names +
                                                           ") is away or in maintenance; retry when one returns"));
        }
        return Response::error(
            api::Error::unavailable("target " + owner->id + " (" + owner->publicNet.url + ") that owns the object is " +
                                    (owner->inMaintenance() ? "in maintenance" : "away") + "; retry when it returns"));
    }
    // "local": a peer that found the object here sends the client here (see
    // findOnPeers); serve what this target holds whoever owns the name now.
    if (owner->id == m_self.id || (req.hasQuery(kQpLocal) && req.method != http::verb::put)) {
        if (props == nullptr) return bucketMissing();
        if (how != nullptr) *how = Serve::Owner;
        return std::nullopt;
    }
    // Stale (or absent) version and not ours: send the client to the owner.
    return Response::redirect(owner->publicNet.url + api_util::objectTarget(ref, req.query, smap->version));
}

std::variant<Response, std::unique_ptr<net::UploadSink>> TargetApi::putObject(const Request& req)
{
    auto ref = api_util::objectRef(req);
    if (!ref) return Response::error(ref.error());
    Serve how = Serve::Owner;
    if (auto r = redirectIfNotOwner(req, *ref, &how)) return std::move(*r);
    std::vector<api::Snode> holders;
    if (how == Serve::Owner) {
        // A mirrored object is acknowledged once every copy is durable: all
        // of its holders must be present.
        auto h = copyHolders(*ref, true);
        if (!h) return Response::error(h.error());
        holders = std::move(h.value());
        // Erasure coded: every slice holder must be present too.
        if (coded(ref->bucket)) {
            if (auto e = m_ec->holders(*ref, true); !e) return Response::error(e.error());
        }
    }
    if (req.hasQuery(api::kQpArchPath)) {
        if (how == Serve::Copy || !holders.empty() || coded(ref->bucket)) {
            return Response::error(api::Error::badRequest(
                "appending to a shard (archpath) of a bucket mirrored across targets or erasure coded is not "
                "supported; PUT the whole shard"));
        }
        return appendToShard(req, *ref);
    }
    PutParams params;
    if (req.hasQuery(api::kQpRebalance) || how == Serve::Copy) {
        // A peer delivers a copy of an existing version: it keeps its stamp
        // and version, and is committed only if it is newer than what is
        // here (decided at commit, under the name's lock).
        std::int64_t stamp = 0;
        const auto h = req.header(api::kHdrVersionStamp);
        if (h.empty() || !parseInt64(std::string(h), stamp) || stamp <= 0) {
            return Response::error(api::Error::badRequest(std::string("a rebalance PUT needs a positive ") +
                                                          std::string(api::kHdrVersionStamp)));
        }
        params.transferStamp = stamp;
        params.transferVersion = std::string(req.header(api::kHdrVersion));
        if (params.transferVersion.empty() || params.transferVersion.size() > 32) {
            return Response::error(
                api::Error::badRequest(std::string("a rebalance PUT needs ") + std::string(api::kHdrVersion)));
        }
    }
    const auto ctype = req.header(api::kHdrChecksumType);
    const auto cval = req.header(api::kHdrChecksumValue);
    if (!ctype.empty() && ctype != api::kChecksumXxhash) {
        return Response::error(api::Error::badRequest("unsupported checksum type \"" + ctype + "\" (use xxhash)"));
    }
    if (!cval.empty()) {
        if (!isHex16(cval)) {
            return Response::error(
                api::Error::badRequest("ais-checksum-value must be 16 lowercase hex digits (xxhash64)"));
        }
        params.expectedChecksum = cval;
    }
    // AIStore's clients send one "k=v" line per entry: every line, joined.
    std::string md;
    if (req.headers != nullptr) {
        for (auto [it, end] = req.headers->equal_range(
                 boost::beast::string_view(api::kHdrCustomMd.data(), api::kHdrCustomMd.size()));
             it != end; ++it) {
            md += (md.empty() ? "" : ", ") + std::string(it->value());
        }
    }
    if (!md.empty()) {
        auto parsed = api::parseCustomMd(md);
        if (!parsed) return Response::error(parsed.error());
        params.custom = std::move(parsed.value());
    }
    if (req.contentLength > m_store.options().maxObjectSize) {
        return Response::error(
            api::Error{api::ErrorKind::TooLarge,
                       "object larger than the limit of " + std::to_string(m_store.options().maxObjectSize) + " bytes",
                       {}});
    }
    params.s3Etag = req.queryValue("s3") == "true";
    return objectSink(*ref, how, std::move(holders), std::move(params), req.hasQuery(api::kQpRebalance),
                      fromClient(req));
}

std::variant<Response, std::unique_ptr<net::UploadSink>> TargetApi::objectSink(const api_util::ObjectRef& target,
                                                                               Serve how,
                                                                               std::vector<api::Snode> holders,
                                                                               PutParams params, bool rebalance,
                                                                               bool aisLines)
{
    const auto* ref = &target;
    params.mountpathCopies = mountpathCopies(ref->bucket);
    auto writer = m_store.beginPut(ref->bucket, ref->name, std::move(params));
    if (!writer) return Response::error(writer.error());
    PutSinkHooks hooks;
    const bool codedWrite = coded(ref->bucket) && how == Serve::Owner && !rebalance;
    if (!holders.empty() || codedWrite) {
        // Acknowledged once every copy, or every slice (copies of a small
        // version), is durable on its holder; committed here last.
        if (codedWrite) {
            hooks.before = [this, ref = *ref](const api::ObjectMeta& meta, int fd, bool& maybeSent) {
                return m_ec->protectFirst(ref, meta, fd, maybeSent);
            };
        } else {
            hooks.before = [this, ref = *ref, holders = std::move(holders)](const api::ObjectMeta& meta, int fd,
                                                                            bool& maybeSent) {
                return sendCopies(ref, holders, meta, fd, maybeSent);
            };
        }
        hooks.reconcileNow = [this, ref = *ref] {
            if (auto st = reconcile(ref); !st) {
                logWarn("after an interrupted write of ", ref.bucket, "/", ref.name,
                        ", its holders are reconciled later: ", st.error().message);
            }
        };
        hooks.store = &m_store;
        hooks.bucket = ref->bucket;
        hooks.name = ref->name;
    } else if (coded(ref->bucket) && how == Serve::Copy) {
        // A whole copy of a newer version: an older slice here goes.
        hooks.after = [this, ref = *ref](const api::ObjectMeta& meta, int) {
            return m_ec->slices().removeOlder(ref.bucket, ref.name, meta.stamp);
        };
    }
    return makePutSink(std::move(writer.value()), m_self.id, std::move(hooks), how == Serve::Copy, aisLines);
}

Response TargetApi::getObject(const Request& req) { return readObject(req, false); }

Response TargetApi::readObject(const Request& req, bool reconciled)
{
    auto ref = api_util::objectRef(req);
    if (!ref) return Response::error(ref.error());
    Serve how = Serve::Owner;
    if (auto r = redirectIfNotOwner(req, *ref, &how)) return std::move(*r);
    if (how == Serve::StandIn && coded(ref->bucket)) return standInCoded(req, *ref);
    if (!reconciled && how == Serve::Owner && mustCompareFirst(*ref)) {
        return Response::continueOnWorker([this, &req, ref = *ref] {
            if (auto e = reconcileBeforeServing(ref)) return Response::error(*e);
            return runContinuations(readObject(req, true));
        });
    }
    auto obj = m_store.open(ref->bucket, ref->name);
    if (!obj && (obj.kind() == api::ErrorKind::NotFound || obj.kind() == api::ErrorKind::Unavailable)) {
        // Mirrored on mountpaths: another disk's copy.
        if (auto copy = openMountpathCopy(*ref)) obj = std::move(*copy);
    }
    if (!obj && obj.kind() == api::ErrorKind::NotFound) {
        if (how != Serve::Owner) return copyMissing(*ref, obj.error(), how);
        // Asking the peers blocks: not on the connection's strand.
        return Response::continueOnWorker([this, &req, ref = *ref] { return getMissing(req, ref); });
    }
    if (!obj && obj.kind() == api::ErrorKind::Unavailable) {
        // Its mountpath is disabled: another holder's copy serves (or the slices).
        if (coded(ref->bucket) && how != Serve::Copy) return unavailableCoded(req, *ref, obj.error());
        if (auto r = readElsewhere(req, *ref)) return std::move(*r);
    }
    if (!obj) return Response::error(obj.error());
    return serveObject(req, *ref, std::move(obj.value()), false, how);
}

Response TargetApi::getMissing(const Request& req, const api_util::ObjectRef& ref)
{
    auto obj = m_store.open(ref.bucket, ref.name);
    if (!obj && obj.kind() == api::ErrorKind::NotFound) {
        // Deleted here: a peer's copy is older, whatever it says.
        if (m_store.tombstone(ref.bucket, ref.name)) return Response::error(obj.error());
        // Erasure coded: its slices or copies (this disk was replaced).
        if (coded(ref.bucket) && !req.hasQuery(kQpLocal)) {
            if (auto r = m_ec->read(req, ref, false, serveCoded(req, ref))) return std::move(*r);
        }
        if (auto moved = findOnPeers(req, ref)) return std::move(*moved);
        // A rebalance may have delivered it here while the peers were asked.
        obj = m_store.open(ref.bucket, ref.name);
        if (!obj && obj.kind() == api::ErrorKind::NotFound && !req.hasQuery(kQpLocal)) {
            if (auto away = awayPeer(ref)) return Response::error(*away);
        }
    }
    if (!obj && obj.kind() == api::ErrorKind::Unavailable) {
        if (auto r = readElsewhere(req, ref)) return std::move(*r);
    }
    if (!obj) return Response::error(obj.error());
    return serveObject(req, ref, std::move(obj.value()), true, Serve::Owner);
}

Response TargetApi::serveObject(const Request& req, const api_util::ObjectRef& ref, OpenObject obj, bool onWorker,
                                Serve how)
{
    const auto bmd = m_cache.bmd();
    const auto* props = bmd->find(ref.bucket);
    const bool verify = props != nullptr && props->checksum.validateWarmGet;
    const bool shard = isShardRead(req);
    const bool etl = req.hasQuery(api::kQpEtlName);
    if ((verify || shard || etl) && !onWorker) {
        // Reads the whole object, or reads (maybe indexes) the shard.
        return Response::continueOnWorker(
            [this, &req, ref, obj = std::move(obj), how] { return serveObject(req, ref, obj, true, how); });
    }
    if (verify) {
        auto st = m_store.verify(obj);
        if (!st) {
            if (st.error().kind == api::ErrorKind::Corruption) {
                m_recorder.addChecksumError();
                // Mirrored on mountpaths: another disk's good copy of the same version.
                if (auto copy = openMountpathCopy(ref, obj.meta.stamp); copy && m_store.verify(*copy)) {
                    return serveObject(req, ref, std::move(*copy), true, how);
                }
                // Damaged here: a good copy elsewhere serves (a scrub repairs this one).
                if (coded(ref.bucket) && how != Serve::Copy) {
                    if (auto r = m_ec->read(req, ref, false, serveCoded(req, ref))) return std::move(*r);
                }
                if (auto r = readElsewhere(req, ref)) return std::move(*r);
            }
            return Response::error(st.error());
        }
    }
    if (etl) return serveTransformed(req, ref, obj);
    if (shard) return getFromShard(req, ref, obj);
    const auto size = static_cast<std::uint64_t>(obj.meta.size);
    auto range = api::parseRange(req.header("Range"), size);
    if (!range) {
        auto r = Response::error(range.error());
        if (range.kind() == api::ErrorKind::RangeNotSatisfiable) {
            r.header("Content-Range", "bytes */" + std::to_string(size));
        }
        return r;
    }
    Response r;
    // A copy read by a peer (a scrub's repair) carries its version stamp.
    addMetaHeaders(r, obj.meta, m_self.id, how == Serve::Copy, fromClient(req));
    r.header("Content-Type", "application/octet-stream");
    r.header("Accept-Ranges", "bytes");
    r.file = std::make_unique<net::FileRegion>();
    r.file->fd = obj.fd;
    if (range->has_value()) {
        const auto& br = **range;
        r.status = 206;
        r.header("Content-Range", "bytes " + std::to_string(br.offset) + "-" +
                                      std::to_string(br.offset + br.length - 1) + "/" + std::to_string(size));
        r.file->offset = br.offset;
        r.file->length = br.length;
    } else {
        r.file->offset = 0;
        r.file->length = size;
    }
    return r;
}

Response TargetApi::headObject(const Request& req) { return statObject(req, false); }

Response TargetApi::statObject(const Request& req, bool reconciled)
{
    auto ref = api_util::objectRef(req);
    if (!ref) return Response::error(ref.error());
    Serve how = Serve::Owner;
    if (auto r = redirectIfNotOwner(req, *ref, &how)) return std::move(*r);
    if (how == Serve::StandIn && coded(ref->bucket)) return standInCoded(req, *ref);
    if (!reconciled && how == Serve::Owner && mustCompareFirst(*ref)) {
        return Response::continueOnWorker([this, &req, ref = *ref] {
            if (auto e = reconcileBeforeServing(ref)) return Response::error(*e);
            return runContinuations(statObject(req, true));
        });
    }
    auto meta = m_store.stat(ref->bucket, ref->name);
    if (!meta && (meta.kind() == api::ErrorKind::NotFound || meta.kind() == api::ErrorKind::Unavailable)) {
        if (auto copy = openMountpathCopy(*ref)) meta = copy->meta;
    }
    if (!meta && meta.kind() == api::ErrorKind::NotFound) {
        if (how != Serve::Owner) return copyMissing(*ref, meta.error(), how);
        // Asking the peers blocks: not on the connection's strand.
        return Response::continueOnWorker([this, &req, ref = *ref] { return headMissing(req, ref); });
    }
    if (!meta && meta.kind() == api::ErrorKind::Unavailable) {
        if (coded(ref->bucket) && how != Serve::Copy) return unavailableCoded(req, *ref, meta.error());
        if (auto r = readElsewhere(req, *ref)) return std::move(*r);
    }
    if (!meta) return Response::error(meta.error());
    return headResponse(ref->bucket + "/" + ref->name, *meta, fromClient(req));
}

Response TargetApi::headMissing(const Request& req, const api_util::ObjectRef& ref)
{
    auto meta = m_store.stat(ref.bucket, ref.name);
    if (!meta && meta.kind() == api::ErrorKind::NotFound) {
        if (m_store.tombstone(ref.bucket, ref.name)) return Response::error(meta.error());
        if (coded(ref.bucket) && !req.hasQuery(kQpLocal)) {
            if (auto r = m_ec->read(req, ref, false, serveCoded(req, ref))) return std::move(*r);
        }
        if (auto moved = findOnPeers(req, ref)) return std::move(*moved);
        meta = m_store.stat(ref.bucket, ref.name);
        if (!meta && meta.kind() == api::ErrorKind::NotFound && !req.hasQuery(kQpLocal)) {
            if (auto away = awayPeer(ref)) return Response::error(*away);
        }
    }
    if (!meta) return Response::error(meta.error());
    return headResponse(ref.bucket + "/" + ref.name, *meta, fromClient(req));
}

Response TargetApi::headResponse(const std::string& name, const api::ObjectMeta& meta, bool aisLines) const
{
    Response r;
    addMetaHeaders(r, meta, m_self.id, true, aisLines);
    r.header(std::string(api::kHdrName), name);
    r.header(std::string(api::kHdrPresent), "true");  // AIStore's ObjectProps.present
    r.isHead = true;
    r.headContentLength = static_cast<std::uint64_t>(meta.size);
    return r;
}

Response TargetApi::deleteObject(const Request& req)
{
    auto ref = api_util::objectRef(req);
    if (!ref) return Response::error(ref.error());
    Serve how = Serve::Owner;
    if (auto r = redirectIfNotOwner(req, *ref, &how)) return std::move(*r);
    if (how == Serve::Copy) {
        // The owner deleted a mirrored object: the copy here goes, with the
        // owner's tombstone stamp.
        std::int64_t stamp = 0;
        if (!parseInt64(std::string(req.header(api::kHdrVersionStamp)), stamp) || stamp <= 0) {
            return Response::error(api::Error::badRequest(std::string("deleting a copy needs a positive ") +
                                                          std::string(api::kHdrVersionStamp)));
        }
        // Whether there was one: the owner that lost its own copy answers
        // the client 200, not 404, when a holder's was removed.
        const bool had = m_store.open(ref->bucket, ref->name).ok();
        auto st = m_store.removeCopy(ref->bucket, ref->name, stamp);
        if (!st) return Response::error(st.error());
        auto r = Response::ok();
        r.header(std::string(api::kHdrRemoved), had ? "true" : "false");
        return r;
    }
    auto copies = copyHolders(*ref, true);
    if (!copies) return Response::error(copies.error());
    std::vector<api::Snode> sliceHolders;  // erasure coded: the targets of its slices and copies
    if (coded(ref->bucket)) {
        auto h = m_ec->holders(*ref, true);
        if (!h) return Response::error(h.error());
        sliceHolders = std::move(h.value());
    }
    if (!copies->empty() || !sliceHolders.empty()) {
        // Mirrored or erasure coded: the deletion is acknowledged once every
        // copy and slice is gone. The holders go first, with the deletion's
        // stamp, so that a deletion that fails there leaves the object
        // readable here as it was. A name not here is deleted on the holders
        // all the same (the retry of a deletion that did not reach them all).
        // An interrupted change: whether the name is here (the answer) and
        // what the holders drop depend on the reconciled state.
        if (mustCompareFirst(*ref)) {
            if (auto e = reconcileBeforeServing(*ref)) return Response::error(*e);
        }
        // The change is recorded until it is settled: interrupted after a
        // holder removed its copy or slice, the name is reconciled before it
        // is served again (the deletion then wins). Recorded before the
        // deletion is stamped: no reconciliation restamps the name from
        // here on (see IntentStore::begin).
        const auto mp = m_store.mountpathFor(ref->bucket, ref->name);
        if (auto st = m_store.intents().begin(mp, ref->bucket, ref->name); !st) {
            return Response::error(api::Error::unavailable("not deleted: " + st.error().message));
        }
        const auto here = m_store.stat(ref->bucket, ref->name);
        if (!here && here.kind() != api::ErrorKind::NotFound) {
            m_store.intents().end(ref->bucket, ref->name, IntentStore::Ended::Settled);  // nothing sent
            return Response::error(here.error());
        }
        // Newer than the version it deletes, even when that version was
        // stamped by a clock ahead of this one (a peer's, or this target's
        // before a restart).
        if (here) m_store.observeStamp(here->stamp);
        const auto stamp = m_store.nextStamp();
        bool elsewhere = false;  // kept as slices or copies though lost here
        bool maybeSent = false;
        api::Status sent;
        if (!sliceHolders.empty()) {
            auto removed = m_ec->deleteEverywhere(*ref, sliceHolders, stamp, maybeSent);
            if (removed) elsewhere = *removed;
            else sent = removed.error();
        } else {
            auto removed = deleteCopies(*ref, *copies, stamp, maybeSent);
            if (removed) elsewhere = *removed;
            else sent = removed.error();
        }
        if (!sent) {
            // A holder may have removed its part: the version here gets a
            // fresh stamp and stays the newest, or the name must be compared.
            auto how = IntentStore::Ended::Settled;
            if (maybeSent) {
                how =
                    m_store.restamp(ref->bucket, ref->name) ? IntentStore::Ended::Pinned : IntentStore::Ended::Unknown;
            }
            m_store.intents().end(ref->bucket, ref->name, how);
            if (maybeSent) (void)reconcile(*ref);
            return Response::error(sent.error());
        }
        const bool recorded = true;
        if (auto st = m_store.removeCopy(ref->bucket, ref->name, stamp); !st) {
            // Conflict: a newer version was committed meanwhile; it wins, and
            // its copies reach the holders (newer than their tombstone).
            if (st.kind() == api::ErrorKind::Conflict) {
                if (recorded) m_store.intents().end(ref->bucket, ref->name, IntentStore::Ended::Settled);
                return Response::ok();
            }
            if (recorded) m_store.intents().end(ref->bucket, ref->name, IntentStore::Ended::Unknown);
            // The holders' copies are gone already: not "nothing changed".
            auto e = st.error();
            e.kind = api::ErrorKind::Unavailable;
            if (e.message.find("outcome is unknown") == std::string::npos) {
                e.message += "; the other holders' copies are removed: the outcome is unknown, retry the delete";
            }
            return Response::error(e);
        }
        if (recorded) m_store.intents().end(ref->bucket, ref->name, IntentStore::Ended::Settled);
        if (!here && !elsewhere) return Response::error(here.error());
        return Response::ok();
    }
    std::int64_t removedAt = 0;
    auto st = m_store.remove(ref->bucket, ref->name, &removedAt);
    if (const auto n = mountpathCopies(ref->bucket); n > 1) {
        // Mirrored on mountpaths: the copies go too (also when the name's own
        // file was lost and only a copy is left).
        const bool copyLeft = !st && st.kind() == api::ErrorKind::NotFound && openMountpathCopy(*ref).has_value();
        if (copyLeft) {
            if (auto marked = m_store.markDeleted(ref->bucket, ref->name); !marked)
                return Response::error(marked.error());
            removedAt = m_store.tombstone(ref->bucket, ref->name).value_or(0);
            st = {};
        }
        if (st) {
            if (auto gone = m_store.removeMountpathCopies(ref->bucket, ref->name, n, removedAt); !gone) {
                return Response::error(gone.error());
            }
        }
    }
    if (st || st.kind() != api::ErrorKind::NotFound) return st ? Response::ok() : Response::error(st.error());
    // A peer asked to drop its copy of a name deleted at the owner.
    if (req.hasQuery(kQpLocal)) return Response::error(st.error());
    if (m_store.tombstone(ref->bucket, ref->name)) return Response::error(st.error());  // deleted already
    // The only copy may still be on a peer (a placement change not yet
    // rebalanced). The deletion is recorded here first, so that the copy a
    // rebalance may be sending right now is refused; then the peers drop theirs.
    const auto holders = peersHolding(*ref);
    if (holders.empty()) {
        if (auto away = awayPeer(*ref)) return Response::error(*away);
        return Response::error(st.error());
    }
    if (auto marked = m_store.markDeleted(ref->bucket, ref->name); !marked) return Response::error(marked.error());
    client::HttpClient http(peerOptions(m_peerTimeout));
    const auto smapVersion = m_cache.smap()->version;
    for (const auto& node : holders) {
        // A failure leaves a copy the tombstone already hides; its next
        // rebalance delivers it and is told it is superseded.
        (void)http.send(
            client::Method::Delete,
            node.publicNet.url + api_util::objectTarget(*ref, {{std::string(kQpLocal), "true"}}, smapVersion));
    }
    return Response::ok();
}

Response TargetApi::destroyBucket(const Request& req)
{
    auto bucket = api_util::bucketParam(req);
    if (!bucket) return Response::error(bucket.error());
    auto st = m_store.destroyBucket(*bucket);
    if (!st) return Response::error(st.error());
    // Its S3 multipart uploads in progress go with it (docs/s3.md).
    if (m_multipart != nullptr) m_multipart->removeBucket(*bucket);
    return Response::ok();
}

}  // namespace tessera::daemon::target
