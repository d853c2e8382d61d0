#pragma once
// The target's REST handlers: objects (PUT streamed to disk, GET by
// sendfile, HEAD, DELETE), target-local listing, metasync from the proxy,
// health and node information. One function per (resource, action).

#include "api/node_stats.h"
#include "api/s3_multipart_msg.h"
#include "api/smap.h"
#include "ec/ec_service.h"
#include "etl/etl_manager.h"
#include "membership.h"
#include "meta_cache.h"
#include "multipart_store.h"
#include "net/request_params.h"
#include "net/router.h"
#include "object_store.h"
#include "shard_service.h"
#include "stats/stats_recorder.h"
#include "stats/system_sampler.h"

#include <chrono>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

namespace tessera::daemon::target {

class TargetApi {
public:
    TargetApi(api::Snode self, ObjectStore& store, ShardService& shards, MetaCache& cache, Membership& membership,
              std::chrono::milliseconds peerTimeout, std::function<nlohmann::json()> nodeInfo,
              std::function<api::NodeStats()> nodeStats, stats::StatsRecorder& recorder, std::string clusterKey);

    // Capacity and state of every mountpath, for the node's statistics.
    std::vector<api::MountpathStats> mountpathStats() const;

    void registerRoutes(net::Router& router);
    // ETL on GET (etl_name); set before the node serves requests.
    void setEtl(etl::EtlManager* etl) { m_etl = etl; }
    // AIStore's node answers (what=node_status, sysinfo, config); set before
    // the node serves requests.
    void setAisView(stats::AisNodeView view) { m_ais = std::move(view); }
    // Erasure-coded buckets (slices and copies sent after a commit and a
    // delete, reads from them when this target cannot serve its copy); set
    // before the node serves requests.
    void setErasureCoding(ec::EcService* ec) { m_ec = ec; }
    // S3 multipart uploads (parts kept and assembled here); set before the
    // node serves requests. Unset: the multipart routes are not registered.
    void setMultipart(MultipartStore* multipart) { m_multipart = multipart; }

private:
    // How this target serves an object request it keeps.
    enum class Serve {
        Owner,   // the name's owner
        Copy,    // kQpCopy: the copy here of a mirrored object, nothing else
        StandIn  // a read of a mirrored object whose owner is away: the copy here
    };
    // Ownership check for a data request: nullopt when this target serves
    // it (`how` says in which role), else the response to send (307 to the
    // owner or to a target with a copy, 503 while our map is older than the
    // client's or no target that holds the object is present).
    std::optional<net::Response> redirectIfNotOwner(const net::Request& req, const api_util::ObjectRef& ref,
                                                    Serve* how = nullptr);
    // The other targets that keep copies of a mirrored object (empty for a
    // bucket that is not mirrored across targets); an error naming the first
    // that is away when `allPresent`.
    api::Result<std::vector<api::Snode>> copyHolders(const api_util::ObjectRef& ref, bool allPresent) const;
    // The copy of ref on another present holder, for a read this target
    // cannot serve (its mountpath is disabled, its bytes are damaged):
    // a redirect there, or nullopt. For an erasure-coded bucket: the
    // object served from its slices or copies (blocks: on a worker).
    std::optional<net::Response> readElsewhere(const net::Request& req, const api_util::ObjectRef& ref);
    bool coded(const std::string& bucket) const { return m_ec != nullptr && m_ec->coded(bucket); }
    // How many mountpaths of this target keep each object of the bucket
    // (mirror.copies with across_targets false; 1 otherwise).
    std::size_t mountpathCopies(const std::string& bucket) const;
    // A copy of ref on another mountpath of its copy set (of version `stamp`
    // when not 0), for a read the name's own mountpath cannot serve.
    std::optional<OpenObject> openMountpathCopy(const api_util::ObjectRef& ref, std::int64_t stamp = 0) const;
    // Reads of an erasure-coded object this target cannot serve from its
    // own copy, continued on a worker: served by m_ec->read, or `otherwise()`
    // when nothing of it is kept anywhere. standInCoded: the owner is away
    // (404, or 503 while ec.pending); unavailableCoded: this target's
    // mountpath is disabled (`why`).
    net::Response readCoded(const net::Request& req, const api_util::ObjectRef& ref, bool useLocalCopy,
                            const std::function<net::Response()>& otherwise);
    net::Response standInCoded(const net::Request& req, const api_util::ObjectRef& ref);
    // How m_ec->read serves the object it found or rebuilt: serveObject (on
    // a worker), Range, archpath and ETL included.
    ec::EcService::ServeFn serveCoded(const net::Request& req, const api_util::ObjectRef& ref);
    net::Response unavailableCoded(const net::Request& req, const api_util::ObjectRef& ref, const api::Error& why);
    // Sends version `meta` (file descriptor `fd`, not yet committed here)
    // to every other holder of a mirrored object's copies; each must confirm
    // it. `maybeSent`: after a failure, a holder may have stored it.
    api::Status sendCopies(const api_util::ObjectRef& ref, const std::vector<api::Snode>& holders,
                           const api::ObjectMeta& meta, int fd, bool& maybeSent);
    // Sends the deletion (stamped `stamp`) to every other holder of a
    // mirrored object's copies.
    // `maybeSent`: after a failure, a holder may have removed its copy.
    // True when a holder had a copy.
    api::Result<bool> deleteCopies(const api_util::ObjectRef& ref, const std::vector<api::Snode>& holders,
                                   std::int64_t stamp, bool& maybeSent);

public:
    // A suspect name (a change of its copies was interrupted, see
    // intent_store.h): the newest state among this target and the present
    // holders wins everywhere (blocks). It stops being a suspect once every
    // holder was present. True when this target's state may be served (the
    // name settled, or, erasure coded, its state pinned). An error names
    // the holder that could not be asked; Conflict while a change of the
    // name is in flight (or another reconciliation of it runs) after
    // waiting `wait` for it to end.
    api::Result<bool> reconcile(const api_util::ObjectRef& ref,
                                std::chrono::milliseconds wait = std::chrono::milliseconds(0));
    // Reconciles every suspect; returns how many are left.
    std::size_t reconcileSuspects();

private:
    // Before a suspect is served or listed by its owner: reconciled (503 when
    // a holder cannot be asked).
    std::optional<api::Error> reconcileBeforeServing(const api_util::ObjectRef& ref);
    // A suspect this target would serve from its own copy: not when its
    // mountpath is disabled (the read goes to another holder, the listing
    // answers for the mountpath).
    bool mustCompareFirst(const api_util::ObjectRef& ref) const
    {
        return m_store.intents().mustCompare(ref.bucket, ref.name) &&
               m_store.checkMountpath(m_store.mountpathFor(ref.bucket, ref.name)).ok();
    }
    // The owner misses an object a placement change left on another target
    // (a target joined, mountpaths changed; there is no rebalance yet): asks
    // each peer and redirects the client to the one that has it.
    std::optional<net::Response> findOnPeers(const net::Request& req, const api_util::ObjectRef& ref);
    // The peers (not away) that hold a copy of ref here and now.
    std::vector<api::Snode> peersHolding(const api_util::ObjectRef& ref);
    // Why a name missing here may still exist: a peer that could hold it
    // (a placement change not yet rebalanced) is away. nullopt: none is.
    std::optional<api::Error> awayPeer(const api_util::ObjectRef& ref) const;
    // The owner lacks a shard a peer still holds (a placement change not
    // yet rebalanced): copies it here, keeping its version, so that an
    // append extends it instead of starting a new shard beside it.
    api::Status pullFromPeer(const api_util::ObjectRef& ref);

