#include "dsort_proxy_api.h"

#include "api/ais_dsort.h"
#include "api/dsort_msg.h"
#include "api/headers.h"
#include "api/hrw.h"
#include "api/json_util.h"
#include "api/paths.h"
#include "api/uri.h"
#include "archive/archive_reader.h"
#include "client/api_client.h"
#include "common/log.h"
#include "dsort_input_walk.h"
#include "net/request_params.h"
#include "proxy/peer_calls.h"
#include "spec/dsort_plan.h"
#include "spec/dsort_preview.h"

#include "spec/brace_template.h"

#include <random>
#include <regex>
#include <set>
#include <unordered_map>

namespace tessera::daemon::dsort {

namespace http = boost::beast::http;
using net::Exec;
using net::Request;
using net::Response;
using net::Route;

DsortProxyApi::DsortProxyApi(proxy::ProxyState& state, proxy::JobCoordinator& jobs, std::string selfUrl,
                             std::chrono::milliseconds peerTimeout, std::string clusterKey,
                             net::OutboundFetchOptions fetch, proxy::BucketLister list)
    : m_state(state), m_jobs(jobs), m_selfUrl(std::move(selfUrl)), m_peerTimeout(peerTimeout),
      m_clusterKey(std::move(clusterKey)), m_fetch(std::move(fetch)), m_list(std::move(list))
{
}

void DsortProxyApi::registerWith(proxy::JobCoordinator& jobs, net::Router& router)
{
    jobs.addKind("dsort", {[this](const nlohmann::json& a, const api::Smap& t) { return prepare(a, t); }, false});
    router.add(
        Route{http::verb::post, "/v1/sort", Exec::Worker, net::bind(this, &DsortProxyApi::start), {}, kMaxSpecBody});
    router.add(Route{http::verb::get, "/v1/sort", Exec::Worker, net::bind(this, &DsortProxyApi::show), {}});
    router.add(Route{http::verb::delete_, "/v1/sort/abort", Exec::Worker, net::bind(this, &DsortProxyApi::abort), {}});
    router.add(Route{http::verb::delete_, "/v1/sort", Exec::Worker, net::bind(this, &DsortProxyApi::remove), {}});
}

api::Result<std::string> DsortProxyApi::readEkm(const spec::DsortSpec& s) const
{
    if (s.ekmFile.empty()) return std::string();
    if (s.ekmIsUrl()) {
        auto fetched = net::fetchUserUrl(s.ekmFile, m_fetch);
        if (!fetched) {
            return api::Error{fetched.kind(), "invalid dsort spec: /ekm_file: " + fetched.error().message, {}};
        }
        if (auto e = spec::parseEkm(*fetched); !e) return e.error();
        return std::move(fetched.value());
    }
    const auto [bck, obj] = s.ekmObject();
    client::HttpClient::Options o;
    o.connectTimeout = m_peerTimeout;
    if (!m_clusterKey.empty()) o.headers.emplace_back(std::string(api::kHdrClusterKey), m_clusterKey);
    client::Client self(m_selfUrl, o);
    auto head = self.headObject(bck, obj);
    if (!head) {
        return api::Error{head.kind() == api::ErrorKind::NotFound ? api::ErrorKind::BadRequest : head.kind(),
                          "invalid dsort spec: /ekm_file: cannot read " + s.ekmFile + ": " + head.error().message,
                          {}};
    }
    if (head->size > static_cast<std::int64_t>(kMaxEkmBytes)) {
        return api::Error::badRequest("invalid dsort spec: /ekm_file: " + s.ekmFile + " is larger than 16 MiB");
    }
    auto text = self.getObject(bck, obj);
    if (!text)
        return api::Error::badRequest("invalid dsort spec: /ekm_file: cannot read " + s.ekmFile + ": " +
                                      text.error().message);
    if (auto e = spec::parseEkm(*text); !e) return e.error();
    return std::move(text.value());
}

api::Status DsortProxyApi::checkNoOverwrite(const spec::DsortSpec& s, const std::vector<std::string>& inputs)
{
    auto tmpl = spec::BraceTemplate::parse(s.outputFormat);
    if (!tmpl) return api::Error::badRequest("invalid dsort spec: /output_format: " + tmpl.error().message);
    const std::set<std::string> names(inputs.begin(), inputs.end());
    const auto n = std::min<std::uint64_t>(tmpl->count(), kMaxOverwriteCheck);
    for (std::uint64_t i = 0; i < n; ++i) {
        const auto out = tmpl->at(i) + s.outputExtension;
        if (names.count(out)) {
            return api::Error::badRequest("invalid dsort spec: /output_format: output shard \"" + out +
                                          "\" would replace the input shard of that name in " + s.inputBck);
        }
    }
    return {};
}

api::Result<std::map<std::string, nlohmann::json>> DsortProxyApi::prepare(const nlohmann::json& args,
                                                                          const api::Smap& targets) const
{
    auto s = spec::parseDsortSpec(args);
    if (!s) return s.error();
    const auto bmd = m_state.bmd();
    if (bmd->find(s->inputBck) == nullptr) {
        return api::Error::notFound("invalid dsort spec: /input_bck: bucket \"" + s->inputBck + "\" does not exist");
    }
    if (bmd->find(s->outputBck) == nullptr) {
        return api::Error::notFound("invalid dsort spec: /output_bck: bucket \"" + s->outputBck + "\" does not exist");
    }
    if (s->algorithm.kind == spec::DsortAlgorithmKind::Shuffle && !s->algorithm.seed) {
        s->algorithm.seed = std::random_device{}() | (std::uint64_t{std::random_device{}()} << 32);
    }
    auto names = s->inputNames();
    if (!names) return names.error();
    if (s->outputBck == s->inputBck) {
        // An output replacing an input would lose it when the job fails or
        // is aborted (its output is removed).
        if (auto st = checkNoOverwrite(*s, *names); !st) return st.error();
    }
    auto ekm = readEkm(*s);
    if (!ekm) return ekm.error();
    if (targets.tmap.empty()) return api::Error::unavailable("no targets in the cluster");
    // Every target takes part and receives output shards by their names'
    // hash: a leaving one would keep them after its move.
    for (const auto& [id, node] : targets.tmap) {
        if (node.decommissioning()) {
            return api::Error::conflict("target " + id +
                                        " is being decommissioned; start the dsort once it has left the cluster map");
        }
    }

    std::vector<std::string> ids;
    std::vector<api::DsortPeer> peers;
    for (const auto& [id, node] : targets.tmap) {
        ids.push_back(id);
        peers.push_back({id, node.publicNet.url});
    }
    std::vector<std::vector<api::DsortInput>> inputs(ids.size());
    for (std::size_t i = 0; i < names->size(); ++i) {
        const auto owner = api::hrwIndex(ids, api::objectUname(s->inputBck, (*names)[i]));
        inputs[owner].push_back({i, (*names)[i]});
    }
    std::uint32_t sorter = 0;
    for (std::uint32_t i = 1; i < ids.size(); ++i) {
        if (inputs[i].size() > inputs[sorter].size()) sorter = i;
    }
    const nlohmann::json specJson = *s;
    std::map<std::string, nlohmann::json> out;
    for (std::uint32_t i = 0; i < ids.size(); ++i) {
        out[ids[i]] = api::DsortJobArgs{specJson, peers, i, sorter, std::move(inputs[i]), *ekm};
    }
    logInfo("dsort ", s->inputBck, " -> ", s->outputBck, ": ", names->size(), " input shard(s) on ", ids.size(),
            " target(s), sorted on ", ids[sorter],
            s->algorithm.seed ? ", seed " + std::to_string(*s->algorithm.seed) : std::string());
    return out;
}

api::Result<nlohmann::json> DsortProxyApi::dryRun(spec::DsortSpec s) const
{
    const auto bmd = m_state.bmd();
    if (bmd->find(s.inputBck) == nullptr) {
        return api::Error::notFound("invalid dsort spec: /input_bck: bucket \"" + s.inputBck + "\" does not exist");
    }
    if (bmd->find(s.outputBck) == nullptr) {
        return api::Error::notFound("invalid dsort spec: /output_bck: bucket \"" + s.outputBck + "\" does not exist");
    }
    if (s.algorithm.kind == spec::DsortAlgorithmKind::Shuffle && !s.algorithm.seed) {
        // Returned with the plan: starting that spec gives this plan's order.
        s.algorithm.seed = std::random_device{}() | (std::uint64_t{std::random_device{}()} << 32);
    }
    auto names = s.inputNames();
    if (!names) return names.error();
    if (s.outputBck == s.inputBck) {
        if (auto st = checkNoOverwrite(s, *names); !st) return st.error();
    }
    auto ekm = readEkm(s);
    if (!ekm) return ekm.error();
    const auto smap = m_state.smap();
    std::vector<std::string> ids;
    for (const auto& [id, node] : smap->tmap) ids.push_back(id);

    std::vector<spec::DsortPreviewInput> inputs(names->size());
    for (std::size_t i = 0; i < names->size(); ++i) inputs[i].name = (*names)[i];
    if (auto st = walkDsortInputs(m_list, s.inputBck, inputs, spec::DsortPreview::kMaxMembers); !st) return st.error();
    // The content algorithm sorts by a file's bytes: read those files (one
    // call per shard: the members with that extension, as a .tar).
    if (s.algorithm.kind == spec::DsortAlgorithmKind::Content) {
        // Through the proxy's object route (answered on its I/O thread with
        // a redirect to the owner), which needs no worker.
        client::HttpClient::Options o;
        o.connectTimeout = m_peerTimeout;
        if (!m_clusterKey.empty()) o.headers.emplace_back(std::string(api::kHdrClusterKey), m_clusterKey);
        client::Client self(m_selfUrl, o);
        for (auto& in : inputs) {
            if (!in.read || !in.error.empty()) continue;
            auto tar = self.getArchiveMatches(s.inputBck, in.name, s.algorithm.extension, "suffix");
            if (!tar) {
                in.error = "cannot read its " + s.algorithm.extension + " files: " + tar.error().message;
                continue;
            }
            auto reader = archive::ArchiveReader::openMemory(*tar, archive::ArchiveFormat::Tar, {});
            if (!reader) {
                in.error = reader.error().message;
                continue;
            }
            std::unordered_map<std::string, std::string> keys;  // member name -> bytes
            while (true) {
                auto m = (*reader)->next();
                if (!m || !m->has_value()) break;
                auto data = (*reader)->readAll();
                if (!data) break;
                keys.emplace((**m).name, std::move(data.value()));
            }
            for (auto& mem : in.members) {
                if (auto it = keys.find(mem.name); it != keys.end()) mem.content = std::move(it->second);
            }
        }
    }
    auto plan = spec::previewDsort(s, inputs, *ekm, ids);
    logInfo("dsort dry run ", s.inputBck, " -> ", s.outputBck, ": ", plan.records, " records from ", plan.read, " of ",
            plan.found, " shard(s) into ", plan.outputShards, " shard(s)");
    return nlohmann::json(spec::DsortDryRun{s, std::move(plan)});
}

Response DsortProxyApi::start(const Request& req)
{
    auto j = api_util::specBody(req, "dsort");
    if (!j) return Response::error(j.error());
    const auto dry = req.queryValue("dry_run");
    if (!dry.empty() && dry != "true" && dry != "false") {
        return Response::error(api::Error::badRequest("dry_run must be true or false"));
    }
    auto s = spec::parseDsortSpec(*j);
    if (!s) return Response::error(s.error());
    if (dry == "true") {
        auto plan = dryRun(*s);
        if (!plan) return Response::error(plan.error());
        return Response::json(*plan);
    }
    if (s->algorithm.kind == spec::DsortAlgorithmKind::Shuffle && !s->algorithm.seed) {
        // Picked here so the job's args (and its log line) carry it.
        s->algorithm.seed = std::random_device{}() | (std::uint64_t{std::random_device{}()} << 32);
    }
    auto st = m_jobs.startKind("dsort", nlohmann::json(*s));
    if (!st) return Response::error(st.error());
    Response r;
    r.body = st->id;
    r.header("Content-Type", "text/plain");
    return r;
}

api::Result<api::JobStatus> DsortProxyApi::dsortJob(const std::string& id) const
{
    if (id.empty()) return api::Error::badRequest("uuid is required: the id POST /v1/sort answered");
    auto st = m_jobs.find(id);
    if (!st || st->kind != "dsort") return api::Error::notFound("no dSort job \"" + id + "\"");
    return *st;
}

std::map<std::string, nlohmann::json> DsortProxyApi::targetCounters(const api::JobStatus& st) const
{
    api::Smap targets;
    const auto smap = m_state.smap();
    for (const auto& [tid, ts] : st.targets) {
        if (auto it = smap->tmap.find(tid); it != smap->tmap.end()) targets.tmap.emplace(tid, it->second);
    }
    std::map<std::string, nlohmann::json> out;
    proxy::PeerCalls peers(std::min(m_peerTimeout, std::chrono::milliseconds(2000)), m_clusterKey);
    for (const auto& [tid, r] :
         peers.fanOut(targets, client::Method::Get, api::path::internalDsort(st.id, "metrics"))) {
        if (!r || !r->isSuccess()) continue;
        if (auto m = api::parseDsortCounters(r->body)) out[tid] = std::move(*m);
    }
    return out;
}

std::map<std::string, std::map<std::string, nlohmann::json>> DsortProxyApi::targetCounters(
    const std::vector<api::JobStatus>& jobs) const
{
    std::map<std::string, std::map<std::string, nlohmann::json>> out;
    const auto smap = m_state.smap();
    proxy::PeerCalls peers(std::min(m_peerTimeout, std::chrono::milliseconds(2000)), m_clusterKey);
    // Batches of the ids one call may name (the list has at most the
    // coordinator's history and the running jobs: one batch in practice).
    for (std::size_t first = 0; first < jobs.size(); first += api::path::kInternalDsortMetricsMaxIds) {
        const auto last = std::min(jobs.size(), first + api::path::kInternalDsortMetricsMaxIds);
        api::Smap targets;
        std::string ids;
        for (std::size_t i = first; i < last; ++i) {
            ids += (ids.empty() ? "" : ",") + jobs[i].id;
            for (const auto& [tid, ts] : jobs[i].targets) {
                if (auto it = smap->tmap.find(tid); it != smap->tmap.end()) targets.tmap.emplace(tid, it->second);
            }
        }
        api::QueryMap query;
        query.emplace("ids", ids);
        const auto path = std::string(api::path::kInternalDsortMetrics) + "?" + api::buildQuery(query);
        for (const auto& [tid, r] : peers.fanOut(targets, client::Method::Get, path)) {
            if (!r || !r->isSuccess()) continue;
            auto m = api::parseDsortCountersById(r->body);
            if (!m) continue;
            for (auto& [id, counters] : *m) out[id][tid] = std::move(counters);
        }
    }
    return out;
}

std::map<std::string, api::AisDsortJobInfo> DsortProxyApi::aisJobInfos(
    const api::JobStatus& st, const std::map<std::string, nlohmann::json>& counters) const
{
    const auto spec = m_jobs.args(st.id).value_or(nlohmann::json::object());
    const auto text = [&](const char* key) {
        auto it = spec.find(key);
        return it != spec.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    const auto now =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    std::map<std::string, api::AisDsortJobInfo> out;
    for (const auto& [tid, ts] : st.targets) {
        api::DsortTargetPart part;
        part.jobId = st.id;
        part.inputBck = text("input_bck");
        part.outputBck = text("output_bck");
        part.description = text("description");
        part.jobState = st.state;
        part.jobError = st.error;
        part.target = ts;
        if (auto it = counters.find(tid); it != counters.end()) part.counters = it->second;
        part.nowNs = now;
        out.emplace(tid, api::aisDsortJobInfo(part));
    }
    return out;
}

Response DsortProxyApi::show(const Request& req)
{
    // AIStore's shapes by default (what its clients decode); Tessera's own
    // job status with ?format=tessera (Tessera's CLI and C++ client).
    const auto format = req.queryValue("format");
    if (!format.empty() && format != "tessera" && format != "aistore") {
        return Response::error(api::Error::badRequest("format must be tessera or aistore"));
    }
    const bool tessera = format == "tessera";
    const auto uuid = req.queryValue("uuid");
    if (uuid.empty() && !(tessera && req.hasQuery("uuid"))) return tessera ? listTessera() : listAis(req);
    auto st = dsortJob(uuid);
    if (!st) return Response::error(st.error());
    auto counters = targetCounters(*st);
    if (!tessera) {
        nlohmann::json out = nlohmann::json::object();
        for (auto& [tid, info] : aisJobInfos(*st, counters)) out[tid] = info;
        return Response::json(out);
    }
    nlohmann::json metrics = nlohmann::json::object();
    for (auto& [tid, m] : counters) metrics[tid] = std::move(m);
    nlohmann::json out = *st;
    out["metrics"] = std::move(metrics);
    return Response::json(out);
}

Response DsortProxyApi::listTessera() const
{
    auto out = nlohmann::json::array();
    for (const auto& st : m_jobs.list()) {
        if (st.kind == "dsort") out.push_back(st);
    }
    return Response::json(out);
}

Response DsortProxyApi::listAis(const Request& req) const
{
    // api.ListDsort: `regex` (POSIX extended) on the job's description,
    // `only_active` leaves out the finished ones.
    const auto pattern = req.queryValue("regex");
    if (pattern.size() > kMaxRegex) {
        return Response::error(api::Error::badRequest("regex longer than " + std::to_string(kMaxRegex) + " bytes"));
    }
    std::optional<std::regex> re;
    if (!pattern.empty()) {
        try {
            re.emplace(pattern, std::regex::extended | std::regex::nosubs);
        } catch (const std::regex_error& e) {
            return Response::error(api::Error::badRequest("regex \"" + pattern + "\": " + e.what()));
        }
    }
    const auto active = req.queryValue("only_active");
    if (!active.empty() && active != "true" && active != "false") {
        return Response::error(api::Error::badRequest("only_active must be true or false"));
    }
    std::vector<api::JobStatus> selected;
    for (const auto& st : m_jobs.list()) {
        if (st.kind != "dsort") continue;
        if (active == "true" && api::isFinal(st.state)) continue;
        if (re) {
            const auto spec = m_jobs.args(st.id).value_or(nlohmann::json::object());
            const auto desc = spec.value("description", std::string());
            if (!std::regex_search(desc.substr(0, kMaxRegexSubject), *re)) continue;
        }
        selected.push_back(st);
    }
    // One call per target for every selected job (not one per job and target).
    const auto counters = targetCounters(selected);
    static const std::map<std::string, nlohmann::json> kNone;
    auto out = nlohmann::json::array();
    for (const auto& st : selected) {
        const auto c = counters.find(st.id);
        std::optional<api::AisDsortJobInfo> job;
        for (auto& [tid, info] : aisJobInfos(st, c != counters.end() ? c->second : kNone)) {
            if (!job) job = std::move(info);
            else api::aggregate(*job, info);
        }
        if (job) out.push_back(*job);
    }
    return Response::json(out);
}

Response DsortProxyApi::abort(const Request& req)
{
    auto st = dsortJob(req.queryValue("uuid"));
    if (!st) return Response::error(st.error());
    auto r = m_jobs.abort(st->id);
    if (!r) return Response::error(r.error());
    return Response::json(*r);
}

Response DsortProxyApi::remove(const Request& req)
{
    auto st = dsortJob(req.queryValue("uuid"));
    if (!st) return Response::error(st.error());
    if (auto r = m_jobs.remove(st->id); !r) return Response::error(r.error());
    return Response::json(nlohmann::json{{"removed", st->id}});
}

}  // namespace tessera::daemon::dsort
