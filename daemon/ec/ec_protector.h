#pragma once
// The owner's side of an erasure-coded object's protection: its slices (or,
// below ec.objsize_limit, its whole copies) sent to the other targets of its
// set (api::ecTargets: slice i to the (i+1)-th, copies to the next P).
// After a PUT everything is sent; a rebalance or reprotect job first asks
// each holder what it keeps and sends only what is missing or older. The
// transfers of one object go in parallel (up to 8 at a time). What an older
// version left that the new one does not replace in place (a whole copy of
// a small version where a large one keeps slices, or the other way round)
// goes only once every slice or copy of the new version is kept.
//
// Thread safety: all methods may be called concurrently; protect() blocks
// on peers.

#include "api/result.h"
#include "api/smap.h"
#include "client/http_client.h"
#include "common/unique_fd.h"
#include "net/request_params.h"
#include "target/meta_cache.h"
#include "target/object_store.h"

#include <chrono>
#include <string>
#include <vector>

namespace tessera::daemon::ec {

// An unnamed scratch file on a healthy mountpath, the name's first: slices
// being sent, slices fetched, rebuilt objects.
api::Result<UniqueFd> scratchFile(const target::ObjectStore& store, const api_util::ObjectRef& ref);

class EcProtector {
public:
    EcProtector(const target::ObjectStore& store, target::MetaCache& cache, std::string selfId,
                std::chrono::milliseconds peerTimeout, std::string clusterKey);

    // The other targets of ref's set, in placement order; when `allPresent`,
    // Unavailable naming the first that is away.
    api::Result<std::vector<api::Snode>> holders(const api_util::ObjectRef& ref, bool allPresent) const;

    struct Sent {
        int slices = 0;
        int copies = 0;
    };
    // Version `meta` of ref (this target owns it; `fd`: its file, any open
    // mode) onto every holder. `onlyMissing`: each holder is asked first and
    // is sent only what it lacks. OK once every holder keeps this version
    // or a newer one; Unavailable naming the holder otherwise. `anyStored`
    // (when given) is set when a holder took its slice or copy, or may have
    // (its answer was lost). `presentOnly`: the holders marked away are
    // left out (and OK means every present holder keeps it).
    api::Result<Sent> protect(const api_util::ObjectRef& ref, const api::ObjectMeta& meta, int fd, bool onlyMissing,
                              bool* anyStored = nullptr, bool presentOnly = false);

private:
    client::HttpClient::Options peerOptions() const;

    const target::ObjectStore& m_store;
    target::MetaCache& m_cache;
    std::string m_selfId;
    std::chrono::milliseconds m_peerTimeout;
    std::string m_clusterKey;
};

}  // namespace tessera::daemon::ec
