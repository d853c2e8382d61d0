#include "peer_calls.h"

#include "api/json_util.h"
#include "common/log.h"

#include <future>
#include <nlohmann/json.hpp>
#include <vector>

namespace tessera::daemon::proxy {

std::map<std::string, api::Result<client::Response>> PeerCalls::fanOut(const api::Smap& smap, client::Method method,
                                                                        const std::string& pathAndQuery,
                                                                        const std::string& body) const
{
    std::vector<std::pair<std::string, std::future<api::Result<client::Response>>>> futures;
    for (const auto& [id, node] : smap.tmap) {
        const std::string url = node.publicNet.url + pathAndQuery;
        futures.emplace_back(id, std::async(std::launch::async, [this, method, url, body]() {
                                 client::HttpClient::Options o;
                                 o.connectTimeout = m_timeout;
                                 o.ioTimeout = m_timeout;
                                 o.followRedirects = false;
                                 o.retriesOn503 = 0;  // never sleep on a worker thread
                                 client::HttpClient http(o);
                                 return http.send(method, url,
                                                  body.empty() ? client::Body::none() : client::Body::string(body),
                                                  {{"Content-Type", "application/json"}});
                             }));
    }
    std::map<std::string, api::Result<client::Response>> out;
    for (auto& [id, f] : futures) out.emplace(id, f.get());
    return out;
}

std::map<std::string, api::Result<client::Response>> PeerCalls::fanOutEach(
    const api::Smap& smap, client::Method method, const std::string& pathAndQuery,
    const std::map<std::string, std::string>& bodies) const
{
    std::vector<std::pair<std::string, std::future<api::Result<client::Response>>>> futures;
    for (const auto& [id, node] : smap.tmap) {
        auto b = bodies.find(id);
        if (b == bodies.end()) continue;
        const std::string url = node.publicNet.url + pathAndQuery;
        const std::string* body = &b->second;  // `bodies` outlives the futures
        futures.emplace_back(id, std::async(std::launch::async, [this, method, url, body]() {
                                 client::HttpClient::Options o;
                                 o.connectTimeout = m_timeout;
                                 // A large body (a shard task) may take a while to parse.
                                 o.ioTimeout = std::max(m_timeout, std::chrono::milliseconds(30000));
                                 o.followRedirects = false;
                                 o.retriesOn503 = 0;
                                 client::HttpClient http(o);
                                 return http.send(method, url, client::Body::string(*body),
                                                  {{"Content-Type", "application/json"}});
                             }));
    }
    std::map<std::string, api::Result<client::Response>> out;
    for (auto& [id, f] : futures) out.emplace(id, f.get());
    return out;
}

void PeerCalls::pushMeta(const api::Smap& smap, const std::optional<api::Smap>& newSmap,
                         const std::optional<api::Bmd>& newBmd) const
{
    nlohmann::json j = nlohmann::json::object();
    if (newSmap) j["smap"] = *newSmap;
    if (newBmd) j["bmd"] = *newBmd;
    auto results = fanOut(smap, client::Method::Put, "/v1/metasync", api::dumpJson(j));
    for (const auto& [id, r] : results) {
        if (!r) {
            logWarn("metasync to ", id, " failed: ", r.error().message);
        } else if (!r->isSuccess()) {
            logWarn("metasync to ", id, " answered ", r->status);
        }
    }
}

}  // namespace tessera::daemon::proxy
