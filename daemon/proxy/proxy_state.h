#pragma once
// The proxy's control-plane state: the cluster map (Smap) and the bucket
// metadata (BMD) and the ETL registry, each versioned and persisted in the ClusterStore before a
// change is acknowledged; plus the last keepalive time of every target.
//
// Thread safety: all methods may be called concurrently (one mutex).

#include "api/bmd.h"
#include "api/etl_msg.h"
#include "api/result.h"
#include "api/smap.h"
#include "meta/cluster_store.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tessera::daemon::proxy {

class ProxyState {
public:
    using Clock = std::chrono::steady_clock;

    // Loads the persisted Smap/BMD (or starts new ones with `self` as primary).
    static api::Result<std::unique_ptr<ProxyState>> create(meta::ClusterStore& store, api::Snode self);

    // Immutable snapshots: cheap to take on every request.
    std::shared_ptr<const api::Smap> smap() const;
    std::shared_ptr<const api::Bmd> bmd() const;
    std::shared_ptr<const api::EtlMd> etl() const;

    // Changes the ETL registry: `change` edits a copy (an error leaves it
    // as it was); the new version is persisted before it is served.
    api::Result<api::EtlMd> updateEtl(const std::function<api::Status(api::EtlMd&)>& change);

    struct JoinResult {
        api::Smap smap;
        api::Bmd bmd;
        bool changed = false;     // the map changed: push it to every target
        bool bmdChanged = false;  // a new target: mirrored buckets' copies are pending (see MirrorConf::pending)
        // A target the map has as present joined again: its process restarted
        // before it missed its keepalives (no "return" shows in the map).
        bool restarted = false;
    };
    // Two steps so that a newcomer is sent the map and the buckets before
    // any request is redirected to it: prepareJoin persists the new map,
    // publishSmap makes it the one the proxy serves. Callers hold
    // membershipLock() across both (joins and expiry are serialized).
    // A known id rejoining clears its away and maintenance flags (a target
    // that restarts after a drain is back in service) and keeps
    // decommissioning (its move goes on); a join naming the id of a
    // present (not away) target at another address is a Conflict: an id
    // cannot be taken over while its target is alive.
    // A target in maintenance heard from within `maxSilence` is present too.
    api::Result<JoinResult> prepareJoin(const api::Snode& node, Clock::duration maxSilence);
    void publishSmap(const api::Smap& smap);
    std::unique_lock<std::mutex> membershipLock() { return std::unique_lock(m_membershipMutex); }

    struct KeepaliveResult {
        // false: not in the map, or missed its keepalives (the target
        // rejoins). A target in maintenance is known: its keepalives say it
        // is present, which stop-maintenance requires.
        bool known = false;
        std::int64_t smapVersion = 0;
        std::int64_t bmdVersion = 0;
        std::int64_t etlVersion = 0;
    };
    KeepaliveResult keepalive(const std::string& id);

    // Marks targets not heard from within `maxSilence` away in a new map,
    // which is persisted and returned but not yet served: the caller pushes
    // it to the targets and then calls publishSmap, so that no redirect
    // names a map version the targets have not received. An away target
    // keeps owning its objects. Holds membershipLock() like joins do.
    api::Result<std::optional<api::Smap>> prepareAway(Clock::duration maxSilence);

    // decommission-node. An away target (one in maintenance whose keepalives
    // stopped included) is removed from the map at once, for good (an
    // operator's decision that it is not coming back): its objects are then
    // owned by the others, which have no copy of them. A present target is
    // flagged decommissioning instead (api::kSnodeDecommissioning): it
    // serves what it holds while the rebalance moves it to the others, and
    // is removed by prepareRemoveDecommissioned once that ended without
    // errors. Conflict for a present target in maintenance, for one whose
    // leaving would leave no target to own objects, or fewer than a
    // bucket's copies or slices need; NotFound for an unknown id. Mirrored
    // and erasure-coded buckets' copies become pending (placement changed):
    // `bmdOut` receives the new BMD to push with the map when one changed.
    // The same two steps as a join (callers hold membershipLock()).
    struct DecommissionStep {
        api::Smap smap;        // the map to push and publish (when `changed`)
        bool removed = false;  // an away target, gone from `smap`
        bool changed = false;  // false: already decommissioning, nothing new
    };
    api::Result<DecommissionStep> prepareDecommission(const std::string& id, Clock::duration maxSilence,
                                                      std::optional<api::Bmd>* bmdOut = nullptr);
    // Removes a decommissioning target whose objects have moved (a rebalance
    // that started with it flagged ended without errors). Placement does not
    // change: no copies become pending. nullopt: it is not in the map, or
    // no longer decommissioning. The same two steps as a join.
    api::Result<std::optional<api::Smap>> prepareRemoveDecommissioned(const std::string& id);

