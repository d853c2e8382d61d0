#include "bench_connection.h"

#include "api/headers.h"

#include <limits>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/span_body.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

namespace tessera::cli::bench {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {
// A response header bigger than this is not a server we benchmark.
constexpr std::uint32_t kHeaderLimit = 64 * 1024;

void fillResult(ExchangeResult& r, const http::response_parser<SinkBody>& p)
{
    const auto& res = p.get();
    r.status = res.result_int();
    r.bodyBytes = res.body().bytes;
    if (auto it = res.find(http::field::location); it != res.end()) r.location = std::string(it->value());
    if (auto it = res.find(beast::string_view(api::kHdrChecksumValue.data(), api::kHdrChecksumValue.size())); it != res.end()) r.checksum = std::string(it->value());
}
}  // namespace

BenchConnection::BenchConnection(asio::io_context& io, std::string host, std::string port,
                                 std::chrono::milliseconds timeout)
    : m_host(std::move(host)), m_port(std::move(port)), m_hostHeader(m_host + ":" + m_port), m_timeout(timeout),
      m_stream(io)
{
}

void BenchConnection::close()
{
    beast::error_code ignored;  // closing a socket that failed: nothing left to report
    m_stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    m_stream.close();
    m_buffer.clear();
    m_open = false;
    m_requestsOnConnection = 0;
}

asio::awaitable<std::string> BenchConnection::connect()
{
    beast::error_code ec;
    if (!m_resolved) {
        // Numeric hosts (every Tessera URL on loopback) need no resolver; a
        // name is resolved once, synchronously, on the first connect.
        const auto addr = asio::ip::make_address(m_host, ec);
        if (!ec) {
            m_endpoint = tcp::endpoint(addr, static_cast<unsigned short>(std::stoul(m_port)));
        } else {
            tcp::resolver resolver(m_stream.get_executor());
            auto results = resolver.resolve(m_host, m_port, ec);
            if (ec || results.empty()) co_return "cannot resolve " + m_host + ": " + ec.message();
            m_endpoint = *results.begin();
        }
        m_resolved = true;
    }
    m_stream.expires_after(m_timeout);
    co_await m_stream.async_connect(m_endpoint, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
        close();
        co_return "connect " + m_host + ":" + m_port + ": " + ec.message();
    }
    m_stream.socket().set_option(tcp::no_delay(true), ec);  // a request is one write; never wait for an ACK
    m_open = true;
    ++m_connects;
    co_return std::string();
}

asio::awaitable<ExchangeResult> BenchConnection::exchange(const RequestSpec& spec, SinkBody::value_type sink)
{
    ExchangeResult r;
    if (!m_open) {
        r.error = co_await connect();
        if (!r.error.empty()) {
            r.transportError = true;
            co_return r;
        }
    }
    r.reused = m_requestsOnConnection > 0;
    ++m_requestsOnConnection;

    http::request<http::span_body<const char>> req{spec.verb, beast::string_view(spec.target.data(), spec.target.size()), 11};
    req.set(http::field::host, m_hostHeader);
    if (spec.body != nullptr || spec.verb == http::verb::put) req.body() = {spec.body, spec.bodySize};
    req.prepare_payload();
    if (!spec.keepalive) req.keep_alive(false);
    const bool expect = spec.expectContinue && spec.bodySize > api::kSmallBodyBytes;
    if (expect) req.set(http::field::expect, "100-continue");

    beast::error_code ec;
    const auto failed = [&](const char* what) {
        r.error = std::string(what) + " " + m_host + ":" + m_port + ": " + ec.message();
        r.transportError = true;
        close();
    };

    http::response_parser<SinkBody> parser;
    parser.get().body() = sink;
    parser.header_limit(kHeaderLimit);
    // Beast 1.74 compares the length with an empty optional as "over the
    // limit", so "no limit" is the largest number (the bench reads what it asked for).
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());
    bool bodyUnsent = false;
    m_stream.expires_after(m_timeout);
    if (expect) {
        http::request_serializer<http::span_body<const char>> sr(req);
        co_await http::async_write_header(m_stream, sr, asio::redirect_error(asio::use_awaitable, ec));
        if (ec) {
            failed("write");
            co_return r;
        }
        co_await http::async_read_header(m_stream, m_buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
        if (ec) {
            failed("read");
            co_return r;
        }
        if (parser.get().result() == http::status::continue_) {
            co_await http::async_write(m_stream, sr, asio::redirect_error(asio::use_awaitable, ec));
            if (ec) {
                failed("write");
                co_return r;
            }
            // The 100 was a complete message; the final answer needs its own parser.
            http::response_parser<SinkBody> final;
            final.get().body() = sink;
            final.header_limit(kHeaderLimit);
            final.body_limit(std::numeric_limits<std::uint64_t>::max());
            co_await http::async_read(m_stream, m_buffer, final, asio::redirect_error(asio::use_awaitable, ec));
            if (ec) {
                failed("read");
                co_return r;
            }
            fillResult(r, final);
            if (!final.get().keep_alive() || !spec.keepalive) close();
            co_return r;
        }
        bodyUnsent = true;  // answered before the body: the server closes after this response
        if (!parser.is_done()) {
            co_await http::async_read(m_stream, m_buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
            if (ec) {
                failed("read");
                co_return r;
            }
        }
    } else {
        co_await http::async_write(m_stream, req, asio::redirect_error(asio::use_awaitable, ec));
        if (ec) {
            failed("write");
            co_return r;
        }
        co_await http::async_read(m_stream, m_buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
        if (ec) {
            failed("read");
            co_return r;
        }
    }
    fillResult(r, parser);
    if (bodyUnsent || !parser.get().keep_alive() || !spec.keepalive) close();
    co_return r;
}

}  // namespace tessera::cli::bench
