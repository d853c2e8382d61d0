#pragma once
// Pieces every node role uses while starting: server options from the
// config, its own snode, the port announcement, waiting for a signal, the
// node-information document.

#include "api/node_stats.h"
#include "api/result.h"
#include "api/smap.h"
#include "config.h"
#include "net/http_server.h"
#include "stats/system_sampler.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <chrono>
#include <functional>
#include <future>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>

namespace tessera::daemon {

using Clock = std::chrono::steady_clock;

net::ServerOptions serverOptions(const Config& c);
api::Snode makeSnode(const std::string& id, std::string_view role, const Config& c, unsigned short port);
// Writes the port file (when configured) and prints the listening address.
void announcePort(const Config& c, unsigned short port);
// Blocks until SIGINT or SIGTERM.
void waitForSignal();

// SIGINT and SIGTERM for a node that drains: wait() returns at the first;
// a second one, while the node drains, ends the process at once with
// status 0 (an operator who does not want to wait). Listens from
// construction to destruction, on its own thread.
class ShutdownSignals {
public:
    ShutdownSignals();
    ~ShutdownSignals();
    ShutdownSignals(const ShutdownSignals&) = delete;
    ShutdownSignals& operator=(const ShutdownSignals&) = delete;
    // Blocks until the first signal; returns its number.
    int wait();

private:
    boost::asio::io_context m_ioc;
    boost::asio::signal_set m_signals;
    std::promise<int> m_first;
    std::thread m_thread;
};
// What the node's AIStore answers (node_status, sysinfo, config) take from
// its configuration; `port`: the bound one.
stats::AisNodeView aisNodeView(const Config& c, unsigned short port);
nlohmann::json baseInfo(const Config& c, const std::string& id, Clock::time_point started, const net::HttpServer& s);
// The statistics every node has: process, connections, operation counters.
// The role adds map versions and mountpaths.
api::NodeStats baseNodeStats(const std::string& id, std::string_view role, Clock::time_point started,
                             net::HttpServer& s);
// GET /metrics: the node's statistics in Prometheus text format.
void addMetricsRoute(net::Router& router, std::function<api::NodeStats()> stats);

// Start-up only: turns a failed result into an exception with a clear message.
template <typename T>
T orThrow(api::Result<T> r, const std::string& what)
{
    if (!r) {
        throw std::runtime_error(what + ": " + r.error().message +
                                 (r.error().causedBy.empty() ? "" : " (" + r.error().causedBy + ")"));
    }
    return std::move(r.value());
}

}  // namespace tessera::daemon
