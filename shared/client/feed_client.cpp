#include "feed_client.h"

#include "api/feed.h"
#include "api/paths.h"
#include "http_client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket.hpp>
#include <nlohmann/json.hpp>

namespace tessera::client {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

struct FeedClient::Impl {
    asio::io_context ioc;
    websocket::stream<tcp::socket> ws{ioc};
    beast::flat_buffer buffer;
};

FeedClient::FeedClient(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
FeedClient::~FeedClient()
{
    if (m_impl && m_impl->ws.is_open()) {
        beast::error_code ec;
        m_impl->ws.close(websocket::close_code::normal, ec);
    }
}

api::Result<std::unique_ptr<FeedClient>> FeedClient::connect(const std::string& endpoint, const Headers& headers)
{
    auto url = parseUrl(endpoint);
    if (!url) return url.error();
    auto impl = std::make_unique<Impl>();
    beast::error_code ec;
    tcp::resolver resolver(impl->ioc);
    auto results = resolver.resolve(url->host, url->port, ec);
    if (ec) return api::Error::unavailable("cannot resolve " + url->host + ": " + ec.message());
    asio::connect(impl->ws.next_layer(), results, ec);
    if (ec) return api::Error::unavailable("cannot connect to " + endpoint + ": " + ec.message());
    impl->ws.set_option(websocket::stream_base::decorator([headers](websocket::request_type& req) {
        req.set(beast::http::field::user_agent, "tessera-cli");
        for (const auto& [k, v] : headers) req.set(k, v);
    }));
    impl->ws.read_message_max(64 << 20);
    websocket::response_type res;
    impl->ws.handshake(res, url->host + ":" + url->port, std::string(api::path::kFeed), ec);
    if (ec) {
        std::string why = ec.message();
        if (res.result_int() != 0) why = "HTTP " + std::to_string(res.result_int()) + " " + res.body();
        return api::Error::unavailable("feed refused: " + why);
    }
    return std::unique_ptr<FeedClient>(new FeedClient(std::move(impl)));
}

api::Status FeedClient::subscribe(const std::vector<std::string>& topics, int intervalMs)
{
    api::FeedRequest msg;
    if (!topics.empty()) msg.subscribe = topics;
    if (intervalMs > 0) msg.intervalMs = intervalMs;
    if (!msg.subscribe && !msg.intervalMs) return {};
    const nlohmann::json j = msg;
    beast::error_code ec;
    m_impl->ws.text(true);
    m_impl->ws.write(asio::buffer(j.dump()), ec);
    if (ec) return api::Error{api::ErrorKind::IoError, "feed write failed: " + ec.message(), {}};
    return {};
}

api::Result<std::string> FeedClient::next()
{
    beast::error_code ec;
    m_impl->buffer.clear();
    m_impl->ws.read(m_impl->buffer, ec);
    if (ec == websocket::error::closed) {
        const auto& r = m_impl->ws.reason();
        return api::Error::unavailable("feed closed by the proxy (code " + std::to_string(r.code) +
                                       (r.reason.empty() ? std::string() : ": " + std::string(r.reason.c_str())) + ")");
    }
    if (ec) return api::Error{api::ErrorKind::IoError, "feed read failed: " + ec.message(), {}};
    return beast::buffers_to_string(m_impl->buffer.data());
}

}  // namespace tessera::client
