#pragma once
// Copies of a mirrored object between the targets that hold them (bucket
// mirrored across targets: the first `copies` targets of the name's HRW
// order). The owner sends each committed version to the other holders
// before the PUT is acknowledged, and a rebalance or reprotect job sends
// the copies a holder lacks. A copy keeps the version's stamp and number;
// the holder commits it only when it is newer than what it has (decided
// under the name's lock, like a rebalance).
//   PUT    /v1/objects/B/N?copy=true  (cluster key, stamp, version, checksum)
//   HEAD   /v1/objects/B/N?copy=true  the copy here (stamp in the answer)
//   GET    /v1/objects/B/N?copy=true  its bytes
//   DELETE /v1/objects/B/N?copy=true  (cluster key, the owner's tombstone stamp)

#include "api/object_meta.h"
#include "api/result.h"
#include "client/http_client.h"
#include "net/request_params.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tessera::daemon::target {

struct CopyPeer {
    std::string id;
    std::string url;  // the holder's public URL
};

class CopyTransfer {
public:
    CopyTransfer(client::HttpClient& http, std::string clusterKey, std::int64_t smapVersion)
        : m_http(http), m_clusterKey(std::move(clusterKey)), m_smapVersion(smapVersion)
    {
    }

    // Sends version `meta` of ref, read from `fd` (from its start), to the
    // holder; OK once the holder confirmed this version or holds a newer one.
    api::Status send(const CopyPeer& to, const api_util::ObjectRef& ref, const api::ObjectMeta& meta, int fd);
    // What a target holds of ref: its copy's stamp, or, without a copy,
    // its tombstone's (either may be absent).
    struct State {
        std::optional<std::int64_t> stamp;
        std::optional<std::int64_t> tombstone;
        api::ObjectMeta meta;  // with a stamp: the copy's metadata
    };
    api::Result<State> stateAt(const CopyPeer& at, const api_util::ObjectRef& ref);
    // Sends version `meta` (from `fd`) to the owner as a rebalance copy
    // (kept only if newer than what it has and its tombstone).
    api::Status sendToOwner(const CopyPeer& owner, const api_util::ObjectRef& ref, const api::ObjectMeta& meta, int fd);
    // Removes the holder's copy of ref unless it is newer than `stamp` (the
    // deletion's), and records the deletion there.
    // True when the holder had a copy (its answer says so).
    api::Result<bool> remove(const CopyPeer& at, const api_util::ObjectRef& ref, std::int64_t stamp);
    // Reads the holder's copy into `sink`; the copy's metadata.
    api::Result<api::ObjectMeta> fetch(const CopyPeer& from, const api_util::ObjectRef& ref, const client::Sink& sink);

private:
    std::string url(const CopyPeer& peer, const api_util::ObjectRef& ref) const;
    api::Status put(const std::string& url, const CopyPeer& to, const api_util::ObjectRef& ref,
                    const api::ObjectMeta& meta, int fd);

    client::HttpClient& m_http;
    std::string m_clusterKey;
    std::int64_t m_smapVersion;
};

class ObjectStore;

// Makes the newest state of a mirrored object win on the owner (this
// target) and the given holders: a version or a deletion, whichever has the
// largest stamp. The owner takes a newer state from a holder (a change
// interrupted after it reached the holders), then sends it to every holder
// behind. Holders not listed (away) are left for later.
struct ReconcileOutcome {
    bool tookFromHolder = false;  // this target took a holder's newer version or deletion
    int holdersUpdated = 0;       // holders sent a version or a deletion
};
api::Result<ReconcileOutcome> reconcileCopies(const ObjectStore& store, CopyTransfer& copies,
                                              const api_util::ObjectRef& ref, const std::vector<CopyPeer>& holders);

}  // namespace tessera::daemon::target
