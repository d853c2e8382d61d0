#pragma once
// Erasure coding on a target: the slices it keeps for others (internal
// routes, see slice_transfer.h), and, for the objects it owns, the slices
// and copies it sends after a commit, the deletions it sends after a
// delete, and the reads it serves from what survives.
//
// Placement (api::ecTargets): the name's first D + P + 1 targets in HRW
// order; the owner (first) keeps the whole object, the (i+1)-th keeps slice
// i. Objects below ec.objsize_limit are copied whole (the `?copy=true`
// copies of mirroring, CopyTransfer) to the next P targets instead. A write
// or delete is acknowledged once every one of them confirmed; it is refused
// with 503 naming the first away one before anything is done.
//
// Reads: when the owner is away, or its copy is missing, damaged or on a
// disabled mountpath, read() asks every present target of the set what it
// keeps, takes the newest version that can be served (largest stamp; a
// newer one passed over only when provably never acknowledged, see
// Survey::choose), and serves it from a
// whole copy (this target's, or a redirect to a holder's `?copy=true`) or
// by fetching D slices of that version, checking each one's xxhash64,
// decoding, and checking the whole object's checksum. Rebuilt objects are
// not kept: each such GET decodes again.
//
// Thread safety: all methods may be called concurrently; read(), protect()
// and deleteEverywhere() block on peers (call them on a worker thread).

#include "ec_protector.h"
#include "slice_store.h"
#include "slice_transfer.h"

#include "api/smap.h"
#include "client/http_client.h"
#include "net/request_params.h"
#include "net/router.h"
#include "target/meta_cache.h"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace tessera::daemon::ec {

class EcService {
public:
    EcService(api::Snode self, const target::ObjectStore& store, target::MetaCache& cache,
              std::chrono::milliseconds peerTimeout, std::string clusterKey);

    // PUT, GET, HEAD, DELETE and POST of /v1/internal/ec/{bucket}/{name...}.
    void registerRoutes(net::Router& router);

    // True when the bucket exists and is erasure coded.
    bool coded(std::string_view bucket) const;
    // The other targets of ref's set, in placement order; when `allPresent`,
    // Unavailable naming the first that is away.
    api::Result<std::vector<api::Snode>> holders(const api_util::ObjectRef& ref, bool allPresent) const;
    // Version `meta` of ref, prepared on this target (the owner; `fd`: its
    // work file) but not committed yet: its slices, or its copies, to every
    // holder. The owner commits only once this returned OK, so it never
    // serves a version its holders lack. On failure `maybeSent` tells
    // whether a holder took (or may have taken) a slice or copy of it.
    api::Status protectFirst(const api_util::ObjectRef& ref, const api::ObjectMeta& meta, int fd, bool& maybeSent);
    // The owner deletes ref with a tombstone stamped `stamp`, holders
    // first: each of `holders` drops its slice and its copy. True when one
    // had either. On failure `maybeSent` tells whether a holder may have
    // dropped its part.
    api::Result<bool> deleteEverywhere(const api_util::ObjectRef& ref, const std::vector<api::Snode>& holders,
                                       std::int64_t stamp, bool& maybeSent);
    // A suspect name of this target (the owner): a change was interrupted
    // after some holders took it (see target/intent_store.h). The newest
    // state of the set wins everywhere: a newer version on the holders is
    // restored here (from a whole copy or rebuilt from D slices), a newer
    // deletion they recorded is applied here; a newer version too few of
    // whose slices exist to rebuild it loses (it was never acknowledged:
    // this target's state is restamped). Every holder is then brought to
    // the result. Settled once every target of the set was asked. When one
    // cannot be asked and `pinWhenUnsure`, this target's state is restamped
    // (Pinned: newer than anything the away one may keep, so it may be
    // served; a version that reached only it is given up, which is allowed:
    // its write was never acknowledged). Otherwise Open. Pinned and Open
    // both mean the holders that answered keep this target's state now.
    // Blocks on peers.
    enum class Reconciled { Settled, Pinned, Open };
    api::Result<Reconciled> reconcile(const api_util::ObjectRef& ref, bool pinWhenUnsure);
    // A GET or HEAD of ref served from what the set keeps: a HEAD from the
    // newest version's metadata, a GET by `serve` (which answers the request
    // — Range, archpath, ETL — from the object this target has or rebuilt),
    // or a redirect to a holder's whole copy. `useLocalCopy` false: this
    // target's whole copy is the one that cannot serve. nullopt when no
    // target of the set keeps anything of the name.
    using ServeFn = std::function<net::Response(target::OpenObject)>;
    std::optional<net::Response> read(const net::Request& req, const api_util::ObjectRef& ref, bool useLocalCopy,
                                      const ServeFn& serve);

