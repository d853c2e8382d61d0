#pragma once
// A target's dSort sessions by job id: the running ones and the last
// finished ones (for their metrics). At construction it removes the spill
// directories a previous run of the node left behind (a crash mid-job).
//
// Thread safety: every member may be called from any thread.

#include "dsort_session.h"

#include "api/result.h"

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tessera::daemon::dsort {

class DsortRegistry {
public:
    static constexpr std::size_t kHistory = 64;            // finished sessions kept
    static constexpr std::size_t kMaxEarlyFailures = 256;  // failures for jobs not started here yet

    explicit DsortRegistry(std::vector<std::string> mountpaths);

    // Where job `id` spills records: <first mountpath>/.tessera/dsort/<id>.
    std::string spillDir(const std::string& id) const;
    // Conflict when the id is known. A failure reported for the id before
    // (see fail) is applied to the session at once.
    api::Status add(std::shared_ptr<DsortSession> session);
    std::shared_ptr<DsortSession> find(const std::string& id) const;
    // A peer failed: the session stops, or, when the job has not started on
    // this target yet (a peer can fail before this target's part begins),
    // it will stop as soon as it does.
    void fail(const std::string& id, std::string reason);

private:
    std::vector<std::string> m_mountpaths;
    mutable std::mutex m_mutex;
    std::map<std::string, std::shared_ptr<DsortSession>> m_sessions;
    std::deque<std::string> m_order;
    std::map<std::string, std::string> m_earlyFailures;  // id -> reason
    std::deque<std::string> m_earlyOrder;
};

}  // namespace tessera::daemon::dsort
