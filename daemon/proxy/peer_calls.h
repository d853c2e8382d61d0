#pragma once
// The proxy's calls to targets: metadata pushes and fan-out requests, run in
// parallel with the peer timeout. Called from worker threads only.

#include "api/bmd.h"
#include "api/result.h"
#include "api/smap.h"
#include "client/http_client.h"

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>

namespace tessera::daemon::proxy {

class PeerCalls {
public:
    explicit PeerCalls(std::chrono::milliseconds timeout) : m_timeout(timeout) {}

    // Sends `method url-path` to every target of `smap` in parallel; the
    // result per target id is the response or the transport error.
    std::map<std::string, api::Result<client::Response>> fanOut(const api::Smap& smap, client::Method method,
                                                                 const std::string& pathAndQuery,
                                                                 const std::string& body = {}) const;

    // The same, with its own body per target: the targets of `smap` that
    // have one in `bodies` (keyed by target id) are called, the others not.
    std::map<std::string, api::Result<client::Response>> fanOutEach(const api::Smap& smap, client::Method method,
                                                                     const std::string& pathAndQuery,
                                                                     const std::map<std::string, std::string>& bodies) const;

    // PUT /v1/metasync to every target; failures are logged (the target
    // catches up through its keepalive).
    void pushMeta(const api::Smap& smap, const std::optional<api::Smap>& newSmap,
                  const std::optional<api::Bmd>& newBmd) const;

private:
    std::chrono::milliseconds m_timeout;
};

}  // namespace tessera::daemon::proxy
