#pragma once
// A dSort target's calls to the other targets of its job (see
// DsortTargetApi): delivery of metadata, assignments and done/fail notes,
// pulls of record bytes, and health checks of the peers it waits for.
//
// Thread safety: one PeerLink per thread (it owns an HttpClient).

#include "dsort_session.h"

#include "client/http_client.h"

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace tessera::daemon::dsort {

class PeerLink {
public:
    // How long a peer may answer 404 (its part of the job not started yet)
    // before a delivery fails.
    static constexpr std::chrono::milliseconds kStartGrace{15000};

    // `clusterKey` goes with every call (with auth on peers require it).
    PeerLink(std::string jobId, std::chrono::milliseconds timeout, std::string clusterKey);

    // POST /v1/internal/dsort/{id}/<what>?<query> with a body; retried while
    // the peer does not know the job yet, or until `stop` says so.
    api::Status post(const DsortPeer& peer, const std::string& what, const std::string& query, std::string body,
                     const std::function<bool()>& stop);
    // The encoded records `indices` of `peer`, back to back, to `sink` as
    // they arrive (a failed pull may have given it part of them).
    api::Status pull(const DsortPeer& peer, const std::vector<std::uint64_t>& indices, const client::Sink& sink);
    // GET /v1/health answered 2xx within the timeout.
    bool healthy(const DsortPeer& peer);

private:
    std::string m_jobId;
    std::string m_clusterKey;
    client::HttpClient m_http;
    client::HttpClient m_health;  // short timeouts: a hung peer counts as down
};

}  // namespace tessera::daemon::dsort
