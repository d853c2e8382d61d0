#include "job_runner.h"

#include "common/log.h"

#include <chrono>

namespace tessera::daemon::jobs {

namespace {
std::int64_t wallNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}
}  // namespace

void JobContext::setPhase(std::string phase)
{
    std::lock_guard lock(m_mutex);
    m_status.phase = std::move(phase);
}

std::string JobContext::id() const
{
    std::lock_guard lock(m_mutex);
    return m_status.id;
}

void JobContext::startPhase(std::string phase, std::int64_t objectsTotal, std::int64_t bytesTotal)
{
    std::lock_guard lock(m_mutex);
    m_status.phase = std::move(phase);
    m_status.progress.objectsDone = 0;
    m_status.progress.bytesDone = 0;
    m_status.progress.objectsTotal = objectsTotal;
    m_status.progress.bytesTotal = bytesTotal;
}

void JobContext::setTotals(std::int64_t objects, std::int64_t bytes)
{
    std::lock_guard lock(m_mutex);
    m_status.progress.objectsTotal = objects;
    m_status.progress.bytesTotal = bytes;
}

void JobContext::addDone(std::uint64_t objects, std::uint64_t bytes)
{
    std::lock_guard lock(m_mutex);
    m_status.progress.objectsDone += objects;
    m_status.progress.bytesDone += bytes;
}

void JobContext::addCount(const std::string& name, std::uint64_t n)
{
    std::lock_guard lock(m_mutex);
    m_status.progress.counters[name] += n;
}

void JobContext::addError(const std::string& what)
{
    std::lock_guard lock(m_mutex);
    ++m_status.progress.errors;
    ++m_failed;
    if (m_firstError.empty()) m_firstError = what;
}

void JobContext::addSkipped(const std::string& what)
{
    std::lock_guard lock(m_mutex);
    ++m_status.progress.errors;
    ++m_skipped;
    if (m_firstSkipped.empty()) m_firstSkipped = what;
}

JobRunner::JobRunner(std::string selfId, JobFactory factory, std::size_t history)
    : m_selfId(std::move(selfId)), m_factory(std::move(factory)), m_history(history)
{
}

JobRunner::~JobRunner()
{
    std::map<std::string, std::shared_ptr<Job>> jobs;
    {
        std::lock_guard lock(m_mutex);
        jobs = m_jobs;
    }
    for (auto& [id, j] : jobs) j->ctx.m_abort = true;
    for (auto& [id, j] : jobs) {
        if (j->thread.joinable()) j->thread.join();
    }
}

api::TargetJobStatus JobRunner::snapshot(const Job& job)
{
    std::lock_guard lock(job.ctx.m_mutex);
    return job.ctx.m_status;
}

api::Result<api::TargetJobStatus> JobRunner::start(const std::string& id, const std::string& kind, const JobArgs& args)
{
    auto work = m_factory(kind, args);
    if (!work) return work.error();
    auto job = std::make_shared<Job>();
    job->work = std::move(work.value());
    auto& st = job->ctx.m_status;
    st.id = id;
    st.kind = kind;
    st.target = m_selfId;
    st.state = api::JobState::Running;
    st.phase = "starting";
    st.startNs = wallNs();
    std::shared_ptr<Job> evicted;
    {
        std::lock_guard lock(m_mutex);
        if (m_jobs.count(id)) return api::Error::conflict("job \"" + id + "\" already exists on " + m_selfId);
        // Forget the oldest finished job beyond the history bound.
        if (m_order.size() >= m_history) {
            for (auto it = m_order.begin(); it != m_order.end(); ++it) {
                auto jt = m_jobs.find(*it);
                if (jt != m_jobs.end() && api::isFinal(snapshot(*jt->second).state)) {
                    evicted = jt->second;
                    m_jobs.erase(jt);
                    m_order.erase(it);
                    break;
                }
            }
        }
        m_jobs.emplace(id, job);
        m_order.push_back(id);
        job->thread = std::thread([this, job] { run(job); });
    }
    if (evicted && evicted->thread.joinable()) evicted->thread.join();
    logInfo("job ", id, " (", kind, ") started");
    return snapshot(*job);
}

void JobRunner::run(const std::shared_ptr<Job>& job)
{
    api::Status result;
    try {
        result = job->work->run(job->ctx);
    } catch (const std::exception& e) {
        result = api::Error::internal(std::string("job failed unexpectedly: ") + e.what());
    }
    std::lock_guard lock(job->ctx.m_mutex);
    auto& st = job->ctx.m_status;
    st.endNs = wallNs();
    if (job->ctx.aborted()) {
        // An error the work returns once aborted is the abort's doing (a
        // fetch cut short, a peer told to stop): the job was aborted.
        st.state = api::JobState::Aborted;
        st.error = "aborted";
    } else if (!result) {
        st.state = api::JobState::Failed;
        st.error = result.error().message;
    } else if (job->ctx.m_failed > 0) {
        st.state = api::JobState::Failed;
        st.error = std::to_string(job->ctx.m_failed) + " item(s) failed; the first: " + job->ctx.m_firstError;
    } else {
        st.state = api::JobState::Finished;
        if (job->ctx.m_skipped > 0) {
            st.error = std::to_string(job->ctx.m_skipped) + " item(s) skipped; the first: " + job->ctx.m_firstSkipped;
        }
    }
    st.phase = "done";
    logInfo("job ", st.id, " ", api::jobStateName(st.state), st.error.empty() ? "" : ": ", st.error);
}

api::Result<api::TargetJobStatus> JobRunner::status(const std::string& id) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_jobs.find(id);
    if (it == m_jobs.end()) return api::Error::notFound("no job \"" + id + "\" on " + m_selfId);
    return snapshot(*it->second);
}

api::Result<api::TargetJobStatus> JobRunner::abort(const std::string& id)
{
    std::lock_guard lock(m_mutex);
    auto it = m_jobs.find(id);
    if (it == m_jobs.end()) return api::Error::notFound("no job \"" + id + "\" on " + m_selfId);
    it->second->ctx.m_abort = true;
    return snapshot(*it->second);
}

std::size_t JobRunner::abortAll()
{
    std::lock_guard lock(m_mutex);
    std::size_t n = 0;
    for (auto& [id, job] : m_jobs) {
        if (snapshot(*job).state != api::JobState::Running) continue;
        job->ctx.m_abort = true;
        ++n;
    }
    return n;
}

std::vector<api::TargetJobStatus> JobRunner::list() const
{
    std::lock_guard lock(m_mutex);
    std::vector<api::TargetJobStatus> out;
    for (const auto& id : m_order) out.push_back(snapshot(*m_jobs.at(id)));
    return out;
}

}  // namespace tessera::daemon::jobs
