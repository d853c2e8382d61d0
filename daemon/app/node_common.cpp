#include "node_common.h"

#include "common/log.h"
#include "meta/node_identity.h"
#include "stats/process_usage.h"
#include "stats/prometheus_text.h"

#include <boost/asio/signal_set.hpp>
#include <cstdlib>
#include <iostream>

namespace tessera::daemon {

net::ServerOptions serverOptions(const Config& c)
{
    net::ServerOptions o;
    o.host = c.host;
    o.port = static_cast<unsigned short>(c.effectivePort());
    o.ioThreads = c.ioThreads;
    o.workerThreads = c.workerThreads;
    o.maxConnections = c.maxConnections;
    o.maxConnectionsPerAddress = c.maxConnectionsPerAddress;
    o.headerTimeout = std::chrono::milliseconds(c.headerTimeoutMs);
    o.idleTimeout = std::chrono::milliseconds(c.idleTimeoutMs);
    o.ioTimeout = std::chrono::milliseconds(c.ioTimeoutMs);
    o.countOps = c.opStats;
    return o;
}

api::Snode makeSnode(const std::string& id, std::string_view role, const Config& c, unsigned short port)
{
    api::Snode n;
    n.id = id;
    n.type = std::string(role);
    n.publicNet.host = c.host;
    n.publicNet.port = port;
    n.publicNet.url = c.scheme() + "://" + c.host + ":" + std::to_string(port);
    return n;
}

void announcePort(const Config& c, unsigned short port)
{
    if (!c.portFile.empty()) {
        auto st = meta::writeFileAtomic(c.portFile, std::to_string(port) + "\n");
        if (!st) throw std::runtime_error("cannot write port file: " + st.error().message);
    }
    std::cout << "tessera-node " << c.role << " listening on " << c.scheme() << "://" << c.host << ":" << port
              << std::endl;
}

// Blocks until SIGINT or SIGTERM.
void waitForSignal()
{
    boost::asio::io_context ioc;
    boost::asio::signal_set signals(ioc, SIGINT, SIGTERM);
    signals.async_wait([](const boost::system::error_code&, int sig) { logInfo("signal ", sig, ", shutting down"); });
    ioc.run();
}

ShutdownSignals::ShutdownSignals() : m_signals(m_ioc, SIGINT, SIGTERM)
{
    m_signals.async_wait([this](const boost::system::error_code& ec, int sig) {
        if (ec) return;
        logInfo("signal ", sig, ": draining (a second signal exits at once)");
        m_first.set_value(sig);
        m_signals.async_wait([](const boost::system::error_code& ec2, int again) {
            if (ec2) return;
            logWarn("signal ", again, " during the drain: exiting now");
            std::_Exit(0);
        });
    });
    m_thread = std::thread([this] { m_ioc.run(); });
}

ShutdownSignals::~ShutdownSignals()
{
    m_ioc.stop();
    if (m_thread.joinable()) m_thread.join();
}

int ShutdownSignals::wait() { return m_first.get_future().get(); }

stats::AisNodeView aisNodeView(const Config& c, unsigned short port)
{
    stats::AisNodeView v;
    v.version = TESSERA_VERSION;
    v.config = [c, port] {
        api::AisConfigSource s;
        s.host = c.host;
        s.port = port;
        s.mountpaths = c.mountpaths;
        s.dataDir = c.dataDir;
        s.tlsCertFile = c.tlsCertFile;
        s.tlsKeyFile = c.tlsKeyFile;
        s.tlsCaFile = c.tlsCaFile;
        s.authEnabled = c.authEnabled;
        s.peerTimeoutMs = c.peerTimeoutMs;
        s.keepaliveMaxMs = c.keepaliveIntervalMs * c.keepaliveMaxMissed;
        s.ioTimeoutMs = c.ioTimeoutMs;
        return s;
    };
    return v;
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

api::NodeStats baseNodeStats(const std::string& id, std::string_view role, Clock::time_point started,
                             net::HttpServer& s)
{
    api::NodeStats st;
    st.id = id;
    st.role = std::string(role);
    st.tsNs = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
                  .count();
    st.uptimeNs = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - started).count();
    const auto usage = stats::readProcessUsage();
    st.cpuNs = usage.cpuNs;
    st.rssBytes = usage.rssBytes;
    st.connections = s.context().connections.load();
    st.requests = s.context().requests.load();
    st.ops = s.stats().snapshot();
    st.checksumErrors = s.stats().checksumErrors();
    return st;
}

void addMetricsRoute(net::Router& router, std::function<api::NodeStats()> stats)
{
    router.add(net::Route{boost::beast::http::verb::get,
                          "/metrics",
                          net::Exec::Worker,
                          [stats = std::move(stats)](const net::Request&) {
                              net::Response r;
                              r.body = stats::renderPrometheus(stats());
                              r.header("Content-Type", stats::kPrometheusContentType);
                              return r;
                          },
                          {}});
}

}  // namespace tessera::daemon
