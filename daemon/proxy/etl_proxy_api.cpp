#include "etl_proxy_api.h"

#include "api/cluster_event.h"
#include "api/feed.h"
#include "api/hrw.h"
#include "api/http_error.h"
#include "api/json_util.h"
#include "api/names.h"
#include "common/log.h"
#include "net/request_params.h"
#include "spec/brace_template.h"

#include <nlohmann/json.hpp>

namespace tessera::daemon::proxy {

namespace http = boost::beast::http;
using net::Exec;
using net::Request;
using net::Response;
using net::Route;

namespace {

constexpr const char* kInternalEtl = "/v1/internal/etl";
constexpr std::size_t kMaxEtlNames = 1'000'000;
constexpr std::size_t kMaxSpecBody = 64 << 10;

std::int64_t wallNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::int64_t wallMs() { return wallNs() / 1'000'000; }

const api::EtlTargetState* findState(const std::vector<api::EtlTargetState>& states, const std::string& name)
{
    for (const auto& s : states) {
        if (s.name == name) return &s;
    }
    return nullptr;
}

// "ais://dst", "ais/@#/dst/" or "dst" -> "dst"
std::string plainBucket(std::string name)
{
    if (auto p = name.find("://"); p != std::string::npos) name = name.substr(p + 3);
    if (auto p = name.find("/@#/"); p != std::string::npos) name = name.substr(p + 4);
    while (!name.empty() && name.back() == '/') name.pop_back();
    return name;
}

}  // namespace

EtlProxyApi::EtlProxyApi(ProxyState& state, PeerCalls& peers, JobCoordinator& jobs,
                         std::chrono::milliseconds peerTimeout)
    : m_state(state), m_peers(peers), m_jobs(jobs), m_peerTimeout(peerTimeout)
{
}

EtlProxyApi::~EtlProxyApi() { stop(); }

void EtlProxyApi::registerRoutes(net::Router& router)
{
    Route init{http::verb::put, "/v1/etl", Exec::Worker, net::bind(this, &EtlProxyApi::init), {}};
    init.maxBody = kMaxSpecBody;
    router.add(std::move(init));
    router.add(Route{http::verb::get, "/v1/etl", Exec::Worker, net::bind(this, &EtlProxyApi::list), {}});
    router.add(Route{http::verb::get, "/v1/etl/{name}", Exec::Worker, net::bind(this, &EtlProxyApi::show), {}});
    router.add(Route{http::verb::get, "/v1/etl/{name}/logs", Exec::Worker, net::bind(this, &EtlProxyApi::logs), {}});
    router.add(
        Route{http::verb::post, "/v1/etl/{name}/start", Exec::Worker, net::bind(this, &EtlProxyApi::startEtl), {}});
    router.add(
        Route{http::verb::post, "/v1/etl/{name}/stop", Exec::Worker, net::bind(this, &EtlProxyApi::stopEtl), {}});
    router.add(Route{http::verb::delete_, "/v1/etl/{name}", Exec::Worker, net::bind(this, &EtlProxyApi::remove), {}});
}

void EtlProxyApi::registerWith(JobCoordinator& jobs)
{
    jobs.addKind("etl-bck", JobCoordinator::KindInfo{[this](const nlohmann::json& args, const api::Smap& targets) {
                                                         return prepare(args, targets);
                                                     },
                                                     false});
}

void EtlProxyApi::start()
{
    m_watcher = std::thread([this] { watch(); });
}

void EtlProxyApi::stop()
{
    {
        std::lock_guard lock(m_watchMutex);
        m_stop = true;
    }
    m_watchCv.notify_all();
    if (m_watcher.joinable()) m_watcher.join();
}

void EtlProxyApi::publish(const std::string& severity, const std::string& kind, const std::string& node,
                          const std::string& message)
{
    if (!m_hub) return;
    api::ClusterEvent e;
    e.tsMs = wallMs();
    e.severity = severity;
    e.kind = kind;
    e.node = node;
    e.message = message;
    m_hub->publish(Topic::Event, api::feed_type::kEvent, nlohmann::json(e));
}

std::map<std::string, api::Result<std::vector<api::EtlTargetState>>> EtlProxyApi::collect() const
{
    std::map<std::string, api::Result<std::vector<api::EtlTargetState>>> out;
    const auto smap = m_state.smap();
    for (auto& [tid, r] : m_peers.fanOut(*smap, client::Method::Get, kInternalEtl)) {
        if (!r) {
            out.emplace(tid, r.error());
            continue;
        }
        if (!r->isSuccess()) {
            out.emplace(tid, api::errorFromResponse(r->status, r->body));
            continue;
        }
        auto j = nlohmann::json::parse(r->body, nullptr, false);
        if (!j.is_array()) {
            out.emplace(tid, api::Error::badRequest("etl states: not a JSON array"));
            continue;
        }
        std::vector<api::EtlTargetState> states;
        std::optional<api::Error> bad;
        for (const auto& item : j) {
            auto s = api::readMessage<api::EtlTargetState>(item, "etl state");
            if (!s) {
                bad = s.error();
                break;
            }
            states.push_back(std::move(s.value()));
        }
        if (bad) out.emplace(tid, *bad);
        else out.emplace(tid, std::move(states));
    }
    return out;
}

api::Status EtlProxyApi::pushAndWait(const api::EtlMd& md, const std::string& name, const std::string& stage,
                                     std::chrono::milliseconds timeout)
{
    const auto smap = m_state.smap();
    m_peers.pushMeta(*smap, std::nullopt, std::nullopt, md);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string waiting;
    while (true) {
        waiting.clear();
        for (auto& [tid, r] : collect()) {
            const auto* node = smap->findTarget(tid);
            if (node != nullptr && node->away()) continue;  // it starts the ETL when it returns
            if (!r) {
                waiting += (waiting.empty() ? "" : "; ") + tid + ": " + r.error().message;
                continue;
            }
            const auto* st = findState(*r, name);
            if (stage.empty()) {
                if (st != nullptr) waiting += (waiting.empty() ? "" : "; ") + tid + ": still " + st->stage;
                continue;
            }
            if (st != nullptr && st->stage == stage) continue;
            if (st != nullptr && st->stage == api::etl_stage::kError && stage == api::etl_stage::kRunning) {
                return api::Error::badGateway("etl " + name + " failed to start on target " + tid + ": " + st->error);
            }
            waiting += (waiting.empty() ? "" : "; ") + tid + ": " + (st ? st->stage : std::string("not applied yet"));
        }
        if (waiting.empty()) return {};
        if (std::chrono::steady_clock::now() >= deadline) {
            return api::Error::timeout("etl " + name + " is not " + (stage.empty() ? "gone" : stage) +
                                       " on every target in time: " + waiting);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

Response EtlProxyApi::init(const Request& req)
{
    auto body = api_util::specBody(req, "etl");
    if (!body) return Response::error(body.error());
    auto spec = api::readEtlSpec(*body);
    if (!spec) return Response::error(spec.error());
    std::lock_guard change(m_changeMutex);
    const auto current = m_state.etl();
    if (auto it = current->etls.find(spec->name); it != current->etls.end()) {
        return Response::error(api::Error::conflict(
            "etl \"" + spec->name + "\" already exists: delete it first (DELETE /v1/etl/" + spec->name + ")"));
    }
    const auto smap = m_state.smap();
    if (smap->tmap.empty()) return Response::error(api::Error::unavailable("no targets in the cluster"));
    // Every target may run it (the executable inside its etl_bin_dirs)
    // before anything changes.
    for (auto& [tid, r] : m_peers.fanOut(*smap, client::Method::Post, std::string(kInternalEtl) + "/check",
                                         api::dumpJson(nlohmann::json(*spec)))) {
        if (!r) return Response::error(api::Error::unavailable("target " + tid + ": " + r.error().message));
        if (!r->isSuccess()) {
            auto e = api::errorFromResponse(r->status, r->body);
            e.message = "target " + tid + ": " + e.message;
            return Response::error(e);
        }
    }
    auto md = m_state.updateEtl([&](api::EtlMd& m) {
        m.etls[spec->name] = api::EtlEntry{*spec, api::etl_stage::kRunning, wallNs()};
        return api::Status{};
    });
    if (!md) return Response::error(md.error());
    auto st = pushAndWait(*md, spec->name, api::etl_stage::kRunning,
                          std::chrono::milliseconds(spec->initTimeoutMs) + std::chrono::seconds(3));
    if (!st) {
        // All or nothing: an ETL that did not start everywhere is removed.
        auto undone = m_state.updateEtl([&](api::EtlMd& m) {
            m.etls.erase(spec->name);
            return api::Status{};
        });
        if (undone) m_peers.pushMeta(*m_state.smap(), std::nullopt, std::nullopt, *undone);
        publish("error", "etl_error", {}, st.error().message);
        return Response::error(st.error());
    }
    logInfo("etl ", spec->name, " initialized (", api::etlCommName(spec->communication), ")");
    publish("info", "etl_started", {}, "etl " + spec->name + " is running on every target");
    return Response::json(summarize(md->etls.at(spec->name), collect(), true));
}

api::EtlInfo EtlProxyApi::summarize(const api::EtlEntry& entry,
                                    const std::map<std::string, api::Result<std::vector<api::EtlTargetState>>>& states,
                                    bool detail) const
{
    api::EtlInfo info;
    info.name = entry.spec.name;
    info.communication = std::string(api::etlCommName(entry.spec.communication));
    info.stage = entry.stage;
    bool anyError = false, anyStarting = false;
    for (const auto& [tid, r] : states) {
        if (!r) {
            info.unreachable[tid] = r.error().message;
            continue;
        }
        const auto* st = findState(*r, entry.spec.name);
        if (st == nullptr) continue;
        info.objectsIn += st->objectsIn;
        info.bytesIn += st->bytesIn;
        info.bytesOut += st->bytesOut;
        info.errors += st->errors;
        anyError |= st->stage == api::etl_stage::kError;
        anyStarting |= st->stage == api::etl_stage::kStarting;
        if (detail) info.targets[tid] = *st;
    }
    if (entry.stage == api::etl_stage::kRunning) {
        if (anyError) info.stage = api::etl_stage::kError;
        else if (anyStarting) info.stage = api::etl_stage::kStarting;
    }
    if (detail) info.spec = entry.spec;
    return info;
}

Response EtlProxyApi::list(const Request&)
{
    const auto md = m_state.etl();
    std::vector<api::EtlInfo> out;
    if (!md->etls.empty()) {
        const auto states = collect();
        for (const auto& [name, entry] : md->etls) out.push_back(summarize(entry, states, false));
    }
    return Response::json(out);
}

Response EtlProxyApi::show(const Request& req)
{
    const auto name = req.param("name");
    const auto md = m_state.etl();
    auto it = md->etls.find(name);
    if (it == md->etls.end()) return Response::error(api::Error::notFound("no ETL named \"" + name + "\""));
    return Response::json(summarize(it->second, collect(), true));
}

Response EtlProxyApi::logs(const Request& req)
{
    const auto name = req.param("name");
    const auto md = m_state.etl();
    if (!md->etls.count(name)) return Response::error(api::Error::notFound("no ETL named \"" + name + "\""));
    const auto only = req.queryValue("target");
    auto smap = *m_state.smap();
    if (!only.empty()) {
        auto node = smap.tmap.find(only);
        if (node == smap.tmap.end()) return Response::error(api::Error::notFound("no target \"" + only + "\""));
        api::Smap one;
        one.version = smap.version;
        one.tmap.emplace(node->first, node->second);
        smap = std::move(one);
    }
    std::vector<api::EtlLog> out;
    for (auto& [tid, r] : m_peers.fanOut(smap, client::Method::Get,
                                         std::string(kInternalEtl) + "/" + api::percentEncode(name) + "/logs")) {
        if (!r) {
            out.push_back({tid, "(no answer: " + r.error().message + ")"});
            continue;
        }
        if (!r->isSuccess()) {
            out.push_back({tid, "(" + api::errorFromResponse(r->status, r->body).message + ")"});
            continue;
        }
        auto log = api::parseMessage<api::EtlLog>(r->body, "etl log");
        out.push_back(log ? *log : api::EtlLog{tid, "(" + log.error().message + ")"});
    }
    return Response::json(out);
}

Response EtlProxyApi::startEtl(const Request& req)
{
    const auto name = req.param("name");
    std::lock_guard change(m_changeMutex);
    const auto current = m_state.etl();
    auto it = current->etls.find(name);
    if (it == current->etls.end()) return Response::error(api::Error::notFound("no ETL named \"" + name + "\""));
    const auto spec = it->second.spec;
    auto md = m_state.updateEtl([&](api::EtlMd& m) {
        m.etls[name].stage = api::etl_stage::kRunning;
        return api::Status{};
    });
    if (!md) return Response::error(md.error());
    auto st = pushAndWait(*md, name, api::etl_stage::kRunning,
                          std::chrono::milliseconds(spec.initTimeoutMs) + std::chrono::seconds(3));
    if (!st) {
        auto back = m_state.updateEtl([&](api::EtlMd& m) {
            m.etls[name].stage = api::etl_stage::kStopped;
            return api::Status{};
        });
        if (back) m_peers.pushMeta(*m_state.smap(), std::nullopt, std::nullopt, *back);
        publish("error", "etl_error", {}, st.error().message);
        return Response::error(st.error());
    }
    publish("info", "etl_started", {}, "etl " + name + " started");
    return Response::json(summarize(md->etls.at(name), collect(), true));
}

Response EtlProxyApi::stopEtl(const Request& req)
{
    const auto name = req.param("name");
    std::lock_guard change(m_changeMutex);
    if (!m_state.etl()->etls.count(name)) {
        return Response::error(api::Error::notFound("no ETL named \"" + name + "\""));
    }
    auto md = m_state.updateEtl([&](api::EtlMd& m) {
        m.etls[name].stage = api::etl_stage::kStopped;
        return api::Status{};
    });
    if (!md) return Response::error(md.error());
    auto st = pushAndWait(*md, name, api::etl_stage::kStopped, std::chrono::seconds(10));
    if (!st) return Response::error(st.error());
    publish("info", "etl_stopped", {}, "etl " + name + " stopped");
    return Response::json(summarize(md->etls.at(name), collect(), true));
}

Response EtlProxyApi::remove(const Request& req)
{
    const auto name = req.param("name");
    std::lock_guard change(m_changeMutex);
    if (!m_state.etl()->etls.count(name)) {
        return Response::error(api::Error::notFound("no ETL named \"" + name + "\""));
    }
    auto md = m_state.updateEtl([&](api::EtlMd& m) {
        m.etls.erase(name);
        return api::Status{};
    });
    if (!md) return Response::error(md.error());
    auto st = pushAndWait(*md, name, {}, std::chrono::seconds(10));
    if (!st) return Response::error(st.error());
    publish("info", "etl_removed", {}, "etl " + name + " removed");
    return Response::ok();
}

void EtlProxyApi::watch()
{
    std::unique_lock lock(m_watchMutex);
    while (!m_stop) {
        m_watchCv.wait_for(lock, std::chrono::seconds(2), [this] { return m_stop; });
        if (m_stop) break;
        lock.unlock();
        try {
            if (!m_state.etl()->etls.empty() || !m_seen.empty()) {
                std::map<std::string, api::EtlTargetState> now;
                for (auto& [tid, r] : collect()) {
                    if (!r) continue;
                    for (auto& s : *r) now[s.name + "/" + tid] = s;
                }
                for (const auto& [key, s] : now) {
                    // Not seen before: compared with a fresh start.
                    auto was = m_seen.find(key);
                    const api::EtlTargetState fresh;
                    const auto& before = was == m_seen.end() ? fresh : was->second;
                    if (s.restarts > before.restarts) {
                        publish("warning", "etl_restarted", s.target,
                                "etl " + s.name + " on " + s.target + ": " + s.error);
                    } else if (s.stage != before.stage && s.stage == api::etl_stage::kError) {
                        publish("error", "etl_error", s.target, "etl " + s.name + " on " + s.target + ": " + s.error);
                    }
                }
                m_seen = std::move(now);
            }
        } catch (const std::exception& e) {
            logError("etl watcher: ", e.what());
        }
        lock.lock();
    }
}

Response EtlProxyApi::bucketAction(const std::string& srcBucket, const api::ActionMsg& action)
{
    if (action.value.is_null()) {
        return Response::error(api::Error::badRequest(action.action + ": \"value\" must name the ETL: {\"id\":NAME}"));
    }
    auto msg = api::readMessage<api::EtlBucketMsg>(action.value, action.action);
    if (!msg) return Response::error(msg.error());
    const bool listRange = action.action == "etl-listrange";
    const auto dst = plainBucket(action.name);
    if (dst.empty()) {
        return Response::error(
            api::Error::badRequest(action.action + ": \"name\" must be the destination bucket (\"ais://DST\" or DST)"));
    }
    if (auto st = api::validateBucketName(dst); !st) return Response::error(st.error());
    if (dst == srcBucket) {
        return Response::error(api::Error::badRequest(action.action + ": the destination must be another bucket"));
    }
    if (listRange && msg->objnames.empty() && msg->templ.empty()) {
        return Response::error(api::Error::badRequest("etl-listrange: give /value/objnames or /value/template"));
    }
    if (!listRange && (!msg->objnames.empty() || !msg->templ.empty())) {
        return Response::error(api::Error::badRequest(
            "etl-bck takes /value/prefix; names and templates are etl-listrange's (/value/objnames, /value/template)"));
    }
    if (!msg->objnames.empty() && !msg->templ.empty()) {
        return Response::error(api::Error::badRequest(action.action + ": objnames and template exclude each other"));
    }
    const auto bmd = m_state.bmd();
    if (bmd->find(srcBucket) == nullptr) {
        return Response::error(api::Error::notFound("bucket \"" + srcBucket + "\" does not exist"));
    }
    const auto md = m_state.etl();
    auto etl = md->etls.find(msg->id);
    if (etl == md->etls.end()) return Response::error(api::Error::notFound("no ETL named \"" + msg->id + "\""));
    if (etl->second.stage != api::etl_stage::kRunning) {
        return Response::error(api::Error::conflict("etl " + msg->id + " is stopped (start it first)"));
    }
    if (bmd->find(dst) == nullptr && !msg->dryRun) {
        // As AIStore does: the destination is created when missing.
        auto created = m_state.createBucket(dst);
        if (!created && created.kind() != api::ErrorKind::Conflict) return Response::error(created.error());
        if (created) m_peers.pushMeta(*m_state.smap(), std::nullopt, *created);
    }
    api::EtlJobArgs args{srcBucket, dst, *msg};
    auto st = m_jobs.startKind("etl-bck", nlohmann::json(args));
    if (!st) return Response::error(st.error());
    return Response::json(*st);
}

api::Result<std::map<std::string, nlohmann::json>> EtlProxyApi::prepare(const nlohmann::json& raw,
                                                                        const api::Smap& targets)
{
    auto args = api::readMessage<api::EtlJobArgs>(raw, "etl-bck");
    if (!args) return args.error();
    std::map<std::string, nlohmann::json> out;
    std::vector<std::string> names = args->msg.objnames;
    if (!args->msg.templ.empty()) {
        auto t = spec::BraceTemplate::parse(args->msg.templ);
        if (!t) return api::Error::badRequest("etl-listrange: /value/template: " + t.error().message);
        auto expanded = t->expand(kMaxEtlNames);
        if (!expanded) return api::Error::badRequest("etl-listrange: /value/template: " + expanded.error().message);
        names = std::move(expanded.value());
    }
    if (names.size() > kMaxEtlNames) return api::Error::badRequest("etl-listrange: more than 1000000 names");
    if (names.empty()) {
        for (const auto& [tid, node] : targets.tmap) out[tid] = nlohmann::json(*args);
        return out;
    }
    // Each target gets the names it owns.
    std::map<std::string, std::vector<std::string>> shares;
    for (auto& n : names) {
        if (auto st = api::validateObjectName(n); !st) {
            return api::Error::badRequest("etl-listrange: \"" + n + "\": " + st.error().message);
        }
        const auto* owner = api::hrwTarget(targets, api::objectUname(args->srcBucket, n));
        if (owner == nullptr) return api::Error::unavailable("no targets in the cluster map");
        shares[owner->id].push_back(std::move(n));
    }
    for (auto& [tid, share] : shares) {
        api::EtlJobArgs part = *args;
        part.msg.templ.clear();
        part.msg.objnames = std::move(share);
        out[tid] = nlohmann::json(part);
    }
    return out;
}

}  // namespace tessera::daemon::proxy
