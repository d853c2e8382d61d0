#include "proxy_node.h"

#include "common/log.h"
#include "meta/node_identity.h"
#include "s3/s3_keys.h"
#include "s3/virtual_host.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <thread>

namespace tessera::daemon {

void ProxyNode::wireS3Keys(const Config& c)
{
    // The keys file (if configured) is asked first and wins for an id in
    // both; then, auth on, the keys in users.db. Auth off and no file: any
    // well-formed signature is accepted (docs/s3.md).
    std::map<std::string, s3::S3Api::Key, std::less<>> fileKeys;
    if (!c.s3KeysFile.empty()) {
        fileKeys = orThrow(s3::loadS3Keys(c.s3KeysFile), "S3 keys");
        logInfo("S3 signatures verified with ", fileKeys.size(), " key(s) from ", c.s3KeysFile,
                m_auth ? " and the keys in users.db" : "");
    } else if (m_auth) {
        logInfo("S3 signatures verified with the S3 keys in users.db (tessera s3-key create)");
    }
    if (c.s3KeysFile.empty() && !m_auth) return;
    auth::UserStore* store = m_auth ? m_auth->users() : nullptr;
    m_s3->setSecretLookup([keys = std::move(fileKeys),
                           store](std::string_view ak) -> api::Result<std::optional<s3::S3Api::Key>> {
        if (auto it = keys.find(ak); it != keys.end()) return std::optional<s3::S3Api::Key>(it->second);
        if (store == nullptr) return std::optional<s3::S3Api::Key>{};
        auto found = store->s3Secret(ak);
        if (!found) {
            logWarn("S3 key \"", ak, "\": ", found.error().message);
            return found.error();
        }
        if (!*found) return std::optional<s3::S3Api::Key>{};
        return std::optional<s3::S3Api::Key>(s3::S3Api::Key{std::move((*found)->secret), std::move((*found)->user)});
    });
}

ProxyNode::ProxyNode(const Config& c) : m_config(c)
{
    m_id = orThrow(meta::loadOrCreateNodeId(c.dataDir, 'p'), "node id");
    m_store =
        orThrow(meta::ClusterStore::open((std::filesystem::path(c.dataDir) / "proxy.db").string()), "cluster store");
    const auto keyFile =
        c.clusterKeyFile.empty() ? (std::filesystem::path(c.dataDir) / "cluster.key").string() : c.clusterKeyFile;
    const auto clusterKey = orThrow(meta::loadClusterKey(keyFile, c.clusterKeyFile.empty()), "cluster key");
    logInfo("cluster key in ", keyFile, " (targets need it: --cluster-key-file)");
    m_server = std::make_unique<net::HttpServer>(serverOptions(c), m_router);
    m_tls = NodeTls::start(c, *m_server);
    m_server->listen();
    m_self = makeSnode(m_id, api::kRoleProxy, c, m_server->port());
    m_state = orThrow(proxy::ProxyState::create(*m_store, m_self), "cluster state");
    m_peers = std::make_unique<proxy::PeerCalls>(std::chrono::milliseconds(c.peerTimeoutMs), clusterKey);
    m_api = std::make_unique<proxy::ProxyApi>(
        m_self, *m_state, *m_peers, [this] { return baseInfo(m_config, m_id, m_started, *m_server); },
        [this] { return nodeStats(); }, clusterKey,
        std::chrono::milliseconds(c.keepaliveIntervalMs * c.keepaliveMaxMissed));
    m_api->setAisView(aisNodeView(c, m_server->port()));
    m_api->setListTimeout(std::chrono::milliseconds(c.listTimeoutMs));
    m_api->registerRoutes(m_router);
    // Listings for the planners and the S3 front end, and S3's bucket
    // creation and removal, in process: a worker waiting on the proxy's own
    // HTTP port would need another worker to answer it.
    const proxy::BucketLister list = [this](const std::string& bucket, const api::ListRequest& lr) {
        return m_api->listPage(bucket, lr);
    };
    s3::S3Api::NativeOps native;
    native.list = list;
    native.createBucket = [this](const std::string& bucket) { return m_api->createBucketNamed(bucket); };
    native.destroyBucket = [this](const std::string& bucket) -> api::Status {
        auto failed = m_api->destroyBucketNamed(bucket);
        if (!failed) return failed.error();
        // Gone from the cluster; what a target kept goes when it is destroyed again.
        if (!failed->empty()) logWarn("bucket ", bucket, " destroyed; removing its data failed on ", *failed);
        return {};
    };
    m_s3 = std::make_unique<s3::S3Api>(
        [this] { return m_state->smap(); }, [this] { return m_state->bmd(); }, std::move(native), m_self.publicNet.url,
        clusterKey,
        // a relayed PUT waits for the target's commit (fsync), a
        // listing for the proxy's wait for its targets' pages
        std::chrono::milliseconds(std::max<std::int64_t>({c.peerTimeoutMs, 60000, c.listTimeoutMs + c.peerTimeoutMs})));
    m_s3->registerRoutes(m_router);
    if (c.s3Port >= 0) {
        m_s3->registerRoutes(m_s3Router, "");
        auto so = serverOptions(c);
        so.port = static_cast<unsigned short>(c.s3Port);
        m_s3Server = std::make_unique<net::HttpServer>(so, m_s3Router);
        // The same certificate as the proxy's own port (reloaded at SIGHUP too).
        m_s3Tls = NodeTls::start(c, *m_s3Server);
        m_s3Server->listen();
        logInfo("S3 front end also at ", m_s3Tls ? "https" : "http", "://", c.host, ":", m_s3Server->port(), "/");
    }
    if (!c.s3VirtualHost.empty()) {
        // Both ports: a Host under the suffix is an S3 request, whatever its path.
        const auto rewrite = [suffix = c.s3VirtualHost](std::string prefix) {
            return [suffix, prefix = std::move(prefix)](const net::Request& req) {
                return s3::virtualHostPath(req.header("host"), req.path, suffix, prefix);
            };
        };
        m_router.setPathRewrite(rewrite("/s3"));
        m_s3Router.setPathRewrite(rewrite(""));
        logInfo("S3 virtual-host style: Host BUCKET.", c.s3VirtualHost, " (and ", c.s3VirtualHost, ")");
    }
    addMetricsRoute(m_router, [this] { return nodeStats(); });
    m_console = std::make_unique<proxy::ConsoleAssets>(c.consoleDir.empty() ? proxy::ConsoleAssets::defaultDir()
                                                                            : c.consoleDir);
    m_console->registerRoutes(m_router);
    logInfo("web console at ", m_self.publicNet.url, "/console/ (files from ", m_console->dir(), ")");
    if (c.authEnabled) {
        m_auth = NodeAuth::forProxy(c, clusterKey);
        m_server->setAuthorizer(&m_auth->authorizer());
        m_peers->setRevokedSource([this] { return m_auth->tokens().exportRevoked(); });
        m_peers->setTokenKeysSource([this] { return m_auth->tokenKeys(); });
        proxy::AuthProxyApi::Hooks hooks{[this](std::string_view change, std::string_view retry) {
                                             return m_peers->pushAuth(*m_state->smap(), change, retry);
                                         },
                                         [this] { return m_auth->tokenKeys(); },
                                         [this] { return m_auth->rotateTokenKey(); },
                                         [this](std::string_view kid) { return m_auth->dropTokenKey(kid); }};
        m_authApi = std::make_unique<proxy::AuthProxyApi>(*m_auth->users(), m_auth->tokens(), std::move(hooks));
        m_authApi->registerRoutes(m_router);
        m_api->setBucketFilter([this](const net::Request& req, std::vector<api::BucketRef> all) {
            return m_authApi->visibleBuckets(req, std::move(all));
        });
        // S3 keys act as their users, with those users' grants; a Tessera
        // access token (Authorization: Bearer, what the web console sends)
        // is checked by the token service the authorizer uses (docs/s3.md).
        m_s3->setPermissionCheck([this](const std::string& user, const std::string& bucket, api::Permission p) {
            return m_auth->users()->check(user, bucket, p);
        });
        m_s3->setTokenCheck([this](std::string_view token) -> api::Result<std::string> {
            auto claims = m_auth->tokens().verify(token, auth::TokenUse::Access);
            if (!claims) return claims.error();
            return std::move(claims->subject);
        });
        m_api->setRedirectSigner([this](std::string_view method, std::string_view bucket, std::string_view object) {
            return m_auth->signRedirect(method, bucket, object);
        });
    } else {
        NodeAuth::warnOpen("proxy");
    }
    wireS3Keys(c);

    proxy::ClusterMonitor::Options mo;
    mo.peerTimeout = std::chrono::milliseconds(c.peerTimeoutMs);
    mo.clusterKey = clusterKey;
    mo.errorBurstPerSec = c.errorBurstPerSec;
    m_monitor = std::make_unique<proxy::ClusterMonitor>(mo, *m_state, [this] { return nodeStats(); });
    proxy::FeedOptions fo;
    fo.defaultInterval = std::chrono::milliseconds(c.statsIntervalMs);
    fo.maxSessions = c.wsMaxSessions;
    fo.allowedOrigins = c.wsAllowedOrigins;
    fo.selfOrigin = m_self.publicNet.url;
    fo.session.maxQueue = c.wsQueueMax;
    fo.session.writeTimeout = std::chrono::milliseconds(c.wsWriteTimeoutMs);
    fo.session.sendBufferBytes = c.wsSendBuffer;
    m_feed =
        proxy::FeedHub::create(fo, m_server->sharedContext(), [this] { return nlohmann::json(m_monitor->snapshot()); });
    m_monitor->attach(m_feed);
    m_audit = std::make_unique<proxy::AuditTrail>(m_self.id, m_feed, c.authEnabled);
    m_server->setAuditor([this](const net::Request& req, int status) { m_audit->record(req, status); });
    proxy::JobCoordinator::Options jo;
    jo.peerTimeout = std::chrono::milliseconds(c.peerTimeoutMs);
    jo.clusterKey = clusterKey;
    jo.rebalanceAuto = c.rebalanceAuto;
    jo.rebalanceDelay = std::chrono::milliseconds(c.rebalanceDelayMs);
    m_jobs = std::make_unique<proxy::JobCoordinator>(jo, *m_state);
    m_jobs->attach(m_feed);
    m_jobs->registerRoutes(m_router);
    m_xactions = std::make_unique<proxy::XactionApi>(*m_jobs);
    m_api->setClusterExtension(
        [this](const std::string& what, const net::Request& req) { return m_xactions->query(what, req); },
        [this](const api::ActionMsg& msg) { return m_xactions->action(msg); });
    m_shardJobs = std::make_unique<proxy::ShardJobPlanner>(*m_state, *m_jobs, list);
    m_shardJobs->registerWith(*m_jobs, m_router);
    net::OutboundFetchOptions fetch;
    for (const auto& n : c.fetchAllowNetworks) fetch.allowed.push_back(net::IpNetwork::parse(n).value());  // validated
    fetch.maxBytes = dsort::DsortProxyApi::kMaxEkmBytes;
    m_dsorts = std::make_unique<dsort::DsortProxyApi>(
        *m_state, *m_jobs, m_self.publicNet.url, std::chrono::milliseconds(c.peerTimeoutMs), clusterKey, fetch, list);
    m_dsorts->registerWith(*m_jobs, m_router);
    m_api->addBucketAction("archive", [this](const std::string& bucket, const api::ActionMsg& msg) {
        return m_shardJobs->archiveAction(bucket, msg.value);
    });
    m_etl =
        std::make_unique<proxy::EtlProxyApi>(*m_state, *m_peers, *m_jobs, std::chrono::milliseconds(c.peerTimeoutMs));
    m_etl->attach(m_feed);
    m_etl->registerRoutes(m_router);
    m_etl->registerWith(*m_jobs);
    for (const char* action : {"etl-bck", "etl-listrange"}) {
        m_api->addBucketAction(action, [this](const std::string& bucket, const api::ActionMsg& msg) {
            return m_etl->bucketAction(bucket, msg);
        });
    }
    m_protection =
        std::make_unique<proxy::Protection>(*m_state, *m_peers, *m_jobs, std::chrono::milliseconds(c.scrubIntervalMs));
    m_protection->registerWith(*m_jobs);
    m_decommission = std::make_unique<proxy::Decommission>(*m_state, *m_peers);
    m_decommission->registerWith(*m_jobs);
    m_api->setMoveRequested([this](const std::string&) { onMoveRequested(); });
    m_api->setRestarted([this](const std::string& id) { onTargetRestarted(id); });
    m_api->setPropsObserver(
        [this](const std::string& bucket, const api::BucketProps& before, const api::BucketProps& after) {
            m_protection->propsChanged(bucket, before, after);
        });
    m_monitor->setJobsSource([this] { return m_jobs->running(); });
    m_state->setObserver({[this](const api::Smap& before, const api::Smap& after) {
                              m_monitor->onSmapPublished(before, after);
                              onPlacementMaybeChanged(before, after);
                          },
                          [this](const api::Bmd& bmd) { m_monitor->onBmdChanged(bmd); }});
    net::Route ws{boost::beast::http::verb::get, "/v1/ws", net::Exec::Inline, {}, {}};
    ws.websocket = m_feed->acceptor();
    ws.access = net::Access::user();
    m_router.add(std::move(ws));
}

namespace {

// The targets placement may choose: a decommissioning one leaving (or a
// new one joining) changes them, removing a target that had left does not.
std::set<std::string> placementMembers(const api::Smap& smap)
{
    std::set<std::string> out;
    for (const auto& [id, node] : smap.tmap) {
        if (node.placement()) out.insert(id);
    }
    return out;
}

bool anyDecommissioning(const api::Smap& smap)
{
    return std::any_of(smap.tmap.begin(), smap.tmap.end(), [](const auto& n) { return n.second.decommissioning(); });
}

}  // namespace

void ProxyNode::onPlacementMaybeChanged(const api::Smap& before, const api::Smap& after)
{
    // Placement changed (a join, a decommission), or a target came back
    // after missing its keepalives (a rebalance it missed may be due). While
    // one is away or in maintenance a rebalance could not move its objects:
    // it waits for the return. A target back from maintenance changed no
    // placement (it stayed in the map): a planned restart starts no
    // rebalance, unless one has been waiting for it, or a bucket is mirrored
    // across targets (a write committed by an owner whose copy could not
    // reach the target as it left is sent by the rebalance's reprotect).
    bool placement = placementMembers(before) != placementMembers(after);
    bool returned = false;
    bool maintenanceOver = false;
    for (const auto& [id, node] : after.tmap) {
        auto was = before.tmap.find(id);
        if (was != before.tmap.end() && was->second.away() && !node.away()) {
            (was->second.missedKeepalives() ? returned : maintenanceOver) = true;
        }
    }
    if (after.activeTargetCount() != after.tmap.size()) {
        if (placement) m_rebalanceOwed = true;
        return;
    }
    const bool owed = m_rebalanceOwed.exchange(false);
    bool mirrored = false;
    for (const auto& [name, props] : m_state->bmd()->buckets) mirrored = mirrored || props.mirror.targetCopies() > 1;
    if (placement || returned || (maintenanceOver && (owed || mirrored))) {
        // A decommissioning target leaves only after a rebalance: it runs
        // even with rebalance_auto off.
        if (anyDecommissioning(after)) m_jobs->requestRebalance();
        else m_jobs->onTargetsChanged();
    }
}

void ProxyNode::onTargetRestarted(const std::string& id)
{
    // A target killed and started again within its keepalive window never
    // showed as away, so no return starts a rebalance: with copies or slices
    // in the cluster one is due all the same (what it missed while down is
    // sent by the rebalance's reprotect; its interrupted changes are
    // reconciled by its own records).
    bool protectedBuckets = false;
    for (const auto& [name, props] : m_state->bmd()->buckets) {
        protectedBuckets = protectedBuckets || props.mirror.targetCopies() > 1 || props.ec.enabled;
    }
    if (!protectedBuckets) return;
    const auto smap = m_state->smap();
    if (smap->activeTargetCount() != smap->tmap.size()) {
        m_rebalanceOwed = true;  // when the away target returns
        return;
    }
    logInfo("target ", id, " restarted within its keepalive window: a rebalance brings its copies up to date");
    m_jobs->onTargetsChanged();
}

void ProxyNode::onMoveRequested()
{
    // A rebalance running or due covers the move: one that started before
    // the flag is aborted and started afresh (a new map made it due), one
    // that started after it moves everything the target holds.
    if (m_jobs->rebalancePending()) return;
    const auto smap = m_state->smap();
    if (smap->activeTargetCount() != smap->tmap.size()) {
        m_rebalanceOwed = true;  // when the away target returns
        return;
    }
    m_jobs->requestRebalance();
}

api::NodeStats ProxyNode::nodeStats()
{
    auto st = baseNodeStats(m_id, api::kRoleProxy, m_started, *m_server);
    st.smapVersion = m_state->smap()->version;
    st.bmdVersion = m_state->bmd()->version;
    if (m_feed) {
        const auto c = m_feed->counters();
        st.feed = api::FeedStats{c.sessions, c.accepted, c.refused, c.closedSlow};
    }
    return st;
}

int ProxyNode::run()
{
    m_server->start();
    if (m_s3Server) m_s3Server->start();
    announcePort(m_config, m_server->port());
    if (m_config.statsIntervalMs * 3 >= m_config.keepaliveIntervalMs * m_config.keepaliveMaxMissed) {
        logWarn("stats_interval_ms x 3 (", m_config.statsIntervalMs * 3, " ms) is not shorter than the keepalive ",
                "timeout (", m_config.keepaliveIntervalMs * m_config.keepaliveMaxMissed,
                " ms): a dead target will leave the map before the feed shows it stale");
    }
    logInfo("proxy ", m_id, " up; smap v", m_state->smap()->version, ", ", m_state->bmd()->buckets.size(),
            " bucket(s)");
    std::thread monitor([this] { monitorKeepalives(); });
    m_monitor->start();
    // A decommission whose move a previous run did not see to its end (the
    // proxy restarted meanwhile): the flag is in the persisted map, the
    // rebalance that ends it is asked for again (retried until it starts).
    if (anyDecommissioning(*m_state->smap())) {
        logInfo("a target is being decommissioned: its move's rebalance is due");
        m_jobs->requestRebalance();
    }
    m_jobs->start();
    m_etl->start();
    m_protection->start();
    waitForSignal();
    m_protection->stop();
    m_etl->stop();
    m_jobs->stop();
    m_monitor->stop();
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_cv.notify_all();
    monitor.join();
    m_server->stop();
    m_server->wait();
    if (m_s3Server) {
        m_s3Server->stop();
        m_s3Server->wait();
    }
    return 0;
}

void ProxyNode::monitorKeepalives()
{
    const auto interval = std::chrono::milliseconds(m_config.keepaliveIntervalMs);
    const auto maxSilence = interval * m_config.keepaliveMaxMissed;
    std::unique_lock lock(m_mutex);
    while (!m_stopping) {
        m_cv.wait_for(lock, interval / 2, [this] { return m_stopping; });
        if (m_stopping) break;
        lock.unlock();
        auto membership = m_state->membershipLock();
        auto changed = m_state->prepareAway(maxSilence);
        if (!changed) {
            logError("cannot persist the cluster map: ", changed.error().message);
        } else if (changed->has_value()) {
            m_peers->pushMeta(**changed, **changed, std::nullopt);
            m_state->publishSmap(**changed);
        }
        membership.unlock();
        lock.lock();
    }
}

}  // namespace tessera::daemon
