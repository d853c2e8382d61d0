#pragma once
// Scrub, on one target: reads every object copy on every mountpath (one
// bucket, or all) and compares its bytes with the stored checksum. A
// damaged copy of a bucket mirrored across targets is replaced by a good
// copy from another holder (same version, same stamp; the good bytes must
// match the stored checksum); without a good copy it is reported
// unrepairable and the job ends failed, naming it. Counters: checked,
// corrupt, repaired, unrepairable.
//
// Erasure-coded buckets: a damaged copy on its owner is replaced by the same
// version from a holder's copy or rebuilt from the slices; then every slice
// this target keeps is read and checked against its xxhash64 (phase
// "slices", counter slices_checked): a damaged one is removed and its owner
// asked to send what its holders lack, which sends it again.

#include "client/http_client.h"
#include "ec/ec_service.h"
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
    ScrubJob(const target::ObjectStore& store, target::MetaCache& cache, ec::EcService& ec, std::string selfId,
             std::chrono::milliseconds peerTimeout, std::string clusterKey, std::string bucket = {});
    api::Status run(JobContext& ctx) override;

private:
    void scrubSlices(JobContext& ctx, client::HttpClient& http);

    ec::EcService& m_ec;
    const target::ObjectStore& m_store;
    target::MetaCache& m_cache;
    std::string m_selfId;
    std::chrono::milliseconds m_peerTimeout;
    std::string m_clusterKey;
    std::string m_bucket;
};

}  // namespace tessera::daemon::jobs
