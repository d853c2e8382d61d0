#pragma once
// The proxy's preparation of the shard-creating jobs: it checks the request,
// decides which target builds which shard (HRW of dst_bck/shard name) and
// gives each target only its own shards (api::ShardTask).
//   archive  one shard from a list or a brace template of objects
//            (api::ArchiveMsg, at most api::kMaxArchiveObjects)
//   ishard   lists the source bucket (the proxy's own merged listing,
//            called in process), plans with spec::planIshard, at most
//            kMaxIshardObjects
// Also the ishard REST entry point:
//   POST /v1/ishard[?dry_run=true]   body: the ishard spec (spec/ishard_spec.h)
// which starts the job (the answer is its status) or, for a dry run
// (query or "dry_run":true), answers the plan and starts nothing.
//
// Thread safety: prepare/plan calls may run concurrently (worker threads);
// they block on listing calls.

#include "bucket_lister.h"
#include "job_coordinator.h"
#include "net/router.h"
#include "proxy_state.h"

#include "spec/ishard_plan.h"
#include "spec/ishard_spec.h"

#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace tessera::daemon::proxy {

class ShardJobPlanner {
public:
    static constexpr std::uint64_t kMaxIshardObjects = 1'000'000;

    // `list`: the proxy's own listing (starting a job already needed an
    // admin; the listing is the node's own).
    ShardJobPlanner(ProxyState& state, JobCoordinator& jobs, BucketLister list);

    // Registers the archive and ishard kinds with the coordinator and the
    // /v1/ishard route.
    void registerWith(JobCoordinator& jobs, net::Router& router);

    // POST /v1/buckets/SRC {"action":"archive","value":{...}}: starts the job.
    net::Response archiveAction(const std::string& srcBck, const nlohmann::json& value);

    // Each target's api::ShardTask, as JSON text (api::dumpShardTask).
    api::Result<std::map<std::string, std::string>> prepareArchive(const nlohmann::json& args,
                                                                   const api::Smap& targets) const;
    api::Result<std::map<std::string, std::string>> prepareIshard(const nlohmann::json& args,
                                                                  const api::Smap& targets) const;
    // Lists the source and plans; fills spec.seed when a shuffle has none.
    api::Result<spec::IshardPlan> plan(spec::IshardSpec& spec) const;

private:
    net::Response ishard(const net::Request& req);
    api::Status checkBuckets(const std::string& src, const std::string& dst) const;

    ProxyState& m_state;
    JobCoordinator& m_jobs;
    BucketLister m_list;
};

}  // namespace tessera::daemon::proxy
