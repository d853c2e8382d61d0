#pragma once
// The proxy's calls to targets: metadata pushes and fan-out requests, run in
// parallel with the peer timeout. Called from worker threads only.

#include "api/auth_msg.h"
#include "api/bmd.h"
#include "api/etl_msg.h"
#include "api/result.h"
#include "api/smap.h"
#include "client/http_client.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tessera::daemon::proxy {

class PeerCalls {
public:
    // `clusterKey` goes with every call (targets refuse a metadata push
    // without it); empty: none is sent.
    explicit PeerCalls(std::chrono::milliseconds timeout, std::string clusterKey = {})
        : m_timeout(timeout), m_clusterKey(std::move(clusterKey))
    {
    }

    // Sends `method url-path` to every target of `smap` in parallel; the
    // result per target id is the response or the transport error. Targets
    // marked away are not called: their result is an Unavailable error
    // naming them, at once (a call would wait out the timeout).
    // `ioTimeout`: the wait for each answer once connected (default: the
    // peer timeout); a listing's page may take a target longer.
    std::map<std::string, api::Result<client::Response>> fanOut(
        const api::Smap& smap, client::Method method, const std::string& pathAndQuery, const std::string& body = {},
        std::optional<std::chrono::milliseconds> ioTimeout = std::nullopt) const;

    // The same, with its own body per target: the targets of `smap` that
    // have one in `bodies` (keyed by target id) are called, the others not.
    std::map<std::string, api::Result<client::Response>> fanOutEach(
        const api::Smap& smap, client::Method method, const std::string& pathAndQuery,
        const std::map<std::string, std::string>& bodies) const;

    // With auth on: every metadata push carries the list and the ring these
    // return (the token service's revoked tokens, the token-key ring). Set
    // before the node serves requests.
    void setRevokedSource(std::function<api::RevokedTokens()> f) { m_revokedSource = std::move(f); }
    void setTokenKeysSource(std::function<api::TokenKeyRing()> f) { m_tokenKeysSource = std::move(f); }
    // What to send (nullopt with auth off).
    std::optional<api::RevokedTokens> revokedTokens() const;
    std::optional<api::TokenKeyRing> tokenKeys() const;

    // PUT /v1/metasync to every target; failures are logged (the target
    // catches up through its keepalive, and on the revoked list with the
    // next push).
    void pushMeta(const api::Smap& smap, const std::optional<api::Smap>& newSmap, const std::optional<api::Bmd>& newBmd,
                  const std::optional<api::EtlMd>& newEtl = std::nullopt) const;
    // A metasync with the revoked-token list and the token-key ring alone,
    // after a revocation or a key change, waited for. Unavailable naming the
    // present targets that did not take it, after `change` ("the token is
    // revoked") and before `retry` (what the caller may repeat); away
    // targets get it with the push that marks them back.
    api::Status pushAuth(const api::Smap& smap, std::string_view change, std::string_view retry) const;
    // The same as pushMeta, to target `last` only after every other target
    // answered. A target that leaves placement (decommissioning) redirects
    // reads of what it holds to their new owners as soon as it has the new
    // map; the owners must have it by then, or they answer 503 "map is newer".
    void pushMetaLast(const api::Smap& smap, const std::string& last, const std::optional<api::Smap>& newSmap,
                      const std::optional<api::Bmd>& newBmd) const;

private:
    api::Result<client::Response> call(client::Method method, const std::string& url, const std::string* body,
                                       std::chrono::milliseconds ioTimeout) const;
    // Runs `calls` (one per target) in parallel: all but the last on their
    // own threads, the last on the caller's.
    using Call = std::pair<std::string, std::function<api::Result<client::Response>()>>;
    static void runAll(std::vector<Call>& calls, std::map<std::string, api::Result<client::Response>>& out);

    // Clients idle between GET and HEAD calls, each with the connections
    // it keeps alive (a listing's pages call every target a hundred times a
    // second: a new connection per call cost a connect and an accept each
    // time). A read takes one made with its I/O timeout; at most
    // kMaxIdleClients are kept, and one whose call failed in transport is
    // dropped. A connection a target closed meanwhile is retried once by
    // the client, on a fresh one, when no answer had started; writes go on
    // a fresh connection each, as before, so that retry never repeats one.
    static constexpr std::size_t kMaxIdleClients = 32;
    mutable std::mutex m_idleMutex;
    mutable std::vector<std::unique_ptr<client::HttpClient>> m_idle;

    std::chrono::milliseconds m_timeout;
    std::string m_clusterKey;
    std::function<api::RevokedTokens()> m_revokedSource;
    std::function<api::TokenKeyRing()> m_tokenKeysSource;
};

}  // namespace tessera::daemon::proxy
