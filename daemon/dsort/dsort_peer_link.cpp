#include "dsort_peer_link.h"

#include "api/headers.h"
#include "api/http_error.h"
#include "api/paths.h"

#include <nlohmann/json.hpp>
#include <thread>

namespace tessera::daemon::dsort {

namespace {
client::HttpClient::Options options(std::chrono::milliseconds timeout)
{
    client::HttpClient::Options o;
    o.connectTimeout = timeout;
    o.ioTimeout = std::max(timeout, std::chrono::milliseconds(60000));
    o.followRedirects = false;
    return o;
}
}  // namespace

PeerLink::PeerLink(std::string jobId, std::chrono::milliseconds timeout, std::string clusterKey)
    : m_jobId(std::move(jobId)), m_clusterKey(std::move(clusterKey)), m_http(options(timeout)), m_health([&] {
          auto o = options(std::min(timeout, std::chrono::milliseconds(2000)));
          o.ioTimeout = std::chrono::milliseconds(2000);
          o.retriesOn503 = 0;
          return o;
      }())
{
}

api::Status PeerLink::post(const DsortPeer& peer, const std::string& what, const std::string& query, std::string body,
                           const std::function<bool()>& stop)
{
    const auto url = peer.url + api::path::internalDsort(m_jobId, what) + (query.empty() ? "" : "?" + query);
    const auto deadline = std::chrono::steady_clock::now() + kStartGrace;
    const auto payload = client::Body::string(std::move(body));
    while (true) {
        auto r = m_http.send(client::Method::Post, url, payload,
                             {{"Content-Type", "application/json"}, {std::string(api::kHdrClusterKey), m_clusterKey}});
        if (!r) return api::Error::unavailable("target " + peer.id + " is unreachable: " + r.error().message);
        if (r->isSuccess()) return {};
        if (r->status != 404 || std::chrono::steady_clock::now() > deadline || (stop && stop())) {
            auto e = api::errorFromResponse(r->status, r->body);
            return api::Error{e.kind, "target " + peer.id + ": " + e.message, {}};
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));  // its start is on the way
    }
}

api::Status PeerLink::pull(const DsortPeer& peer, const std::vector<std::uint64_t>& indices, const client::Sink& sink)
{
    const auto url = peer.url + api::path::internalDsort(m_jobId, "pull");
    api::Status sinkError;  // the sink's own failure (a bad record, a full disk) is not the peer's
    const client::Sink into = [&](const char* p, std::size_t n) {
        auto st = sink(p, n);
        if (!st) sinkError = st;
        return st;
    };
    auto r =
        m_http.send(client::Method::Post, url, client::Body::string(nlohmann::json(indices).dump()),
                    {{"Content-Type", "application/json"}, {std::string(api::kHdrClusterKey), m_clusterKey}}, &into);
    if (!sinkError) return sinkError;
    if (!r) return api::Error::unavailable("cannot pull records from target " + peer.id + ": " + r.error().message);
    if (!r->isSuccess()) {
        auto e = api::errorFromResponse(r->status, r->body);
        return api::Error{e.kind, "cannot pull records from target " + peer.id + ": " + e.message, {}};
    }
    return {};
}

bool PeerLink::healthy(const DsortPeer& peer)
{
    auto r = m_health.send(client::Method::Get, peer.url + std::string(api::path::kHealth));
    return r && r->isSuccess();
}

}  // namespace tessera::daemon::dsort
