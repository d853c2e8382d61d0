#include "job_coordinator.h"

#include "api/feed.h"
#include "api/http_error.h"
#include "api/json_util.h"
#include "api/paths.h"
#include "common/log.h"
#include "meta/node_identity.h"
#include "peer_calls.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace tessera::daemon::proxy {

namespace {

std::int64_t wallNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

api::Smap targetsOnly(const api::Smap& smap)
{
    api::Smap t;
    t.version = smap.version;
    t.tmap = smap.tmap;
    return t;
}

std::string failure(const client::Response& r) { return api::errorFromResponse(r.status, r.body).message; }

}  // namespace

JobCoordinator::JobCoordinator(Options options, ProxyState& state) : m_options(options), m_state(state)
{
    // Every target takes part, told the map version it must have (see
    // api::RebalanceArgs); the client's args are ignored as before.
    m_kinds["rebalance"] = KindInfo{[](const nlohmann::json&, const api::Smap& targets) {
                                        std::map<std::string, nlohmann::json> out;
                                        for (const auto& [id, node] : targets.tmap) {
                                            out.emplace(id, nlohmann::json(api::RebalanceArgs{targets.version}));
                                        }
                                        return api::Result<std::map<std::string, nlohmann::json>>(std::move(out));
                                    },
                                    true};
}

void JobCoordinator::addKind(const std::string& kind, KindInfo info) { m_kinds[kind] = std::move(info); }

JobCoordinator::~JobCoordinator() { stop(); }

void JobCoordinator::start()
{
    m_thread = std::thread([this] { run(); });
}

void JobCoordinator::stop()
{
    {
        std::lock_guard lock(m_runMutex);
        m_stop = true;
    }
    m_cv.notify_all();
    if (m_thread.joinable()) m_thread.join();
}

api::Result<api::JobStatus> JobCoordinator::startKind(const std::string& kind, const nlohmann::json& args)
{
    auto kindIt = m_kinds.find(kind);
    if (kindIt == m_kinds.end()) {
        std::string known;
        for (const auto& [k, info] : m_kinds) known += (known.empty() ? "" : ", ") + k;
        return api::Error::badRequest("unknown job kind \"" + kind + "\" (known: " + known + ")");
    }
    const auto& info = kindIt->second;

    std::unique_lock startLock(m_startMutex, std::defer_lock);
    if (info.exclusive) {
        startLock.lock();
        std::lock_guard lock(m_mutex);
        for (const auto& [id, job] : m_jobs) {
            if (job.status.kind == kind && job.status.state == api::JobState::Running) {
                return api::Error::conflict("a " + kind + " job is already running: " + id);
            }
        }
    }
    const auto smap = m_state.smap();
    if (smap->tmap.empty()) return api::Error::unavailable("no targets in the cluster");
    const auto all = targetsOnly(*smap);
    std::map<std::string, std::string> bodies;
    Job job;
    auto& st = job.status;
    st.id = kind + "-" + meta::randomId(8);
    st.kind = kind;
    st.phase = "starting";
    st.startNs = wallNs();
    job.args = args;
    // Before any target starts: a change after this point is one the job may not cover.
    for (const auto& hook : m_endHooks) job.marks.push_back(hook.mark ? hook.mark() : 0);
    if (info.prepare || info.prepareText) {
        std::map<std::string, std::string> perTarget;  // each target's args as JSON text
        if (info.prepareText) {
            auto texts = info.prepareText(args, all);
            if (!texts) return texts.error();
            perTarget = std::move(texts.value());
        } else {
            auto docs = info.prepare(args, all);
            if (!docs) return docs.error();
            for (const auto& [tid, targs] : *docs) perTarget[tid] = api::dumpJson(targs);
        }
        job.targets.version = all.version;
        for (const auto& [tid, text] : perTarget) {
            auto node = all.tmap.find(tid);
            if (node == all.tmap.end()) continue;
            job.targets.tmap.emplace(tid, node->second);
            bodies[tid] = api::dumpJobEnvelope(st.id, kind, text);
        }
        if (job.targets.tmap.empty()) return api::Error::badRequest("the " + kind + " job has nothing to do");
    } else {
        job.targets = all;
        const auto body = api::dumpJobEnvelope(st.id, kind, api::dumpJson(args));
        for (const auto& [tid, node] : all.tmap) bodies[tid] = body;
    }
    PeerCalls peers(m_options.peerTimeout, m_options.clusterKey);
    auto results = peers.fanOutEach(job.targets, client::Method::Post, std::string(api::path::kInternalJobs), bodies);
    std::string errors;
    for (const auto& [tid, r] : results) {
        if (r && r->isSuccess()) {
            auto ts = api::parseTargetJobStatus(r->body);
            if (ts) st.targets[tid] = *ts;
            continue;
        }
        errors += (errors.empty() ? "" : "; ") + tid + ": " + (r ? failure(*r) : r.error().message);
    }
    if (!errors.empty()) {
        // All or nothing: undo where it started.
        peers.fanOut(job.targets, client::Method::Delete, api::path::internalJob(st.id));
        return api::Error::unavailable("cannot start the " + kind + " job: " + errors);
    }
    aggregate(job, wallNs());
    api::JobStatus out = job.status;
    {
        std::lock_guard lock(m_mutex);
        m_jobs.emplace(st.id, std::move(job));
        m_order.push_back(out.id);
        while (m_order.size() > m_options.history) {
            auto it = m_jobs.find(m_order.front());
            if (it != m_jobs.end() && it->second.status.state == api::JobState::Running) break;
            if (it != m_jobs.end()) m_jobs.erase(it);
            m_order.pop_front();
        }
    }
    logInfo("job ", out.id, " (", kind, ") started on ", out.targets.size(), " target(s)");
    if (m_hub) m_hub->publish(Topic::Job, api::feed_type::kJob, out);
    m_cv.notify_all();
    return out;
}

