#include "websocket_session.h"

#include "api/feed.h"
#include "common/log.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/buffers_to_string.hpp>

namespace tessera::daemon::net {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

namespace {
std::atomic<std::uint64_t> g_nextId{1};
constexpr std::size_t kMaxCloseReason = 123;  // RFC 6455: the reason fits a 125-byte control frame
}  // namespace

namespace {
template <class Ws>
Ws takeOver(AnyStream stream)
{
    return std::visit(
        [](auto* s) -> Ws {
            using Next = std::decay_t<decltype(*s)>;
            return Ws(std::in_place_type<websocket::stream<Next>>, std::move(*s));
        },
        stream);
}
}  // namespace

WebSocketSession::WebSocketSession(AnyStream stream, std::shared_ptr<ServerContext> ctx, Options options,
                                   std::weak_ptr<Listener> listener)
    : m_ws(takeOver<Ws>(stream)), m_ctx(std::move(ctx)), m_options(options), m_listener(std::move(listener)),
      m_id(g_nextId.fetch_add(1)), m_writeTimer(lowest().get_executor())
{
    m_ctx->connections.fetch_add(1);
    boost::system::error_code ec;
    const auto ep = lowest().socket().remote_endpoint(ec);
    if (!ec) m_peer = ep.address().to_string() + ":" + std::to_string(ep.port());
    if (m_options.sendBufferBytes > 0) {
        lowest().socket().set_option(asio::socket_base::send_buffer_size(m_options.sendBufferBytes), ec);
    }
}

WebSocketSession::~WebSocketSession() { m_ctx->connections.fetch_sub(1); }

void WebSocketSession::start(http::request<http::empty_body>&& req, std::string subprotocol)
{
    lowest().expires_never();  // the websocket timeouts below take over
    auto timeouts = websocket::stream_base::timeout::suggested(beast::role_type::server);
    timeouts.handshake_timeout = std::chrono::seconds(10);
    // A peer that neither sends nor answers pings for this long is gone.
    timeouts.idle_timeout = std::chrono::seconds(60);
    timeouts.keep_alive_pings = true;
    auto r = std::make_shared<http::request<http::empty_body>>(std::move(req));
    withWs([&](auto& ws) {
        ws.set_option(timeouts);
        ws.set_option(websocket::stream_base::decorator([subprotocol](websocket::response_type& res) {
            res.set(http::field::server, "tessera");
            if (!subprotocol.empty()) res.set(http::field::sec_websocket_protocol, subprotocol);
        }));
        ws.read_message_max(m_options.maxIncomingMessage);
        ws.auto_fragment(false);
        ws.async_accept(*r, [self = shared_from_this(), r](beast::error_code ec) { self->onAccept(ec); });
    });
}

void WebSocketSession::onAccept(beast::error_code ec)
{
    if (ec) {
        finish("handshake failed: " + ec.message());
        return;
    }
    m_open = true;
    m_windowStart = std::chrono::steady_clock::now();
    if (auto l = m_listener.lock()) l->onOpen(shared_from_this());
    doRead();
}

void WebSocketSession::doRead()
{
    withWs([&](auto& ws) {
        ws.async_read(m_readBuffer,
                      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->onRead(ec); });
    });
}

void WebSocketSession::onRead(beast::error_code ec)
{
    if (ec) {
        if (ec == websocket::error::closed) {
            finish("closed by the client");
        } else if (ec == websocket::error::message_too_big) {
            finish("client message larger than " + std::to_string(m_options.maxIncomingMessage) + " bytes");
        } else {
            finish(m_closing ? m_closeReason.reason.c_str() : ec.message());
        }
        return;
    }
    const auto now = std::chrono::steady_clock::now();
    if (now - m_windowStart >= std::chrono::seconds(1)) {
        m_windowStart = now;
        m_windowCount = 0;
    }
    if (++m_windowCount > m_options.maxIncomingPerSecond) {
        m_readBuffer.consume(m_readBuffer.size());
        beginClose(websocket::close_code::policy_error,
                   "more than " + std::to_string(m_options.maxIncomingPerSecond) + " client messages per second");
        doRead();  // the close handshake completes through the read loop
        return;
    }
    // A binary message reaches the listener as an empty text, which it
    // answers with an error like any other message it cannot parse.
    const std::string text =
        withWs([](auto& ws) { return ws.got_text(); }) ? beast::buffers_to_string(m_readBuffer.data()) : std::string();
    m_readBuffer.consume(m_readBuffer.size());
    if (auto l = m_listener.lock(); l && !m_closing) l->onText(shared_from_this(), text);
    doRead();
}