    std::variant<net::Response, std::unique_ptr<net::UploadSink>> putObject(const net::Request& req);
    // The sink that stores a new version of `ref` as this target serves it
    // (`how`): copies to `holders` (mirrored) or slices (erasure coded)
    // before it is acknowledged, as for a client's PUT. `rebalance`: a peer
    // delivers an existing version. `aisLines`: a client's PUT (the answer's
    // custom metadata in AIStore's lines).
    std::variant<net::Response, std::unique_ptr<net::UploadSink>> objectSink(const api_util::ObjectRef& ref, Serve how,
                                                                             std::vector<api::Snode> holders,
                                                                             PutParams params, bool rebalance,
                                                                             bool aisLines = false);

    // S3 multipart uploads kept here (target_api_multipart.cpp; api/s3_multipart_msg.h).
    // The upload of the request's bucket/name, when this target owns the
    // name (503 otherwise: the cluster map changed).
    api::Result<api::MultipartUpload> ownedUpload(const net::Request& req);
    api::Status checkMultipartOwner(const net::Request& req, const api_util::ObjectRef& ref);
    net::Response multipartCreate(const net::Request& req);
    net::Response multipartHead(const net::Request& req);
    net::Response multipartParts(const net::Request& req);
    net::Response multipartAbort(const net::Request& req);
    net::Response multipartList(const net::Request& req);
    std::variant<net::Response, std::unique_ptr<net::UploadSink>> multipartPart(const net::Request& req);
    net::Response multipartPartCopy(const net::Request& req);
    net::Response multipartComplete(const net::Request& req);
    void registerMultipartRoutes(net::Router& router);
    net::Response getObject(const net::Request& req);
    // `reconciled`: a suspect name was reconciled just now (on a worker).
    net::Response readObject(const net::Request& req, bool reconciled);
    // The parts of a GET and a HEAD that run on the worker pool: a name not
    // found here is looked for on the peers.
    net::Response getMissing(const net::Request& req, const api_util::ObjectRef& ref);
    net::Response serveObject(const net::Request& req, const api_util::ObjectRef& ref, OpenObject obj, bool onWorker,
                              Serve how);
    // A name not found where a copy should be (Copy, StandIn): 404, or 503
    // while the bucket's copies (or slices) are not known to be complete.
    net::Response copyMissing(const api_util::ObjectRef& ref, const api::Error& notFound, Serve how) const;
    net::Response headMissing(const net::Request& req, const api_util::ObjectRef& ref);
    // `aisLines`: a client asked (AIStore's custom metadata lines, see target_api.cpp).
    net::Response headResponse(const std::string& name, const api::ObjectMeta& meta, bool aisLines) const;
    // GET with archpath (one member) or archregx (matching members as a
    // .tar) of the shard `obj`; on the worker pool.
    net::Response getFromShard(const net::Request& req, const api_util::ObjectRef& ref, const OpenObject& obj);
    // PUT with archpath: the body becomes a member of the shard.
    std::variant<net::Response, std::unique_ptr<net::UploadSink>> appendToShard(const net::Request& req,
                                                                                const api_util::ObjectRef& ref);
    // GET with etl_name: the object or the archpath member through the ETL
    // (or pipeline); on the worker pool.
    net::Response serveTransformed(const net::Request& req, const api_util::ObjectRef& ref, const OpenObject& obj);
    net::Response headObject(const net::Request& req);
    net::Response statObject(const net::Request& req, bool reconciled);
    net::Response deleteObject(const net::Request& req);
    net::Response listObjects(const net::Request& req);
    // An erasure-coded bucket's listing while owners are away
    // (lr.standInFor): `page` (this target's own names) merged with the
    // names of those owners this target keeps slices of or recorded the
    // deletion of, cut so that it still holds every name up to its
    // continuation token. Each away owner's name carries the stamp of what
    // this target keeps of it, the newest of its copy, its slice and its
    // deletion (an entry with kEntryStatusDeleted): a deletion interrupted
    // after it reached some holders leaves others with a slice or copy, and
    // the proxy lists the name only when no target recorded a newer
    // deletion (as a read of it answers). The names added from slices.
    api::Result<std::set<std::string>> addAwayOwnersNames(const std::string& bucket, const api::ListRequest& lr,
                                                          api::ObjectList& page);
    // reconcile() once no change of the name is in flight (the caller holds
    // IntentStore::beginReconcile).
    api::Result<bool> reconcileHeld(const api_util::ObjectRef& ref);
    net::Response destroyBucket(const net::Request& req);
    net::Response metasync(const net::Request& req);
    net::Response health(const net::Request& req);
    net::Response daemonInfo(const net::Request& req);

    api::Snode m_self;
    ObjectStore& m_store;
    ShardService& m_shards;
    MetaCache& m_cache;
    Membership& m_membership;
    std::chrono::milliseconds m_peerTimeout;
    std::function<nlohmann::json()> m_nodeInfo;
    std::function<api::NodeStats()> m_nodeStats;
    stats::AisNodeView m_ais;
    stats::StatsRecorder& m_recorder;
    std::string m_clusterKey;
    etl::EtlManager* m_etl = nullptr;
    ec::EcService* m_ec = nullptr;
    MultipartStore* m_multipart = nullptr;
    // The names of away owners this target keeps slices of or recorded
    // the deletion of, for the pages of one listing (addAwayOwnersNames);
    // the last one asked for.
    struct StandInNames {
        std::string bucket;
        std::vector<std::string> owners;
        std::int64_t smapVersion = 0;
        std::int64_t bmdVersion = 0;
        std::vector<ec::SliceStore::Listed> slices;   // sorted by name
        std::vector<TombstoneStore::Listed> deleted;  // sorted by name
    };
    std::mutex m_standInMutex;
    std::shared_ptr<const StandInNames> m_standIn;
};

}  // namespace tessera::daemon::target
