#pragma once
// Pieces every node role uses while starting: server options from the
// config, its own snode, the port announcement, waiting for a signal, the
// node-information document.

#include "api/node_stats.h"
#include "api/result.h"
#include "api/smap.h"
#include "config.h"
#include "net/http_server.h"

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tessera::daemon {

using Clock = std::chrono::steady_clock;

net::ServerOptions serverOptions(const Config& c);
api::Snode makeSnode(const std::string& id, std::string_view role, const Config& c, unsigned short port);
// Writes the port file (when configured) and prints the listening address.
void announcePort(const Config& c, unsigned short port);
// Blocks until SIGINT or SIGTERM.
void waitForSignal();
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
