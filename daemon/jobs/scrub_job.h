#pragma once
// Scrub, on one target: reads every object copy on every mountpath (one
// bucket, or all) and compares its bytes with the stored checksum. A
// damaged copy of a bucket mirrored across targets is replaced by a good
// copy from another holder (same version, same stamp; the good bytes must
// match the stored checksum); without a good copy it is reported
// unrepairable and the job ends failed, naming it. Counters: checked,
// corrupt, repaired, unrepairable.

#include "job_runner.h"
#include "target/meta_cache.h"
#include "target/object_store.h"

#include <chrono>
#include <string>

namespace tessera::daemon::jobs {

inline constexpr const char* kKindScrub = "scrub";

class ScrubJob : public JobWork {
public:
    // `bucket`: only this bucket; empty: every bucket.
    ScrubJob(const target::ObjectStore& store, target::MetaCache& cache, std::string selfId,
             std::chrono::milliseconds peerTimeout, std::string clusterKey, std::string bucket = {});
    api::Status run(JobContext& ctx) override;

private:
    const target::ObjectStore& m_store;
    target::MetaCache& m_cache;
    std::string m_selfId;
    std::chrono::milliseconds m_peerTimeout;
    std::string m_clusterKey;
    std::string m_bucket;
};

}  // namespace tessera::daemon::jobs