void JobCoordinator::onTargetsChanged()
{
    if (m_options.rebalanceAuto) requestRebalance();
}

void JobCoordinator::requestRebalance()
{
    std::lock_guard lock(m_mutex);
    m_rebalanceDue = std::chrono::steady_clock::now() + m_options.rebalanceDelay;
}

bool JobCoordinator::rebalancePending() const
{
    std::lock_guard lock(m_mutex);
    if (m_rebalanceDue) return true;
    return std::any_of(m_jobs.begin(), m_jobs.end(), [](const auto& j) {
        return j.second.status.kind == "rebalance" && j.second.status.state == api::JobState::Running;
    });
}

void JobCoordinator::autoRebalance()
{
    std::string running;
    {
        std::lock_guard lock(m_mutex);
        if (!m_rebalanceDue || std::chrono::steady_clock::now() < *m_rebalanceDue) return;
        for (const auto& [id, job] : m_jobs) {
            if (job.status.kind == "rebalance" && job.status.state == api::JobState::Running) running = id;
        }
    }
    if (!running.empty()) {
        // Its plan is for an older map: stop it, start afresh once it ended.
        api::Smap targets;
        {
            std::lock_guard lock(m_mutex);
            auto& job = m_jobs.at(running);
            if (job.status.abortRequested) return;
            job.status.abortRequested = true;
            targets = job.targets;
        }
        logInfo("targets changed: aborting ", running, " to start a new rebalance");
        PeerCalls(m_options.peerTimeout, m_options.clusterKey)
            .fanOut(targets, client::Method::Delete, api::path::internalJob(running));
        return;
    }
    auto st = startKind("rebalance", nlohmann::json::object());
    std::lock_guard lock(m_mutex);
    if (st) {
        m_rebalanceDue.reset();
    } else {
        logWarn("automatic rebalance not started (", st.error().message, "); retrying");
        m_rebalanceDue = std::chrono::steady_clock::now() + m_options.rebalanceDelay;
    }
}

api::Result<api::JobStatus> JobCoordinator::abort(const std::string& id)
{
    api::Smap targets;
    {
        std::lock_guard lock(m_mutex);
        auto it = m_jobs.find(id);
        if (it == m_jobs.end()) return api::Error::notFound("no job \"" + id + "\"");
        if (api::isFinal(it->second.status.state)) return it->second.status;
        it->second.status.abortRequested = true;
        targets = it->second.targets;
    }
    PeerCalls peers(m_options.peerTimeout, m_options.clusterKey);
    peers.fanOut(targets, client::Method::Delete, api::path::internalJob(id));
    m_cv.notify_all();  // poll now
    std::lock_guard lock(m_mutex);
    auto it = m_jobs.find(id);
    if (it == m_jobs.end()) return api::Error::notFound("no job \"" + id + "\"");
    return it->second.status;
}

std::optional<api::JobStatus> JobCoordinator::find(const std::string& id) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_jobs.find(id);
    if (it == m_jobs.end()) return std::nullopt;
    return it->second.status;
}

std::optional<nlohmann::json> JobCoordinator::args(const std::string& id) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_jobs.find(id);
    if (it == m_jobs.end()) return std::nullopt;
    return it->second.args;
}

std::vector<api::JobStatus> JobCoordinator::list() const
{
    std::lock_guard lock(m_mutex);
    std::vector<api::JobStatus> out;
    for (const auto& id : m_order) out.push_back(m_jobs.at(id).status);
    return out;
}

api::Status JobCoordinator::remove(const std::string& id)
{
    std::lock_guard lock(m_mutex);
    auto it = m_jobs.find(id);
    if (it == m_jobs.end()) return api::Error::notFound("no job \"" + id + "\"");
    if (!api::isFinal(it->second.status.state)) {
        return api::Error::conflict("job \"" + id + "\" is running: abort it first");
    }
    m_jobs.erase(it);
    m_order.erase(std::remove(m_order.begin(), m_order.end(), id), m_order.end());
    return {};
}

std::vector<api::JobStatus> JobCoordinator::running() const
{
    std::lock_guard lock(m_mutex);
    std::vector<api::JobStatus> out;
    for (const auto& id : m_order) {
        const auto& st = m_jobs.at(id).status;
        if (st.state == api::JobState::Running) out.push_back(st);
    }
    return out;
}