    // Puts a target in maintenance (`on`) or takes it out, in a new map
    // persisted and returned but not yet served (the same two steps as a
    // join). nullopt: nothing to change (already so). NotFound for an unknown
    // id, BadRequest for a proxy's, Conflict when taking out of maintenance a
    // target not heard from within `maxSilence` (it is stopped: its next
    // join clears the flag). `leaving`: the target itself asked (a drain on
    // SIGTERM, its keepalives already stopped): it counts as present again
    // only once a keepalive arrives. Callers hold membershipLock().
    api::Result<std::optional<api::Smap>> prepareMaintenance(const std::string& id, bool on, Clock::duration maxSilence,
                                                             bool leaving = false);

    // Copies of mirrored buckets (and slices of erasure-coded ones): every
    // placement change (a new target, a decommission) and every props change
    // that asks for more copies (or enables ec) marks the buckets' copies
    // pending and advances the protection epoch; a
    // rebalance or reprotect job that started in the same epoch and ended
    // without errors clears it (`bucket` empty: every mirrored bucket).
    // Returns the new BMD when one changed (push it, then announceBmd).
    std::uint64_t protectionEpoch() const;
    api::Result<std::optional<api::Bmd>> clearMirrorPending(const std::string& bucket, std::uint64_t epoch);
    // Tells the observer about a BMD changed by a membership step.
    void announceBmd(const api::Bmd& bmd) const { notifyBmd(bmd); }

    // Told about every published map and every bucket change, after the
    // fact, outside the state's lock, on the thread that made the change
    // (so possibly out of version order: compare versions). Set before the
    // node serves requests.
    struct Observer {
        std::function<void(const api::Smap& before, const api::Smap& after)> smapPublished;
        std::function<void(const api::Bmd& after)> bmdChanged;
    };
    void setObserver(Observer o) { m_observer = std::move(o); }

    api::Result<api::Bmd> createBucket(const std::string& name);
    api::Result<api::Bmd> destroyBucket(const std::string& name);
    api::Result<std::pair<api::Bmd, api::BucketProps>> setBucketProps(const std::string& name,
                                                                      const nlohmann::json& update);

private:
    ProxyState(meta::ClusterStore& store, api::Smap smap, api::Bmd bmd, api::EtlMd etl);
    void notifyBmd(const api::Bmd& bmd) const;
    // Sends keepalives: not marked away and heard from within maxSilence. m_mutex held.
    bool presentLocked(const std::string& id, const api::Snode& node, Clock::duration maxSilence) const;
    // Marks every bucket mirrored across targets pending; the new BMD,
    // persisted, when one was not already. Under m_mutex.
    api::Result<std::optional<api::Bmd>> markMirrorsPendingLocked();
    // The erasure-coding conf `after` in a cluster of `targets` targets:
    // BadRequest when it is enabled together with mirroring, when it needs
    // more targets than there are, or when D or P change while enabled.
    static api::Status checkEcConf(const api::BucketProps& before, const api::BucketProps& after, std::size_t targets);
    api::Result<api::Bmd> createBucketLocked(const std::string& name);
    api::Result<api::Bmd> destroyBucketLocked(const std::string& name);
    api::Result<std::pair<api::Bmd, api::BucketProps>> setBucketPropsLocked(const std::string& name,
                                                                            const nlohmann::json& update);

    meta::ClusterStore& m_store;
    mutable std::mutex m_mutex;
    std::mutex m_membershipMutex;
    std::shared_ptr<const api::Smap> m_smap;
    std::shared_ptr<const api::Bmd> m_bmd;
    std::shared_ptr<const api::EtlMd> m_etl;
    std::map<std::string, Clock::time_point> m_lastSeen;
    std::uint64_t m_protectionEpoch = 1;  // under m_mutex
    Observer m_observer;
};

}  // namespace tessera::daemon::proxy
