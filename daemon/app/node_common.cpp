#include "node_common.h"

#include "common/log.h"
#include "meta/node_identity.h"

#include <boost/asio/signal_set.hpp>
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

}  // namespace tessera::daemon
