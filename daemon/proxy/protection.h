#pragma once
// The proxy's side of data protection (buckets mirrored across targets):
//   - the `reprotect` and `scrub` job kinds (args: api::BucketJobArgs), one
//     at a time each;
//   - a reprotect starts by itself when a bucket's mirror conf changes or
//     its erasure coding is enabled;
//   - a rebalance or reprotect that ends without errors, in the protection
//     epoch it started in, clears the buckets' `mirror.pending` and
//     `ec.pending` (listings and reads of an away owner's objects then rely
//     on the copies and slices);
//   - a scrub of every bucket every `scrubInterval` (0: never).
//
// Thread safety: the hooks run on the coordinator's and the API's threads;
// start()/stop() from the node's.

#include "api/bmd.h"
#include "job_coordinator.h"
#include "peer_calls.h"
#include "proxy_state.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace tessera::daemon::proxy {

class Protection {
public:
    Protection(ProxyState& state, PeerCalls& peers, JobCoordinator& jobs, std::chrono::milliseconds scrubInterval);
    ~Protection();
    Protection(const Protection&) = delete;
    Protection& operator=(const Protection&) = delete;

    // Registers the kinds and the coordinator's end hook (before start).
    void registerWith(JobCoordinator& jobs);
    // ProxyApi's props observer.
    void propsChanged(const std::string& bucket, const api::BucketProps& before, const api::BucketProps& after);
    void start();
    void stop();

private:
    void jobEnded(const api::JobStatus& status, const nlohmann::json& args, std::uint64_t epoch);
    void scrubLoop();

    ProxyState& m_state;
    PeerCalls& m_peers;
    JobCoordinator& m_jobs;
    std::chrono::milliseconds m_scrubInterval;
    std::mutex m_mutex;
    std::condition_variable m_cv;
    bool m_stop = false;
    std::thread m_thread;
};

}  // namespace tessera::daemon::proxy
