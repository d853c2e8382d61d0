#include "ec_protector.h"

#include "ec_codec.h"
#include "ec_stream.h"
#include "slice_transfer.h"

#include "api/hrw.h"
#include "client/http_client.h"
#include "common/fd_io.h"
#include "target/copy_transfer.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <fcntl.h>
#include <functional>
#include <thread>

namespace tessera::daemon::ec {

namespace {

target::CopyPeer peerOf(const api::Snode& n) { return {n.id, n.publicNet.url}; }

// At most this many transfers of one object at a time (a 16+8 code has 24).
constexpr std::size_t kParallelSends = 8;

// Runs every task, up to kParallelSends at once, each thread with its own
// client (a client is used by one thread at a time); the first error in
// task order, or OK. `anyStored`: some holder took its transfer, or may
// have (no answer).
api::Status runParallel(const std::vector<std::function<api::Status(client::HttpClient&)>>& tasks,
                        const client::HttpClient::Options& options, bool* anyStored)
{
    std::vector<api::Status> results(tasks.size());
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
        client::HttpClient http(options);
        for (std::size_t i = next++; i < tasks.size(); i = next++) results[i] = tasks[i](http);
    };
    std::vector<std::thread> threads;
    const auto n = std::min(tasks.size(), kParallelSends);
    for (std::size_t t = 1; t < n; ++t) threads.emplace_back(work);
    work();  // this thread takes a share too
    for (auto& t : threads) t.join();
    if (anyStored != nullptr) {
        for (const auto& r : results) {
            if (r || r.error().message.find("outcome is unknown") != std::string::npos) *anyStored = true;
        }
    }
    for (auto& r : results) {
        if (!r) return r;
    }
    return {};
}

}  // namespace

