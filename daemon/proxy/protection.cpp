#include "protection.h"

#include "api/job.h"
#include "common/log.h"

namespace tessera::daemon::proxy {

Protection::Protection(ProxyState& state, PeerCalls& peers, JobCoordinator& jobs,
                       std::chrono::milliseconds scrubInterval)
    : m_state(state), m_peers(peers), m_jobs(jobs), m_scrubInterval(scrubInterval)
{
}

Protection::~Protection() { stop(); }

void Protection::registerWith(JobCoordinator& jobs)
{
    const auto prepare = [this](const nlohmann::json& args,
                                const api::Smap& targets) -> api::Result<std::map<std::string, nlohmann::json>> {
        auto a = api::readMessage<api::BucketJobArgs>(args, "job args");
        if (!a) return a.error();
        if (a->bucket && m_state.bmd()->find(*a->bucket) == nullptr) {
            return api::Error::notFound("bucket \"" + *a->bucket + "\" does not exist");
        }
        // Every target takes part: each checks (or repairs) what it holds.
        std::map<std::string, nlohmann::json> out;
        for (const auto& [id, node] : targets.tmap) out.emplace(id, nlohmann::json(*a));
        return out;
    };
    jobs.addKind("reprotect", {prepare, true});
    jobs.addKind("scrub", {prepare, true});
    jobs.addEndHook({[this] { return m_state.protectionEpoch(); },
                     [this](const api::JobStatus& st, const nlohmann::json& args, std::uint64_t epoch,
                            const api::Smap&) { jobEnded(st, args, epoch); }});
}

void Protection::jobEnded(const api::JobStatus& status, const nlohmann::json& args, std::uint64_t epoch)
{
    if (status.kind != "rebalance" && status.kind != "reprotect") return;
    if (status.state != api::JobState::Finished || status.progress.errors != 0) return;
    std::string bucket;
    if (status.kind == "reprotect") {
        auto a = api::readMessage<api::BucketJobArgs>(args, "job args");
        if (!a) return;
        bucket = a->bucket.value_or(std::string());
    }
    auto bmd = m_state.clearMirrorPending(bucket, epoch);
    if (!bmd) {
        logWarn("cannot record the copies of ", bucket.empty() ? "every mirrored bucket" : bucket,
                " as complete: ", bmd.error().message);
        return;
    }
    if (*bmd) {
        m_peers.pushMeta(*m_state.smap(), std::nullopt, **bmd);
        logInfo("copies complete after ", status.id, "; bmd v", (*bmd)->version);
    }
}

void Protection::propsChanged(const std::string& bucket, const api::BucketProps& before, const api::BucketProps& after)
{
    // Erasure coding enabled: the objects written before get their slices.
    const bool ecEnabled = after.ec.enabled && !before.ec.enabled;
    if (before.mirror.targetCopies() == after.mirror.targetCopies() &&
        before.mirror.mountpathCopies() == after.mirror.mountpathCopies() && !ecEnabled) {
        return;
    }
    // More copies are made, fewer are dropped: the same job.
    auto st = m_jobs.startKind("reprotect", nlohmann::json(api::BucketJobArgs{bucket}));
    if (st) {
        logInfo("bucket ", bucket, ": ", after.mirror.copies,
                after.mirror.acrossTargets ? " copies across targets" : " copies on mountpaths", " asked; ", st->id,
                " started");
    } else {
        logWarn("bucket ", bucket, ": reprotect not started (", st.error().message,
                "); its copies stay pending until a rebalance or reprotect completes");
    }
}

void Protection::start()
{
    if (m_scrubInterval.count() <= 0) return;
    m_thread = std::thread([this] { scrubLoop(); });
}

void Protection::stop()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_cv.notify_all();
    if (m_thread.joinable()) m_thread.join();
}

void Protection::scrubLoop()
{
    std::unique_lock lock(m_mutex);
    while (!m_stop) {
        if (m_cv.wait_for(lock, m_scrubInterval, [this] { return m_stop; })) break;
        lock.unlock();
        auto st = m_jobs.startKind("scrub", nlohmann::json::object());
        if (st) logInfo("scheduled scrub ", st->id, " started");
        else logWarn("scheduled scrub not started: ", st.error().message);
        lock.lock();
    }
}

}  // namespace tessera::daemon::proxy
