#include "feed_client.h"

#include "api/feed.h"
#include "api/paths.h"
#include "http_client.h"
#include "run_op.h"
#include "tls_setup.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <nlohmann/json.hpp>

#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

namespace tessera::client {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

// Connecting, the TLS handshake and the upgrade, each: a server that takes
// longer is not one to wait for.
constexpr std::chrono::seconds kOpenTimeout{10};

using PlainSocket = websocket::stream<beast::tcp_stream>;
using TlsSocket = websocket::stream<ssl::stream<beast::tcp_stream>>;

struct FeedClient::Impl {
    using Socket = std::variant<PlainSocket, TlsSocket>;

    // wss:// when given a TLS context.
    explicit Impl(std::optional<ssl::context> context)
        : tlsContext(std::move(context)), ws(tlsContext ? Socket(std::in_place_type<TlsSocket>, ioc, *tlsContext)
                                                        : Socket(std::in_place_type<PlainSocket>, ioc))
    {
    }

    template <typename F>
    auto visit(F&& f)
    {
        return std::visit(std::forward<F>(f), ws);
    }

    // In this order: the context outlives the stream whose SSL object it made.
    asio::io_context ioc;
    std::optional<ssl::context> tlsContext;
    Socket ws;
    beast::flat_buffer buffer;
};

FeedClient::FeedClient(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
FeedClient::~FeedClient()
{
    if (!m_impl) return;
    m_impl->visit([](auto& ws) {
        beast::error_code ec;
        // Best effort on the way out: a feed already closed or broken has
        // nothing to say goodbye to.
        if (ws.is_open()) ws.close(websocket::close_code::normal, ec);
    });
}

api::Result<std::unique_ptr<FeedClient>> FeedClient::connect(const std::string& endpoint, const Headers& headers,
                                                             const HttpClient::Options::Tls& tls)
{
    auto url = parseUrl(endpoint);
    if (!url) return url.error();
    std::optional<ssl::context> context;
    if (url->tls) {
        auto made = tls::makeContext(tls);
        if (!made) return made.error();
        context.emplace(std::move(made).value());
    }
    auto impl = std::make_unique<Impl>(std::move(context));
    beast::error_code ec;
    tcp::resolver resolver(impl->ioc);
    auto results = resolver.resolve(url->host, url->port, ec);
    if (ec) return api::Error::unavailable("cannot resolve " + url->host + ": " + ec.message());
    const std::string hostPort = url->host + ":" + url->port;
    const std::string target(api::path::kFeed);
    auto status = impl->visit([&](auto& ws) -> api::Status {
        auto& tcpStream = beast::get_lowest_layer(ws);
        tcpStream.expires_after(kOpenTimeout);
        ec = runOp(impl->ioc, [&](auto&& h) { tcpStream.async_connect(results, h); });
        if (ec == beast::error::timeout) return api::Error::timeout("cannot connect to " + endpoint + ": timed out");
        if (ec) return api::Error::unavailable("cannot connect to " + endpoint + ": " + ec.message());
        if constexpr (std::is_same_v<std::decay_t<decltype(ws)>, TlsSocket>) {
            auto& stream = ws.next_layer();
            if (auto st = tls::preparePeer(stream.native_handle(), url->host, tls); !st) return st;
            tcpStream.expires_after(kOpenTimeout);
            ec = runOp(impl->ioc, [&](auto&& h) { stream.async_handshake(ssl::stream_base::client, h); });
            if (ec) return tls::handshakeError(ec, stream.native_handle(), hostPort, tls);
        }
        ws.set_option(websocket::stream_base::decorator([headers](websocket::request_type& req) {
            req.set(beast::http::field::user_agent, "tessera-cli");
            for (const auto& [k, v] : headers) req.set(k, v);
        }));
        ws.read_message_max(64 << 20);
        websocket::response_type res;
        tcpStream.expires_after(kOpenTimeout);
        ec = runOp(impl->ioc, [&](auto&& h) { ws.async_handshake(res, hostPort, target, h); });
        if (ec == beast::error::timeout) return api::Error::timeout("feed: no answer to the upgrade: timed out");
        if (ec) {
            std::string why = ec.message();
            if (res.result_int() != 0) why = "HTTP " + std::to_string(res.result_int()) + " " + res.body();
            return api::Error::unavailable("feed refused: " + why);
        }
        // Open: the feed's messages come when they come (next() waits).
        tcpStream.expires_never();
        return {};
    });
    if (!status) return status.error();
    return std::unique_ptr<FeedClient>(new FeedClient(std::move(impl)));
}

api::Status FeedClient::subscribe(const std::vector<std::string>& topics, int intervalMs)
{
    api::FeedRequest msg;
    if (!topics.empty()) msg.subscribe = topics;
    if (intervalMs > 0) msg.intervalMs = intervalMs;
    if (!msg.subscribe && !msg.intervalMs) return {};
    const nlohmann::json j = msg;
    return m_impl->visit([&](auto& ws) -> api::Status {
        beast::error_code ec;
        ws.text(true);
        ws.write(asio::buffer(j.dump()), ec);
        if (ec) return api::Error{api::ErrorKind::IoError, "feed write failed: " + ec.message(), {}};
        return {};
    });
}

api::Result<std::string> FeedClient::next()
{
    m_impl->buffer.clear();
    return m_impl->visit([&](auto& ws) -> api::Result<std::string> {
        beast::error_code ec;
        ws.read(m_impl->buffer, ec);
        if (ec == websocket::error::closed) {
            const auto& r = ws.reason();
            return api::Error::unavailable("feed closed by the proxy (code " + std::to_string(r.code) +
                                           (r.reason.empty() ? std::string() : ": " + std::string(r.reason.c_str())) +
                                           ")");
        }
        if (ec) return api::Error{api::ErrorKind::IoError, "feed read failed: " + ec.message(), {}};
        return beast::buffers_to_string(m_impl->buffer.data());
    });
}

}  // namespace tessera::client