    // This target owns ref (by its map): it keeps the whole object,
    // restored when missing (a placement change made it the owner, its disk
    // was replaced) from a holder's whole copy or rebuilt from D slices, and
    // every holder is given what it lacks. The version's stamp; `deleted`
    // when the tombstone here is newer than anything the set keeps; stamp 0
    // when nothing is known anywhere. Conflict when this target is not the
    // owner. Blocks on peers.
    api::Result<OwnerState> ensureOwned(const api_util::ObjectRef& ref);

    // This target's whole copy of version `damaged` of ref failed its
    // checksum (a scrub): replaced by the same version from a holder's copy
    // or rebuilt from D slices. Unavailable when the set has neither.
    api::Status repairOwned(const api_util::ObjectRef& ref, const api::ObjectMeta& damaged);

    const SliceStore& slices() const { return m_slices; }

private:
    // What one target of the set keeps of the name.
    struct Source {
        target::CopyPeer peer;
        bool self = false;
        Holding holding;
        std::size_t at = 0;     // its place in the set: 0 the owner, i the holder of slice i - 1
        bool knowsCopy = true;  // false: this target's own whole copy was left out (useLocalCopy)
    };
    // What the present targets of ref's set keep of it (this target's own
    // whole copy only when `useLocalCopy`), and the newest version's stamp
    // (0: nothing anywhere).
    struct Survey {
        std::vector<Source> found;
        std::vector<std::string> missing;    // the targets that could not say, and why
        std::size_t copyKeepersMissing = 0;  // of them, the owner and the next P (whole copies of small versions)
        std::size_t parity = 0;              // the bucket's P
        std::int64_t newest = 0;
        std::int64_t newestTombstone = 0;  // the newest deletion another target recorded (0: none)
        // The deletion this target recorded, when it keeps nothing of the
        // name (0: none). A stand-in serving a read must honour it: a
        // deletion that reached it and not the holders of an older version
        // must not bring that version back.
        std::int64_t ownTombstone = 0;
        std::string missingText() const;
        // A target with a whole copy of version `stamp`, or null.
        const Source* copyAt(std::int64_t stamp) const;
        // The targets with a slice of version `stamp` (one code).
        std::vector<const Source*> slicesAt(std::int64_t stamp) const;
        // The version to serve: the newest one with a whole copy or D
        // slices. A newer one without either is passed over only when the
        // set proves it never reached every holder, so it was never
        // acknowledged (an interrupted overwrite), and the version it was to
        // replace still stands: a target answered with an older slice and
        // nothing of it, or with its slice beside an older whole copy (the
        // owner has those dropped before acknowledging it), or a target that
        // would keep a part of it (the owner; every holder for a sliced
        // version, the first P for one copied whole) answered with nothing
        // of it and something older (a copy or a deletion record). Without such proof the newest is chosen and
        // `servable` is false (it may be an acknowledged version with too
        // many holders away; serving an older one could be a stale read).
        struct Choice {
            std::int64_t stamp = 0;  // 0: nothing anywhere
            const Source* copy = nullptr;
            std::vector<const Source*> slices;
            std::size_t slicesNeeded = 0;
            bool servable = false;
        };
        Choice choose() const;
    };
    Survey survey(const api_util::ObjectRef& ref, bool useLocalCopy);
    // Commits version `chosen` of `found` here, from a whole copy or
    // rebuilt from slices (as a delivered copy: its stamp kept; `repair`: it
    // replaces a damaged copy of the same version).
    api::Status restore(const api_util::ObjectRef& ref, const Survey& found, const Survey::Choice& chosen, bool repair);
    std::variant<net::Response, std::unique_ptr<net::UploadSink>> putSlice(const net::Request& req);
    net::Response getSlice(const net::Request& req);
    net::Response headSlice(const net::Request& req);
    net::Response deleteSlice(const net::Request& req);
    net::Response ensureRoute(const net::Request& req);
    // The bucket and name of a slice route; NotFound when the bucket is not
    // known here, Forbidden for a write without the cluster key.
    api::Result<api_util::ObjectRef> sliceRef(const net::Request& req, bool write) const;
    // Rebuilds version `meta` from `sources` (holders of its slices) into an
    // unnamed file; the file.
    api::Result<std::shared_ptr<UniqueFd>> rebuild(const api_util::ObjectRef& ref, const api::ObjectMeta& meta,
                                                   const std::vector<const Source*>& sources);
    // An unnamed scratch file (see scratchFile).
    api::Result<UniqueFd> tempFile(const api_util::ObjectRef& ref) const;
    net::Response headResponse(const api_util::ObjectRef& ref, const api::ObjectMeta& meta) const;
    client::HttpClient::Options peerOptions() const;

    api::Snode m_self;
    const target::ObjectStore& m_store;
    SliceStore m_slices;
    EcProtector m_protector;
    target::MetaCache& m_cache;
    std::chrono::milliseconds m_peerTimeout;
    std::string m_clusterKey;
};

}  // namespace tessera::daemon::ec
