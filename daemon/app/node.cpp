#include "node.h"

#include "api/smap.h"
#include "common/log.h"
#include "meta/cluster_store.h"
#include "meta/node_identity.h"
#include "net/http_server.h"
#include "proxy/peer_calls.h"
#include "proxy/proxy_api.h"
#include "proxy/proxy_state.h"
#include "target/membership.h"
#include "target/object_store.h"
#include "target/target_api.h"

#include <boost/asio/signal_set.hpp>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

namespace tessera::daemon {

namespace {

using Clock = std::chrono::steady_clock;

net::ServerOptions serverOptions(const Config& c)
{
    net::ServerOptions o;
    o.host = c.host;
    o.port = static_cast<unsigned short>(c.effectivePort());
    o.ioThreads = c.ioThreads;
    o.workerThreads = c.workerThreads;
    o.maxConnections = c.maxConnections;
    o.idleTimeout = std::chrono::milliseconds(c.idleTimeoutMs);
    o.ioTimeout = std::chrono::milliseconds(c.ioTimeoutMs);
    return o;
}

api::Snode makeSnode(const std::string& id, std::string_view role, const Config& c, unsigned short port)
{
    api::Snode n;
    n.id = id;
    n.type = std::string(role);
    n.publicNet.host = c.host;
    n.publicNet.port = port;
    n.publicNet.url = "http://" + c.host + ":" + std::to_string(port);
    return n;
}

template <typename T>
T orThrow(api::Result<T> r, const std::string& what)
{
    if (!r) throw std::runtime_error(what + ": " + r.error().message +
                                     (r.error().causedBy.empty() ? "" : " (" + r.error().causedBy + ")"));
    return std::move(r.value());
}

void announcePort(const Config& c, unsigned short port)
{
    if (!c.portFile.empty()) {
        auto st = meta::writeFileAtomic(c.portFile, std::to_string(port) + "\n");
        if (!st) throw std::runtime_error("cannot write port file: " + st.error().message);
    }
    std::cout << "tessera-node " << c.role << " listening on http://" << c.host << ":" << port << std::endl;
}

// Blocks until SIGINT or SIGTERM.
void waitForSignal()
{
    boost::asio::io_context ioc;
    boost::asio::signal_set signals(ioc, SIGINT, SIGTERM);
    signals.async_wait([](const boost::system::error_code&, int sig) { logInfo("signal ", sig, ", shutting down"); });
    ioc.run();
}

nlohmann::json baseInfo(const Config& c, const std::string& id, Clock::time_point started, const net::HttpServer& s)
{
    return {{"daemon_id", id},
            {"role", c.role},
            {"uptime_ns", std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - started).count()},
            {"connections", s.context().connections.load()},
            {"requests", s.context().requests.load()},
            {"config", nlohmann::json(c)}};
}

class ProxyNode : public Node {
public:
    explicit ProxyNode(const Config& c) : m_config(c)
    {
        m_id = orThrow(meta::loadOrCreateNodeId(c.dataDir, 'p'), "node id");
        m_store = orThrow(meta::ClusterStore::open((std::filesystem::path(c.dataDir) / "proxy.db").string()),
                          "cluster store");
        m_server = std::make_unique<net::HttpServer>(serverOptions(c), m_router);
        m_server->listen();
        m_self = makeSnode(m_id, api::kRoleProxy, c, m_server->port());
        m_state = orThrow(proxy::ProxyState::create(*m_store, m_self), "cluster state");
        m_peers = std::make_unique<proxy::PeerCalls>(std::chrono::milliseconds(c.peerTimeoutMs));
        m_api = std::make_unique<proxy::ProxyApi>(m_self, *m_state, *m_peers,
                                                  [this] { return baseInfo(m_config, m_id, m_started, *m_server); });
        m_api->registerRoutes(m_router);
    }

