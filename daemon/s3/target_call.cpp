#include "target_call.h"

#include "client/tls_setup.h"

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <limits>
#include <sys/socket.h>
#include <sys/time.h>

namespace tessera::daemon::s3 {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

namespace {
// The client context of this process, made once from the CA the node trusts
// (tls.ca_file: HttpClient's process default), as the node's other clients.
api::Result<ssl::context*> clientContext()
{
    static auto ctx = client::tls::makeContext(client::HttpClient::Options::Tls::processDefault());
    if (!ctx) return ctx.error();
    return &ctx.value();
}
}  // namespace

struct TargetCall::Impl {
    asio::io_context ioc{1};
    tcp::socket socket{ioc};
    std::unique_ptr<ssl::stream<tcp::socket&>> tls;  // set: https://
    beast::flat_buffer buffer;
    std::optional<http::response_parser<http::buffer_body>> parser;
    std::string where;  // for messages

    // Runs `f` on the connection's stream, TLS or plain.
    template <typename F>
    auto onStream(F&& f)
    {
        if (tls) return f(*tls);
        return f(socket);
    }
};

TargetCall::TargetCall() : m_impl(std::make_unique<Impl>()) {}
TargetCall::~TargetCall()
{
    boost::system::error_code ec;
    // No TLS close_notify: every call ends with "Connection: close", and one
    // cut short (a refused PUT) must look cut short to the target.
    m_impl->tls.reset();
    m_impl->socket.close(ec);
}

api::Result<std::unique_ptr<TargetCall>> TargetCall::start(std::string_view baseUrl, std::string_view method,
                                                           std::string_view pathAndQuery,
                                                           const client::Headers& headers,
                                                           std::optional<std::uint64_t> contentLength,
                                                           std::chrono::milliseconds timeout)
{
    auto url = client::parseUrl(baseUrl);
    if (!url) return url.error();
    std::unique_ptr<TargetCall> call(new TargetCall());
    auto& impl = *call->m_impl;
    impl.where = std::string(baseUrl);
    boost::system::error_code ec;
    tcp::resolver resolver(impl.ioc);
    auto endpoints = resolver.resolve(url->host, url->port, ec);
    if (ec) return api::Error{api::ErrorKind::Unavailable, "cannot resolve target " + impl.where, ec.message()};
    asio::connect(impl.socket, endpoints, ec);
    if (ec) return api::Error{api::ErrorKind::Unavailable, "cannot connect to target " + impl.where, ec.message()};
    // Blocking reads and writes end after `timeout` of silence.
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
    ::setsockopt(impl.socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(impl.socket.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    impl.socket.set_option(tcp::no_delay(true), ec);
    if (url->tls) {
        auto ctx = clientContext();
        if (!ctx) return ctx.error();
        const auto tlsOptions = client::HttpClient::Options::Tls::processDefault();
        impl.tls = std::make_unique<ssl::stream<tcp::socket&>>(impl.socket, **ctx);
        if (auto st = client::tls::preparePeer(impl.tls->native_handle(), url->host, tlsOptions); !st) {
            return st.error();
        }
        impl.tls->handshake(ssl::stream_base::client, ec);
        if (ec)
            return client::tls::handshakeError(ec, impl.tls->native_handle(), url->host + ":" + url->port, tlsOptions);
    }

    std::string head;
    head.reserve(512);
    head.append(method).append(" ").append(pathAndQuery).append(" HTTP/1.1\r\nHost: ");
    head.append(url->host).append(":").append(url->port).append("\r\n");
    for (const auto& [k, v] : headers) {
        if (k.find_first_of("\r\n") != std::string::npos || v.find_first_of("\r\n") != std::string::npos) {
            return api::Error::badRequest("CR or LF in a header");
        }
        head.append(k).append(": ").append(v).append("\r\n");
    }
    if (contentLength) head.append("Content-Length: ").append(std::to_string(*contentLength)).append("\r\n");
    head.append("Connection: close\r\n\r\n");
    impl.onStream([&](auto& stream) { return asio::write(stream, asio::buffer(head), ec); });
    if (ec) return api::Error{api::ErrorKind::Unavailable, "cannot send to target " + impl.where, ec.message()};
    return call;
}

api::Status TargetCall::write(const char* data, std::size_t size)
{
    boost::system::error_code ec;
    m_impl->onStream([&](auto& stream) { return asio::write(stream, asio::buffer(data, size), ec); });
    if (ec)
        return api::Error{api::ErrorKind::Unavailable, "target " + m_impl->where + " stopped taking the body",
                          ec.message()};
    return {};
}

api::Result<TargetHead> TargetCall::readHead(bool headRequest)
{
    auto& impl = *m_impl;
    impl.parser.emplace();
    // Not boost::none: Boost 1.74 compares the length with the optional, and
    // any length is "greater" than none (body limit exceeded).
    impl.parser->body_limit(std::numeric_limits<std::uint64_t>::max());
    if (headRequest) impl.parser->skip(true);
    boost::system::error_code ec;
    impl.onStream([&](auto& stream) { return http::read_header(stream, impl.buffer, *impl.parser, ec); });
    if (ec) return api::Error{api::ErrorKind::Unavailable, "no answer from target " + impl.where, ec.message()};
    TargetHead out;
    const auto& msg = impl.parser->get();
    out.status = static_cast<int>(msg.result_int());
    for (const auto& f : msg) {
        std::string name(f.name_string());
        for (auto& c : name) {
            if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        }
        out.headers[name] = std::string(f.value());
    }
    if (auto n = impl.parser->content_length()) out.contentLength = *n;
    return out;
}

api::Result<std::size_t> TargetCall::readBody(char* buf, std::size_t cap)
{
    auto& impl = *m_impl;
    if (!impl.parser) return api::Error::internal("readBody before readHead");
    if (impl.parser->is_done()) return std::size_t{0};
    auto& body = impl.parser->get().body();
    body.data = buf;
    body.size = cap;
    boost::system::error_code ec;
    impl.onStream([&](auto& stream) { return http::read(stream, impl.buffer, *impl.parser, ec); });
    if (ec == http::error::need_buffer) ec = {};
    if (ec)
        return api::Error{api::ErrorKind::Unavailable, "target " + impl.where + " broke off the body", ec.message()};
    return cap - body.size;
}

std::optional<TargetCall::RawBody> TargetCall::takeRawBody()
{
    auto& impl = *m_impl;
    if (impl.tls || !impl.parser || !impl.parser->is_header_done() || impl.parser->chunked()) return std::nullopt;
    const auto remaining = impl.parser->content_length_remaining();
    if (!remaining) return std::nullopt;
    const auto data = impl.buffer.data();
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(data.size(), *remaining));
    RawBody out;
    out.buffered.assign(static_cast<const char*>(data.data()), n);
    impl.buffer.consume(impl.buffer.size());
    impl.parser.reset();
    out.fd = impl.socket.native_handle();
    return out;
}

api::Result<std::string> TargetCall::readSmallBody(std::size_t limit)
{
    std::string out;
    char buf[16 * 1024];
    while (true) {
        auto n = readBody(buf, sizeof buf);
        if (!n) return n.error();
        if (*n == 0) return out;
        if (out.size() + *n > limit) return api::Error::badGateway("target answer larger than expected");
        out.append(buf, *n);
    }
}

}  // namespace tessera::daemon::s3
