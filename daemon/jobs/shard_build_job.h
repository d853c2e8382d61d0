#pragma once
// Builds shards on one target: the work of the `archive` job (one shard
// from many objects) and of `ishard` (a bucket of loose files into many
// shards). The proxy gives each target only the shards it owns (HRW of
// dst_bck/shard), with their members in order (api::ShardTask).
//
// A shard streams through archive::ArchiveWriter into an ObjectStore
// PutWriter: its work file is renamed into place only when the archive is
// complete, so nothing partial is ever visible, and an abort or an error
// leaves the previous object (or none) under the name. Sources come from a
// SourceFetcher (local copies, or GETs from their owners ahead of the
// writer). Appending (archive's append_to_arch) writes the old shard's
// members first: for .tar the old bytes up to the end-of-archive marker
// are copied as they are, other formats are re-encoded member by member.
// A missing source fails the job naming it, or with continue_on_err is
// skipped and counted in the job's errors (the job still finishes).

#include "job_runner.h"
#include "source_fetcher.h"

#include "api/shard_task.h"
#include "archive/archive_limits.h"
#include "target/meta_cache.h"
#include "target/object_store.h"

#include <chrono>
#include <memory>
#include <string>

namespace tessera::daemon::jobs {

inline constexpr const char* kKindArchive = "archive";
inline constexpr const char* kKindIshard = "ishard";

class ShardBuildJob : public JobWork {
public:
    // Shards of one task built at the same time.
    static constexpr std::size_t kBuildLanes = 2;
    // BadRequest for args that are not a ShardTask or name a shard without
    // a known format.
    static api::Result<std::unique_ptr<JobWork>> create(const target::ObjectStore& store,
                                                        const target::MetaCache& cache, std::string selfId,
                                                        std::chrono::milliseconds peerTimeout, std::string clusterKey,
                                                        const JobArgs& args);
    api::Status run(JobContext& ctx) override;

private:
    ShardBuildJob(const target::ObjectStore& store, const target::MetaCache& cache, std::string selfId,
                  std::chrono::milliseconds peerTimeout, std::string clusterKey, api::ShardTask task);
    api::Status buildShard(const api::ShardBuild& shard, SourceFetcher& fetcher, client::HttpClient& http,
                           JobContext& ctx);

    const target::ObjectStore& m_store;
    const target::MetaCache& m_cache;
    std::string m_selfId;
    std::chrono::milliseconds m_peerTimeout;
    std::string m_clusterKey;  // presented to the peers the sources come from
    api::ShardTask m_task;
    archive::ArchiveLimits m_limits;  // reading an old shard to append to
};

}  // namespace tessera::daemon::jobs