void JobCoordinator::run()
{
    std::unique_lock lock(m_runMutex);
    while (!m_stop) {
        m_cv.wait_for(lock, m_options.pollInterval, [this] { return m_stop; });
        if (m_stop) break;
        lock.unlock();
        try {
            pollOnce();
            autoRebalance();
        } catch (const std::exception& e) {
            logError("job polling: ", e.what());
        }
        lock.lock();
    }
}

void JobCoordinator::pollOnce()
{
    std::vector<std::pair<std::string, api::Smap>> running;
    {
        std::lock_guard lock(m_mutex);
        for (const auto& [id, job] : m_jobs) {
            if (job.status.state == api::JobState::Running) running.emplace_back(id, job.targets);
        }
    }
    if (running.empty()) return;
    const auto smap = m_state.smap();
    PeerCalls peers(std::min(m_options.peerTimeout, std::chrono::milliseconds(2000)), m_options.clusterKey);
    for (const auto& [id, targets] : running) {
        auto results = peers.fanOut(targets, client::Method::Get, api::path::internalJob(id));
        nlohmann::json out;
        std::optional<std::tuple<api::JobStatus, nlohmann::json, std::vector<std::uint64_t>, api::Smap>> ended;
        {
            std::lock_guard lock(m_mutex);
            auto it = m_jobs.find(id);
            if (it == m_jobs.end()) continue;
            auto& job = it->second;
            for (const auto& [tid, r] : results) {
                auto& ts = job.status.targets[tid];
                if (api::isFinal(ts.state) && ts.endNs != 0) continue;
                std::optional<api::TargetJobStatus> parsed;
                if (r && r->isSuccess()) {
                    auto p = api::parseTargetJobStatus(r->body);
                    if (p) parsed = std::move(p.value());
                }
                if (parsed) {
                    ts = std::move(*parsed);
                    job.missed[tid] = 0;
                    continue;
                }
                const auto* now = smap->findTarget(tid);
                const bool gone = now == nullptr || now->away();
                if (gone || ++job.missed[tid] >= m_options.maxMissedPolls) {
                    ts.target = tid;
                    ts.state = api::JobState::Failed;
                    ts.endNs = wallNs();
                    ts.error =
                        gone ? "target " + tid + (now == nullptr ? " left the cluster" : " went away") +
                                   " during the job"
                             : "target " + tid + " stopped answering (" + (r ? failure(*r) : r.error().message) + ")";
                }
            }
            aggregate(job, wallNs());
            out = job.status;
            if (api::isFinal(job.status.state)) {
                logInfo("job ", id, " ", api::jobStateName(job.status.state),
                        job.status.error.empty() ? "" : ": " + job.status.error);
                ended.emplace(job.status, job.args, job.marks, job.targets);
            }
        }
        if (m_hub) m_hub->publish(Topic::Job, api::feed_type::kJob, out);
        if (ended) {
            const auto& [status, args, marks, targets] = *ended;
            for (std::size_t i = 0; i < m_endHooks.size() && i < marks.size(); ++i) {
                if (m_endHooks[i].ended) m_endHooks[i].ended(status, args, marks[i], targets);
            }
        }
    }
}

void JobCoordinator::aggregate(Job& job, std::int64_t nowNs)
{
    auto& st = job.status;
    api::JobProgress sum;
    sum.objectsTotal = 0;
    sum.bytesTotal = 0;
    bool allFinal = true, anyFailed = false, anyAborted = false;
    std::set<std::string> phases;
    std::string errors;
    for (const auto& [tid, ts] : st.targets) {
        sum.objectsDone += ts.progress.objectsDone;
        sum.bytesDone += ts.progress.bytesDone;
        sum.errors += ts.progress.errors;
        for (const auto& [name, n] : ts.progress.counters) sum.counters[name] += n;
        if (ts.progress.objectsTotal < 0 || sum.objectsTotal < 0) sum.objectsTotal = -1;
        else sum.objectsTotal += ts.progress.objectsTotal;
        if (ts.progress.bytesTotal < 0 || sum.bytesTotal < 0) sum.bytesTotal = -1;
        else sum.bytesTotal += ts.progress.bytesTotal;
        if (!api::isFinal(ts.state)) {
            allFinal = false;
            phases.insert(ts.phase);
        }
        if (ts.state == api::JobState::Failed) {
            anyFailed = true;
            errors += (errors.empty() ? "" : "; ") + tid + ": " + ts.error;
        }
        anyAborted |= ts.state == api::JobState::Aborted;
    }
    st.progress = sum;
    if (!allFinal) {
        std::string p;
        for (const auto& ph : phases) p += (p.empty() ? "" : ",") + ph;
        st.phase = p;
        return;
    }
    st.phase = "done";
    st.endNs = nowNs;
    if (anyFailed) {
        st.state = api::JobState::Failed;
        st.error = errors;
    } else if (anyAborted || st.abortRequested) {
        st.state = api::JobState::Aborted;
        st.error = "aborted";
    } else {
        st.state = api::JobState::Finished;
    }
}

}  // namespace tessera::daemon::proxy
