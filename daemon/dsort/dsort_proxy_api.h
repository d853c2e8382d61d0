#pragma once
// The proxy's side of dSort: the REST front end (AIStore's /v1/sort) and the
// preparation of the "dsort" job kind for the JobCoordinator, so dSort jobs
// are listed, watched (feed `job` messages) and aborted like every job.
//   POST   /v1/sort               body: the spec (spec/dsort_spec.h), JSON or YAML -> the job id (text)
//   POST   /v1/sort?dry_run=true  the plan, nothing started (spec/dsort_preview.h)
//   GET    /v1/sort?uuid=ID       AIStore's map of target id -> dsort.JobInfo (api/ais_dsort.h)
//   GET    /v1/sort               AIStore's []dsort.JobInfo, one per job, oldest first
//                                 (regex= on the description, only_active=true)
//   ... &format=tessera           Tessera's own: the job's status and every target's
//                                 counters; the list of job statuses
//   DELETE /v1/sort/abort?uuid=ID abort (every target stops and removes what it created)
//   DELETE /v1/sort?uuid=ID       forget a finished job (409 while it runs)
// Preparation: every target of the map takes part (any may own output
// shards); each input shard is extracted by its HRW owner; the designated
// sorting target is the one with the most input shards (ties: the smaller
// id), which saves sending its metadata over the network. The external key
// map is read here, from the cluster, and handed to the sorter. With input
// and output in one bucket, an output name equal to an input's is refused
// (the first kMaxOverwriteCheck output names are checked).
//
// Thread safety: handlers run on worker threads; state is under a mutex.

#include "api/ais_dsort.h"
#include "net/outbound_fetch.h"
#include "net/router.h"
#include "proxy/bucket_lister.h"
#include "proxy/job_coordinator.h"
#include "proxy/proxy_state.h"

#include "spec/dsort_spec.h"

#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

namespace tessera::daemon::dsort {

class DsortProxyApi {
public:
    static constexpr std::size_t kMaxSpecBody = 1 << 20;  // objnames lists make specs big
    static constexpr std::size_t kMaxEkmBytes = 16 << 20;
    // Output names checked against the inputs when both are in one bucket.
    static constexpr std::uint64_t kMaxOverwriteCheck = 1'000'000;
    // The list's regex (std::regex recurses on its subject: both bounded).
    static constexpr std::size_t kMaxRegex = 256;
    static constexpr std::size_t kMaxRegexSubject = 1024;

    // `fetch`: how an ekm_file given as a URL is fetched (its allowed networks).
    // `list`: the proxy's own listing, for a dry run's walk of the inputs.
    DsortProxyApi(proxy::ProxyState& state, proxy::JobCoordinator& jobs, std::string selfUrl,
                  std::chrono::milliseconds peerTimeout, std::string clusterKey, net::OutboundFetchOptions fetch,
                  proxy::BucketLister list);

    // Registers the dsort kind with the coordinator and the /v1/sort routes.
    void registerWith(proxy::JobCoordinator& jobs, net::Router& router);

    api::Result<std::map<std::string, nlohmann::json>> prepare(const nlohmann::json& args,
                                                               const api::Smap& targets) const;

private:
    net::Response start(const net::Request& req);
    net::Response show(const net::Request& req);
    net::Response listTessera() const;
    net::Response listAis(const net::Request& req) const;
    // Each target's dSort session counters (targets that answer).
    std::map<std::string, nlohmann::json> targetCounters(const api::JobStatus& st) const;
    // The same for many jobs with one call per target (the list): job id ->
    // target id -> counters.
    std::map<std::string, std::map<std::string, nlohmann::json>> targetCounters(
        const std::vector<api::JobStatus>& jobs) const;
    std::map<std::string, api::AisDsortJobInfo> aisJobInfos(
        const api::JobStatus& st, const std::map<std::string, nlohmann::json>& counters) const;
    net::Response abort(const net::Request& req);
    net::Response remove(const net::Request& req);
    api::Result<std::string> readEkm(const spec::DsortSpec& spec) const;
    // The checks prepare() makes, then the plan: {"dry_run", "spec", "plan"}.
    api::Result<nlohmann::json> dryRun(spec::DsortSpec spec) const;
    static api::Status checkNoOverwrite(const spec::DsortSpec& spec, const std::vector<std::string>& inputs);
    api::Result<api::JobStatus> dsortJob(const std::string& id) const;

    proxy::ProxyState& m_state;
    proxy::JobCoordinator& m_jobs;
    std::string m_selfUrl;
    std::chrono::milliseconds m_peerTimeout;
    std::string m_clusterKey;  // presented to the targets (auth on)
    net::OutboundFetchOptions m_fetch;
    proxy::BucketLister m_list;
};

}  // namespace tessera::daemon::dsort
