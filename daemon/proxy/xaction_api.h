#pragma once
// AIStore's xaction calls over Tessera's jobs (api/ais_xaction.h has the
// shapes): what `ais show job`, `ais wait`, `ais stop`, `ais start
// rebalance` and the Python SDK's Job send to the proxy.
//   GET /v1/cluster?what=qryxstats    -> target id -> [core.Snap] (404 when nothing matches)
//   GET /v1/cluster?what=status       -> nl.Status of one job (by id, else the newest of the kind)
//   GET /v1/cluster?what=status_all   -> [nl.Status] of the matching jobs
//   GET /v1/cluster?what=running_all  -> ["kind[id]", ...] of the running ones
//   PUT /v1/cluster {"action":"stop","value":ArgsMsg}   aborts the job (by id), or every running
//                                                        job of the kind
//   PUT /v1/cluster {"action":"start","value":ArgsMsg}  starts a rebalance (the one startable
//                                                        kind Tessera has without arguments);
//                                                        answers its id as text, as AIStore does
// Reads the JobCoordinator's jobs (running and the last finished ones).
//
// Thread safety: as JobCoordinator's public members (any thread).

#include "api/action_msg.h"
#include "api/ais_xaction.h"
#include "job_coordinator.h"
#include "net/request.h"
#include "net/response.h"

#include <optional>
#include <string>

namespace tessera::daemon::proxy {

class XactionApi {
public:
    explicit XactionApi(JobCoordinator& jobs) : m_jobs(jobs) {}

    // The answer to GET /v1/cluster?what=`what` when it is an xaction query
    // (qryxstats, status, status_all, running_all); nullopt otherwise.
    std::optional<net::Response> query(const std::string& what, const net::Request& req) const;
    // The answer to PUT /v1/cluster with `msg` when its action is start or
    // stop; nullopt otherwise.
    std::optional<net::Response> action(const api::ActionMsg& msg);

private:
    net::Response snaps(const api::AisXactArgs& q) const;
    net::Response status(const api::AisXactArgs& q) const;
    net::Response statusAll(const api::AisXactArgs& q) const;
    net::Response running(const api::AisXactArgs& q) const;
    net::Response stop(const api::AisXactArgs& args);
    net::Response start(const api::AisXactArgs& args);

    JobCoordinator& m_jobs;
};

}  // namespace tessera::daemon::proxy