api::Result<UniqueFd> scratchFile(const target::ObjectStore& store, const api_util::ObjectRef& ref)
{
    auto fd = store.openTempFile(ref.bucket, ref.name);
    if (fd) return fd;
    // The name's mountpath is disabled (maybe why the object is rebuilt): another.
    for (std::size_t mp = 0; mp < store.options().mountpaths.size(); ++mp) {
        if (!store.checkMountpath(mp)) continue;
        const auto dir = store.options().mountpaths[mp] + "/.tessera/work";
        UniqueFd other(::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
        if (other.valid()) return other;
    }
    return fd.error();
}

EcProtector::EcProtector(const target::ObjectStore& store, target::MetaCache& cache, std::string selfId,
                         std::chrono::milliseconds peerTimeout, std::string clusterKey)
    : m_store(store), m_cache(cache), m_selfId(std::move(selfId)), m_peerTimeout(peerTimeout),
      m_clusterKey(std::move(clusterKey))
{
}

client::HttpClient::Options EcProtector::peerOptions() const
{
    client::HttpClient::Options o;
    o.connectTimeout = m_peerTimeout;
    // Slices and copies are data transfers: a data transfer's read timeout.
    o.ioTimeout = std::max(m_peerTimeout, std::chrono::milliseconds(60000));
    o.followRedirects = false;
    o.retriesOn503 = 0;
    return o;
}

api::Result<std::vector<api::Snode>> EcProtector::holders(const api_util::ObjectRef& ref, bool allPresent) const
{
    const auto smap = m_cache.smap();
    const auto bmd = m_cache.bmd();
    const auto* props = bmd->find(ref.bucket);
    const auto set = api::ecTargets(*smap, props, ref.bucket, ref.name);
    if (props != nullptr && set.size() < props->ec.targets()) {
        return api::Error::unavailable("the bucket's erasure coding needs " + std::to_string(props->ec.targets()) +
                                       " targets, the cluster map has " + std::to_string(smap->placementTargetCount()) +
                                       " that can hold slices (not decommissioning)");
    }
    std::vector<api::Snode> out;
    for (const auto* h : set) {
        if (h->id == m_selfId) continue;
        if (h->away() && allPresent) {
            return api::Error::unavailable("target " + h->id + " (" + h->publicNet.url +
                                           "), which keeps a slice or a copy of the object, is away; writes to it "
                                           "wait until it returns");
        }
        out.push_back(*h);
    }
    return out;
}

api::Result<EcProtector::Sent> EcProtector::protect(const api_util::ObjectRef& ref, const api::ObjectMeta& meta, int fd,
                                                    bool onlyMissing, bool* anyStored, bool presentOnly)
{
    Sent sent;
    const auto bmd = m_cache.bmd();
    const auto* props = bmd->find(ref.bucket);
    if (props == nullptr || !props->ec.enabled) return sent;
    const auto ec = props->ec;
    auto set = holders(ref, !presentOnly);
    if (!set) return set.error();
    const auto smap = m_cache.smap();
    const auto all = api::ecTargets(*smap, props, ref.bucket, ref.name);
    if (all.empty() || all.front()->id != m_selfId) {
        return api::Error::unavailable("this target is not the first of the object's targets any more");
    }
    client::HttpClient http(peerOptions());
    // The transfers, sent in parallel once each holder was asked.
    std::vector<std::function<api::Status(client::HttpClient&)>> tasks;
    // What an older version left on holders that this one does not
    // replace in place: a fresh write asks this target's current version
    // (about to be replaced), a reprotect asks each holder.
    const auto before =
        onlyMissing ? api::Result<api::ObjectMeta>(api::Error::notFound("")) : m_store.stat(ref.bucket, ref.name);
    const bool beforeUnknown = !onlyMissing && !before && before.kind() != api::ErrorKind::NotFound;
    if (!ec.sliced(meta.size)) {
        // Small: whole copies on the next P targets, as mirroring makes them.
        target::CopyTransfer copies(http, m_clusterKey, smap->version);
        for (int i = 0; i < ec.paritySlices; ++i) {
            if (presentOnly && (*set)[static_cast<std::size_t>(i)].away()) continue;
            const auto peer = peerOf((*set)[static_cast<std::size_t>(i)]);
            if (onlyMissing) {
                auto there = copies.stateAt(peer, ref);
                if (!there) return there.error();
                if (there->stamp && *there->stamp >= meta.stamp) continue;
            }
            ++sent.copies;
            tasks.push_back([this, peer, &ref, &meta, fd, version = smap->version](client::HttpClient& h) {
                return target::CopyTransfer(h, m_clusterKey, version).send(peer, ref, meta, fd);
            });
        }
        if (auto st = runParallel(tasks, peerOptions(), anyStored); !st) return st.error();
        // The holders past the first P keep no copy of a small version; a
        // slice of an older large one there goes, so that a stand-in never
        // rebuilds it (and a listing never shows it) once this version is
        // deleted or lost. Only now that every copy is kept: until then
        // those slices may be what the version this one replaces is read
        // from while this target is away (an interrupted overwrite). And
        // before the version is acknowledged: an older slice left there
        // proves that it never was (Survey::choose). Needed after a large
        // version only.
        if (!onlyMissing && !beforeUnknown && (!before || !ec.sliced(before->size))) return sent;
        tasks.clear();
        const auto slicesHeld = static_cast<std::size_t>(ec.dataSlices + ec.paritySlices);
        for (std::size_t i = static_cast<std::size_t>(ec.paritySlices); i < slicesHeld && i < set->size(); ++i) {
            if (presentOnly && (*set)[i].away()) continue;
            tasks.push_back([this, peer = peerOf((*set)[i]), &ref, stamp = meta.stamp](client::HttpClient& h) {
                return SliceTransfer(h, m_clusterKey).dropOlder(peer, ref, stamp, SliceTransfer::Older::Slice);
            });
        }
        if (auto st = runParallel(tasks, peerOptions(), nullptr); !st) return st.error();
        return sent;
    }
    auto codec = EcCodec::create(ec.dataSlices, ec.paritySlices);
    if (!codec) return codec.error();
    const auto sliceSize = codec->sliceSize(static_cast<std::uint64_t>(meta.size));
    SliceTransfer slices(http, m_clusterKey);
    std::vector<int> wanted;
    std::vector<std::optional<std::int64_t>> copiesThere(static_cast<std::size_t>(codec->totalSlices()));
    for (int i = 0; i < codec->totalSlices(); ++i) {
        if (presentOnly && (*set)[static_cast<std::size_t>(i)].away()) continue;
        if (onlyMissing) {
            auto h = slices.probe(peerOf((*set)[static_cast<std::size_t>(i)]), ref);
            if (!h) return h.error();
            copiesThere[static_cast<std::size_t>(i)] = h->copyStamp;
            const auto& s = h->slice;
            if (s && (s->object.stamp > meta.stamp || (s->object.stamp == meta.stamp && s->index == i &&
                                                       s->data == ec.dataSlices && s->parity == ec.paritySlices))) {
                continue;
            }
        }
        wanted.push_back(i);
    }
    // A whole copy of an older small version on the first P holders goes,
    // only once every slice is kept: until then it may be what the version
    // this one replaces is read from while this target is away (an
    // interrupted overwrite). And before the version is acknowledged: an
    // older copy beside a slice of it proves that it never was
    // (Survey::choose).
    const auto dropOlderCopies = [&]() -> api::Status {
        std::vector<std::function<api::Status(client::HttpClient&)>> drops;
        for (int i = 0; i < ec.paritySlices && static_cast<std::size_t>(i) < set->size(); ++i) {
            const auto k = static_cast<std::size_t>(i);
            if (presentOnly && (*set)[k].away()) continue;
            if (!onlyMissing && !beforeUnknown && (!before || ec.sliced(before->size))) break;
            if (onlyMissing && !(copiesThere[k] && *copiesThere[k] < meta.stamp)) continue;
            drops.push_back([this, peer = peerOf((*set)[k]), &ref, stamp = meta.stamp](client::HttpClient& h) {
                return SliceTransfer(h, m_clusterKey).dropOlder(peer, ref, stamp, SliceTransfer::Older::Copy);
            });
        }
        return runParallel(drops, peerOptions(), nullptr);
    };
    if (wanted.empty()) {
        if (auto st = dropOlderCopies(); !st) return st.error();
        return sent;
    }
    // The file, read from its own descriptor (a PUT's is write-only): this
    // version whatever replaced the name meanwhile.
    UniqueFd object(::open(("/proc/self/fd/" + std::to_string(fd)).c_str(), O_RDONLY | O_CLOEXEC));
    if (!object.valid()) return errnoError(errno, "cannot reopen the object to encode it");
    auto encoded = encodeSlices(*codec, object.get(), static_cast<std::uint64_t>(meta.size),
                                [&] { return scratchFile(m_store, ref); });
    if (!encoded) return encoded.error();
    for (int i : wanted) {
        const auto k = static_cast<std::size_t>(i);
        SliceMeta sm{meta, i, ec.dataSlices, ec.paritySlices, sliceSize, (*encoded)[k].checksum};
        tasks.push_back([this, peer = peerOf((*set)[k]), &ref, sm = std::move(sm), fd = (*encoded)[k].fd.get()](
                            client::HttpClient& h) { return SliceTransfer(h, m_clusterKey).send(peer, ref, sm, fd); });
        ++sent.slices;
    }
    if (auto st = runParallel(tasks, peerOptions(), anyStored); !st) return st.error();
    if (auto st = dropOlderCopies(); !st) return st.error();
    return sent;
}

}  // namespace tessera::daemon::ec
