#include "membership.h"

#include "api/action_msg.h"
#include "api/cluster_msg.h"
#include "api/headers.h"
#include "api/http_error.h"
#include "api/json_util.h"
#include "api/paths.h"
#include "client/http_client.h"
#include "common/log.h"

#include <nlohmann/json.hpp>

namespace tessera::daemon::target {

namespace {
client::HttpClient::Options peerOptions(std::chrono::milliseconds timeout)
{
    client::HttpClient::Options o;
    o.connectTimeout = timeout;
    o.ioTimeout = timeout;
    o.followRedirects = false;
    o.retriesOn503 = 0;
    return o;
}
}  // namespace

Membership::Membership(api::Snode self, std::string proxyUrl, MetaCache& cache, std::chrono::milliseconds interval,
                       std::chrono::milliseconds peerTimeout, std::string clusterKey)
    : m_self(std::move(self)), m_proxyUrl(std::move(proxyUrl)), m_cache(cache), m_interval(interval),
      m_peerTimeout(peerTimeout), m_clusterKey(std::move(clusterKey))
{
}

Membership::~Membership() { stop(); }

void Membership::start()
{
    m_thread = std::thread([this] { run(); });
}

void Membership::stop()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_cv.notify_all();
    if (m_thread.joinable()) m_thread.join();
}

void Membership::requestRefresh()
{
    {
        std::lock_guard lock(m_mutex);
        m_refresh = true;
    }
    m_cv.notify_all();
}

void Membership::run()
{
    auto joinBackoff = std::chrono::milliseconds(200);
    while (!m_stop) {
        std::chrono::milliseconds wait = m_interval;
        bool refresh = false;
        if (m_removed) {
            // Out of the cluster for good: nothing to join, no keepalive to send.
        } else if (!m_joined) {
            if (tryJoin()) {
                m_joined = true;
                joinBackoff = std::chrono::milliseconds(200);
            } else {
                wait = joinBackoff;
                joinBackoff = std::min(joinBackoff * 2, m_interval);
            }
        } else {
            keepalive();
        }
        std::unique_lock lock(m_mutex);
        m_cv.wait_for(lock, wait, [&] { return m_stop.load() || m_refresh; });
        refresh = m_refresh;
        m_refresh = false;
        lock.unlock();
        if (refresh && m_joined && !m_stop) pullMeta(true, true);
    }
}

bool Membership::tryJoin()
{
    client::HttpClient http(peerOptions(m_peerTimeout));
    auto res = http.send(client::Method::Post, m_proxyUrl + std::string(api::path::kJoin),
                         client::Body::string(api::dumpJson(nlohmann::json(m_self))),
                         {{"Content-Type", "application/json"}, {std::string(api::kHdrClusterKey), m_clusterKey}});
    if (!res) {
        logWarn("join ", m_proxyUrl, ": ", res.error().message);
        return false;
    }
    if (!res->isSuccess()) {
        logWarn("join ", m_proxyUrl, " refused: ", api::errorFromResponse(res->status, res->body).message);
        return false;
    }
    auto reply = api::parseMessage<api::JoinReply>(res->body, "join reply");
    if (!reply) {
        logWarn(reply.error().message);
        return false;
    }
    // Buckets first: once the map names this target it may be asked for data.
    m_cache.applyBmd(std::move(reply->bmd));
    m_cache.applySmap(std::move(reply->smap));
    m_cache.applyEtl(std::move(reply->etl));
    if (reply->revoked) {
        if (auto st = m_cache.applyRevoked(*reply->revoked); !st) logWarn("join: revoked tokens: ", st.error().message);
    }
    if (reply->tokenKeys) {
        if (auto st = m_cache.applyTokenKeys(*reply->tokenKeys, true); !st) {
            logWarn("join: token keys: ", st.error().message);
        }
    }
    logInfo("joined cluster at ", m_proxyUrl, " as ", m_self.id, " (smap v", m_cache.smap()->version, ")");
    return true;
}

