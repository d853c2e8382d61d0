#pragma once
// The target role: mountpaths and objects, membership with the proxy, the
// data-path handlers.

#include "api/smap.h"
#include "config.h"
#include "dsort/dsort_registry.h"
#include "dsort/dsort_target_api.h"
#include "etl/etl_manager.h"
#include "jobs/batch_get_api.h"
#include "jobs/job_runner.h"
#include "jobs/target_job_api.h"
#include "net/http_server.h"
#include "net/router.h"
#include "node.h"
#include "node_auth.h"
#include "node_common.h"
#include "node_tls.h"
#include "target/archive_index_store.h"
#include "target/membership.h"
#include "target/meta_cache.h"
#include "target/object_store.h"
#include "target/shard_service.h"
#include "target/target_api.h"
#include "target/usage_scanner.h"

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

namespace tessera::daemon {

class TargetNode : public Node {
public:
    // Prepares the mountpaths (removing leftovers of a crash) and binds the
    // port; throws on failure.
    explicit TargetNode(const Config& config);
    int run() override;

private:
    // How long the listening socket stays open after the proxy put this
    // target in maintenance: a redirect sent just before reaches it.
    static constexpr std::chrono::milliseconds kRedirectGrace{250};

    api::NodeStats nodeStats();
    // Reconciles suspect names (interrupted changes of mirrored objects, see
    // target/intent_store.h) every keepalive interval until none is left;
    // a read of one reconciles it at once. Own thread, until stopSuspects().
    void startSuspects();
    void stopSuspects();
    // SIGTERM/SIGINT: maintenance, then no new connections, then the
    // requests in flight answered within drain_timeout_ms, jobs aborted.
    void drain();

    Config m_config;
    std::string m_id;
    Clock::time_point m_started = Clock::now();
    net::Router m_router;
    std::unique_ptr<target::ObjectStore> m_store;
    std::unique_ptr<target::MultipartStore> m_multipart;  // S3 multipart uploads this target owns
    std::unique_ptr<target::ArchiveIndexStore> m_archiveIndexes;
    std::unique_ptr<target::ShardService> m_shards;
    // Auth on only; declared before the server, which refers to its
    // authorizer, so that it outlives the server.
    std::unique_ptr<NodeAuth> m_auth;
    std::unique_ptr<net::HttpServer> m_server;
    std::unique_ptr<NodeTls> m_tls;  // null: plain HTTP
    api::Snode m_self;
    target::MetaCache m_cache;
    std::unique_ptr<target::Membership> m_membership;
    std::unique_ptr<target::TargetApi> m_api;
    std::unique_ptr<ec::EcService> m_ec;  // erasure-coded buckets' slices
    std::unique_ptr<target::UsageScanner> m_usage;
    std::unique_ptr<etl::EtlManager> m_etl;  // before m_jobs: ETL jobs use its transformers
    std::unique_ptr<jobs::JobRunner> m_jobs;
    std::unique_ptr<jobs::TargetJobApi> m_jobApi;
    std::unique_ptr<jobs::BatchGetApi> m_batchGet;   // peers building shards read sources through it
    std::unique_ptr<dsort::DsortRegistry> m_dsorts;  // before m_jobs: dSort jobs hold its sessions
    std::unique_ptr<dsort::DsortTargetApi> m_dsortApi;
    std::thread m_suspectThread;
    std::mutex m_suspectMutex;
    std::condition_variable m_suspectWake;
    bool m_suspectStop = false;
};

}  // namespace tessera::daemon
