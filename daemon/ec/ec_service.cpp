#include "ec_service.h"

#include "common/log.h"

#include "ec_codec.h"
#include "ec_protector.h"
#include "ec_stream.h"
#include "slice_transfer.h"

#include "api/byte_range.h"
#include "api/checksum.h"
#include "api/headers.h"
#include "api/hrw.h"
#include "common/fd_io.h"
#include "meta/node_identity.h"
#include "target/copy_transfer.h"
#include "target/store_files.h"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>

namespace tessera::daemon::ec {

namespace http = boost::beast::http;
using net::Request;
using net::Response;
using net::Route;

namespace {

constexpr std::string_view kHdrTransfer = "tessera-transfer";

target::CopyPeer peerOf(const api::Snode& n) { return {n.id, n.publicNet.url}; }

// The received slice, committed when the body is complete.
class SliceSink : public net::UploadSink {
public:
    SliceSink(std::unique_ptr<SliceWriter> w, SliceMeta meta, std::string selfId)
        : m_writer(std::move(w)), m_meta(std::move(meta)), m_selfId(std::move(selfId))
    {
    }
    api::Status write(const char* data, std::size_t size) override { return m_writer->write(data, size); }
    // A slice from its owner: stored here, nothing asked of others.
    bool receivesFromPeer() const override { return true; }
    Response finish() override
    {
        if (auto st = m_writer->commit(); !st) return Response::error(st.error());
        if (m_writer->superseded()) {
            auto r = Response::json({{"superseded", "a slice at least as new, or the deletion, is here"}});
            r.header(std::string(kHdrTransfer), "superseded");
            return r;
        }
        Response r;
        appendSliceHeaders(r.headers, m_meta, m_selfId);
        return r;
    }

private:
    std::unique_ptr<SliceWriter> m_writer;
    SliceMeta m_meta;
    std::string m_selfId;
};

}  // namespace

EcService::EcService(api::Snode self, const target::ObjectStore& store, target::MetaCache& cache,
                     std::chrono::milliseconds peerTimeout, std::string clusterKey)
    : m_self(self), m_store(store), m_slices(store), m_protector(store, cache, self.id, peerTimeout, clusterKey),
      m_cache(cache), m_peerTimeout(peerTimeout), m_clusterKey(std::move(clusterKey))
{
}

void EcService::registerRoutes(net::Router& router)
{
    const std::string path = "/v1/internal/ec/{bucket}/{name...}";
    router.add(Route{http::verb::put, path, net::Exec::Inline, {}, [this](const Request& r) { return putSlice(r); }});
    router.add(Route{http::verb::get, path, net::Exec::Peer, net::bind(this, &EcService::getSlice), {}});
    router.add(Route{http::verb::head, path, net::Exec::Peer, net::bind(this, &EcService::headSlice), {}});
    router.add(Route{http::verb::delete_, path, net::Exec::Peer, net::bind(this, &EcService::deleteSlice), {}});
    router.add(Route{http::verb::post, path, net::Exec::Worker, net::bind(this, &EcService::ensureRoute), {}});
}

client::HttpClient::Options EcService::peerOptions() const
{
    client::HttpClient::Options o;
    o.connectTimeout = m_peerTimeout;
    // Slices are data transfers: a data transfer's read timeout.
    o.ioTimeout = std::max(m_peerTimeout, std::chrono::milliseconds(60000));
    o.followRedirects = false;
    o.retriesOn503 = 0;
    return o;
}

bool EcService::coded(std::string_view bucket) const
{
    const auto bmd = m_cache.bmd();
    const auto* props = bmd->find(std::string(bucket));
    return props != nullptr && props->ec.enabled;
}

api::Result<std::vector<api::Snode>> EcService::holders(const api_util::ObjectRef& ref, bool allPresent) const
{
    return m_protector.holders(ref, allPresent);
}

api::Result<UniqueFd> EcService::tempFile(const api_util::ObjectRef& ref) const { return scratchFile(m_store, ref); }

api::Status EcService::protectFirst(const api_util::ObjectRef& ref, const api::ObjectMeta& meta, int fd,
                                    bool& maybeSent)
{
    bool stored = false;
    auto sent = m_protector.protect(ref, meta, fd, false, &stored);
    if (sent) return {};
    maybeSent = stored;
    if (stored) {
        return api::Error::unavailable("not acknowledged: " + sent.error().message +
                                       "; other holders keep slices of the new version: the outcome is unknown; "
                                       "retry the write (the slices are reconciled before the object is served "
                                       "again)");
    }
    return api::Error::unavailable("not stored, nothing changed: " + sent.error().message + "; retry the write");
}

api::Result<bool> EcService::deleteEverywhere(const api_util::ObjectRef& ref, const std::vector<api::Snode>& holders,
                                              std::int64_t stamp, bool& maybeSent)
{
    client::HttpClient http(peerOptions());
    SliceTransfer slices(http, m_clusterKey);
    bool removed = false;
    for (std::size_t i = 0; i < holders.size(); ++i) {
        auto r = slices.remove(peerOf(holders[i]), ref, stamp);
        if (!r) {
            // The holders before it removed their parts; this one may have.
            maybeSent = i > 0 || !client::failedBeforeSending(r.error());
            if (!maybeSent) {
                return api::Error::unavailable("not deleted, nothing changed: " + r.error().message +
                                               "; retry the delete");
            }
            return api::Error::unavailable("not acknowledged: " + r.error().message +
                                           "; other holders dropped their slices: the outcome is unknown, retry the "
                                           "delete");
        }
        removed = removed || *r;
    }
    return removed;
}

api::Result<EcService::Reconciled> EcService::reconcile(const api_util::ObjectRef& ref, bool pinWhenUnsure)
{
    const auto bmd = m_cache.bmd();
    const auto* props = bmd->find(ref.bucket);
    if (props == nullptr || !props->ec.enabled) return Reconciled::Settled;
    const auto found = survey(ref, true);
    auto here = m_store.open(ref.bucket, ref.name);
    if (!here && here.kind() != api::ErrorKind::NotFound) return here.error();
    const auto tomb = here ? std::nullopt : m_store.tombstone(ref.bucket, ref.name);
    std::int64_t own = here ? here->meta.stamp : tomb.value_or(0);
    if (found.newestTombstone > std::max(own, found.newest)) {
        // A deletion reached holders but not this target: it wins here too.
        if (auto st = m_store.removeCopy(ref.bucket, ref.name, found.newestTombstone);
            !st && st.kind() != api::ErrorKind::Conflict) {
            return st.error();
        }
        logInfo("reconciled ", ref.bucket, "/", ref.name, ": took the deletion its holders recorded");
        here = m_store.open(ref.bucket, ref.name);
        if (!here && here.kind() != api::ErrorKind::NotFound) return here.error();
        own = found.newestTombstone;
    } else if (found.newest > own) {
        // A holder keeps a newer version than this target: the change that
        // was interrupted here after it reached the holders.
        // The newest version that can be rebuilt wins; one newer than it
        // that cannot never reached every holder (see Survey::choose).
        const auto chosen = found.choose();
        if (chosen.servable && chosen.stamp > own) {
            if (auto st = restore(ref, found, chosen, false); !st) return st.error();
            logInfo("reconciled ", ref.bucket, "/", ref.name, ": took the newer version its holders keep");
        } else {
            // Too few of its slices to rebuild it: it was never acknowledged
            // (or, with a holder away, is given up). This target's state
            // wins, restamped newer than it.
            if (auto st = m_store.restamp(ref.bucket, ref.name); !st) return st.error();
            pinWhenUnsure = false;  // just restamped
        }
        here = m_store.open(ref.bucket, ref.name);
        if (!here && here.kind() != api::ErrorKind::NotFound) return here.error();
    }
    auto outcome = Reconciled::Settled;
    if (!found.missing.empty()) {
        if (!pinWhenUnsure) {
            outcome = Reconciled::Open;  // pinned already
        } else {
            if (auto st = m_store.restamp(ref.bucket, ref.name); !st) return st.error();
            outcome = Reconciled::Pinned;
            here = m_store.open(ref.bucket, ref.name);
            if (!here && here.kind() != api::ErrorKind::NotFound) return here.error();
        }
    }
    // The holders that can be reached are brought to this target's state
    // now (so that a stand-in never serves what this target gave up), the
    // others when they can be.
    if (here) {
        auto sent = m_protector.protect(ref, here->meta, here->fd->get(), true, nullptr, !found.missing.empty());
        if (!sent) return sent.error();
        return outcome;
    }
    // Deleted here (or never written): every part a holder keeps goes.
    const auto stamp = m_store.tombstone(ref.bucket, ref.name);
    if (!stamp) return outcome;  // nothing anywhere
    client::HttpClient http(peerOptions());
    SliceTransfer slices(http, m_clusterKey);
    for (const auto& f : found.found) {
        if (f.self) continue;
        const bool older = (f.holding.slice && f.holding.slice->object.stamp < *stamp) ||
                           (f.holding.copyStamp && *f.holding.copyStamp < *stamp);
        if (!older) continue;
        if (auto r = slices.remove(f.peer, ref, *stamp); !r) return r.error();
    }
    return outcome;
}

EcService::Survey EcService::survey(const api_util::ObjectRef& ref, bool useLocalCopy)
{
    Survey out;
    const auto smap = m_cache.smap();
    const auto bmd = m_cache.bmd();
    const auto* props = bmd->find(ref.bucket);
    if (props == nullptr || !props->ec.enabled) return out;
    client::HttpClient http(peerOptions());
    SliceTransfer slices(http, m_clusterKey);
    const auto set = api::ecTargets(*smap, props, ref.bucket, ref.name);
    out.parity = static_cast<std::size_t>(std::max(props->ec.paritySlices, 0));
    for (std::size_t at = 0; at < set.size(); ++at) {
        const auto* node = set[at];
        // The owner and the next P keep whole copies of small versions.
        const bool keepsCopies = at <= static_cast<std::size_t>(props->ec.paritySlices);
        Source src{peerOf(*node), node->id == m_self.id, {}, at, true};
        if (src.self) {
            src.knowsCopy = useLocalCopy;
            if (useLocalCopy) {
                if (auto o = m_store.open(ref.bucket, ref.name)) src.holding.copyStamp = o->meta.stamp;
            }
            if (auto sl = m_slices.open(ref.bucket, ref.name)) src.holding.slice = sl->meta;
            if (!src.holding.slice && !m_store.open(ref.bucket, ref.name)) {
                out.ownTombstone = m_store.tombstone(ref.bucket, ref.name).value_or(0);
                if (out.ownTombstone != 0) src.holding.tombstone = out.ownTombstone;
            }
        } else if (node->away()) {
            out.missing.push_back("target " + node->id + " is away");
            if (keepsCopies) ++out.copyKeepersMissing;
            continue;
        } else {
            auto h = slices.probe(src.peer, ref);
            if (!h) {
                out.missing.push_back(h.error().message);
                if (keepsCopies) ++out.copyKeepersMissing;
                continue;
            }
            src.holding = std::move(h.value());
        }
        out.found.push_back(std::move(src));
    }
    for (const auto& f : out.found) {
        if (!f.self) out.newestTombstone = std::max(out.newestTombstone, f.holding.tombstone.value_or(0));
        out.newest = std::max(out.newest, f.holding.copyStamp.value_or(0));
        if (f.holding.slice) out.newest = std::max(out.newest, f.holding.slice->object.stamp);
    }
    // A stamp this target issues next (a restamp, a deletion) is newer than
    // anything the set keeps, even when another target's clock runs ahead.
    m_store.observeStamp(std::max(out.newest, out.newestTombstone));
    return out;
}

std::string EcService::Survey::missingText() const
{
    std::string out;
    for (const auto& m : missing) out += (out.empty() ? "" : "; ") + m;
    return out;
}

const EcService::Source* EcService::Survey::copyAt(std::int64_t stamp) const
{
    for (const auto& f : found) {
        if (stamp != 0 && f.holding.copyStamp == stamp) return &f;
    }
    return nullptr;
}

std::vector<const EcService::Source*> EcService::Survey::slicesAt(std::int64_t stamp) const
{
    std::vector<const Source*> out;
    for (const auto& f : found) {
        if (!f.holding.slice || f.holding.slice->object.stamp != stamp) continue;
        const auto& first = out.empty() ? *f.holding.slice : *out.front()->holding.slice;
        if (f.holding.slice->data != first.data || f.holding.slice->parity != first.parity) continue;
        out.push_back(&f);
    }
    return out;
}

EcService::Survey::Choice EcService::Survey::choose() const
{
    std::vector<std::int64_t> stamps;
    for (const auto& f : found) {
        if (f.holding.copyStamp) stamps.push_back(*f.holding.copyStamp);
        if (f.holding.slice) stamps.push_back(f.holding.slice->object.stamp);
    }
    std::sort(stamps.begin(), stamps.end(), std::greater<>());
    stamps.erase(std::unique(stamps.begin(), stamps.end()), stamps.end());
    Choice newestChoice;
    for (const auto stamp : stamps) {
        Choice c;
        c.stamp = stamp;
        c.copy = copyAt(stamp);
        c.slices = slicesAt(stamp);
        c.slicesNeeded = c.slices.empty() ? 1 : static_cast<std::size_t>(c.slices.front()->holding.slice->data);
        c.servable = c.copy != nullptr || c.slices.size() >= c.slicesNeeded;
        if (c.servable) return c;
        if (newestChoice.stamp == 0) newestChoice = c;
        // Known by its slices: a sliced version, a part on every holder;
        // by whole copies only: on the owner and the first P holders.
        const bool sliced = !c.slices.empty();
        const bool neverAcknowledged = std::any_of(found.begin(), found.end(), [&](const Source& f) {
            const auto& h = f.holding;
            if (!f.knowsCopy) return false;
            const bool slicedHere = h.slice && h.slice->object.stamp == stamp;
            // A slice of it beside an older whole copy: the owner has the
            // older copies dropped before a sliced version is acknowledged.
            if (slicedHere) return h.copyStamp && *h.copyStamp < stamp;
            if (h.copyStamp == stamp) return false;
            // An older slice where this version left none: the owner has
            // those dropped (or replaced) before it is acknowledged.
            if (h.slice && h.slice->object.stamp < stamp) return true;
            // Something older, and nothing of it, where it keeps a part.
            if (f.at != 0 && !sliced && f.at > parity) return false;
            const std::int64_t newestHere =
                std::max({h.copyStamp.value_or(0), h.slice ? h.slice->object.stamp : 0, h.tombstone.value_or(0)});
            return newestHere != 0 && newestHere < stamp;
        });
        if (!neverAcknowledged) break;
    }
    return newestChoice;
}

std::optional<Response> EcService::read(const Request& req, const api_util::ObjectRef& ref, bool useLocalCopy,
                                        const ServeFn& serve)
{
    const bool head = req.method == http::verb::head;
    const auto bmd = m_cache.bmd();
    const auto* props = bmd->find(ref.bucket);
    if (props == nullptr || !props->ec.enabled) return std::nullopt;
    const auto found = survey(ref, useLocalCopy);
    const auto chosen = found.choose();
    const auto tombstone = std::max(found.newestTombstone, found.ownTombstone);
    if (found.newest != 0 && tombstone > (chosen.servable ? chosen.stamp : found.newest)) {
        // A deletion the holders (or this target) recorded is newer than
        // every version they keep: a deletion interrupted after it reached
        // some of them (its owner reconciles the rest). What is left of an
        // old version may be too little to rebuild, or enough — slices of an
        // older large version on holders a newer small one (copied whole to
        // the next P) never touched — and must not come back.
        return std::nullopt;
    }
    if (found.newest == 0) {
        // Nothing on the targets that answered: the name does not exist,
        // unless every target that would keep it whole (the owner and the
        // next P) could not say, or objects may lack their slices and copies
        // (ec.pending).
        const auto keepers = std::min<std::size_t>(static_cast<std::size_t>(props->ec.paritySlices) + 1,
                                                   api::ecTargets(*m_cache.smap(), props, ref.bucket, ref.name).size());
        if (!found.missing.empty() && (props->ec.pending || found.copyKeepersMissing >= keepers)) {
            return Response::error(api::Error::unavailable("\"" + ref.bucket + "/" + ref.name +
                                                           "\" is not on the targets that answered, and too many "
                                                           "cannot say: " +
                                                           found.missingText()));
        }
        return std::nullopt;
    }
    if (const auto* copy = chosen.copy) {
        if (!copy->self) {
            auto query = req.query;
            query[std::string(api::kQpCopy)] = "true";
            return Response::redirect(copy->peer.url + api_util::objectTarget(ref, query, m_cache.smap()->version));
        }
        auto o = m_store.open(ref.bucket, ref.name);
        if (o && o->meta.stamp == chosen.stamp) return head ? headResponse(ref, o->meta) : serve(std::move(*o));
    }
    const auto& sources = chosen.slices;
    if (sources.empty()) {
        return Response::error(api::Error::unavailable("the newest version of \"" + ref.bucket + "/" + ref.name +
                                                       "\" changed while it was read; retry"));
    }
    const auto& meta = sources.front()->holding.slice->object;
    const auto d = static_cast<std::size_t>(sources.front()->holding.slice->data);
    if (sources.size() < d) {
        return Response::error(api::Error::unavailable(
            "cannot rebuild \"" + ref.bucket + "/" + ref.name + "\": " + std::to_string(sources.size()) + " of the " +
            std::to_string(d) + " slices needed are reachable" +
            (found.missing.empty() ? "" : " (" + found.missingText() + ")")));
    }
    if (head) return headResponse(ref, meta);
    auto file = rebuild(ref, meta, sources);
    if (!file) return Response::error(file.error());
    target::OpenObject obj;
    obj.fd = std::move(file.value());
    obj.meta = meta;
    obj.mtimeNs = target::store_detail::fileMtimeNs(obj.fd->get());
    obj.ctimeNs = obj.mtimeNs;
    return serve(std::move(obj));
}

api::Result<std::shared_ptr<UniqueFd>> EcService::rebuild(const api_util::ObjectRef& ref, const api::ObjectMeta& meta,
                                                          const std::vector<const Source*>& sources)
{
    const auto& first = *sources.front()->holding.slice;
    auto codec = EcCodec::create(first.data, first.parity);
    if (!codec) return codec.error();
    client::HttpClient http(peerOptions());
    SliceTransfer slices(http, m_clusterKey);
    std::map<int, std::shared_ptr<UniqueFd>> got;
    std::vector<std::string> failures;
    // This target's slice first (no transfer), then the others in set order.
    std::vector<const Source*> order(sources);
    std::stable_partition(order.begin(), order.end(), [](const Source* s) { return s->self; });
    for (const auto* src : order) {
        if (got.size() == static_cast<std::size_t>(first.data)) break;
        const auto& want = *src->holding.slice;
        if (src->self) {
            auto s = m_slices.open(ref.bucket, ref.name);
            if (!s || s->meta != want) continue;  // replaced meanwhile
            if (auto st = m_slices.verify(*s); !st) {
                failures.push_back("this target's slice: " + st.error().message);
                continue;
            }
            got[want.index] = s->fd;
            continue;
        }
        auto tmp = tempFile(ref);
        if (!tmp) return tmp.error();
        auto fd = std::make_shared<UniqueFd>(std::move(tmp.value()));
        api::Xxh64Stream hash;
        std::uint64_t at = 0;
        auto meta2 = slices.fetch(src->peer, ref, [&](const char* p, std::size_t n) -> api::Status {
            if (at + n > want.sliceSize) return api::Error::corruption("the slice is longer than announced");
            if (const int e = pwriteAll(fd->get(), p, n, at); e != 0) return errnoError(e, "cannot keep a slice");
            hash.update(p, n);
            at += n;
            return {};
        });
        if (!meta2) {
            failures.push_back(meta2.error().message);
            continue;
        }
        if (*meta2 != want || at != want.sliceSize || hash.hex() != want.sliceChecksum) {
            failures.push_back("the slice " + std::to_string(want.index) + " on target " + src->peer.id +
                               " is damaged or changed (its bytes hash to " + hash.hex() + ", expected " +
                               want.sliceChecksum + ")");
            continue;
        }
        got[want.index] = fd;
    }
    const auto name = "\"" + ref.bucket + "/" + ref.name + "\"";
    std::string why;
    for (const auto& f : failures) why += "; " + f;
    if (got.size() < static_cast<std::size_t>(first.data)) {
        return api::Error::unavailable("cannot rebuild " + name + ": " + std::to_string(got.size()) +
                                       " good slice(s) of " + std::to_string(first.data) + " needed" + why);
    }
    std::map<int, int> fds;
    for (const auto& [i, fd] : got) fds.emplace(i, fd->get());
    auto out = tempFile(ref);
    if (!out) return out.error();
    auto file = std::make_shared<UniqueFd>(std::move(out.value()));
    if (auto st = decodeSlices(*codec, fds, static_cast<std::uint64_t>(meta.size), file->get()); !st) {
        return st.error();
    }
    api::Xxh64Stream hash;
    auto hashed = copyRange(
        file->get(), 0, static_cast<std::uint64_t>(meta.size),
        [&hash](const char* p, std::size_t n) {
            hash.update(p, n);
            return api::Status{};
        },
        "cannot read the rebuilt object");
    if (!hashed) return hashed.error();
    if (hash.hex() != meta.checksumValue) {
        return api::Error::corruption("the object rebuilt from slices does not match its checksum: stored " +
                                      meta.checksumValue + ", rebuilt bytes hash to " + hash.hex() + why);
    }
    return file;
}

Response EcService::headResponse(const api_util::ObjectRef& ref, const api::ObjectMeta& meta) const
{
    Response r;
    api::appendMetaHeaders(r.headers, meta, m_self.id, true);
    r.header(std::string(api::kHdrName), ref.bucket + "/" + ref.name);
    r.isHead = true;
    r.headContentLength = static_cast<std::uint64_t>(meta.size);
    return r;
}

api::Result<api_util::ObjectRef> EcService::sliceRef(const Request& req, bool write) const
{
    if (write && !meta::sameSecret(req.header(api::kHdrClusterKey), m_clusterKey)) {
        return api::Error{api::ErrorKind::Forbidden,
                          "writing a slice needs the cluster key (header " + std::string(api::kHdrClusterKey) + ")",
                          {}};
    }
    auto ref = api_util::objectRef(req);
    if (!ref) return ref.error();
    if (m_cache.bmd()->find(ref->bucket) == nullptr) {
        return api::Error::notFound("bucket \"" + ref->bucket + "\" does not exist");
    }
    return ref;
}

std::variant<Response, std::unique_ptr<net::UploadSink>> EcService::putSlice(const Request& req)
{
    auto ref = sliceRef(req, true);
    if (!ref) return Response::error(ref.error());
    auto meta = sliceFromHeaders([&](std::string_view n) { return req.header(n); });
    if (!meta) return Response::error(meta.error());
    if (req.contentLength != meta->sliceSize) {
        return Response::error(
            api::Error::badRequest("a slice's Content-Length must be its size, " + std::to_string(meta->sliceSize)));
    }
    auto w = m_slices.beginPut(ref->bucket, ref->name, *meta);
    if (!w) return Response::error(w.error());
    return std::unique_ptr<net::UploadSink>(std::make_unique<SliceSink>(std::move(w.value()), *meta, m_self.id));
}

Response EcService::getSlice(const Request& req)
{
    auto ref = sliceRef(req, false);
    if (!ref) return Response::error(ref.error());
    auto s = m_slices.open(ref->bucket, ref->name);
    if (!s) return Response::error(s.error());
    Response r;
    appendSliceHeaders(r.headers, s->meta, m_self.id);
    r.header("Content-Type", "application/octet-stream");
    r.file = std::make_unique<net::FileRegion>();
    r.file->fd = s->fd;
    r.file->offset = 0;
    r.file->length = s->meta.sliceSize;
    return r;
}

Response EcService::headSlice(const Request& req)
{
    auto ref = sliceRef(req, false);
    if (!ref) return Response::error(ref.error());
    Response r;
    r.isHead = true;
    bool any = false;
    auto s = m_slices.open(ref->bucket, ref->name);
    if (s) {
        appendSliceHeaders(r.headers, s->meta, m_self.id);
        r.headContentLength = s->meta.sliceSize;
        any = true;
    } else if (s.kind() != api::ErrorKind::NotFound && s.kind() != api::ErrorKind::Corruption) {
        return Response::error(s.error());  // a disabled mountpath: this target cannot say
    }
    auto copy = m_store.open(ref->bucket, ref->name);
    if (copy) {
        r.header(std::string(kHdrCopyStamp), std::to_string(copy->meta.stamp));
        any = true;
    } else if (copy.kind() != api::ErrorKind::NotFound) {
        return Response::error(copy.error());
    }
    if (!any) {
        auto none = Response::error(api::Error::notFound("nothing of \"" + ref->bucket + "/" + ref->name + "\" here"));
        // The owner reconciling an interrupted deletion needs to know it reached here.
        if (const auto tomb = m_store.tombstone(ref->bucket, ref->name)) {
            none.header(std::string(api::kHdrTombstone), std::to_string(*tomb));
        }
        return none;
    }
    return r;
}

Response EcService::deleteSlice(const Request& req)
{
    auto ref = sliceRef(req, true);
    if (!ref) return Response::error(ref.error());
    std::int64_t stamp = 0;
    try {
        stamp = std::stoll(req.header(api::kHdrVersionStamp));
    } catch (const std::exception&) {
        stamp = 0;
    }
    if (stamp <= 0) {
        return Response::error(
            api::Error::badRequest("deleting a slice needs a positive " + std::string(api::kHdrVersionStamp)));
    }
    if (const auto older = req.query.find("older"); older != req.query.end()) {
        // A newer version is kept everywhere it goes, and not as what this
        // target keeps: a newer small one (copies elsewhere), an older slice
        // goes; a newer large one (slices), an older whole copy goes.
        if (older->second == "copy") {
            if (auto st = m_store.removeCopyIfOlder(ref->bucket, ref->name, stamp); !st) {
                return Response::error(st.error());
            }
            return Response::ok();
        }
        if (older->second != "true") {
            return Response::error(api::Error::badRequest("older must be true (a slice) or copy (a whole copy)"));
        }
        if (auto st = m_slices.removeOlder(ref->bucket, ref->name, stamp); !st) return Response::error(st.error());
        return Response::ok();
    }
    // Whether there was anything: the owner that had lost its copy answers
    // 200 (not 404) when a slice or copy was deleted here.
    const bool had = m_slices.open(ref->bucket, ref->name).ok() || m_store.open(ref->bucket, ref->name).ok();
    if (auto st = m_slices.remove(ref->bucket, ref->name, stamp); !st) return Response::error(st.error());
    // The whole copy of a small version goes too, and the tombstone stays.
    if (auto st = m_store.removeCopy(ref->bucket, ref->name, stamp); !st) return Response::error(st.error());
    auto r = Response::ok();
    r.header(std::string(kHdrRemoved), had ? "true" : "false");
    return r;
}

api::Result<OwnerState> EcService::ensureOwned(const api_util::ObjectRef& ref)
{
    const auto smap = m_cache.smap();
    const auto bmd = m_cache.bmd();
    const auto* props = bmd->find(ref.bucket);
    if (props == nullptr || !props->ec.enabled) {
        return api::Error::badRequest("bucket \"" + ref.bucket + "\" is not erasure coded");
    }
    const auto set = api::ecTargets(*smap, props, ref.bucket, ref.name);
    if (set.empty() || set.front()->id != m_self.id) {
        return api::Error::conflict("target " + m_self.id + " does not own \"" + ref.bucket + "/" + ref.name +
                                    "\" in its cluster map v" + std::to_string(smap->version));
    }
    auto here = m_store.open(ref.bucket, ref.name);
    if (!here && here.kind() != api::ErrorKind::NotFound) return here.error();
    if (!here) {
        const auto tomb = m_store.tombstone(ref.bucket, ref.name);
        const auto found = survey(ref, false);
        const auto chosen = found.choose();
        if (tomb && *tomb >= (chosen.servable ? chosen.stamp : found.newest)) return OwnerState{*tomb, true};
        if (found.newest == 0) return OwnerState{};
        if (auto st = restore(ref, found, chosen, false); !st) return st.error();
        here = m_store.open(ref.bucket, ref.name);
        if (!here) return here.error();
    }
    auto sent = m_protector.protect(ref, here->meta, here->fd->get(), true);
    if (!sent) return sent.error();
    return OwnerState{here->meta.stamp, false};
}

api::Status EcService::restore(const api_util::ObjectRef& ref, const Survey& found, const Survey::Choice& chosen,
                               bool repair)
{
    const auto smap = m_cache.smap();
    // The newest version, whole in a scratch file, then committed here
    // as a delivered copy (its stamp kept; a newer write wins).
    api::ObjectMeta meta;
    std::shared_ptr<UniqueFd> file;
    if (const auto* copy = chosen.copy) {
        client::HttpClient http(peerOptions());
        target::CopyTransfer copies(http, m_clusterKey, smap->version);
        auto tmp = tempFile(ref);
        if (!tmp) return tmp.error();
        file = std::make_shared<UniqueFd>(std::move(tmp.value()));
        std::uint64_t at = 0;
        auto got = copies.fetch(copy->peer, ref, [&](const char* p, std::size_t n) -> api::Status {
            if (const int e = pwriteAll(file->get(), p, n, at); e != 0) return errnoError(e, "cannot keep a copy");
            at += n;
            return {};
        });
        if (!got) return got.error();
        meta = *got;
        meta.size = static_cast<std::int64_t>(at);
    } else {
        const auto& sources = chosen.slices;
        const auto need = chosen.slicesNeeded;
        if (sources.empty() || sources.size() < need) {
            return api::Error::unavailable("cannot restore \"" + ref.bucket + "/" + ref.name +
                                           "\": " + std::to_string(sources.size()) + " of the " + std::to_string(need) +
                                           " slices needed are reachable" +
                                           (found.missing.empty() ? "" : " (" + found.missingText() + ")"));
        }
        meta = sources.front()->holding.slice->object;
        auto rebuilt = rebuild(ref, meta, sources);
        if (!rebuilt) return rebuilt.error();
        file = std::move(rebuilt.value());
    }
    auto w = m_store.beginPut(ref.bucket, ref.name, target::PutParams::copyOf(meta, repair));
    if (!w) return w.error();
    auto& writer = **w;
    auto copied = copyRange(
        file->get(), 0, static_cast<std::uint64_t>(meta.size),
        [&writer](const char* p, std::size_t n) { return writer.write(p, n); }, "cannot read the restored object");
    if (!copied) return copied.error();
    if (auto c = writer.commit(); !c && !writer.superseded()) return c.error();
    return {};
}

api::Status EcService::repairOwned(const api_util::ObjectRef& ref, const api::ObjectMeta& damaged)
{
    const auto found = survey(ref, false);
    const auto chosen = found.choose();
    if (!chosen.servable || chosen.stamp != damaged.stamp) {
        return api::Error::unavailable("no slice or copy of this version of \"" + ref.bucket + "/" + ref.name +
                                       "\" on the targets that answered" +
                                       (found.missing.empty() ? "" : " (" + found.missingText() + ")"));
    }
    return restore(ref, found, chosen, true);
}

Response EcService::ensureRoute(const Request& req)
{
    auto ref = sliceRef(req, true);
    if (!ref) return Response::error(ref.error());
    auto st = ensureOwned(*ref);
    if (!st) return Response::error(st.error());
    auto r = Response::ok();
    r.header(std::string(api::kHdrVersionStamp), std::to_string(st->stamp));
    r.header(std::string(kHdrDeleted), st->deleted ? "true" : "false");
    return r;
}

}  // namespace tessera::daemon::ec
