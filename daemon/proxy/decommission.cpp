#include "decommission.h"

#include "common/log.h"

namespace tessera::daemon::proxy {

void Decommission::registerWith(JobCoordinator& jobs)
{
    jobs.addEndHook(
        {{}, [this](const api::JobStatus& st, const nlohmann::json&, std::uint64_t, const api::Smap& targets) {
             jobEnded(st, targets);
         }});
}

void Decommission::jobEnded(const api::JobStatus& status, const api::Smap& targets)
{
    if (status.kind != "rebalance") return;
    const bool clean = status.state == api::JobState::Finished && status.progress.errors == 0;
    for (const auto& [id, node] : targets.tmap) {
        // Flagged when the job started: it planned with the target owning nothing.
        if (!node.decommissioning()) continue;
        if (!clean) {
            logWarn("target ", id, " stays decommissioning: ", status.id, " ended ", api::jobStateName(status.state),
                    status.progress.errors != 0 ? " with " + std::to_string(status.progress.errors) + " error(s)" : "",
                    "; decommission-node again starts another rebalance");
            continue;
        }
        auto lock = m_state.membershipLock();
        const auto before = m_state.smap();
        auto next = m_state.prepareRemoveDecommissioned(id);
        if (!next) {
            logError("cannot remove decommissioned target ", id, ": ", next.error().message);
            continue;
        }
        if (!next->has_value()) continue;  // gone already (an away target's decommission)
        // Pushed to the map that still names it, the target last: it learns
        // it is out (and stops) once the others know.
        m_peers.pushMetaLast(*before, id, **next, std::nullopt);
        m_state.publishSmap(**next);
    }
}

}  // namespace tessera::daemon::proxy
