#include "peer_calls.h"

#include "api/cluster_msg.h"
#include "api/headers.h"
#include "api/http_error.h"
#include "api/json_util.h"
#include "api/paths.h"
#include "common/log.h"

#include <future>
#include <nlohmann/json.hpp>
#include <vector>

namespace tessera::daemon::proxy {

namespace {
api::Error awayError(const std::string& id, const api::Snode& node)
{
    return api::Error::unavailable("target " + id + " (" + node.publicNet.url + ") is " +
                                   (node.inMaintenance() ? "in maintenance" : "away: it missed its keepalives"));
}
}  // namespace

api::Result<client::Response> PeerCalls::call(client::Method method, const std::string& url, const std::string* body,
                                              std::chrono::milliseconds ioTimeout) const
{
    // Only reads go over a kept-alive connection: the client's one retry
    // after a connection that broke before any answer could send a write
    // (a job's start, a metadata push) twice if the target had read it.
    const bool reuse = method == client::Method::Get || method == client::Method::Head;
    std::unique_ptr<client::HttpClient> http;
    if (reuse) {
        std::lock_guard lock(m_idleMutex);
        for (auto it = m_idle.rbegin(); it != m_idle.rend(); ++it) {
            if ((*it)->options().ioTimeout == ioTimeout) {
                http = std::move(*it);
                m_idle.erase(std::next(it).base());
                break;
            }
        }
    }
    if (!http) {
        client::HttpClient::Options o;
        o.connectTimeout = m_timeout;
        o.ioTimeout = ioTimeout;
        o.followRedirects = false;
        o.retriesOn503 = 0;  // never sleep on a worker thread
        http = std::make_unique<client::HttpClient>(o);
    }
    client::Headers headers{{"Content-Type", "application/json"}};
    if (!m_clusterKey.empty()) headers.emplace_back(std::string(api::kHdrClusterKey), m_clusterKey);
    auto r = http->send(method, url,
                        body == nullptr || body->empty() ? client::Body::none() : client::Body::string(*body), headers);
    if (r && reuse) {
        std::lock_guard lock(m_idleMutex);
        if (m_idle.size() < kMaxIdleClients) m_idle.push_back(std::move(http));
    }
    return r;
}

void PeerCalls::runAll(std::vector<Call>& calls, std::map<std::string, api::Result<client::Response>>& out)
{
    if (calls.empty()) return;
    std::vector<std::pair<std::string, std::future<api::Result<client::Response>>>> futures;
    futures.reserve(calls.size() - 1);
    for (std::size_t i = 0; i + 1 < calls.size(); ++i) {
        futures.emplace_back(calls[i].first, std::async(std::launch::async, calls[i].second));
    }
    auto& last = calls.back();
    out.emplace(last.first, last.second());
    for (auto& [id, f] : futures) out.emplace(id, f.get());
}

std::map<std::string, api::Result<client::Response>> PeerCalls::fanOut(
    const api::Smap& smap, client::Method method, const std::string& pathAndQuery, const std::string& body,
    std::optional<std::chrono::milliseconds> ioTimeout) const
{
    const auto io = ioTimeout.value_or(m_timeout);
    std::vector<Call> calls;
    std::map<std::string, api::Result<client::Response>> out;
    for (const auto& [id, node] : smap.tmap) {
        if (node.away()) {
            out.emplace(id, awayError(id, node));
            continue;
        }
        const std::string url = node.publicNet.url + pathAndQuery;
        calls.emplace_back(id, [this, method, url, &body, io]() { return call(method, url, &body, io); });
    }
    runAll(calls, out);
    return out;
}

std::map<std::string, api::Result<client::Response>> PeerCalls::fanOutEach(
    const api::Smap& smap, client::Method method, const std::string& pathAndQuery,
    const std::map<std::string, std::string>& bodies) const
{
    std::vector<Call> calls;
    std::map<std::string, api::Result<client::Response>> out;
    for (const auto& [id, node] : smap.tmap) {
        auto b = bodies.find(id);
        if (b == bodies.end()) continue;
        if (node.away()) {
            out.emplace(id, awayError(id, node));
            continue;
        }
        const std::string url = node.publicNet.url + pathAndQuery;
        const std::string* body = &b->second;  // `bodies` outlives the calls
        // A large body (a shard task) may take a while to parse.
        const auto io = std::max(m_timeout, std::chrono::milliseconds(30000));
        calls.emplace_back(id, [this, method, url, body, io]() { return call(method, url, body, io); });
    }
    runAll(calls, out);
    return out;
}

void PeerCalls::pushMeta(const api::Smap& smap, const std::optional<api::Smap>& newSmap,
                         const std::optional<api::Bmd>& newBmd, const std::optional<api::EtlMd>& newEtl) const
{
    const api::Metasync msg{newSmap, newBmd, newEtl, revokedTokens(), tokenKeys()};
    auto results =
        fanOut(smap, client::Method::Put, std::string(api::path::kMetasync), api::dumpJson(nlohmann::json(msg)));
    for (const auto& [id, r] : results) {
        if (!r) {
            // An away target pulls the maps when it rejoins.
            if (auto n = smap.tmap.find(id); n != smap.tmap.end() && n->second.away()) continue;
            logWarn("metasync to ", id, " failed: ", r.error().message);
        } else if (!r->isSuccess()) {
            logWarn("metasync to ", id, " answered ", r->status);
        }
    }
}

std::optional<api::RevokedTokens> PeerCalls::revokedTokens() const
{
    if (!m_revokedSource) return std::nullopt;
    return m_revokedSource();
}

std::optional<api::TokenKeyRing> PeerCalls::tokenKeys() const
{
    if (!m_tokenKeysSource) return std::nullopt;
    return m_tokenKeysSource();
}

api::Status PeerCalls::pushAuth(const api::Smap& smap, std::string_view change, std::string_view retry) const
{
    const api::Metasync msg{std::nullopt, std::nullopt, std::nullopt, revokedTokens(), tokenKeys()};
    auto results =
        fanOut(smap, client::Method::Put, std::string(api::path::kMetasync), api::dumpJson(nlohmann::json(msg)));
    std::string failed;
    for (const auto& [id, r] : results) {
        if (auto n = smap.tmap.find(id); n != smap.tmap.end() && n->second.away()) continue;
        std::string why;
        if (!r) why = r.error().message;
        else if (!r->isSuccess()) why = api::errorFromResponse(r->status, r->body).message;
        if (why.empty()) continue;
        logWarn("auth metadata to ", id, ": ", why);
        failed += (failed.empty() ? "" : ", ") + id + " (" + why + ")";
    }
    if (failed.empty()) return {};
    return api::Error::unavailable(std::string(change) + " at the proxy but these targets did not take it yet: " +
                                   failed + "; " + std::string(retry));
}

void PeerCalls::pushMetaLast(const api::Smap& smap, const std::string& last, const std::optional<api::Smap>& newSmap,
                             const std::optional<api::Bmd>& newBmd) const
{
    api::Smap first = smap;
    api::Smap then;
    then.version = smap.version;
    if (auto it = first.tmap.find(last); it != first.tmap.end()) {
        then.tmap.insert(*it);
        first.tmap.erase(it);
    }
    pushMeta(first, newSmap, newBmd);
    pushMeta(then, newSmap, newBmd);
}

}  // namespace tessera::daemon::proxy
