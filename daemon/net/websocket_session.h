#pragma once
// One WebSocket connection of the live feed: the I/O thread the HTTP
// connection had, a single bounded write queue, one read loop for the small
// control messages a client may send.
//
// A slow client never slows anyone else: messages marked `coalesce` replace
// an unsent one of the same type (the newest metrics win), other messages
// are queued up to a bound after which the session is closed with a reason,
// and a write that makes no progress for `writeTimeout` drops the
// connection. The protocol (topics, snapshot) is the Listener's business.
//
// Thread safety: send() and close() may be called from any thread; every
// other member runs on the connection's I/O thread.

#include "http_server.h"

#include "stream.h"
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <boost/beast/websocket/stream.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <variant>

namespace tessera::daemon::net {

struct OutgoingMessage {
    std::string type;                         // "snapshot", "metrics", ...
    std::int64_t tsMs = 0;                    // wall clock, Unix epoch ms
    std::shared_ptr<const std::string> data;  // JSON text of the "data" member, shared by all sessions
    bool coalesce = false;                    // may be replaced by a newer unsent message of the same type
};

class WebSocketSession : public std::enable_shared_from_this<WebSocketSession> {
public:
    struct Options {
        std::size_t maxQueue = 256;                     // unsent messages before the client counts as too slow
        std::chrono::milliseconds writeTimeout{10000};  // one message write making no progress
        std::size_t maxIncomingMessage = 4096;          // bytes; larger frames close the session (1009)
        unsigned maxIncomingPerSecond = 20;             // more closes the session (1008)
        int sendBufferBytes = 0;                        // SO_SNDBUF; 0: the kernel's default
    };

    class Listener {
    public:
        virtual ~Listener() = default;
        // The handshake completed; the session may be sent to.
        virtual void onOpen(const std::shared_ptr<WebSocketSession>& s) = 0;
        virtual void onText(const std::shared_ptr<WebSocketSession>& s, const std::string& text) = 0;
        // Called once, on the connection's I/O thread, when the session ends for any reason.
        virtual void onClosed(std::uint64_t sessionId, const std::string& reason) = 0;
    };

    // Takes over `stream` (moved from), plain or TLS.
    WebSocketSession(AnyStream stream, std::shared_ptr<ServerContext> ctx, Options options,
                     std::weak_ptr<Listener> listener);
    ~WebSocketSession();

    // Completes the upgrade handshake for `req`, selecting `subprotocol`
    // (Sec-WebSocket-Protocol of the answer) unless it is empty.
    void start(boost::beast::http::request<boost::beast::http::empty_body>&& req, std::string subprotocol = {});
    void send(OutgoingMessage msg);
    // Sends a close frame with `reason` (after the message being written, if
    // any) and ends the session.
    void close(boost::beast::websocket::close_code code, std::string reason);

    std::uint64_t id() const { return m_id; }
    std::string peer() const { return m_peer; }

private:
    void onAccept(boost::beast::error_code ec);
    void doRead();
    void onRead(boost::beast::error_code ec);
    void enqueue(OutgoingMessage msg);
    void writeNext();
    void onWrite(boost::beast::error_code ec);
    void beginClose(boost::beast::websocket::close_code code, std::string reason);
    void finish(const std::string& reason);

    // Runs f on the WebSocket stream, whichever it is.
    template <class F>
    decltype(auto) withWs(F&& f)
    {
        return std::visit(std::forward<F>(f), m_ws);
    }
    // The TCP layer under either kind.
    Stream& lowest()
    {
        return std::visit([](auto& ws) -> Stream& { return boost::beast::get_lowest_layer(ws); }, m_ws);
    }

    using Ws = std::variant<boost::beast::websocket::stream<Stream>, boost::beast::websocket::stream<SslStream>>;
    Ws m_ws;
    std::shared_ptr<ServerContext> m_ctx;
    Options m_options;
    std::weak_ptr<Listener> m_listener;
    std::uint64_t m_id;
    std::string m_peer;
    boost::beast::flat_buffer m_readBuffer;
    std::deque<OutgoingMessage> m_queue;  // not yet being written
    std::string m_inflight;               // the frame being written
    bool m_writing = false;
    bool m_open = false;
    bool m_closing = false;
    bool m_finished = false;
    boost::beast::websocket::close_reason m_closeReason;
    std::uint64_t m_seq = 0;
    boost::asio::steady_timer m_writeTimer;
    std::chrono::steady_clock::time_point m_windowStart;
    unsigned m_windowCount = 0;
};

}  // namespace tessera::daemon::net
