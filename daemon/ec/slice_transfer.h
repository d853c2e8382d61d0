#pragma once
// Slices of erasure-coded objects between targets (the client side of the
// routes in ec_service.h):
//   PUT    /v1/internal/ec/B/N  a slice (cluster key, slice headers, its bytes)
//   HEAD   /v1/internal/ec/B/N  what the target keeps of B/N: its slice's
//                               headers and/or tessera-ec-copy-stamp; a 404
//                               names the deletion recorded there
//                               (tessera-tombstone), if any
//   GET    /v1/internal/ec/B/N  the slice's bytes and headers
//   DELETE /v1/internal/ec/B/N  (cluster key, the owner's tombstone stamp)
//                               the slice and any whole copy go
//   POST   /v1/internal/ec/B/N  (cluster key) to the owner: keep the whole
//                               object (restore it from the set if missing)
//                               and give every holder what it lacks
//
// Thread safety: like the HttpClient it is given (one thread at a time).

#include "slice_meta.h"

#include "api/result.h"
#include "client/http_client.h"
#include "net/request_params.h"
#include "target/copy_transfer.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tessera::daemon::ec {

// What a target keeps of one object name.
struct Holding {
    std::optional<SliceMeta> slice;
    std::optional<std::int64_t> copyStamp;  // a whole copy (objects below ec.objsize_limit)
    std::optional<std::int64_t> tombstone;  // with neither: the name's deletion recorded there
};

// What the owner keeps of a name after an ensure (POST).
struct OwnerState {
    std::int64_t stamp = 0;  // its version's stamp, or the tombstone's; 0: nothing known anywhere
    bool deleted = false;    // the name's tombstone is the newest
};

class SliceTransfer {
public:
    SliceTransfer(client::HttpClient& http, std::string clusterKey) : m_http(http), m_clusterKey(std::move(clusterKey))
    {
    }

    // Sends slice `meta` of ref, read from `fd` (from its start); OK once
    // the holder confirmed it or keeps a newer version.
    api::Status send(const target::CopyPeer& to, const api_util::ObjectRef& ref, const SliceMeta& meta, int fd);
    api::Result<Holding> probe(const target::CopyPeer& at, const api_util::ObjectRef& ref);
    // The holder's slice into `sink`; its metadata. The caller checks the
    // bytes against meta.sliceChecksum.
    api::Result<SliceMeta> fetch(const target::CopyPeer& from, const api_util::ObjectRef& ref,
                                 const client::Sink& sink);
    // The deletion, stamped `stamp`: the holder's slice and whole copy go.
    // True when it had either.
    api::Result<bool> remove(const target::CopyPeer& at, const api_util::ObjectRef& ref, std::int64_t stamp);
    // A newer version (`stamp`) is kept everywhere it goes, and not as what
    // this holder keeps of an older one: Older::Slice, a small version (its
    // whole copies on the first P holders only), so the slice of an older
    // version here goes; Older::Copy, a large version (its slices), so the
    // whole copy of an older small version here goes. No deletion is
    // recorded.
    enum class Older { Slice, Copy };
    api::Status dropOlder(const target::CopyPeer& at, const api_util::ObjectRef& ref, std::int64_t stamp, Older what);
    // Asks the owner to keep ref whole and protected (see EcService::ensureOwned).
    api::Result<OwnerState> ensure(const target::CopyPeer& owner, const api_util::ObjectRef& ref);

private:
    std::string url(const target::CopyPeer& peer, const api_util::ObjectRef& ref) const;
    static api::Error failed(const target::CopyPeer& peer, const std::string& what, api::Error e);

    client::HttpClient& m_http;
    std::string m_clusterKey;
};

}  // namespace tessera::daemon::ec
