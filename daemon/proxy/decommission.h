#pragma once
// The end of a planned decommission (decommission-node on a present
// target, see ProxyState::prepareDecommission): the target is flagged
// decommissioning and owns nothing; a rebalance moves what it holds to the
// others. When a rebalance that started with it flagged ends without
// errors, everything it held has been acknowledged by its new owners (the
// rebalance removes a copy only then): the target leaves the map, and the
// new map is pushed to every target, the leaving one included (it then
// stops by itself). A rebalance that failed or was aborted leaves it
// flagged; the job's errors are in /v1/jobs, and decommission-node again
// starts another.
//
// Thread safety: the end hook runs on the coordinator's polling thread.

#include "api/job.h"
#include "api/smap.h"
#include "job_coordinator.h"
#include "peer_calls.h"
#include "proxy_state.h"

#include <nlohmann/json_fwd.hpp>

namespace tessera::daemon::proxy {

class Decommission {
public:
    Decommission(ProxyState& state, PeerCalls& peers) : m_state(state), m_peers(peers) {}

    // Adds the coordinator's end hook (before start).
    void registerWith(JobCoordinator& jobs);

private:
    // `targets`: the map's targets as the job started on them.
    void jobEnded(const api::JobStatus& status, const api::Smap& targets);

    ProxyState& m_state;
    PeerCalls& m_peers;
};

}  // namespace tessera::daemon::proxy
