#pragma once
// The proxy's side of jobs: starts a job on every target of the current
// cluster map, polls their parts, sums them into the job's status, publishes
// it on the feed (`job` messages), and aborts it everywhere on request.
//   POST   /v1/jobs        {"kind":"rebalance","args":{}}  -> the job's status (its id)
//   GET    /v1/jobs        every job, oldest first (running and the last finished)
//   GET    /v1/jobs/{id}
//   DELETE /v1/jobs/{id}   abort
// A target that stops answering (or leaves the map) fails the job, named.
//
// Thread safety: public members may be called from any thread; polling runs
// on its own thread between start() and stop().

#include "api/job.h"
#include "feed_hub.h"
#include "net/router.h"
#include "proxy_state.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

namespace tessera::daemon::proxy {

class JobCoordinator {
public:
    struct Options {
        std::chrono::milliseconds peerTimeout{5000};
        std::string clusterKey;  // presented to the targets (auth on)
        std::chrono::milliseconds pollInterval{500};
        int maxMissedPolls = 6;                          // unanswered polls before a target fails the job
        std::size_t history = 100;                       // finished jobs kept
        bool rebalanceAuto = true;                       // start a rebalance after the targets changed
        std::chrono::milliseconds rebalanceDelay{2000};  // ... and stayed the same this long
    };

    JobCoordinator(Options options, ProxyState& state);
    ~JobCoordinator();
    JobCoordinator(const JobCoordinator&) = delete;
    JobCoordinator& operator=(const JobCoordinator&) = delete;

    // How a kind starts. `prepare` turns the request's args into each
    // target's args (a target left out does not take part); without it
    // every target gets the request's args. An exclusive kind runs once at
    // a time (rebalance). Registered before the node serves requests.
    using Preparer = std::function<api::Result<std::map<std::string, nlohmann::json>>(const nlohmann::json& args,
                                                                                      const api::Smap& targets)>;
    // The same, with each target's args already JSON text (kinds whose args
    // are large write them directly; see api::dumpShardTask).
    using TextPreparer = std::function<api::Result<std::map<std::string, std::string>>(const nlohmann::json& args,
                                                                                       const api::Smap& targets)>;
    struct KindInfo {
        KindInfo() = default;
        KindInfo(Preparer p, bool ex) : prepare(std::move(p)), exclusive(ex) {}
        explicit KindInfo(TextPreparer p) : prepareText(std::move(p)) {}
        Preparer prepare;
        bool exclusive = false;
        TextPreparer prepareText;  // used instead of `prepare` when set
    };
    void addKind(const std::string& kind, KindInfo info);

    void attach(std::shared_ptr<FeedHub> hub) { m_hub = std::move(hub); }
    void registerRoutes(net::Router& router);
    void start();
    void stop();

    // Starts a job of a registered kind (what POST /v1/jobs does): BadRequest
    // for an unknown kind or bad args, Conflict while an exclusive kind
    // runs, Unavailable when a target refused (nothing is left running).
    api::Result<api::JobStatus> startKind(const std::string& kind, const nlohmann::json& args);

    // Running jobs, for the feed's snapshot.
    std::vector<api::JobStatus> running() const;
    // One job's status (nullopt when unknown), every job (oldest first), an
    // abort (NotFound when unknown; a finished job is answered as it is),
    // and forgetting a finished job (NotFound, or Conflict while it runs).
    // For kind-specific front ends such as /v1/sort.
    std::optional<api::JobStatus> find(const std::string& id) const;
    std::vector<api::JobStatus> list() const;
    // The args a job was started with (nullopt when unknown).
    std::optional<nlohmann::json> args(const std::string& id) const;
    api::Result<api::JobStatus> abort(const std::string& id);
    api::Status remove(const std::string& id);
    // The set of targets in the cluster map changed: with rebalanceAuto, a
    // rebalance starts once the set has been stable for rebalanceDelay (a
    // running one is aborted first). Any thread; does not block.
    void onTargetsChanged();
    // The same whatever rebalanceAuto says: a rebalance someone waits for
    // (a decommissioning target's move).
    void requestRebalance();
    // A rebalance is running or due to start.
    bool rebalancePending() const;

    // Told once about every job that ended (any state), with the args it
    // was started with, the value `mark()` had when it started and the
    // cluster map's targets it was started on (their flags as they were);
    // on the polling thread, outside the coordinator's lock, in the order
    // added. Added before start().
    struct EndHook {
        std::function<std::uint64_t()> mark;  // may be empty (0)
        std::function<void(const api::JobStatus&, const nlohmann::json& args, std::uint64_t mark,
                           const api::Smap& targets)>
            ended;
    };
    void addEndHook(EndHook hook) { m_endHooks.push_back(std::move(hook)); }

private:
    struct Job {
        api::JobStatus status;
        api::Smap targets;  // the map's targets when the job started
        std::map<std::string, int> missed;
        nlohmann::json args;
        std::vector<std::uint64_t> marks;  // each EndHook's mark() at the start
    };

    net::Response startJob(const net::Request& req);
    void autoRebalance();
    net::Response listJobs(const net::Request& req);
    net::Response showJob(const net::Request& req);
    net::Response abortJob(const net::Request& req);
    void run();
    void pollOnce();
    static void aggregate(Job& job, std::int64_t nowNs);

    Options m_options;
    ProxyState& m_state;
    std::shared_ptr<FeedHub> m_hub;
    std::vector<EndHook> m_endHooks;
    std::map<std::string, KindInfo> m_kinds;  // set before serving; read-only afterwards
    mutable std::mutex m_mutex;
    std::map<std::string, Job> m_jobs;
    std::deque<std::string> m_order;
    std::mutex m_startMutex;  // one start at a time (the one-rebalance rule)
    std::optional<std::chrono::steady_clock::time_point> m_rebalanceDue;  // under m_mutex

    std::mutex m_runMutex;
    std::condition_variable m_cv;
    bool m_stop = false;
    std::thread m_thread;
};

}  // namespace tessera::daemon::proxy