void Membership::keepalive()
{
    client::HttpClient http(peerOptions(m_peerTimeout));
    const api::Keepalive body{m_self.id, m_cache.smap()->version, m_cache.bmd()->version, m_cache.etl()->version};
    auto res = http.send(client::Method::Post, m_proxyUrl + std::string(api::path::kKeepalive),
                         client::Body::string(api::dumpJson(nlohmann::json(body))),
                         {{"Content-Type", "application/json"}, {std::string(api::kHdrClusterKey), m_clusterKey}});
    if (!res) {
        logWarn("keepalive to ", m_proxyUrl, ": ", res.error().message);
        return;
    }
    if (res->status == 404) {
        if (m_removed) return;
        if (const auto* self = m_cache.smap()->findTarget(m_self.id); self != nullptr && self->decommissioning()) {
            // Removed at the end of its move, and the push of the map that
            // says so did not arrive: that map, not a join, is the answer.
            logInfo("proxy does not know this decommissioning target any more; fetching the cluster map");
            pullMeta(true, false);
            return;
        }
        logWarn("proxy does not know this target any more; rejoining");
        m_joined = false;
        if (tryJoin()) m_joined = true;
        return;
    }
    if (!res->isSuccess()) return;
    auto versions = api::parseMessage<api::MetaVersions>(res->body, "keepalive reply");
    if (!versions) {
        logWarn(versions.error().message);
        return;
    }
    const auto sv = versions->smapVersion;
    const auto bv = versions->bmdVersion;
    const bool smapBehind = sv > m_cache.smap()->version;
    const bool bmdBehind = bv != m_cache.bmd()->version;
    if (smapBehind || bmdBehind) pullMeta(smapBehind, bmdBehind);
    if (versions->etlVersion > m_cache.etl()->version) {
        auto etl = http.send(client::Method::Get, m_proxyUrl + api::path::clusterWhat("etl"));
        if (etl && etl->isSuccess()) {
            auto md = api::parseMessage<api::EtlMd>(etl->body, "etl registry");
            if (md) m_cache.applyEtl(std::move(md.value()));
        }
    }
}

void Membership::smapChanged(const api::Smap& before, const api::Smap& after)
{
    const auto* was = before.findTarget(m_self.id);
    if (was == nullptr || !was->decommissioning() || after.findTarget(m_self.id) != nullptr) return;
    if (m_removed.exchange(true)) return;
    logInfo("decommissioned: cluster map v", after.version,
            " no longer names this target (its objects have moved to the others); leaving the cluster");
    if (m_onRemoved) m_onRemoved();
}

api::Status Membership::startMaintenance()
{
    client::HttpClient http(peerOptions(m_peerTimeout));
    const api::ActionMsg msg{api::act::kStartMaintenance, "", nlohmann::json(api::NodeMaintenance{m_self.id})};
    auto res = http.send(client::Method::Put, m_proxyUrl + std::string(api::path::kCluster),
                         client::Body::string(api::dumpJson(nlohmann::json(msg))),
                         {{"Content-Type", "application/json"}, {std::string(api::kHdrClusterKey), m_clusterKey}});
    if (!res) return res.error();
    if (!res->isSuccess()) return api::errorFromResponse(res->status, res->body);
    auto reply = api::parseMessage<api::ClusterActionReply>(res->body, "start-maintenance reply");
    if (!reply) return reply.error();
    logInfo("in maintenance from cluster map v", reply->smapVersion);
    return {};
}

void Membership::pullMeta(bool smap, bool bmd)
{
    client::HttpClient http(peerOptions(m_peerTimeout));
    if (smap) {
        auto res = http.send(client::Method::Get, m_proxyUrl + api::path::clusterWhat("smap"));
        if (res && res->isSuccess()) {
            auto s = api::parseSmap(res->body);
            if (s && m_cache.applySmap(std::move(s.value()))) {
                logInfo("cluster map updated to v", m_cache.smap()->version);
            }
        }
    }
    if (bmd) {
        auto res = http.send(client::Method::Get, m_proxyUrl + api::path::clusterWhat("bmd"));
        if (res && res->isSuccess()) {
            auto b = api::parseBmd(res->body);
            if (b) m_cache.applyBmd(std::move(b.value()));
        }
    }
}

}  // namespace tessera::daemon::target
