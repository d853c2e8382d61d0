#include "dsort_proxy_api.h"

#include "api/dsort_msg.h"
#include "api/hrw.h"
#include "api/json_util.h"
#include "api/paths.h"
#include "client/api_client.h"
#include "common/log.h"
#include "proxy/peer_calls.h"
#include "spec/dsort_plan.h"

#include "spec/brace_template.h"

#include <random>
#include <set>

namespace tessera::daemon::dsort {

namespace http = boost::beast::http;
using net::Exec;
using net::Request;
using net::Response;
using net::Route;

DsortProxyApi::DsortProxyApi(proxy::ProxyState& state, proxy::JobCoordinator& jobs, std::string selfUrl,
                             std::chrono::milliseconds peerTimeout)
    : m_state(state), m_jobs(jobs), m_selfUrl(std::move(selfUrl)), m_peerTimeout(peerTimeout)
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
    const auto [bck, obj] = s.ekmObject();
    client::HttpClient::Options o;
    o.connectTimeout = m_peerTimeout;
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

Response DsortProxyApi::start(const Request& req)
{
    auto j = nlohmann::json::parse(req.body, nullptr, false);
    if (j.is_discarded()) return Response::error(api::Error::badRequest("invalid dsort spec: malformed JSON"));
    auto s = spec::parseDsortSpec(j);
    if (!s) return Response::error(s.error());
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

Response DsortProxyApi::show(const Request& req)
{
    if (!req.hasQuery("uuid")) {
        auto out = nlohmann::json::array();
        for (const auto& st : m_jobs.list()) {
            if (st.kind == "dsort") out.push_back(st);
        }
        return Response::json(out);
    }
    auto st = dsortJob(req.queryValue("uuid"));
    if (!st) return Response::error(st.error());
    // Each target's own counters: phase times, records, spills.
    api::Smap targets;
    const auto smap = m_state.smap();
    for (const auto& [tid, ts] : st->targets) {
        if (auto it = smap->tmap.find(tid); it != smap->tmap.end()) targets.tmap.emplace(tid, it->second);
    }
    nlohmann::json metrics = nlohmann::json::object();
    proxy::PeerCalls peers(std::min(m_peerTimeout, std::chrono::milliseconds(2000)));
    for (const auto& [tid, r] :
         peers.fanOut(targets, client::Method::Get, api::path::internalDsort(st->id, "metrics"))) {
        if (!r || !r->isSuccess()) continue;
        auto m = nlohmann::json::parse(r->body, nullptr, false);
        if (m.is_object()) metrics[tid] = std::move(m);
    }
    nlohmann::json out = *st;
    out["metrics"] = std::move(metrics);
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
