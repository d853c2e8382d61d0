#include "feed_hub.h"

#include "api/feed.h"
#include "api/json_util.h"
#include "common/log.h"
#include "net/websocket_protocols.h"

#include <boost/beast/core/string.hpp>
#include <chrono>
#include <nlohmann/json.hpp>

namespace tessera::daemon::proxy {

namespace beast = boost::beast;
namespace http = beast::http;
using Steady = std::chrono::steady_clock;

namespace {

constexpr std::pair<const char*, Topic> kTopics[] = {{"metrics", Topic::Metrics},
                                                     {"smap", Topic::Smap},
                                                     {"bmd", Topic::Bmd},
                                                     {"job", Topic::Job},
                                                     {"event", Topic::Event}};

std::int64_t nowMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::vector<std::string> topicNames(unsigned mask)
{
    std::vector<std::string> out;
    for (const auto& [name, t] : kTopics) {
        if (mask & static_cast<unsigned>(t)) out.push_back(name);
    }
    return out;
}

net::OutgoingMessage message(std::string type, const nlohmann::json& data, bool coalesce = false)
{
    net::OutgoingMessage m;
    m.type = std::move(type);
    m.tsMs = nowMs();
    m.data = std::make_shared<const std::string>(api::dumpJson(data));
    m.coalesce = coalesce;
    return m;
}

}  // namespace

std::shared_ptr<FeedHub> FeedHub::create(FeedOptions options, std::shared_ptr<net::ServerContext> ctx,
                                         std::function<nlohmann::json()> snapshot)
{
    return std::shared_ptr<FeedHub>(new FeedHub(std::move(options), std::move(ctx), std::move(snapshot)));
}

FeedHub::FeedHub(FeedOptions options, std::shared_ptr<net::ServerContext> ctx, std::function<nlohmann::json()> snapshot)
    : m_options(std::move(options)), m_ctx(std::move(ctx)), m_snapshot(std::move(snapshot))
{
}

net::WebSocketAccept FeedHub::acceptor()
{
    std::weak_ptr<FeedHub> weak = weak_from_this();
    return [weak](const net::Request& req, net::AnyStream stream,
                  http::request<http::empty_body>&& up) -> std::optional<net::Response> {
        auto self = weak.lock();
        if (!self) return net::Response::error(api::Error::unavailable("the proxy is shutting down"));
        return self->accept(req, stream, std::move(up));
    };
}

bool FeedHub::originAllowed(const net::Request& req) const
{
    const auto origin = req.header("Origin");
    if (origin.empty()) return true;
    if (!m_options.selfOrigin.empty() && beast::iequals(origin, m_options.selfOrigin)) return true;
    for (const auto& o : m_options.allowedOrigins) {
        if (beast::iequals(o, origin)) return true;
    }
    return false;
}

std::optional<net::Response> FeedHub::accept(const net::Request& req, net::AnyStream stream,
                                             http::request<http::empty_body>&& up)
{
    if (!originAllowed(req)) {
        std::lock_guard lock(m_mutex);
        ++m_counters.refused;
        return net::Response::error(
            api::Error{api::ErrorKind::Forbidden,
                       "origin \"" + req.header("Origin") + "\" may not open the feed (see ws_allowed_origins)",
                       {}});
    }
    // The feed speaks tessera.feed.v1; a client that offers subprotocols
    // must offer it, and the answer selects it (never the bearer entry).
    auto offered = net::offeredProtocols(req);
    if (!offered) return net::Response::error(offered.error());
    if (offered->count > 0 && !offered->feed) {
        return net::Response::error(api::Error::badRequest("Sec-WebSocket-Protocol does not offer \"" +
                                                           std::string(net::kFeedProtocol) +
                                                           "\", the only protocol of this feed"));
    }
    {
        std::lock_guard lock(m_mutex);
        if (m_sessions.size() + m_pending >= m_options.maxSessions) {
            ++m_counters.refused;
            auto r = net::Response::error(api::Error::unavailable(
                "too many feed sessions (" + std::to_string(m_options.maxSessions) + "); retry later"));
            r.setHeader("Retry-After", "5");
            return r;
        }
        ++m_pending;
    }
    auto session = std::make_shared<net::WebSocketSession>(stream, m_ctx, m_options.session, weak_from_this());
    session->start(std::move(up), offered->feed ? std::string(net::kFeedProtocol) : std::string());
    return std::nullopt;
}

void FeedHub::onOpen(const std::shared_ptr<net::WebSocketSession>& s)
{
    // Built outside the lock (it takes other locks), sent inside it: a
    // broadcast that sees this session is sent after the snapshot.
    auto snapshot = message(api::feed_type::kSnapshot, m_snapshot());
    std::lock_guard lock(m_mutex);
    if (m_pending > 0) --m_pending;
    ++m_counters.accepted;
    Entry e;
    e.session = s;
    e.interval = m_options.defaultInterval;
    m_sessions.emplace(s->id(), std::move(e));
    s->send(std::move(snapshot));
    logInfo("feed session ", s->id(), " opened from ", s->peer());
}

void FeedHub::onClosed(std::uint64_t sessionId, const std::string& reason)
{
    std::lock_guard lock(m_mutex);
    if (m_sessions.erase(sessionId) == 0 && m_pending > 0) --m_pending;  // the handshake never completed
    if (reason.rfind("client too slow", 0) == 0) ++m_counters.closedSlow;
}

void FeedHub::sendError(const std::shared_ptr<net::WebSocketSession>& s, const std::string& text)
{
    s->send(message(api::feed_type::kError, api::FeedError{text}));
}

void FeedHub::onText(const std::shared_ptr<net::WebSocketSession>& s, const std::string& text)
{
    auto req = api::parseMessage<api::FeedRequest>(text, "feed request");
    if (!req) {
        sendError(
            s,
            req.error().message +
                " (expected a JSON object such as {\"subscribe\":[\"metrics\",\"event\"]} or {\"interval_ms\":1000})");
        return;
    }
    std::optional<unsigned> topics;
    std::optional<std::chrono::milliseconds> interval;
    if (req->subscribe) {
        unsigned mask = 0;
        for (const auto& t : *req->subscribe) {
            bool known = false;
            for (const auto& [name, topic] : kTopics) {
                if (t == name) {
                    mask |= static_cast<unsigned>(topic);
                    known = true;
                }
            }
            if (!known) {
                sendError(s, "unknown topic " + api::dumpJson(t) + " (topics: metrics, smap, bmd, job, event)");
                return;
            }
        }
        topics = mask;
    }
    if (req->intervalMs) {
        const auto lo = m_options.minInterval.count();
        const auto hi = m_options.maxInterval.count();
        if (*req->intervalMs < lo || *req->intervalMs > hi) {
            sendError(s, "\"interval_ms\" must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
            return;
        }
        interval = std::chrono::milliseconds(*req->intervalMs);
    }
    if (!topics && !interval) {
        sendError(s, "nothing to change: send subscribe and/or interval_ms");
        return;
    }
    api::Subscribed ack;
    {
        std::lock_guard lock(m_mutex);
        auto it = m_sessions.find(s->id());
        if (it == m_sessions.end()) return;
        if (topics) it->second.topics = *topics;
        if (interval) it->second.interval = *interval;
        ack = {topicNames(it->second.topics), static_cast<int>(it->second.interval.count())};
    }
    s->send(message(api::feed_type::kSubscribed, ack));
}

void FeedHub::publish(Topic topic, const std::string& type, const nlohmann::json& data)
{
    std::vector<std::shared_ptr<net::WebSocketSession>> targets;
    {
        std::lock_guard lock(m_mutex);
        for (const auto& [id, e] : m_sessions) {
            if (!(e.topics & static_cast<unsigned>(topic))) continue;
            if (auto s = e.session.lock()) targets.push_back(std::move(s));
        }
    }
    if (targets.empty()) return;
    const auto msg = message(type, data);
    for (const auto& s : targets) s->send(msg);
}

void FeedHub::publishMetrics(const nlohmann::json& data)
{
    std::vector<std::shared_ptr<net::WebSocketSession>> targets;
    const auto now = Steady::now();
    {
        std::lock_guard lock(m_mutex);
        for (auto& [id, e] : m_sessions) {
            if (!(e.topics & static_cast<unsigned>(Topic::Metrics))) continue;
            // A tenth of slack: ticks are not exactly one interval apart.
            if (e.lastMetrics && now - *e.lastMetrics < e.interval * 9 / 10) continue;
            if (auto s = e.session.lock()) {
                e.lastMetrics = now;
                targets.push_back(std::move(s));
            }
        }
    }
    if (targets.empty()) return;
    const auto msg = message(api::feed_type::kMetrics, data, true);
    for (const auto& s : targets) s->send(msg);
}

std::chrono::milliseconds FeedHub::wantedInterval() const
{
    std::lock_guard lock(m_mutex);
    auto best = m_options.defaultInterval;
    for (const auto& [id, e] : m_sessions) {
        if ((e.topics & static_cast<unsigned>(Topic::Metrics)) && e.interval < best) best = e.interval;
    }
    return best;
}

FeedCounters FeedHub::counters() const
{
    std::lock_guard lock(m_mutex);
    FeedCounters c = m_counters;
    c.sessions = m_sessions.size();
    return c;
}

}  // namespace tessera::daemon::proxy
