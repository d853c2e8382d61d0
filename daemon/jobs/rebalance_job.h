#pragma once
// Rebalance, on one target: after the cluster map or the mountpath set
// changed, moves every object this target holds but no longer owns to the
// target that owns it now (a PUT marked `rebalance`, which the owner refuses
// when it already has a copy — then the newer one), and every copy sitting
// on the wrong mountpath of this target to the right one. Two phases: scan
// (the list of objects to move, with their sizes: the totals) and move.
// A copy is removed only after its new home acknowledged it.

#include "job_runner.h"
#include "target/meta_cache.h"
#include "target/object_store.h"

#include <chrono>
#include <string>

namespace tessera::daemon::jobs {

inline constexpr const char* kKindRebalance = "rebalance";

class RebalanceJob : public JobWork {
public:
    RebalanceJob(const target::ObjectStore& store, target::MetaCache& cache, std::string selfId,
                 std::chrono::milliseconds peerTimeout);
    api::Status run(JobContext& ctx) override;

private:
    const target::ObjectStore& m_store;
    target::MetaCache& m_cache;
    std::string m_selfId;
    std::chrono::milliseconds m_peerTimeout;
};

}  // namespace tessera::daemon::jobs