void WebSocketSession::send(OutgoingMessage msg)
{
    asio::dispatch(lowest().get_executor(),
                   [self = shared_from_this(), msg = std::move(msg)]() mutable { self->enqueue(std::move(msg)); });
}

void WebSocketSession::close(websocket::close_code code, std::string reason)
{
    asio::dispatch(lowest().get_executor(), [self = shared_from_this(), code, reason = std::move(reason)]() mutable {
        self->beginClose(code, std::move(reason));
    });
}

void WebSocketSession::enqueue(OutgoingMessage msg)
{
    if (!m_open || m_closing || m_finished) return;
    if (msg.coalesce) {
        for (auto& q : m_queue) {
            if (q.coalesce && q.type == msg.type) {
                q = std::move(msg);  // the newer one replaces it in place
                return;
            }
        }
    }
    m_queue.push_back(std::move(msg));
    if (m_queue.size() > m_options.maxQueue) {
        m_queue.clear();
        beginClose(websocket::close_code::policy_error,
                   "client too slow: more than " + std::to_string(m_options.maxQueue) + " messages unsent");
        return;
    }
    if (!m_writing) writeNext();
}

void WebSocketSession::writeNext()
{
    if (m_closing) {
        m_writing = true;
        withWs([&](auto& ws) {
            ws.async_close(m_closeReason, [self = shared_from_this()](beast::error_code) {
                self->m_writing = false;
                // The read loop sees the peer's close frame (or the timeout) and finishes.
            });
        });
        return;
    }
    if (m_queue.empty()) {
        m_writing = false;
        return;
    }
    OutgoingMessage msg = std::move(m_queue.front());
    m_queue.pop_front();
    m_inflight.clear();
    m_inflight.reserve(64 + msg.type.size() + (msg.data ? msg.data->size() : 4));
    api::appendFeedEnvelope(m_inflight, msg.type, static_cast<std::int64_t>(++m_seq), msg.tsMs,
                            msg.data ? std::string_view(*msg.data) : std::string_view());
    m_writing = true;
    m_writeTimer.expires_after(m_options.writeTimeout);
    m_writeTimer.async_wait([self = shared_from_this()](boost::system::error_code ec) {
        if (ec) return;  // cancelled: the write finished
        // The peer stopped reading and the kernel buffers are full: a close
        // frame could not get through either, so drop the connection.
        self->m_closing = true;
        self->m_closeReason =
            websocket::close_reason(websocket::close_code::policy_error, "client too slow: a write made no progress");
        boost::system::error_code cec;
        self->lowest().socket().close(cec);
    });
    withWs([&](auto& ws) {
        ws.text(true);
        ws.async_write(asio::buffer(m_inflight),
                       [self = shared_from_this()](beast::error_code ec, std::size_t) { self->onWrite(ec); });
    });
}

void WebSocketSession::onWrite(beast::error_code ec)
{
    m_writeTimer.cancel();
    if (ec) {
        m_writing = false;
        finish(m_closing ? m_closeReason.reason.c_str() : ("write failed: " + ec.message()));
        return;
    }
    writeNext();
}

void WebSocketSession::beginClose(websocket::close_code code, std::string reason)
{
    if (m_closing || m_finished) return;
    if (reason.size() > kMaxCloseReason) reason.resize(kMaxCloseReason);
    m_closing = true;
    m_closeReason = websocket::close_reason(code, reason);
    m_queue.clear();
    if (!m_open) {
        finish(reason);
        return;
    }
    if (!m_writing) writeNext();
}

void WebSocketSession::finish(const std::string& reason)
{
    if (m_finished) return;
    m_finished = true;
    m_open = false;
    m_queue.clear();
    m_writeTimer.cancel();
    boost::system::error_code ec;
    lowest().socket().close(ec);
    logInfo("feed session ", m_id, " (", m_peer, ") ended: ", reason);
    if (auto l = m_listener.lock()) l->onClosed(m_id, reason);
}

}  // namespace tessera::daemon::net
