#pragma once
// A target's side of jobs: each job's work runs on its own thread; the
// runner keeps its status (running and the last finished ones) for the
// proxy to poll, and aborts it on request.
//
// Thread safety: every public member may be called from any thread.

#include "api/job.h"
#include "api/result.h"

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace tessera::daemon::jobs {

// What a job's work reports through; safe to update from the job's thread
// while others read the status.
class JobContext {
public:
    bool aborted() const { return m_abort.load(std::memory_order_relaxed); }
    std::string id() const;  // the job's
    void setPhase(std::string phase);
    // A new phase with its own totals: the done counters start again at 0
    // (jobs whose phases count different things, such as dSort's).
    void startPhase(std::string phase, std::int64_t objectsTotal, std::int64_t bytesTotal);
    void setTotals(std::int64_t objects, std::int64_t bytes);
    void addDone(std::uint64_t objects, std::uint64_t bytes);
    // Adds n to the kind's counter `name` (JobProgress::counters).
    void addCount(const std::string& name, std::uint64_t n = 1);
    // An item failed; the job goes on and ends failed, naming the first.
    void addError(const std::string& what);
    // An item skipped on purpose (a job told to go on past errors): counted
    // in errors and named in the status, but the job still finishes.
    void addSkipped(const std::string& what);

private:
    friend class JobRunner;
    mutable std::mutex m_mutex;
    api::TargetJobStatus m_status;
    std::string m_firstError;
    std::uint64_t m_failed = 0;  // addError calls (addSkipped ones are not failures)
    std::uint64_t m_skipped = 0;
    std::string m_firstSkipped;
    std::atomic<bool> m_abort{false};
};

class JobWork {
public:
    virtual ~JobWork() = default;
    // Runs the job to its end, checking ctx.aborted() between items. An
    // error ends the job failed; aborted() at the end means aborted.
    virtual api::Status run(JobContext& ctx) = 0;
};

// The most JSON values a job's args may hold (api::JsonShape's count): an
// ishard task lists up to a million [object, size] members.
inline constexpr std::size_t kMaxJobArgsValues = 8'000'000;

// A job's args as the target received them: a parsed document, or the JSON
// text for the kinds that parse their own (archive and ishard: a task of up
// to a million members is scanned straight into its struct). A view, valid
// during the factory's call.
class JobArgs {
public:
    JobArgs() = default;
    JobArgs(const nlohmann::json& json) : m_json(&json) {}  // NOLINT: a document converts
    static JobArgs fromText(std::string_view text)
    {
        JobArgs a;
        a.m_text = text;
        return a;
    }
    const nlohmann::json* json() const { return m_json; }  // nullptr: text()
    std::string_view text() const { return m_text; }

private:
    const nlohmann::json* m_json = nullptr;
    std::string_view m_text;
};

// Makes the work of a kind from its arguments; BadRequest for an unknown
// kind or bad arguments.
using JobFactory = std::function<api::Result<std::unique_ptr<JobWork>>(const std::string& kind, const JobArgs& args)>;

class JobRunner {
public:
    JobRunner(std::string selfId, JobFactory factory, std::size_t history = 100);
    ~JobRunner();  // aborts what runs and waits for it
    JobRunner(const JobRunner&) = delete;
    JobRunner& operator=(const JobRunner&) = delete;

    // Conflict when the id is known; BadRequest from the factory.
    api::Result<api::TargetJobStatus> start(const std::string& id, const std::string& kind, const JobArgs& args);
    api::Result<api::TargetJobStatus> status(const std::string& id) const;
    api::Result<api::TargetJobStatus> abort(const std::string& id);
    // Asks every running job to stop (a drain); does not wait: the
    // destructor does. Returns how many were asked.
    std::size_t abortAll();
    std::vector<api::TargetJobStatus> list() const;

private:
    struct Job {
        JobContext ctx;
        std::unique_ptr<JobWork> work;
        std::thread thread;
    };
    void run(const std::shared_ptr<Job>& job);
    static api::TargetJobStatus snapshot(const Job& job);

    std::string m_selfId;
    JobFactory m_factory;
    std::size_t m_history;
    mutable std::mutex m_mutex;
    std::map<std::string, std::shared_ptr<Job>> m_jobs;
    std::deque<std::string> m_order;  // ids, oldest first
};

}  // namespace tessera::daemon::jobs
