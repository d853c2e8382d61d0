#pragma once
// What TargetApi's files share (target_api.cpp, target_api_peers.cpp): the
// query parameters and headers of calls between targets, and the options of
// a call to a peer.

#include "client/http_client.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace tessera::daemon::target::detail {

// Query parameter of a request sent to the target that holds an object whose
// name is now owned by another target (no rebalance yet).
inline constexpr std::string_view kQpLocal = "local";
// Sent back to the owner by the target a search named, whose copy had just
// moved: the owner does not search again.
inline constexpr std::string_view kQpRelocated = "relocated";

// The answer to a peer's delivered copy (rebalance) that is not needed: the
// copy here, or the deletion, is newer. The sender may drop its copy.
inline constexpr std::string_view kHdrTransfer = "tessera-transfer";

inline bool parseInt64(const std::string& s, std::int64_t& out)
{
    if (s.empty() || s.size() > 19) return false;
    std::int64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        v = v * 10 + (c - '0');
    }
    out = v;
    return true;
}

// A call to a peer: no redirects followed, no retry (handlers never sleep).
inline client::HttpClient::Options peerOptions(std::chrono::milliseconds timeout,
                                               std::chrono::milliseconds ioTimeout = std::chrono::milliseconds(0))
{
    client::HttpClient::Options o;
    o.connectTimeout = timeout;
    o.ioTimeout = ioTimeout.count() > 0 ? ioTimeout : timeout;
    o.followRedirects = false;
    o.retriesOn503 = 0;
    return o;
}

// Runs what a handler continued on the workers, when already on one.
inline net::Response runContinuations(net::Response r)
{
    while (r.continuation) {
        auto next = std::move(r.continuation);
        r = next();
    }
    return r;
}

}  // namespace tessera::daemon::target::detail