    int run() override
    {
        m_server->start();
        announcePort(m_config, m_server->port());
        logInfo("proxy ", m_id, " up; smap v", m_state->smap().version, ", ", m_state->bmd().buckets.size(),
                " bucket(s)");
        std::thread monitor([this] { monitorKeepalives(); });
        waitForSignal();
        {
            std::lock_guard lock(m_mutex);
            m_stopping = true;
        }
        m_cv.notify_all();
        monitor.join();
        m_server->stop();
        m_server->wait();
        return 0;
    }

private:
    void monitorKeepalives()
    {
        const auto interval = std::chrono::milliseconds(m_config.keepaliveIntervalMs);
        const auto maxSilence = interval * m_config.keepaliveMaxMissed;
        std::unique_lock lock(m_mutex);
        while (!m_stopping) {
            m_cv.wait_for(lock, interval / 2, [this] { return m_stopping; });
            if (m_stopping) break;
            lock.unlock();
            auto membership = m_state->membershipLock();
            auto changed = m_state->expire(maxSilence);
            if (!changed) {
                logError("cannot persist the cluster map: ", changed.error().message);
            } else if (changed->has_value()) {
                m_peers->pushMeta(**changed, **changed, std::nullopt);
            }
            membership.unlock();
            lock.lock();
        }
    }

    Config m_config;
    std::string m_id;
    Clock::time_point m_started = Clock::now();
    net::Router m_router;
    std::unique_ptr<meta::ClusterStore> m_store;
    std::unique_ptr<net::HttpServer> m_server;
    api::Snode m_self;
    std::unique_ptr<proxy::ProxyState> m_state;
    std::unique_ptr<proxy::PeerCalls> m_peers;
    std::unique_ptr<proxy::ProxyApi> m_api;
    std::mutex m_mutex;
    std::condition_variable m_cv;
    bool m_stopping = false;
};

class TargetNode : public Node {
public:
    explicit TargetNode(const Config& c) : m_config(c)
    {
        m_id = orThrow(meta::loadOrCreateNodeId(c.dataDir, 't'), "node id");
        target::ObjectStore::Options so;
        so.mountpaths = c.mountpaths;
        so.fsync = c.fsync;
        so.maxObjectSize = c.maxObjectSize;
        m_store = orThrow(target::ObjectStore::create(so), "mountpaths");
        m_server = std::make_unique<net::HttpServer>(serverOptions(c), m_router);
        m_server->listen();
        m_self = makeSnode(m_id, api::kRoleTarget, c, m_server->port());
        m_membership = std::make_unique<target::Membership>(m_self, c.proxyUrl, m_cache,
                                                            std::chrono::milliseconds(c.keepaliveIntervalMs),
                                                            std::chrono::milliseconds(c.peerTimeoutMs));
        m_api = std::make_unique<target::TargetApi>(m_self, *m_store, m_cache, *m_membership,
                                                    [this] { return baseInfo(m_config, m_id, m_started, *m_server); });
        m_api->registerRoutes(m_router);
    }

    int run() override
    {
        m_server->start();
        announcePort(m_config, m_server->port());
        logInfo("target ", m_id, " up with ", m_config.mountpaths.size(), " mountpath(s); joining ",
                m_config.proxyUrl);
        m_membership->start();
        waitForSignal();
        m_membership->stop();
        m_server->stop();
        m_server->wait();
        return 0;
    }

private:
    Config m_config;
    std::string m_id;
    Clock::time_point m_started = Clock::now();
    net::Router m_router;
    std::unique_ptr<target::ObjectStore> m_store;
    std::unique_ptr<net::HttpServer> m_server;
    api::Snode m_self;
    target::MetaCache m_cache;
    std::unique_ptr<target::Membership> m_membership;
    std::unique_ptr<target::TargetApi> m_api;
};

}  // namespace

std::unique_ptr<Node> Node::create(const Config& config)
{
    if (config.role == "proxy") return std::make_unique<ProxyNode>(config);
    return std::make_unique<TargetNode>(config);
}

}  // namespace tessera::daemon
