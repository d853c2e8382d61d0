#include "etl_manager.h"

#include "common/log.h"
#include "etl_process.h"

#include <filesystem>
#include <nlohmann/json.hpp>

namespace tessera::daemon::etl {

namespace fs = std::filesystem;
namespace http = boost::beast::http;
using net::Exec;
using net::Request;
using net::Response;
using net::Route;

EtlManager::EtlManager(Options options) : m_options(std::move(options)), m_wanted(std::make_shared<api::EtlMd>())
{
    m_thread = std::thread([this] { run(); });
}

EtlManager::~EtlManager()
{
    {
        std::lock_guard lock(m_queueMutex);
        m_stop = true;
    }
    m_queueCv.notify_all();
    if (m_thread.joinable()) m_thread.join();
    stopAll();
}

void EtlManager::stopAll()
{
    std::map<std::string, std::shared_ptr<Transformer>> all;
    {
        std::lock_guard lock(m_mutex);
        all = m_etls;
    }
    for (auto& [name, t] : all) t->stop();
}

void EtlManager::apply(const api::EtlMd& md)
{
    {
        std::lock_guard lock(m_queueMutex);
        if (md.version <= m_queuedVersion) return;
        m_queuedVersion = md.version;
        m_pending = md;
    }
    m_queueCv.notify_all();
}

void EtlManager::settle()
{
    std::unique_lock lock(m_queueMutex);
    m_queueCv.wait(lock, [this] { return m_stop || (!m_pending && m_appliedVersion >= m_queuedVersion); });
}

void EtlManager::run()
{
    std::unique_lock lock(m_queueMutex);
    while (true) {
        m_queueCv.wait(lock, [this] { return m_stop || m_pending.has_value(); });
        if (m_stop) return;
        api::EtlMd md = std::move(*m_pending);
        m_pending.reset();
        lock.unlock();
        try {
            reconcile(md);
        } catch (const std::exception& e) {
            logError("etl: applying the registry v", md.version, ": ", e.what());
        }
        lock.lock();
        m_appliedVersion = md.version;
        m_queueCv.notify_all();
    }
}

void EtlManager::reconcile(const api::EtlMd& md)
{
    {
        std::lock_guard lock(m_mutex);
        m_wanted = std::make_shared<api::EtlMd>(md);
    }
    // Gone from the registry: stopped and forgotten, scratch removed.
    std::vector<std::pair<std::string, std::shared_ptr<Transformer>>> gone;
    {
        std::lock_guard lock(m_mutex);
        for (auto it = m_etls.begin(); it != m_etls.end();) {
            if (!md.etls.count(it->first)) {
                gone.emplace_back(it->first, it->second);
                it = m_etls.erase(it);
            } else {
                ++it;
            }
        }
        for (auto it = m_startErrors.begin(); it != m_startErrors.end();) {
            it = md.etls.count(it->first) ? std::next(it) : m_startErrors.erase(it);
        }
    }
    for (auto& [name, t] : gone) {
        t->stop();
        std::error_code ec;
        fs::remove_all(fs::path(m_options.workRoot) / name, ec);
        logInfo("etl ", name, " removed");
    }
    for (const auto& [name, entry] : md.etls) {
        std::shared_ptr<Transformer> current;
        {
            std::lock_guard lock(m_mutex);
            if (auto it = m_etls.find(name); it != m_etls.end()) current = it->second;
        }
        if (entry.stage == api::etl_stage::kStopped) {
            if (current) current->stop();
            continue;
        }
        if (current && current->spec() == entry.spec) {
            const auto st = current->state().stage;
            if (st == api::etl_stage::kRunning || st == api::etl_stage::kStarting) continue;
        }
        if (current) current->stop();
        // Started afresh (a new spec, a start after a stop or an error).
        auto bin = check(entry.spec);
        if (!bin) {
            std::lock_guard lock(m_mutex);
            m_startErrors[name] = bin.error().message;
            m_etls.erase(name);
            continue;
        }
        const auto work = fs::path(m_options.workRoot) / name;
        std::error_code ec;
        fs::create_directories(work, ec);
        Transformer::Options o;
        o.binPath = *bin;
        o.workDir = work.string();
        o.host = m_options.host;
        o.selfUrl = m_options.selfUrl;
        o.caFile = m_options.caFile;
        o.targetId = m_options.targetId;
        o.cores = m_options.cores;
        o.onEvent = m_options.onEvent;
        auto t = std::make_shared<Transformer>(entry.spec, o);
        {
            std::lock_guard lock(m_mutex);
            m_etls[name] = t;
            m_startErrors.erase(name);
        }
        auto st = t->start();
        if (st) {
            logInfo("etl ", name, " running (", api::etlCommName(entry.spec.communication), " ", *bin, ")");
        } else {
            logWarn("etl ", name, " did not start: ", st.error().message);
            if (m_options.onEvent) m_options.onEvent(name, "error", st.error().message);
        }
    }
}

api::Result<std::string> EtlManager::check(const api::EtlSpec& spec) const
{
    return resolveExecutable(spec.command.at(0), m_options.binDirs);
}

api::Result<std::shared_ptr<Transformer>> EtlManager::find(const std::string& name) const
{
    std::lock_guard lock(m_mutex);
    auto wanted = m_wanted->etls.find(name);
    if (wanted == m_wanted->etls.end()) return api::Error::notFound("no ETL named \"" + name + "\"");
    if (auto e = m_startErrors.find(name); e != m_startErrors.end()) {
        return api::Error::unavailable("etl " + name + " could not start on this target: " + e->second);
    }
    auto it = m_etls.find(name);
    if (wanted->second.stage == api::etl_stage::kStopped) {
        return api::Error::conflict("etl " + name + " is stopped (start it: POST /v1/etl/" + name + "/start)");
    }
    if (it == m_etls.end()) return api::Error::unavailable("etl " + name + " is starting on this target");
    const auto st = it->second->state();
    if (st.stage == api::etl_stage::kError) {
        return api::Error::unavailable("etl " + name + " failed to start on this target: " + st.error);
    }
    return it->second;
}

api::Result<EtlOutput> EtlManager::transform(const std::vector<std::string>& pipeline, const EtlInput& in,
                                             const std::string& args)
{
    std::vector<std::shared_ptr<Transformer>> stages;
    for (const auto& name : pipeline) {
        auto t = find(name);
        if (!t) return t.error();
        stages.push_back(*t);
    }
    api::Result<EtlOutput> out = api::Error::badRequest("empty ETL pipeline");
    EtlInput next = in;
    std::shared_ptr<UniqueFd> held;  // the previous stage's output, read by the next
    for (const auto& stage : stages) {
        out = stage->transform(next, args);
        if (!out) return out;
        held = out->fd;
        next = EtlInput{held->get(), 0, out->size, {}, in.bucket, in.name, false, in.cancelled};
    }
    return out;
}

std::vector<api::EtlTargetState> EtlManager::states() const
{
    std::vector<api::EtlTargetState> out;
    std::lock_guard lock(m_mutex);
    for (const auto& [name, entry] : m_wanted->etls) {
        if (auto it = m_etls.find(name); it != m_etls.end()) {
            out.push_back(it->second->state());
            continue;
        }
        api::EtlTargetState s;
        s.name = name;
        s.target = m_options.targetId;
        if (auto e = m_startErrors.find(name); e != m_startErrors.end()) {
            s.stage = api::etl_stage::kError;
            s.error = e->second;
        } else {
            s.stage = entry.stage == api::etl_stage::kStopped ? api::etl_stage::kStopped : api::etl_stage::kStarting;
        }
        out.push_back(std::move(s));
    }
    return out;
}

void EtlManager::registerRoutes(net::Router& router)
{
    router.add(Route{http::verb::get, "/v1/internal/etl", Exec::Inline, net::bind(this, &EtlManager::listRoute), {}});
    router.add(Route{
        http::verb::get, "/v1/internal/etl/{name}/logs", Exec::Inline, net::bind(this, &EtlManager::logsRoute), {}});
    router.add(
        Route{http::verb::post, "/v1/internal/etl/check", Exec::Worker, net::bind(this, &EtlManager::checkRoute), {}});
}

Response EtlManager::listRoute(const Request& req)
{
    (void)req;
    return Response::json(states());
}

Response EtlManager::logsRoute(const Request& req)
{
    const auto name = req.param("name");
    std::shared_ptr<Transformer> t;
    {
        std::lock_guard lock(m_mutex);
        if (auto it = m_etls.find(name); it != m_etls.end()) t = it->second;
        else if (!m_wanted->etls.count(name))
            return Response::error(api::Error::notFound("no ETL named \"" + name + "\""));
    }
    return Response::json(api::EtlLog{m_options.targetId, t ? t->logs() : std::string()});
}

Response EtlManager::checkRoute(const Request& req)
{
    auto spec = api::parseEtlSpec(req.body);
    if (!spec) return Response::error(spec.error());
    auto bin = check(*spec);
    if (!bin) return Response::error(bin.error());
    return Response::json({{"executable", *bin}});
}

api::Result<std::vector<std::string>> parsePipeline(const std::string& first, const std::string& rest)
{
    std::vector<std::string> out{first};
    if (first.empty()) return api::Error::badRequest("etl_name must not be empty");
    if (!rest.empty()) {
        std::size_t start = 0;
        while (start <= rest.size()) {
            const auto comma = rest.find(',', start);
            const auto item = rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            if (item.empty()) return api::Error::badRequest("etl_pipeline: an empty ETL name in \"" + rest + "\"");
            out.push_back(item);
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
    }
    if (out.size() > api::etl_limits::kMaxPipeline) {
        return api::Error::badRequest("etl_pipeline: more than " + std::to_string(api::etl_limits::kMaxPipeline) +
                                      " ETLs");
    }
    return out;
}

}  // namespace tessera::daemon::etl
