// TargetApi's node handlers: metasync from the proxy, health, node
// information and mountpath figures (part of TargetApi; see target_api.h).
#include "target_api.h"

#include "api/cluster_msg.h"
#include "api/headers.h"
#include "meta/node_identity.h"
#include "stats/ais_answers.h"

namespace tessera::daemon::target {

using net::Request;
using net::Response;

Response TargetApi::metasync(const Request& req)
{
    // Only the proxy (which holds the cluster key) may replace the maps.
    if (!meta::sameSecret(std::string(req.header(api::kHdrClusterKey)), m_clusterKey)) {
        return Response::error(
            api::Error{api::ErrorKind::Forbidden,
                       "metasync needs the cluster key (header " + std::string(api::kHdrClusterKey) + ")",
                       {}});
    }
    auto msg = api::parseMessage<api::Metasync>(req.body, "metasync");
    if (!msg) return Response::error(msg.error());
    // Buckets first: once the map names a target it may be asked for data.
    if (msg->bmd) m_cache.applyBmd(std::move(*msg->bmd));
    if (msg->smap) m_cache.applySmap(std::move(*msg->smap));
    if (msg->etl) m_cache.applyEtl(std::move(*msg->etl));
    if (msg->revoked) {
        if (auto st = m_cache.applyRevoked(*msg->revoked); !st) return Response::error(st.error());
    }
    if (msg->tokenKeys) {
        if (auto st = m_cache.applyTokenKeys(*msg->tokenKeys, false); !st) return Response::error(st.error());
    }
    return Response::json(api::MetaVersions{m_cache.smap()->version, m_cache.bmd()->version, m_cache.etl()->version});
}

Response TargetApi::health(const Request& req)
{
    const bool joined = m_membership.joined() && !m_cache.smap()->tmap.empty();
    // AIStore answers health with a status and no body (503 until joined).
    if (!api::wantsHealthDetail(req.queryValue("detail"))) {
        if (joined) return Response::ok();
        Response r;
        r.status = 503;
        r.header("Retry-After", "1");
        return r;
    }
    const api::Health h{
        joined ? "ok" : "joining", std::string(api::kRoleTarget), m_self.id, m_cache.smap()->version, {}};
    return Response::json(nlohmann::json(h), joined ? 200 : 503);
}

Response TargetApi::daemonInfo(const Request& req)
{
    const auto what = req.queryValue("what");
    bool tessera = false;
    if (auto bad = stats::checkFormat(req, tessera)) return std::move(*bad);
    if (what == "smap") return Response::json(nlohmann::json(*m_cache.smap()));
    if (what == "bmd") return Response::json(nlohmann::json(*m_cache.bmd()));
    if (what == "snode") return Response::json(nlohmann::json(m_self));
    if (what == "config" && tessera) return Response::json(m_nodeInfo().value("config", nlohmann::json::object()));
    if (what == "node_stats" || what.empty()) return Response::json(m_nodeStats());
    const auto smap = m_cache.smap();
    if (auto r = stats::aisDaemonAnswer(what, m_ais, m_nodeStats(), m_self, *smap, m_cache.bmd()->version)) {
        return std::move(*r);
    }
    return Response::error(api::Error::badRequest(
        "unknown what=\"" + what +
        "\" (expected smap, bmd, snode, config, node_stats, node_status, sysinfo, mountpaths, software_version)"));
}

std::vector<api::MountpathStats> TargetApi::mountpathStats() const
{
    std::vector<api::MountpathStats> out;
    for (const auto& mp : m_store.mountpathInfo()) {
        api::MountpathStats m;
        m.path = mp.path;
        m.total = mp.total;
        m.used = mp.used;
        m.available = mp.available;
        m.fs = mp.fs;
        m.state = api::mountpathStateFor(mp.total, mp.used);
        if (m.state == api::MountpathState::Error) m.error = "cannot read the filesystem's capacity";
        if (!mp.disabled.empty()) {
            m.state = api::MountpathState::Error;
            m.error = "disabled: " + mp.disabled;
        }
        out.push_back(std::move(m));
    }
    return out;
}

}  // namespace tessera::daemon::target
