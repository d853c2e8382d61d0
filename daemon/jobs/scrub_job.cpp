#include "scrub_job.h"

#include "object_walk.h"

#include "api/hrw.h"
#include "client/http_client.h"
#include "ec/slice_transfer.h"
#include "target/copy_transfer.h"

#include <algorithm>
#include <filesystem>
#include <vector>

namespace tessera::daemon::jobs {

namespace fs = std::filesystem;

namespace {

struct Item {
    std::size_t mountpath = 0;
    std::string bucket;
    std::string name;
    std::uint64_t size = 0;
};

std::string itemName(const Item& it) { return it.bucket + "/" + it.name; }

}  // namespace

ScrubJob::ScrubJob(const target::ObjectStore& store, target::MetaCache& cache, ec::EcService& ec, std::string selfId,
                   std::chrono::milliseconds peerTimeout, std::string clusterKey, std::string bucket)
    : m_ec(ec), m_store(store), m_cache(cache), m_selfId(std::move(selfId)), m_peerTimeout(peerTimeout),
      m_clusterKey(std::move(clusterKey)), m_bucket(std::move(bucket))
{
}

api::Status ScrubJob::run(JobContext& ctx)
{
    ctx.setPhase("scan");
    const auto bmd = m_cache.bmd();
    if (!m_bucket.empty() && bmd->find(m_bucket) == nullptr) {
        return api::Error::notFound("bucket \"" + m_bucket + "\" does not exist");
    }
    const auto& mountpaths = m_store.options().mountpaths;
    std::vector<Item> items;
    std::uint64_t totalBytes = 0;
    auto walked = walkObjects(
        mountpaths, ctx,
        [&](std::size_t mp) {
            auto chk = m_store.checkMountpath(mp);
            if (!chk) ctx.addError(chk.error().message);  // its copies cannot be read: not scrubbed
            return chk.ok();
        },
        [&](const std::string& bucket) {
            return (m_bucket.empty() || bucket == m_bucket) && bmd->find(bucket) != nullptr;
        },
        [&](const WalkedObject& o) -> api::Status {
            totalBytes += o.size;
            items.push_back({o.mountpath, o.bucket, o.name, o.size});
            return {};
        });
    if (!walked) return walked.error();
    if (!*walked) return {};  // aborted
    ctx.setTotals(static_cast<std::int64_t>(items.size()), static_cast<std::int64_t>(totalBytes));
    ctx.setPhase("verify");

    client::HttpClient::Options o;
    o.connectTimeout = m_peerTimeout;
    o.ioTimeout = std::max(m_peerTimeout, std::chrono::milliseconds(60000));
    o.followRedirects = false;
    o.retriesOn503 = 0;
    client::HttpClient http(o);
    for (const auto& it : items) {
        if (ctx.aborted()) return {};
        auto obj = m_store.openAt(it.mountpath, it.bucket, it.name);
        if (!obj) {
            if (obj.kind() == api::ErrorKind::NotFound) ctx.addDone(1, it.size);  // deleted meanwhile
            else ctx.addError(itemName(it) + ": " + obj.error().message);
            continue;
        }
        ctx.addCount("checked");
        auto st = m_store.verify(*obj);
        if (st) {
            ctx.addDone(1, it.size);
            continue;
        }
        if (st.kind() != api::ErrorKind::Corruption) {
            ctx.addError(itemName(it) + ": " + st.error().message);
            continue;
        }
        ctx.addCount("corrupt");
        // A good copy of the same version from another holder replaces it.
        const auto smap = m_cache.smap();
        const auto bmdNow = m_cache.bmd();
        const auto* props = bmdNow->find(it.bucket);
        if (props != nullptr && props->mirror.mountpathCopies() > 1) {
            // Mirrored on mountpaths: from another disk's good copy of the same version.
            bool repaired = false;
            for (const auto mp : m_store.mountpathsFor(it.bucket, it.name, props->mirror.mountpathCopies())) {
                if (mp == it.mountpath) continue;
                auto good = m_store.openAt(mp, it.bucket, it.name);
                if (!good || good->meta.stamp != obj->meta.stamp || !m_store.verify(*good)) continue;
                if (m_store.copyBetweenMountpaths(it.bucket, it.name, mp, it.mountpath, true)) {
                    repaired = true;
                    break;
                }
            }
            if (repaired) {
                ctx.addCount("repaired");
                ctx.addDone(1, it.size);
            } else {
                ctx.addCount("unrepairable");
                ctx.addError(itemName(it) + ": " + st.error().message + "; no good copy on another mountpath");
            }
            continue;
        }
        if (props != nullptr && props->ec.enabled && m_store.mountpathFor(it.bucket, it.name) == it.mountpath) {
            const auto set = api::ecTargets(*smap, props, it.bucket, it.name);
            if (!set.empty() && set.front()->id == m_selfId) {
                // Erasure coded, owned here: from a holder's copy or the slices.
                if (auto r = m_ec.repairOwned({it.bucket, it.name}, obj->meta); r) {
                    ctx.addCount("repaired");
                    ctx.addDone(1, it.size);
                } else {
                    ctx.addCount("unrepairable");
                    ctx.addError(itemName(it) + ": " + st.error().message + "; repair failed: " + r.error().message);
                }
                continue;
            }
        }
        std::vector<target::CopyPeer> holders;
        for (const auto* h : api::copyTargets(*smap, props, it.bucket, it.name)) {
            if (h->id != m_selfId && !h->away()) holders.push_back({h->id, h->publicNet.url});
        }
        if (holders.empty() || m_store.mountpathFor(it.bucket, it.name) != it.mountpath) {
            ctx.addCount("unrepairable");
            ctx.addError(itemName(it) + ": " + st.error().message +
                         (holders.empty() ? "; no other copy to repair it from" : "; it is on the wrong mountpath"));
            continue;
        }
        target::CopyTransfer copies(http, m_clusterKey, smap->version);
        std::string why;
        bool repaired = false;
        for (const auto& from : holders) {
            // The good bytes hash to the stored checksum.
            auto w = m_store.beginPut(it.bucket, it.name, target::PutParams::copyOf(obj->meta, true));
            if (!w) {
                why = w.error().message;
                break;
            }
            auto& writer = **w;
            auto got = copies.fetch(from, {it.bucket, it.name},
                                    [&writer](const char* p, std::size_t n) { return writer.write(p, n); });
            if (!got) {
                why = got.error().message;
                continue;
            }
            auto committed = writer.commit();
            if (committed || writer.superseded()) {  // superseded: a newer version replaced it meanwhile
                repaired = true;
                break;
            }
            why = "copy from target " + from.id + ": " + committed.error().message;
        }
        if (repaired) {
            ctx.addCount("repaired");
            ctx.addDone(1, it.size);
        } else {
            ctx.addCount("unrepairable");
            ctx.addError(itemName(it) + ": " + st.error().message + "; repair failed: " + why);
        }
    }
    scrubSlices(ctx, http);
    return {};
}

void ScrubJob::scrubSlices(JobContext& ctx, client::HttpClient& http)
{
    const auto smap = m_cache.smap();
    const auto bmd = m_cache.bmd();
    const auto& mountpaths = m_store.options().mountpaths;
    ec::SliceTransfer transfer(http, m_clusterKey);
    const auto coded = [&](const std::string& bucket) {
        const auto* props = bmd->find(bucket);
        return (m_bucket.empty() || bucket == m_bucket) && props != nullptr && props->ec.enabled;
    };
    (void)walkObjects(
        mountpaths, ctx, [this](std::size_t mp) { return m_store.checkMountpath(mp).ok(); },  // others reported above
        coded,
        [&](const WalkedObject& o) -> api::Status {
            const api_util::ObjectRef ref{o.bucket, o.name};
            if (m_store.mountpathFor(ref.bucket, ref.name) != o.mountpath) return {};
            auto slice = m_ec.slices().open(ref.bucket, ref.name);
            if (!slice) return {};  // gone meanwhile; unreadable metadata is never served
            ctx.setPhase("slices");
            ctx.addCount("slices_checked");
            const auto what = ref.bucket + "/" + ref.name + " (slice " + std::to_string(slice->meta.index) + ")";
            auto st = m_ec.slices().verify(*slice);
            if (st) return {};
            if (st.kind() != api::ErrorKind::Corruption) {
                ctx.addError(what + ": " + st.error().message);
                return {};
            }
            ctx.addCount("corrupt");
            // Dropped; the owner then gives every holder of its set what it lacks.
            if (auto r = m_ec.slices().removeOlder(ref.bucket, ref.name, slice->meta.object.stamp + 1); !r) {
                ctx.addCount("unrepairable");
                ctx.addError(what + ": " + st.error().message + "; cannot remove it: " + r.error().message);
                return {};
            }
            const auto set = api::ecTargets(*smap, bmd->find(ref.bucket), ref.bucket, ref.name);
            const bool inSet = std::any_of(set.begin() + (set.empty() ? 0 : 1), set.end(),
                                           [&](const api::Snode* h) { return h->id == m_selfId; });
            if (!inSet) return {};  // a leftover of an earlier placement: dropping it is the repair
            const auto* owner = set.front();
            auto sent =
                owner->id == m_selfId ? m_ec.ensureOwned(ref) : transfer.ensure({owner->id, owner->publicNet.url}, ref);
            if (!sent || !m_ec.slices().open(ref.bucket, ref.name)) {
                ctx.addCount("unrepairable");
                ctx.addError(what + ": " + st.error().message + "; not sent again by its owner, target " + owner->id +
                             (sent ? std::string() : ": " + sent.error().message));
                return {};
            }
            ctx.addCount("repaired");
            return {};
        },
        kSliceTree);
}

}  // namespace tessera::daemon::jobs
