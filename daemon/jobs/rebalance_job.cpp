#include "rebalance_job.h"

#include "object_walk.h"

#include "ec/ec_protector.h"
#include "ec/slice_transfer.h"
#include "target/copy_transfer.h"

#include "api/headers.h"
#include "api/hrw.h"
#include "api/http_error.h"
#include "api/object_meta.h"
#include "client/http_client.h"
#include "common/fd_io.h"
#include "common/log.h"
#include "net/request_params.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <unistd.h>
#include <vector>

namespace tessera::daemon::jobs {

namespace fs = std::filesystem;

namespace {

struct Item {
    std::size_t mountpath = 0;
    std::string bucket;
    std::string name;
    std::uint64_t size = 0;
    std::string ownerUrl;  // empty: stays on this target, moves to another mountpath
    // This target owns a mirrored object: the other holders of its copies.
    std::vector<target::CopyPeer> copyHolders;
    // This target holds a copy of a mirrored object owned by another: the
    // owner, asked whether the copy is still wanted.
    std::optional<target::CopyPeer> owner;
    // This target owns an erasure-coded object: its slices (or copies) are checked.
    bool ecOwned = false;
    // A bucket mirrored on mountpaths: the copies this target keeps of it.
    std::size_t mountpathCopies = 1;
    // A copy on another mountpath of the set whose name's own file is gone
    // (its disk replaced): put back from this one.
    bool restoresOwnFile = false;
    bool move = true;  // false: only the copies are checked
};

std::string itemName(const Item& it) { return it.bucket + "/" + it.name; }

// Streams the copy on its old mountpath into the right one, then removes
// the old. The copy keeps its version; whichever of it and a copy already
// in the right place is newer stays (decided at commit, under the name's lock).
api::Status moveLocally(const target::ObjectStore& store, const Item& it)
{
    auto src = store.openAt(it.mountpath, it.bucket, it.name);
    if (!src) return src.error();
    // Bad bytes fail the move, never get a new checksum.
    auto w = store.beginPut(it.bucket, it.name, target::PutParams::copyOf(src->meta));
    if (!w) return w.error();
    auto& writer = **w;
    if (auto st = copyToEnd(
            src->fd->get(), 0, [&writer](const char* p, std::size_t n) { return writer.write(p, n); },
            "cannot read " + itemName(it));
        !st) {
        return st;
    }
    auto committed = (*w)->commit();
    if (!committed && !(*w)->superseded()) return committed.error();
    return store.removeIfStamp(it.mountpath, it.bucket, it.name, src->meta.stamp);
}

// The owner of a mirrored object and its holders end with the newest state
// any of them has: the owner takes a holder's newer version or deletion (a
// change interrupted after it reached the holders), then each holder behind
// gets it. Once every holder answered, the name is no longer a suspect.
api::Status protect(const target::ObjectStore& store, target::CopyTransfer& copies, const Item& it, JobContext& ctx)
{
    const api_util::ObjectRef ref{it.bucket, it.name};
    auto done = target::reconcileCopies(store, copies, ref, it.copyHolders);
    if (!done) return done.error();
    if (done->holdersUpdated > 0) ctx.addCount("copies_sent", static_cast<std::uint64_t>(done->holdersUpdated));
    if (done->tookFromHolder) ctx.addCount("copies_taken_from_holders");
    store.intents().settle(it.bucket, it.name);
    return {};
}

// A bucket mirrored on mountpaths: each mountpath of the name's copy set
// keeps this version (or a newer one).
api::Status protectOnMountpaths(const target::ObjectStore& store, const Item& it, JobContext& ctx)
{
    const auto mps = store.mountpathsFor(it.bucket, it.name, it.mountpathCopies);
    auto here = store.openAt(mps.front(), it.bucket, it.name);
    if (!here) return here.kind() == api::ErrorKind::NotFound ? api::Status{} : api::Status{here.error()};
    for (std::size_t i = 1; i < mps.size(); ++i) {
        if (!store.checkMountpath(mps[i])) continue;  // a disabled disk: the next reprotect after it returns
        auto there = store.openAt(mps[i], it.bucket, it.name);
        if (there && there->meta.stamp >= here->meta.stamp) continue;
        if (auto st = store.copyBetweenMountpaths(it.bucket, it.name, mps.front(), mps[i]); !st) return st;
        ctx.addCount("mountpath_copies_made");
    }
    return {};
}

// A holder of a copy asks its owner: a copy the owner has (any version) is
// the owner's to update; a copy the owner deleted, or took back after its
// PUT failed (a tombstone at least as new), goes; a copy the owner lacks
// with no such tombstone (its disk was replaced) is sent back to it.
api::Status checkWithOwner(const target::ObjectStore& store, target::CopyTransfer& copies, const Item& it,
                           JobContext& ctx)
{
    const auto mp = store.mountpathFor(it.bucket, it.name);
    auto src = store.openAt(mp, it.bucket, it.name);
    if (!src) return src.kind() == api::ErrorKind::NotFound ? api::Status{} : api::Status{src.error()};
    const api_util::ObjectRef ref{it.bucket, it.name};
    auto there = copies.stateAt(*it.owner, ref);
    if (!there) return there.error();
    if (there->stamp) return {};
    if (there->tombstone && *there->tombstone >= src->meta.stamp) {
        auto st = store.removeIfStamp(mp, it.bucket, it.name, src->meta.stamp);
        if (!st && st.kind() != api::ErrorKind::NotFound && st.kind() != api::ErrorKind::Conflict) return st;
        ctx.addCount("copies_dropped");
        return {};
    }
    if (auto st = copies.sendToOwner(*it.owner, ref, src->meta, src->fd->get()); !st) return st;
    ctx.addCount("copies_restored");
    return {};
}

// The owner of an erasure-coded object makes sure each holder of its set
// keeps its slice (or copy) of this version or a newer one.
api::Status protectCoded(const target::ObjectStore& store, ec::EcProtector& protector, const Item& it, JobContext& ctx)
{
    auto src = store.openUncached(it.bucket, it.name);
    if (!src) return src.kind() == api::ErrorKind::NotFound ? api::Status{} : api::Status{src.error()};
    auto sent = protector.protect({it.bucket, it.name}, src->meta, src->fd->get(), true);
    if (!sent) return sent.error();
    if (sent->slices > 0) ctx.addCount("slices_sent", static_cast<std::uint64_t>(sent->slices));
    if (sent->copies > 0) ctx.addCount("copies_sent", static_cast<std::uint64_t>(sent->copies));
    return {};
}

}  // namespace

RebalanceJob::RebalanceJob(const target::ObjectStore& store, target::MetaCache& cache, ec::EcService& ec,
                           std::string selfId, std::chrono::milliseconds peerTimeout, std::string clusterKey,
                           std::string bucket)
    : m_ec(ec), m_store(store), m_cache(cache), m_selfId(std::move(selfId)), m_peerTimeout(peerTimeout),
      m_clusterKey(std::move(clusterKey)), m_bucket(std::move(bucket))
{
}

api::Status RebalanceJob::run(JobContext& ctx)
{
    Pass pass;
    if (auto st = runPass(ctx, pass); !st) return st;
    // A leaving target's rebalance is what empties it, and the proxy removes
    // it once the job ended clean: what reached it after the walk (a write
    // already under way when the map changed, a copy from a peer with an
    // older map) is moved by another walk, until one finds nothing.
    for (int i = 1; leaving() && pass.found > 0 && pass.failed == 0 && !ctx.aborted(); ++i) {
        if (i == kLeavingPasses) {
            ctx.addError(std::to_string(pass.found) + " object(s) still arrived on this decommissioning target after " +
                         std::to_string(kLeavingPasses) + " walks");
            break;
        }
        pass = {};
        if (auto st = runPass(ctx, pass); !st) return st;
    }
    // Tombstones only need to outlive the copies in flight.
    m_store.sweepTombstones();
    return {};
}

bool RebalanceJob::leaving() const
{
    const auto* self = m_cache.smap()->findTarget(m_selfId);
    return self != nullptr && self->decommissioning();
}

api::Status RebalanceJob::runPass(JobContext& ctx, Pass& pass)
{
    const auto fail = [&](const std::string& what) {
        ++pass.failed;
        ctx.addError(what);
    };
    ctx.setPhase("scan");
    const auto smap = m_cache.smap();
    const auto bmd = m_cache.bmd();
    if (smap->tmap.empty()) return api::Error::unavailable("this target has no cluster map yet");
    if (!m_bucket.empty() && bmd->find(m_bucket) == nullptr) {
        return api::Error::notFound("bucket \"" + m_bucket + "\" does not exist");
    }
    const auto& mountpaths = m_store.options().mountpaths;
    std::vector<Item> items;
    std::uint64_t totalBytes = 0;
    auto walked = walkObjects(
        mountpaths, ctx, [](std::size_t) { return true; },
        [&](const std::string& bucket) {
            // Leftovers of a destroyed bucket are not moved (the next create clears them).
            return (m_bucket.empty() || bucket == m_bucket) && bmd->find(bucket) != nullptr;
        },
        [&](const WalkedObject& o) -> api::Status {
            Item item;
            item.mountpath = o.mountpath;
            item.bucket = o.bucket;
            item.name = o.name;
            item.size = o.size;
            const auto& bucket = o.bucket;
            const auto* props = bmd->find(bucket);
            const auto holders = api::copyTargets(*smap, props, bucket, item.name);
            if (holders.empty()) return api::Error::unavailable("no targets in the cluster map");
            bool held =
                std::any_of(holders.begin(), holders.end(), [&](const api::Snode* h) { return h->id == m_selfId; });
            if (props->ec.enabled) {
                // Erasure coded: the next P targets keep whole copies of small objects.
                const auto set = api::ecTargets(*smap, props, bucket, item.name);
                item.ecOwned = !set.empty() && set.front()->id == m_selfId;
                const auto copyEnd = set.begin() + std::min<std::ptrdiff_t>(static_cast<std::ptrdiff_t>(set.size()),
                                                                            props->ec.paritySlices + 1);
                held =
                    held || std::any_of(set.begin(), copyEnd, [&](const api::Snode* h) { return h->id == m_selfId; });
            }
            if (!held) {
                item.ownerUrl = holders.front()->publicNet.url;
            } else {
                item.move = m_store.mountpathFor(bucket, item.name) != o.mountpath;
                if (const auto n = props->mirror.mountpathCopies(); n > 1) {
                    const auto mps = m_store.mountpathsFor(bucket, item.name, n);
                    // A copy on another mountpath of the set stays where it is;
                    // the name's own file makes sure every copy is there.
                    if (item.move && std::find(mps.begin(), mps.end(), o.mountpath) != mps.end()) {
                        const auto own = m_store.openAt(mps.front(), bucket, item.name);
                        if (own || own.kind() != api::ErrorKind::NotFound ||
                            m_store.tombstone(bucket, item.name).has_value()) {
                            return {};
                        }
                        item.move = false;
                        item.restoresOwnFile = true;
                    }
                    if (!item.move) item.mountpathCopies = n;
                }
                if (holders.front()->id == m_selfId) {
                    for (std::size_t i = 1; i < holders.size(); ++i) {
                        item.copyHolders.push_back({holders[i]->id, holders[i]->publicNet.url});
                    }
                } else if (props->mirror.targetCopies() > 1) {
                    item.owner = target::CopyPeer{holders.front()->id, holders.front()->publicNet.url};
                }
                if (!item.move && item.copyHolders.empty() && !item.owner && !item.ecOwned &&
                    item.mountpathCopies <= 1 && !item.restoresOwnFile) {
                    return {};  // where it belongs
                }
            }
            totalBytes += item.size;
            items.push_back(std::move(item));
            return {};
        });
    if (!walked) return walked.error();
    if (!*walked) return {};  // aborted
    pass.found = items.size();
    m_objectsTotal += static_cast<std::int64_t>(items.size());
    m_bytesTotal += static_cast<std::int64_t>(totalBytes);
    ctx.setTotals(m_objectsTotal, m_bytesTotal);
    ctx.setPhase("move");

    client::HttpClient::Options o;
    o.connectTimeout = m_peerTimeout;
    o.ioTimeout = std::max(m_peerTimeout, std::chrono::milliseconds(60000));
    client::HttpClient http(o);
    target::CopyTransfer copies(http, m_clusterKey, smap->version);
    ec::EcProtector ecProtector(m_store, m_cache, m_selfId, m_peerTimeout, m_clusterKey);
    for (const auto& it : items) {
        if (ctx.aborted()) return {};
        if (it.ownerUrl.empty()) {
            if (it.move) {
                auto st = moveLocally(m_store, it);
                if (!st && st.kind() != api::ErrorKind::NotFound) {
                    fail(itemName(it) + ": " + st.error().message);
                    continue;
                }
            }
            if (!it.copyHolders.empty() || it.owner) {
                ctx.setPhase("protect");
                auto st = it.owner ? checkWithOwner(m_store, copies, it, ctx) : protect(m_store, copies, it, ctx);
                if (!st) {
                    fail(itemName(it) + ": " + st.error().message);
                    continue;
                }
            }
            if (it.restoresOwnFile) {
                ctx.setPhase("protect");
                const auto own = m_store.mountpathFor(it.bucket, it.name);
                if (auto st = m_store.copyBetweenMountpaths(it.bucket, it.name, it.mountpath, own); !st) {
                    ctx.addError(itemName(it) + ": " + st.error().message);
                    continue;
                }
                ctx.addCount("mountpath_copies_made");
            }
            if (it.mountpathCopies > 1) {
                ctx.setPhase("protect");
                if (auto st = protectOnMountpaths(m_store, it, ctx); !st) {
                    ctx.addError(itemName(it) + ": " + st.error().message);
                    continue;
                }
            }
            if (it.ecOwned) {
                ctx.setPhase("protect");
                if (auto st = protectCoded(m_store, ecProtector, it, ctx); !st) {
                    fail(itemName(it) + ": " + st.error().message);
                    continue;
                }
            }
            ctx.addDone(1, it.size);
            continue;
        }
        auto src = m_store.openAt(it.mountpath, it.bucket, it.name);
        if (!src) {
            if (src.kind() == api::ErrorKind::NotFound) ctx.addDone(1, it.size);  // deleted meanwhile
            else fail(itemName(it) + ": " + src.error().message);
            continue;
        }
        client::Headers headers;
        headers.emplace_back(std::string(api::kHdrVersionStamp), std::to_string(src->meta.stamp));
        headers.emplace_back(std::string(api::kHdrVersion), src->meta.version);
        if (!src->meta.checksumValue.empty()) {
            headers.emplace_back(std::string(api::kHdrChecksumType), src->meta.checksumType);
            headers.emplace_back(std::string(api::kHdrChecksumValue), src->meta.checksumValue);
        }
        if (!src->meta.custom.empty()) {
            headers.emplace_back(std::string(api::kHdrCustomMd), api::formatCustomMd(src->meta.custom));
        }
        const auto url =
            it.ownerUrl +
            api_util::objectTarget({it.bucket, it.name}, {{std::string(api::kQpRebalance), "true"}}, smap->version);
        const auto path = m_store.bucketRoot(it.mountpath, it.bucket) + "/" + it.name;
        auto r = http.send(client::Method::Put, url, client::Body::file(path), headers);
        if (!r) {
            fail(itemName(it) + ": " + r.error().message);
            continue;
        }
        // The copy here goes only once the owner confirmed it holds this
        // version (same checksum and stamp), or a newer one: a 200 alone
        // proves nothing.
        const bool superseded = r->isSuccess() && r->header("tessera-transfer") == "superseded";
        const bool confirmed = r->isSuccess() &&
                               r->header(std::string(api::kHdrVersionStamp)) == std::to_string(src->meta.stamp) &&
                               r->header(std::string(api::kHdrChecksumValue)) == src->meta.checksumValue;
        if (!superseded && !confirmed) {
            const auto why = r->isSuccess() ? std::string("the owner did not confirm the copy")
                                            : api::errorFromResponse(r->status, r->body).message;
            fail(itemName(it) + ": " + why + " (HTTP " + std::to_string(r->status) + "); this target keeps it");
            continue;
        }
        auto st = m_store.removeIfStamp(it.mountpath, it.bucket, it.name, src->meta.stamp);
        if (!st && st.kind() != api::ErrorKind::NotFound && st.kind() != api::ErrorKind::Conflict) {
            fail(itemName(it) + ": moved, but the old copy stays: " + st.error().message);
            continue;
        }
        ctx.addDone(1, it.size);
    }
    checkSlices(ctx, http);
    return {};
}

void RebalanceJob::checkSlices(JobContext& ctx, client::HttpClient& http)
{
    const auto smap = m_cache.smap();
    const auto bmd = m_cache.bmd();
    const auto& mountpaths = m_store.options().mountpaths;
    ec::SliceTransfer transfer(http, m_clusterKey);
    bool phaseSet = false;
    const auto coded = [&](const std::string& bucket) {
        const auto* props = bmd->find(bucket);
        return (m_bucket.empty() || bucket == m_bucket) && props != nullptr && props->ec.enabled;
    };
    // Ends early (an error) only when the map has no targets.
    (void)walkObjects(
        mountpaths, ctx, [](std::size_t) { return true; }, coded,
        [&](const WalkedObject& o) -> api::Status {
            const api_util::ObjectRef ref{o.bucket, o.name};
            // Not where this target reads slices.
            if (m_store.mountpathFor(ref.bucket, ref.name) != o.mountpath) return {};
            auto slice = m_ec.slices().open(ref.bucket, ref.name);
            if (!slice) return {};  // gone meanwhile, or unreadable (never served)
            if (!phaseSet) {
                ctx.setPhase("slices");
                phaseSet = true;
            }
            const auto set = api::ecTargets(*smap, bmd->find(ref.bucket), ref.bucket, ref.name);
            if (set.empty()) return api::Error::unavailable("no targets in the cluster map");
            const auto* owner = set.front();
            const auto what = ref.bucket + "/" + ref.name + " (slice " + std::to_string(slice->meta.index) + ")";
            if (owner->away()) {
                ctx.addError(what + ": its owner, target " + owner->id + ", is away");
                return {};
            }
            auto st =
                owner->id == m_selfId ? m_ec.ensureOwned(ref) : transfer.ensure({owner->id, owner->publicNet.url}, ref);
            if (!st) {
                ctx.addError(what + ": " + st.error().message);
                return {};
            }
            ctx.addCount("slices_checked");
            const bool inSet =
                std::any_of(set.begin() + 1, set.end(), [&](const api::Snode* h) { return h->id == m_selfId; });
            // Deleted, or kept (and protected) by its set without this target.
            const bool drop = st->stamp > 0 && (st->deleted || !inSet);
            if (drop && slice->meta.object.stamp <= st->stamp) {
                if (auto r = m_ec.slices().removeOlder(ref.bucket, ref.name, st->stamp + 1); !r) {
                    ctx.addError(what + ": " + r.error().message);
                    return {};
                }
                ctx.addCount("slices_dropped");
            }
            return {};
        },
        kSliceTree);
}

}  // namespace tessera::daemon::jobs
