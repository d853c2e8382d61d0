#include "target_node.h"

#include "api/hrw.h"
#include "common/log.h"
#include "dsort/dsort_job.h"
#include "etl/etl_job.h"
#include "jobs/rebalance_job.h"
#include "jobs/scrub_job.h"
#include "jobs/shard_build_job.h"
#include "meta/node_identity.h"

#include <csignal>
#include <thread>
#include <unistd.h>

namespace tessera::daemon {

TargetNode::TargetNode(const Config& c) : m_config(c)
{
    m_id = orThrow(meta::loadOrCreateNodeId(c.dataDir, 't'), "node id");
    const auto clusterKey = orThrow(meta::loadClusterKey(c.clusterKeyFile, false), "cluster key");
    target::ObjectStore::Options so;
    so.mountpaths = c.mountpaths;
    so.fsync = c.fsync;
    so.commitLog = c.commitLog;
    so.commitLogOptions.checkpointAfter = std::chrono::milliseconds(c.commitLogCheckpointMs);
    so.maxObjectSize = c.maxObjectSize;
    so.openCache.capacity = static_cast<std::size_t>(c.openObjectCache);
    so.openCache.ttl = std::chrono::milliseconds(c.openObjectCacheTtlMs);
    so.tombstoneTtl = std::chrono::milliseconds(c.tombstoneTtlMs);
    m_store = orThrow(target::ObjectStore::create(so), "mountpaths");
    dsort::DsortJob::removeOrphanedOutputs(*m_store);
    m_multipart = std::make_unique<target::MultipartStore>(*m_store);
    if (const auto swept = m_multipart->sweep(); swept > 0)
        logInfo("S3 multipart: removed ", swept, " expired upload(s)");
    target::ShardService::Options shardOptions;
    shardOptions.limits.maxMembers = c.archiveMaxMembers;
    shardOptions.limits.maxMemberSize = c.archiveMaxMemberSize;
    shardOptions.limits.maxTotalSize = c.archiveMaxTotalSize;
    shardOptions.limits.maxCompressionRatio = c.archiveMaxCompressionRatio;
    shardOptions.useIndex = c.archiveIndex;
    m_archiveIndexes =
        std::make_unique<target::ArchiveIndexStore>(*m_store, shardOptions.limits, c.archiveIndexCacheBytes);
    m_shards = std::make_unique<target::ShardService>(*m_store, *m_archiveIndexes, shardOptions);
    m_server = std::make_unique<net::HttpServer>(serverOptions(c), m_router);
    m_tls = NodeTls::start(c, *m_server);
    m_server->listen();
    m_self = makeSnode(m_id, api::kRoleTarget, c, m_server->port());
    m_membership = std::make_unique<target::Membership>(m_self, c.proxyUrl, m_cache,
                                                        std::chrono::milliseconds(c.keepaliveIntervalMs),
                                                        std::chrono::milliseconds(c.peerTimeoutMs), clusterKey);
    // Removed from the map at the end of its decommission: the process ends
    // through the same drain as an operator's SIGTERM, by sending one to
    // itself. run() waits in ShutdownSignals::wait() on the main thread, and
    // the signal is the one thing that wakes it; a stop requested any other
    // way would need a second wake-up path into that wait, and an
    // operator's SIGTERM arriving at the same moment would race it. With
    // the signal there is one path: the drain answers what is in flight,
    // aborts the jobs and run() returns 0 (a second signal still ends the
    // process at once). kill() is safe from any thread, and this runs on
    // the thread that applied the map (a metasync or the keepalive's pull).
    m_membership->setOnRemoved([] { ::kill(::getpid(), SIGTERM); });
    m_cache.setSmapListener(
        [this](const api::Smap& before, const api::Smap& after) { m_membership->smapChanged(before, after); });
    m_api = std::make_unique<target::TargetApi>(
        m_self, *m_store, *m_shards, m_cache, *m_membership, std::chrono::milliseconds(c.peerTimeoutMs),
        [this] { return baseInfo(m_config, m_id, m_started, *m_server); }, [this] { return nodeStats(); },
        m_server->stats(), clusterKey);
    m_api->setMultipart(m_multipart.get());
    m_api->setAisView(aisNodeView(c, m_server->port()));
    m_api->registerRoutes(m_router);
    if (c.authEnabled) {
        m_auth = NodeAuth::forTarget(clusterKey);
        m_server->setAuthorizer(&m_auth->authorizer());
        m_cache.setRevokedListener(
            [this](const api::RevokedTokens& revoked) { return m_auth->tokens().importRevoked(revoked); });
        m_cache.setTokenKeysListener(
            [this](const api::TokenKeyRing& ring, bool fromJoin) { return m_auth->applyTokenKeys(ring, fromJoin); });
    } else {
        NodeAuth::warnOpen("target");
    }
    m_ec = std::make_unique<ec::EcService>(m_self, *m_store, m_cache, std::chrono::milliseconds(c.peerTimeoutMs),
                                           clusterKey);
    m_ec->registerRoutes(m_router);
    m_api->setErasureCoding(m_ec.get());
    etl::EtlManager::Options eo;
    eo.binDirs = c.effectiveEtlBinDirs();
    eo.workRoot = c.dataDir + "/etl-work";
    eo.host = c.host;
    eo.selfUrl = m_self.publicNet.url;
    eo.caFile = c.tlsCaFile;
    eo.targetId = m_id;
    eo.cores = std::max(1u, std::thread::hardware_concurrency());
    m_etl = std::make_unique<etl::EtlManager>(eo);
    m_etl->registerRoutes(m_router);
    m_api->setEtl(m_etl.get());
    m_cache.setEtlListener([this](const api::EtlMd& md) { m_etl->apply(md); });
    addMetricsRoute(m_router, [this] { return nodeStats(); });
    m_dsorts = std::make_unique<dsort::DsortRegistry>(c.mountpaths);
    m_dsortApi = std::make_unique<dsort::DsortTargetApi>(*m_dsorts);
    m_dsortApi->registerRoutes(m_router);
    dsort::DsortJob::Options dsortOptions;
    dsortOptions.peerTimeout = std::chrono::milliseconds(c.peerTimeoutMs);
    dsortOptions.clusterKey = clusterKey;
    dsortOptions.limits = shardOptions.limits;
    dsortOptions.physicalMemory =
        static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(::sysconf(_SC_PAGE_SIZE));
    m_jobs = std::make_unique<jobs::JobRunner>(
        m_id,
        [this, dsortOptions, clusterKey](const std::string& kind,
                                         const jobs::JobArgs& given) -> api::Result<std::unique_ptr<jobs::JobWork>> {
            const auto peerTimeout = std::chrono::milliseconds(m_config.peerTimeoutMs);
            if (kind == jobs::kKindArchive || kind == jobs::kKindIshard) {
                return jobs::ShardBuildJob::create(*m_store, m_cache, m_id, peerTimeout, clusterKey, given);
            }
            // Only shard tasks come as text (TargetJobApi parses the others).
            if (given.json() == nullptr) {
                return api::Error::badRequest("invalid " + kind + " job: its args must be a parsed JSON object");
            }
            const nlohmann::json& args = *given.json();
            if (kind == jobs::kKindRebalance) {
                auto a = api::readMessage<api::RebalanceArgs>(args, kind);
                if (!a) return a.error();
                if (const auto have = m_cache.smap()->version; a->smapVersion > have) {
                    m_membership->requestRefresh();
                    return api::Error::unavailable("the rebalance is for cluster map v" +
                                                   std::to_string(a->smapVersion) + " and this target has v" +
                                                   std::to_string(have) + "; retry shortly");
                }
                return std::unique_ptr<jobs::JobWork>(
                    std::make_unique<jobs::RebalanceJob>(*m_store, m_cache, *m_ec, m_id, peerTimeout, clusterKey));
            }
            if (kind == jobs::kKindReprotect || kind == jobs::kKindScrub) {
                auto a = api::readMessage<api::BucketJobArgs>(args, kind);
                if (!a) return a.error();
                const auto bucket = a->bucket.value_or(std::string());
                if (kind == jobs::kKindScrub) {
                    return std::unique_ptr<jobs::JobWork>(std::make_unique<jobs::ScrubJob>(
                        *m_store, m_cache, *m_ec, m_id, peerTimeout, clusterKey, bucket));
                }
                return std::unique_ptr<jobs::JobWork>(std::make_unique<jobs::RebalanceJob>(
                    *m_store, m_cache, *m_ec, m_id, peerTimeout, clusterKey, bucket));
            }
            if (kind == dsort::kKindDsort) return dsort::DsortJob::create(*m_store, *m_dsorts, dsortOptions, args);
            if (kind == etl::kKindEtlBucket) {
                return etl::EtlJob::create(
                    etl::EtlJob::Env{*m_store, m_cache, *m_etl, m_id, peerTimeout, dsortOptions.limits,
                                     std::max(1u, std::thread::hardware_concurrency()), clusterKey},
                    args);
            }
            return api::Error::badRequest("unknown job kind \"" + kind +
                                          "\" (known: rebalance, reprotect, scrub, archive, ishard, dsort, etl-bck)");
        });
    m_jobApi = std::make_unique<jobs::TargetJobApi>(*m_jobs);
    m_jobApi->registerRoutes(m_router);
    m_batchGet = std::make_unique<jobs::BatchGetApi>(*m_store);
    m_batchGet->registerRoutes(m_router);
    // A bucket with copies on several targets (mirrored, or erasure coded:
    // its small objects are copied whole to the next P targets): each object
    // counted by its owner only.
    target::CountRule rule;
    rule.ownedOnly = [this](const std::string& bucket) {
        const auto bmd = m_cache.bmd();
        const auto* props = bmd->find(bucket);
        return props != nullptr && (props->mirror.targetCopies() > 1 || props->ec.enabled);
    };
    rule.owns = [this](const std::string& bucket, const std::string& name) {
        const auto smap = m_cache.smap();
        const auto* owner = api::hrwTarget(*smap, api::objectUname(bucket, name));
        return owner == nullptr || owner->id == m_id;
    };
    m_usage = std::make_unique<target::UsageScanner>(m_store->options().mountpaths,
                                                     std::chrono::milliseconds(c.usageScanIntervalMs), std::move(rule));
}

api::NodeStats TargetNode::nodeStats()
{
    auto st = baseNodeStats(m_id, api::kRoleTarget, m_started, *m_server);
    st.smapVersion = m_cache.smap()->version;
    st.bmdVersion = m_cache.bmd()->version;
    st.mountpaths = m_api->mountpathStats();
    if (auto usage = m_usage->latest()) {
        st.usageScannedNs = usage->scannedAtNs;
        st.buckets = std::move(usage->buckets);
        for (std::size_t i = 0; i < st.mountpaths.size() && i < usage->mountpathObjects.size(); ++i) {
            st.mountpaths[i].objects = static_cast<std::int64_t>(usage->mountpathObjects[i]);
        }
    }
    return st;
}

int TargetNode::run()
{
    ShutdownSignals signals;  // from before the node serves: a SIGTERM always drains
    m_server->start();
    announcePort(m_config, m_server->port());
    logInfo("target ", m_id, " up with ", m_config.mountpaths.size(), " mountpath(s); joining ", m_config.proxyUrl);
    m_membership->start();
    m_usage->start();
    startSuspects();
    signals.wait();
    stopSuspects();
    drain();
    m_server->stop();
    m_server->wait();
    m_jobs.reset();  // aborted by the drain; waits for them
    m_etl.reset();   // kills and reaps every transformer
    logInfo("target ", m_id, " stopped");
    return 0;
}

void TargetNode::startSuspects()
{
    m_suspectThread = std::thread([this] {
        const auto interval = std::chrono::milliseconds(std::max<std::int64_t>(100, m_config.keepaliveIntervalMs));
        std::unique_lock lock(m_suspectMutex);
        while (!m_suspectWake.wait_for(lock, interval, [this] { return m_suspectStop; })) {
            if (!m_store->intents().anySuspect()) continue;
            lock.unlock();
            m_api->reconcileSuspects();
            lock.lock();
        }
    });
}

void TargetNode::stopSuspects()
{
    {
        std::lock_guard lock(m_suspectMutex);
        m_suspectStop = true;
    }
    m_suspectWake.notify_all();
    if (m_suspectThread.joinable()) m_suspectThread.join();
}

void TargetNode::drain()
{
    // The keepalives stop first: once in maintenance, a keepalive would tell
    // the proxy this target is still present (which stop-maintenance needs).
    m_membership->stop();
    m_usage->stop();
    // (a) The proxy stops sending clients here: it marks this target in
    // maintenance (its objects answer 503 naming it, no rebalance starts)
    // and pushes the map before it answers. Bounded by the peer timeout; an
    // unreachable proxy finds out through the missed keepalives instead.
    // A decommissioned target is out of the map already: nothing is sent
    // here any more, and the proxy would answer that it does not know it.
    if (m_membership->removed()) {
        logInfo("drain: decommissioned; the cluster map no longer names this target");
    } else if (auto st = m_membership->startMaintenance(); !st) {
        logWarn("drain: could not go into maintenance (", st.error().message, "); draining anyway");
    } else {
        // A redirect the proxy sent just before its map changed is still on
        // its way here: the listening socket stays open a moment for it.
        std::this_thread::sleep_for(std::min(kRedirectGrace, std::chrono::milliseconds(m_config.drainTimeoutMs)));
    }
    // (b) No new connections, (c) what was read is answered; jobs stop.
    if (const auto n = m_jobs->abortAll(); n > 0) logInfo("drain: aborting ", n, " running job(s)");
    const auto timeout = std::chrono::milliseconds(m_config.drainTimeoutMs);
    logInfo("drain: closing the listening socket; ", m_server->context().inFlight.load(), " request(s) in flight");
    const auto left = m_server->drain(timeout);
    if (left > 0) {
        logWarn("drain: ", left, " request(s) still in flight after ", timeout.count(), " ms; cutting them off");
    } else {
        logInfo("drain: every request in flight was answered");
    }
}

}  // namespace tessera::daemon
