#pragma once
// Rebalance, on one target: after the cluster map or the mountpath set
// changed, moves every object this target holds but no longer owns to the
// target that owns it now (a PUT marked `rebalance`, which the owner refuses
// when it already has a copy — then the newer one), and every copy sitting
// on the wrong mountpath of this target to the right one. Two phases: scan
// (the list of objects to move, with their sizes: the totals) and move.
// A copy is removed only after its new home acknowledged it.
//
// A decommissioning target (api::kSnodeDecommissioning) owns nothing and
// holds no copies or slices: its rebalance sends everything it holds to
// the owners, and walks again until a walk finds nothing (see run()).
//
// Buckets mirrored across targets: an object stays on every target of its
// copy set (api::copyTargets); the owner sends the copies the other holders
// lack or hold older (phase "protect"), and a copy on a target outside the
// set goes to the owner like any misplaced object (which drops it once the
// owner confirmed it has that version). The `reprotect` job is the same
// work for one bucket (or all), started when a bucket's copies change.
//
// Erasure-coded buckets: the owner asks each target of the object's set
// (api::ecTargets) for its slice, or for objects below ec.objsize_limit its
// whole copy, and sends what is missing or older (phase "protect", counted
// as slices_sent and copies_sent); the whole copies on the next P targets
// stay where they are. Then (phase "slices") each target asks the owner of
// every slice it keeps to keep that object whole and protected — the owner
// restores its copy from the set when it lacks it (a placement change, a
// decommissioned owner) — and drops its slice when it is outside the
// object's set now, or the object was deleted (counted: slices_checked,
// slices_dropped).

#include "ec/ec_service.h"
#include "job_runner.h"
#include "target/meta_cache.h"
#include "target/object_store.h"

#include <chrono>
#include <string>

namespace tessera::daemon::jobs {

inline constexpr const char* kKindRebalance = "rebalance";
inline constexpr const char* kKindReprotect = "reprotect";

class RebalanceJob : public JobWork {
public:
    // `bucket`: only this bucket (a reprotect); empty: every bucket.
    RebalanceJob(const target::ObjectStore& store, target::MetaCache& cache, ec::EcService& ec, std::string selfId,
                 std::chrono::milliseconds peerTimeout, std::string clusterKey, std::string bucket = {});
    api::Status run(JobContext& ctx) override;

private:
    // A decommissioning target walks again while a walk found objects to
    // move, up to this many walks (then the job fails: the target stays).
    static constexpr int kLeavingPasses = 5;
    struct Pass {
        std::size_t found = 0;   // objects to move or check
        std::size_t failed = 0;  // errors added
    };
    // One walk of the mountpaths and the work it found.
    api::Status runPass(JobContext& ctx, Pass& pass);
    // This target is decommissioning in the current map: it owns nothing.
    bool leaving() const;
    // Phase "slices" (see above).
    void checkSlices(JobContext& ctx, client::HttpClient& http);

    ec::EcService& m_ec;
    const target::ObjectStore& m_store;
    target::MetaCache& m_cache;
    std::string m_selfId;
    std::chrono::milliseconds m_peerTimeout;
    std::string m_clusterKey;
    std::string m_bucket;
    std::int64_t m_objectsTotal = 0;  // over every walk
    std::int64_t m_bytesTotal = 0;
};

}  // namespace tessera::daemon::jobs
