#pragma once
// The proxy role: cluster map and bucket metadata (persisted in SQLite),
// membership and keepalive monitoring, redirects and merged listings.

#include "api/smap.h"
#include "config.h"
#include "dsort/dsort_proxy_api.h"
#include "meta/cluster_store.h"
#include "net/http_server.h"
#include "net/router.h"
#include "node.h"
#include "node_auth.h"
#include "node_common.h"
#include "node_tls.h"
#include "proxy/audit_trail.h"
#include "proxy/auth_proxy_api.h"
#include "proxy/cluster_monitor.h"
#include "proxy/console_assets.h"
#include "proxy/decommission.h"
#include "proxy/etl_proxy_api.h"
#include "proxy/feed_hub.h"
#include "proxy/job_coordinator.h"
#include "proxy/peer_calls.h"
#include "proxy/protection.h"
#include "proxy/proxy_api.h"
#include "proxy/proxy_state.h"
#include "proxy/shard_job_planner.h"
#include "proxy/xaction_api.h"
#include "s3/s3_api.h"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>

namespace tessera::daemon {

class ProxyNode : public Node {
public:
    // Opens the database and binds the port; throws on failure.
    explicit ProxyNode(const Config& config);
    int run() override;

private:
    // Removes targets that missed their keepalives (own thread).
    void monitorKeepalives();
    api::NodeStats nodeStats();
    // Starts the automatic rebalance when a published map changed placement.
    // Runs on the thread that published (under the membership lock).
    void onPlacementMaybeChanged(const api::Smap& before, const api::Smap& after);
    // decommission-node flagged a present target, or was repeated for one:
    // its rebalance is due (or owed, while another target is away).
    void onMoveRequested();
    void onTargetRestarted(const std::string& id);
    // The S3 front end's access keys: the keys file, then users.db (auth on).
    void wireS3Keys(const Config& c);

    Config m_config;
    std::string m_id;
    Clock::time_point m_started = Clock::now();
    net::Router m_router;
    std::unique_ptr<meta::ClusterStore> m_store;
    // Auth on only; declared before the server, which refers to its
    // authorizer, so that it outlives the server.
    std::unique_ptr<NodeAuth> m_auth;
    std::unique_ptr<net::HttpServer> m_server;
    std::unique_ptr<NodeTls> m_tls;  // null: plain HTTP
    api::Snode m_self;
    std::unique_ptr<proxy::ProxyState> m_state;
    std::unique_ptr<proxy::PeerCalls> m_peers;
    std::unique_ptr<proxy::Protection> m_protection;
    std::unique_ptr<proxy::Decommission> m_decommission;
    std::unique_ptr<proxy::ProxyApi> m_api;
    std::unique_ptr<s3::S3Api> m_s3;  // /s3/...: the S3 front end (docs/s3.md)
    // Config::s3Port: the same S3 front end at the root of a port of its own.
    net::Router m_s3Router;
    std::unique_ptr<net::HttpServer> m_s3Server;
    std::unique_ptr<NodeTls> m_s3Tls;  // the S3 port's TLS (null: plain HTTP)
    std::unique_ptr<proxy::ClusterMonitor> m_monitor;
    std::shared_ptr<proxy::FeedHub> m_feed;
    std::unique_ptr<proxy::AuditTrail> m_audit;
    std::unique_ptr<proxy::JobCoordinator> m_jobs;
    std::unique_ptr<proxy::XactionApi> m_xactions;  // AIStore's xaction calls over m_jobs
    std::unique_ptr<proxy::ShardJobPlanner> m_shardJobs;
    std::unique_ptr<dsort::DsortProxyApi> m_dsorts;
    std::unique_ptr<proxy::EtlProxyApi> m_etl;
    std::unique_ptr<proxy::AuthProxyApi> m_authApi;
    std::unique_ptr<proxy::ConsoleAssets> m_console;  // /console/: the web console's files
    std::mutex m_mutex;
    std::condition_variable m_cv;
    bool m_stopping = false;
    // A placement change came while a target was unavailable: the rebalance
    // is due when the last one returns, from maintenance too.
    std::atomic<bool> m_rebalanceOwed{false};
};

}  // namespace tessera::daemon
