#pragma once
// The live feed at `GET /v1/ws`: accepts WebSocket sessions, answers their
// control messages (`{"subscribe":[...]}`, `{"interval_ms":N}`), and fans
// out what the proxy publishes (snapshot on connect, metrics, smap, bmd,
// job, event) to the sessions subscribed to it. docs/api.md has the
// protocol.
//
// Thread safety: every public member may be called from any thread.
// Broadcasts copy the session pointers under the lock and send after
// releasing it; a send never blocks (see WebSocketSession).

#include "net/router.h"
#include "net/websocket_session.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tessera::daemon::proxy {

enum class Topic : unsigned { Metrics = 1, Smap = 2, Bmd = 4, Job = 8, Event = 16 };
inline constexpr unsigned kAllTopics = 31;

struct FeedOptions {
    std::chrono::milliseconds defaultInterval{1000};  // metrics cadence unless a session asks otherwise
    std::chrono::milliseconds minInterval{250};
    std::chrono::milliseconds maxInterval{10000};
    std::size_t maxSessions = 64;
    // Browser pages allowed to connect, as sent in Origin ("http://host:port").
    // Clients that send no Origin (the console, the CLI, scripts) and pages
    // from the proxy's own advertised URL (selfOrigin) are always allowed.
    // The Host header is never trusted for this: a DNS-rebinding page sends
    // a Host that matches its own Origin.
    std::vector<std::string> allowedOrigins;
    std::string selfOrigin;  // e.g. "http://127.0.0.1:8080"
    net::WebSocketSession::Options session;
};

struct FeedCounters {
    std::uint64_t sessions = 0;    // open now
    std::uint64_t accepted = 0;    // since start
    std::uint64_t refused = 0;     // bad origin, too many sessions
    std::uint64_t closedSlow = 0;  // closed because the client fell behind
};

class FeedHub : public net::WebSocketSession::Listener, public std::enable_shared_from_this<FeedHub> {
public:
    // `snapshot` builds the data of the first message of every session; it
    // runs on a connection strand and must not block.
    static std::shared_ptr<FeedHub> create(FeedOptions options, std::shared_ptr<net::ServerContext> ctx,
                                           std::function<nlohmann::json()> snapshot);

    // The handler of the `/v1/ws` route.
    net::WebSocketAccept acceptor();

    // To every session subscribed to `topic`.
    void publish(Topic topic, const std::string& type, const nlohmann::json& data);
    // To every session subscribed to metrics whose interval has elapsed since
    // its last metrics message. Unsent metrics are replaced by newer ones.
    void publishMetrics(const nlohmann::json& data);

    // The fastest metrics interval any session asked for (or the default):
    // the collector's cadence.
    std::chrono::milliseconds wantedInterval() const;
    FeedCounters counters() const;

    void onOpen(const std::shared_ptr<net::WebSocketSession>& s) override;
    void onText(const std::shared_ptr<net::WebSocketSession>& s, const std::string& text) override;
    void onClosed(std::uint64_t sessionId, const std::string& reason) override;

private:
    FeedHub(FeedOptions options, std::shared_ptr<net::ServerContext> ctx, std::function<nlohmann::json()> snapshot);
    std::optional<net::Response> accept(const net::Request& req, net::AnyStream stream,
                                        boost::beast::http::request<boost::beast::http::empty_body>&& up);
    bool originAllowed(const net::Request& req) const;
    void sendError(const std::shared_ptr<net::WebSocketSession>& s, const std::string& message);

    struct Entry {
        std::weak_ptr<net::WebSocketSession> session;
        unsigned topics = kAllTopics;
        std::chrono::milliseconds interval;
        std::optional<std::chrono::steady_clock::time_point> lastMetrics;
    };

    FeedOptions m_options;
    std::shared_ptr<net::ServerContext> m_ctx;
    std::function<nlohmann::json()> m_snapshot;
    mutable std::mutex m_mutex;
    std::map<std::uint64_t, Entry> m_sessions;
    std::size_t m_pending = 0;  // accepted upgrades whose handshake is under way
    FeedCounters m_counters;
};

}  // namespace tessera::daemon::proxy
