// TargetApi's calls to its peers: the holders of a mirrored or erasure-coded
// object's copies and slices (who they are, reads sent to them, copies and
// deletions sent to them, the reconciliation of an interrupted change), the
// copies on this target's other mountpaths, and the lookup of an object a
// placement change left on another target (part of TargetApi; see
// target_api.h).
#include "target_api.h"

#include "copy_transfer.h"
#include "target_api_detail.h"

#include "api/headers.h"
#include "api/hrw.h"
#include "api/http_error.h"
#include "api/object_meta.h"
#include "client/http_client.h"
#include "common/log.h"

namespace tessera::daemon::target {

namespace {
// Asking a peer for its copy is a node's call: with auth on the peer takes
// the cluster key, not the client's redirect signature (signed for the
// client's method, not these HEADs).
client::Headers nodeHeaders(const std::string& clusterKey) { return {{std::string(api::kHdrClusterKey), clusterKey}}; }
}  // namespace

using net::Request;
using net::Response;
using namespace detail;

api::Result<std::vector<api::Snode>> TargetApi::copyHolders(const api_util::ObjectRef& ref, bool allPresent) const
{
    const auto bmd = m_cache.bmd();
    const auto* props = bmd->find(ref.bucket);
    std::vector<api::Snode> out;
    if (props == nullptr || props->mirror.targetCopies() <= 1) return out;
    const auto smap = m_cache.smap();
    for (const auto* h : api::copyTargets(*smap, props, ref.bucket, ref.name)) {
        if (h->id == m_self.id) continue;
        if (h->away()) {
            if (allPresent) {
                return api::Error::unavailable(
                    "target " + h->id + " (" + h->publicNet.url + "), which keeps a copy of the object, is " +
                    (h->inMaintenance() ? "in maintenance" : "away") + "; writes to it wait until it returns");
            }
            continue;
        }
        out.push_back(*h);
    }
    return out;
}

std::size_t TargetApi::mountpathCopies(const std::string& bucket) const
{
    const auto bmd = m_cache.bmd();
    const auto* props = bmd->find(bucket);
    return props == nullptr ? 1 : props->mirror.mountpathCopies();
}

std::optional<OpenObject> TargetApi::openMountpathCopy(const api_util::ObjectRef& ref, std::int64_t stamp) const
{
    const auto n = mountpathCopies(ref.bucket);
    if (n <= 1) return std::nullopt;
    const auto mps = m_store.mountpathsFor(ref.bucket, ref.name, n);
    // A copy a disk kept while the name was deleted (it was disabled then)
    // is older than the deletion: never served.
    const auto deleted = m_store.tombstone(ref.bucket, ref.name);
    for (std::size_t i = 1; i < mps.size(); ++i) {
        auto obj = m_store.openAt(mps[i], ref.bucket, ref.name);
        if (!obj || (deleted && *deleted >= obj->meta.stamp)) continue;
        if (stamp == 0 || obj->meta.stamp == stamp) return std::move(*obj);
    }
    return std::nullopt;
}

std::optional<Response> TargetApi::readElsewhere(const Request& req, const api_util::ObjectRef& ref)
{
    if (req.hasQuery(api::kQpCopy)) return std::nullopt;
    auto holders = copyHolders(ref, false);
    if (!holders || holders->empty()) return std::nullopt;
    auto query = req.query;
    query[std::string(api::kQpCopy)] = "true";
    return Response::redirect(holders->front().publicNet.url +
                              api_util::objectTarget(ref, query, m_cache.smap()->version));
}

Response TargetApi::copyMissing(const api_util::ObjectRef& ref, const api::Error& notFound, Serve how) const
{
    if (how == Serve::Copy) {
        auto r = Response::error(notFound);
        if (auto tomb = m_store.tombstone(ref.bucket, ref.name))
            r.header(std::string(api::kHdrTombstone), std::to_string(*tomb));
        return r;
    }
    const auto bmd = m_cache.bmd();
    const auto* props = bmd->find(ref.bucket);
    if (how == Serve::StandIn && props != nullptr && (props->mirror.pending || props->ec.pending)) {
        return Response::error(api::Error::unavailable(
            "the owner of \"" + ref.bucket + "/" + ref.name +
            "\" is away and the bucket's copies are not complete yet (a reprotect is pending); retry when it returns"));
    }
    return Response::error(notFound);
}

Response TargetApi::standInCoded(const Request& req, const api_util::ObjectRef& ref)
{
    return Response::continueOnWorker([this, &req, ref] {
        return readCoded(req, ref, true, [this, &ref] {
            return copyMissing(ref,
                               api::Error::notFound("object \"" + ref.bucket + "/" + ref.name + "\" does not exist"),
                               Serve::StandIn);
        });
    });
}

Response TargetApi::unavailableCoded(const Request& req, const api_util::ObjectRef& ref, const api::Error& why)
{
    // A suspect's newest state may be the one on this disabled mountpath
    // (restamped after an interrupted write): the holders' may be older.
    if (!m_store.intents().holdersCaughtUp(ref.bucket, ref.name)) {
        return Response::error(api::Error::unavailable("a change of \"" + ref.bucket + "/" + ref.name +
                                                       "\" was interrupted and its newest state is on this "
                                                       "target's disabled mountpath: " +
                                                       why.message));
    }
    return Response::continueOnWorker(
        [this, &req, ref, why] { return readCoded(req, ref, false, [&why] { return Response::error(why); }); });
}

ec::EcService::ServeFn TargetApi::serveCoded(const Request& req, const api_util::ObjectRef& ref)
{
    // Served as a copy: a failed validation does not ask the set again.
    return [this, &req, ref](OpenObject obj) { return serveObject(req, ref, std::move(obj), true, Serve::Copy); };
}

Response TargetApi::readCoded(const Request& req, const api_util::ObjectRef& ref, bool useLocalCopy,
                              const std::function<Response()>& otherwise)
{
    if (auto r = m_ec->read(req, ref, useLocalCopy, serveCoded(req, ref))) return std::move(*r);
    return otherwise();
}

api::Result<bool> TargetApi::deleteCopies(const api_util::ObjectRef& ref, const std::vector<api::Snode>& holders,
                                          std::int64_t stamp, bool& maybeSent)
{
    client::HttpClient http(peerOptions(m_peerTimeout));
    CopyTransfer copies(http, m_clusterKey, m_cache.smap()->version);
    bool removed = false;
    for (std::size_t i = 0; i < holders.size(); ++i) {
        const auto& node = holders[i];
        auto st = copies.remove({node.id, node.publicNet.url}, ref, stamp);
        if (st) removed = removed || *st;
        if (!st) {
            // No answer: the holder may have removed it; so have those before it.
            maybeSent = i > 0 || st.error().message.find("outcome is unknown") != std::string::npos;
            return api::Error::unavailable(
                "not deleted: the copy on target " + node.id + " (" + node.publicNet.url +
                ") could not be removed: " + st.error().message +
                (maybeSent ? "; the outcome is unknown, retry the delete" : "; nothing changed, retry the delete"));
        }
    }
    return removed;
}

std::optional<Response> TargetApi::findOnPeers(const Request& req, const api_util::ObjectRef& ref)
{
    const auto smap = m_cache.smap();
    if (req.hasQuery(kQpRelocated)) return std::nullopt;  // searched once already: a true miss
    if (req.hasQuery(kQpLocal)) {
        // A peer's search named this target, but the copy has gone since (a
        // rebalance moved it to its owner): back to the owner, once.
        const auto* owner = api::hrwTarget(*smap, api::objectUname(ref.bucket, ref.name));
        if (owner == nullptr || owner->id == m_self.id) return std::nullopt;
        auto query = req.query;
        query.erase(std::string(kQpLocal));
        query[std::string(kQpRelocated)] = "true";
        return Response::redirect(owner->publicNet.url + api_util::objectTarget(ref, query, smap->version));
    }
    client::HttpClient http(peerOptions(m_peerTimeout));
    auto query = req.query;
    query[std::string(kQpLocal)] = "true";
    const auto target = api_util::objectTarget(ref, query, smap->version);
    for (const auto& [id, node] : smap->tmap) {
        if (id == m_self.id || node.away()) continue;
        auto r = http.send(client::Method::Head, node.publicNet.url + target, {}, nodeHeaders(m_clusterKey));
        if (r && r->status == 200) return Response::redirect(node.publicNet.url + target);
    }
    return std::nullopt;
}

std::vector<api::Snode> TargetApi::peersHolding(const api_util::ObjectRef& ref)
{
    const auto smap = m_cache.smap();
    client::HttpClient http(peerOptions(m_peerTimeout));
    const auto target = api_util::objectTarget(
        ref, {{std::string(kQpLocal), "true"}, {std::string(kQpRelocated), "true"}}, smap->version);
    std::vector<api::Snode> out;
    for (const auto& [id, node] : smap->tmap) {
        if (id == m_self.id || node.away()) continue;
        auto r = http.send(client::Method::Head, node.publicNet.url + target, {}, nodeHeaders(m_clusterKey));
        if (r && r->status == 200) out.push_back(node);
    }
    return out;
}

std::optional<api::Error> TargetApi::awayPeer(const api_util::ObjectRef& ref) const
{
    const auto smap = m_cache.smap();
    const auto bmd = m_cache.bmd();
    const auto* props = bmd->find(ref.bucket);
    // A mirrored bucket whose copies are complete: a name missing here is
    // only possibly elsewhere on the targets that hold its copies.
    if (props != nullptr && props->mirror.targetCopies() > 1 && !props->mirror.pending) {
        for (const auto* h : api::copyTargets(*smap, props, ref.bucket, ref.name)) {
            if (h->id != m_self.id && h->away()) {
                return api::Error::unavailable("not found on this target, and target " + h->id + " (" +
                                               h->publicNet.url + "), which holds a copy of it, is " +
                                               (h->inMaintenance() ? "in maintenance" : "away"));
            }
        }
        return std::nullopt;
    }
    for (const auto& [id, node] : smap->tmap) {
        if (id != m_self.id && node.away()) {
            return api::Error::unavailable("not found on this target, and target " + id + " (" + node.publicNet.url +
                                           "), which may still hold it after a placement change, is " +
                                           (node.inMaintenance() ? "in maintenance" : "away"));
        }
    }
    return std::nullopt;
}

api::Status TargetApi::pullFromPeer(const api_util::ObjectRef& ref)
{
    if (m_store.tombstone(ref.bucket, ref.name)) return {};  // deleted here: a new shard starts
    if (auto here = m_store.open(ref.bucket, ref.name); here || here.kind() != api::ErrorKind::NotFound) {
        return here ? api::Status{} : api::Status{here.error()};
    }
    const auto holders = peersHolding(ref);
    if (holders.empty()) {
        if (auto away = awayPeer(ref)) return *away;
        return {};
    }
    const std::string url = holders.front().publicNet.url;
    // A whole shard comes over: a longer read timeout than a control call.
    client::HttpClient http(peerOptions(m_peerTimeout, std::max(m_peerTimeout, std::chrono::milliseconds(60000))));
    const auto smap = m_cache.smap();
    const auto target = api_util::objectTarget(
        ref, {{std::string(kQpLocal), "true"}, {std::string(kQpRelocated), "true"}}, smap->version);
    auto head = http.send(client::Method::Head, url + target, {}, nodeHeaders(m_clusterKey));
    if (!head || head->status != 200) return {};  // gone meanwhile (moved here by the rebalance)
    std::int64_t stamp = 0;
    if (!parseInt64(head->header(std::string(api::kHdrVersionStamp)), stamp) || stamp <= 0) {
        return api::Error::unavailable("peer " + url + " sent no version stamp for " + ref.bucket + "/" + ref.name);
    }
    PutParams params;
    params.transferStamp = stamp;
    params.transferVersion = head->header(std::string(api::kHdrVersion));
    params.expectedChecksum = head->header(std::string(api::kHdrChecksumValue));
    if (auto md = head->header(std::string(api::kHdrCustomMd)); !md.empty()) {
        if (auto parsed = api::parseCustomMd(md)) params.custom = std::move(parsed.value());
    }
    auto w = m_store.beginPut(ref.bucket, ref.name, std::move(params));
    if (!w) return w.error();
    auto& writer = **w;
    const client::Sink sink = [&writer](const char* p, std::size_t n) { return writer.write(p, n); };
    auto got = http.send(client::Method::Get, url + target, client::Body::none(), nodeHeaders(m_clusterKey), &sink);
    if (!got)
        return api::Error::unavailable("cannot copy " + ref.bucket + "/" + ref.name + " from " + url + ": " +
                                       got.error().message);
    if (got->status != 200) return {};  // moved meanwhile
    auto meta = writer.commit();
    if (!meta && !writer.superseded()) return meta.error();
    return {};
}

api::Status TargetApi::sendCopies(const api_util::ObjectRef& ref, const std::vector<api::Snode>& holders,
                                  const api::ObjectMeta& meta, int fd, bool& maybeSent)
{
    // A copy is a whole object: a data transfer's read timeout.
    client::HttpClient http(peerOptions(m_peerTimeout, std::max(m_peerTimeout, std::chrono::milliseconds(60000))));
    CopyTransfer copies(http, m_clusterKey, m_cache.smap()->version);
    for (std::size_t i = 0; i < holders.size(); ++i) {
        const auto& node = holders[i];
        if (auto st = copies.send({node.id, node.publicNet.url}, ref, meta, fd); !st) {
            // A holder that answered with an error stored nothing; one that
            // did not answer may have, and so have the holders before it.
            const bool unknown = i > 0 || st.error().message.find("outcome is unknown") != std::string::npos;
            maybeSent = unknown;
            if (unknown) {
                return api::Error::unavailable(
                    "not acknowledged: " + st.error().message +
                    (i > 0 ? "; other holders keep the new version: the outcome is unknown" : "") +
                    "; retry the write (the copies are reconciled before the object is served again)");
            }
            return api::Error::unavailable("not stored, nothing changed: " + st.error().message + "; retry the write");
        }
    }
    return {};
}

api::Result<bool> TargetApi::reconcile(const api_util::ObjectRef& ref, std::chrono::milliseconds wait)
{
    // Never beside a change of the name: its restamp would make this
    // target's older state newer than the change's version.
    bool waited = false;
    if (!m_store.intents().beginReconcile(ref.bucket, ref.name, wait, &waited)) {
        return api::Error::conflict("a change of \"" + ref.bucket + "/" + ref.name +
                                    "\" is in flight (or being reconciled): compared once it ends");
    }
    struct Done {
        IntentStore& intents;
        const api_util::ObjectRef& ref;
        ~Done() { intents.endReconcile(ref.bucket, ref.name); }
    } done{m_store.intents(), ref};
    // Settled meanwhile by the change or reconciliation waited for.
    if (waited && !m_store.intents().suspect(ref.bucket, ref.name)) return true;
    return reconcileHeld(ref);
}

api::Result<bool> TargetApi::reconcileHeld(const api_util::ObjectRef& ref)
{
    const auto bmd = m_cache.bmd();
    const auto* props = bmd->find(ref.bucket);
    if (coded(ref.bucket)) {
        // Erasure coded: a holder away does not keep this target's state
        // from being served (it is restamped, newer than the away holder's).
        auto done = m_ec->reconcile(ref, m_store.intents().mustCompare(ref.bucket, ref.name));
        if (!done) return done.error();
        using R = ec::EcService::Reconciled;
        if (*done == R::Settled) m_store.intents().settle(ref.bucket, ref.name);
        // Pinned or open: the holders that answered keep this target's state now.
        if (*done != R::Settled) m_store.intents().pinCaughtUp(ref.bucket, ref.name);
        return *done != R::Open || !m_store.intents().mustCompare(ref.bucket, ref.name);
    }
    if (props == nullptr || props->mirror.targetCopies() <= 1) {
        m_store.intents().settle(ref.bucket, ref.name);  // no copies (any more)
        return true;
    }
    const auto smap = m_cache.smap();
    std::vector<CopyPeer> holders;
    std::optional<api::Error> away;
    for (const auto* h : api::copyTargets(*smap, props, ref.bucket, ref.name)) {
        if (h->id == m_self.id) continue;
        if (h->away()) {
            if (!away) {
                away =
                    api::Error::unavailable("target " + h->id + " (" + h->publicNet.url + "), which keeps a copy, is " +
                                            (h->inMaintenance() ? "in maintenance" : "away"));
            }
            continue;
        }
        holders.push_back({h->id, h->publicNet.url});
    }
    client::HttpClient http(peerOptions(m_peerTimeout, std::max(m_peerTimeout, std::chrono::milliseconds(60000))));
    CopyTransfer copies(http, m_clusterKey, smap->version);
    auto done = reconcileCopies(m_store, copies, ref, holders);
    if (!done) return done.error();
    if (done->tookFromHolder) {
        logInfo("reconciled ", ref.bucket, "/", ref.name, ": took the newer state of a holder");
    }
    if (away) return false;
    m_store.intents().settle(ref.bucket, ref.name);
    return true;
}

std::size_t TargetApi::reconcileSuspects()
{
    if (!m_store.intents().anySuspect() || m_cache.smap()->tmap.empty()) return 0;
    std::size_t left = 0;
    for (const auto& [bucket, name] : m_store.intents().suspects()) {
        if (auto st = reconcile({bucket, name}); !st && st.kind() != api::ErrorKind::Conflict) {
            logWarn("cannot reconcile the copies of ", bucket, "/", name, " yet: ", st.error().message);
        }
        if (m_store.intents().suspect(bucket, name)) ++left;
    }
    return left;
}

std::optional<api::Error> TargetApi::reconcileBeforeServing(const api_util::ObjectRef& ref)
{
    // A change of the name in flight, or a reconciliation of it, is waited
    // for (a write's or a delete's own transfers: a few peer timeouts).
    auto done = reconcile(ref, 3 * m_peerTimeout);
    if (done && *done) return std::nullopt;
    // A holder that could not be asked may keep a newer state than this
    // target: serving this one could show a state going back later.
    std::string why = done ? "a holder is away" : done.error().message;
    if (done) {
        const auto smap = m_cache.smap();
        const auto bmd = m_cache.bmd();
        for (const auto* h : api::readTargets(*smap, bmd->find(ref.bucket), ref.bucket, ref.name)) {
            if (h->id != m_self.id && h->away()) {
                why = "target " + h->id + " (" + h->publicNet.url + "), which keeps a copy or a slice, is away";
                break;
            }
        }
    }
    return api::Error::unavailable("a change of \"" + ref.bucket + "/" + ref.name +
                                   "\" was interrupted and its copies cannot be compared yet (" + why +
                                   "); retry shortly");
}

}  // namespace tessera::daemon::target
