#include "bench_connection.h"

#include "api/headers.h"

#include <array>
#include <boost/asio/write.hpp>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <limits>
#include <optional>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
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
    const beast::string_view checksumName(api::kHdrChecksumValue.data(), api::kHdrChecksumValue.size());
    if (auto it = res.find(checksumName); it != res.end()) r.checksum = std::string(it->value());
}
}  // namespace

api::Result<std::unique_ptr<asio::ssl::context>> makeTlsContext(const std::string& caFile, bool insecure)
{
    auto ctx = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_client);
    beast::error_code ec;
    if (insecure) {
        ctx->set_verify_mode(asio::ssl::verify_none, ec);
    } else {
        ctx->set_verify_mode(asio::ssl::verify_peer, ec);
        if (!ec) {
            if (caFile.empty()) ctx->set_default_verify_paths(ec);
            else ctx->load_verify_file(caFile, ec);
        }
    }
    if (ec) {
        return api::Error::badRequest("bench: cannot use " +
                                      (caFile.empty() ? std::string("the system's CAs") : caFile) +
                                      " for TLS: " + ec.message());
    }
    return ctx;
}

BenchConnection::BenchConnection(asio::io_context& io, std::string host, std::string port, asio::ssl::context* tls)
    : m_host(std::move(host)), m_port(std::move(port)), m_hostHeader(m_host + ":" + m_port), m_socket(io),
      m_tlsContext(tls)
{
}

void BenchConnection::abortForTimeout()
{
    m_timedOut = true;
    beast::error_code ignored;  // the pending operation completes with operation_aborted
    lowest().close(ignored);
}

void BenchConnection::close()
{
    beast::error_code ignored;  // closing a socket that failed: nothing left to report
    lowest().close(ignored);
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
            tcp::resolver resolver(m_socket.get_executor());
            auto results = resolver.resolve(m_host, m_port, ec);
            if (ec || results.empty()) co_return "cannot resolve " + m_host + ": " + ec.message();
            m_endpoint = *results.begin();
        }
        m_resolved = true;
    }
    if (m_tlsContext != nullptr) m_tls.emplace(m_socket.get_executor(), *m_tlsContext);
    co_await lowest().async_connect(m_endpoint, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
        const bool timedOut = m_timedOut;
        close();
        co_return "connect " + m_host + ":" + m_port + ": " + (timedOut ? "timed out" : ec.message());
    }
    lowest().set_option(tcp::no_delay(true), ec);  // a request is one write; never wait for an ACK
    if (m_tls) {
        // SNI and the name the certificate must carry (an IP address or a
        // DNS name, as in the URL).
        if (SSL_set_tlsext_host_name(m_tls->native_handle(), m_host.c_str()) != 1) {
            close();
            co_return "TLS " + m_host + ":" + m_port + ": cannot set the server name";
        }
        m_tls->set_verify_callback(asio::ssl::host_name_verification(m_host));
        co_await m_tls->async_handshake(asio::ssl::stream_base::client, asio::redirect_error(asio::use_awaitable, ec));
        if (ec) {
            const bool timedOut = m_timedOut;
            close();
            co_return "TLS handshake with " + m_host + ":" + m_port + ": " + (timedOut ? "timed out" : ec.message());
        }
    }
    m_open = true;
    ++m_connects;
    co_return std::string();
}

asio::awaitable<beast::error_code> BenchConnection::readResponse(http::response_parser<SinkBody>& parser)
{
    beast::error_code ec;
    if (!parser.is_header_done()) {
        co_await onStream([&](auto& s) {
            return http::async_read_header(s, m_buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
        });
        if (ec || parser.is_done()) co_return ec;
    }
    if (!parser.content_length() || parser.chunked()) {
        // Chunked or until-close bodies: Beast's parser does it all.
        co_await onStream([&](auto& s) {
            return http::async_read(s, m_buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
        });
        co_return ec;
    }
    // A body of known length goes straight from the socket into a large
    // scratch buffer and the sink: Beast's parser would read it 64 KiB at a
    // time through its flat buffer, which made the client the bottleneck of
    // a 64 MiB GET at a fifth of what the server could send.
    co_return co_await readBody(parser.get().body(), *parser.content_length());
}

asio::awaitable<beast::error_code> BenchConnection::readBody(SinkBody::value_type& body, std::uint64_t remaining)
{
    beast::error_code ec;
    const auto feed = [&body](const char* p, std::size_t n) {
        if (body.hash != nullptr) body.hash->update(p, n);
        if (body.keep != nullptr) body.keep->append(p, n);
        body.bytes += n;
    };
    const auto buffered = static_cast<std::size_t>(std::min<std::uint64_t>(m_buffer.size(), remaining));
    if (buffered > 0) {
        feed(static_cast<const char*>(m_buffer.data().data()), buffered);
        m_buffer.consume(buffered);
        remaining -= buffered;
    }
    if (remaining > 0 && m_scratch.empty()) m_scratch.resize(kScratchBytes);
    while (remaining > 0) {
        const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(remaining, m_scratch.size()));
        const auto n = co_await onStream([&](auto& s) {
            return s.async_read_some(asio::buffer(m_scratch.data(), want),
                                     asio::redirect_error(asio::use_awaitable, ec));
        });
        if (ec) co_return ec;
        feed(m_scratch.data(), n);
        remaining -= n;
    }
    co_return ec;
}

namespace {

bool hasToken(std::string_view value, std::string_view token)
{
    std::size_t start = 0;
    while (start <= value.size()) {
        auto comma = value.find(',', start);
        auto item = value.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
        while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
        if (api::sameFieldName(item, token)) return true;
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return false;
}

}  // namespace

// The response head as the common answer has it (a status, a
// Content-Length or no body): parsed here, without a field container.
// Anything else (1xx, chunked, a body until close, a malformed head) is
// left in the buffer for Beast's parser.
asio::awaitable<BenchConnection::SimpleHead> BenchConnection::readSimpleHead(bool headRequest, ExchangeResult& r)
{
    SimpleHead out;
    beast::error_code ec;
    std::size_t end = std::string_view::npos;
    for (;;) {
        const std::string_view have(static_cast<const char*>(m_buffer.data().data()), m_buffer.size());
        end = have.find("\r\n\r\n");
        if (end != std::string_view::npos) break;
        if (have.size() >= kHeaderLimit) co_return out;  // Beast's parser reports it
        const auto n = co_await onStream([&](auto& s) {
            return s.async_read_some(m_buffer.prepare(16 * 1024), asio::redirect_error(asio::use_awaitable, ec));
        });
        if (ec) {
            out.error = ec;
            out.kind = SimpleHead::Kind::Failed;
            co_return out;
        }
        m_buffer.commit(n);
    }
    const std::string_view head(static_cast<const char*>(m_buffer.data().data()), end + 2);
    // "HTTP/1.x NNN ..."
    if (head.size() < 12 || head.substr(0, 7) != "HTTP/1." || head[8] != ' ') co_return out;
    unsigned status = 0;
    for (std::size_t i = 9; i < 12; ++i) {
        if (head[i] < '0' || head[i] > '9') co_return out;
        status = status * 10 + static_cast<unsigned>(head[i] - '0');
    }
    if (status < 200) co_return out;
    const bool http11 = head[7] == '1';
    bool keepAlive = http11;
    std::optional<std::uint64_t> length;
    std::string location, checksum;
    std::size_t pos = head.find("\r\n") + 2;
    while (pos < head.size()) {
        const auto eol = head.find("\r\n", pos);
        const auto line = head.substr(pos, eol - pos);
        pos = eol + 2;
        const auto colon = line.find(':');
        if (colon == std::string_view::npos) co_return out;
        const auto name = line.substr(0, colon);
        auto value = line.substr(colon + 1);
        while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
        while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
        if (api::sameFieldName(name, "content-length")) {
            std::uint64_t v = 0;
            auto [p, e] = std::from_chars(value.data(), value.data() + value.size(), v);
            if (value.empty() || e != std::errc() || p != value.data() + value.size()) co_return out;
            if (length && *length != v) co_return out;
            length = v;
        } else if (api::sameFieldName(name, "transfer-encoding")) {
            co_return out;
        } else if (api::sameFieldName(name, "connection")) {
            if (hasToken(value, "close")) keepAlive = false;
            else if (hasToken(value, "keep-alive")) keepAlive = true;
        } else if (api::sameFieldName(name, "location")) {
            location.assign(value);
        } else if (api::sameFieldName(name, api::kHdrChecksumValue)) {
            checksum.assign(value);
        }
    }
    const bool noBody = headRequest || status == 204 || status == 304;
    if (!noBody && !length) co_return out;  // a body until close
    m_buffer.consume(end + 4);
    r.status = status;
    r.location = std::move(location);
    r.checksum = std::move(checksum);
    out.kind = SimpleHead::Kind::Parsed;
    out.keepAlive = keepAlive;
    out.bodyLength = noBody ? 0 : *length;
    co_return out;
}

asio::awaitable<ExchangeResult> BenchConnection::exchange(const RequestSpec& spec, SinkBody::value_type sink)
{
    ExchangeResult r;
    m_timedOut = false;
    if (!m_open) {
        r.error = co_await connect();
        if (!r.error.empty()) {
            r.transportError = true;
            co_return r;
        }
    }
    r.reused = m_requestsOnConnection > 0;
    ++m_requestsOnConnection;

    const bool expect = spec.expectContinue && spec.bodySize > api::kSmallBodyBytes;

    beast::error_code ec;
    const auto failed = [&](const char* what) {
        r.error = std::string(what) + " " + m_host + ":" + m_port + ": " + (m_timedOut ? "timed out" : ec.message());
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
    if (expect) {
        http::request<http::span_body<const char>> req{spec.verb,
                                                       beast::string_view(spec.target.data(), spec.target.size()), 11};
        req.set(http::field::host, m_hostHeader);
        if (!m_authorization.empty()) req.set(http::field::authorization, m_authorization);
        req.body() = {spec.body, spec.bodySize};
        req.prepare_payload();
        if (!spec.keepalive) req.keep_alive(false);
        req.set(http::field::expect, "100-continue");
        http::request_serializer<http::span_body<const char>> sr(req);
        co_await onStream(
            [&](auto& s) { return http::async_write_header(s, sr, asio::redirect_error(asio::use_awaitable, ec)); });
        if (ec) {
            failed("write");
            co_return r;
        }
        co_await onStream([&](auto& s) {
            return http::async_read_header(s, m_buffer, parser, asio::redirect_error(asio::use_awaitable, ec));
        });
        if (ec) {
            failed("read");
            co_return r;
        }
        if (parser.get().result() == http::status::continue_) {
            co_await onStream(
                [&](auto& s) { return http::async_write(s, sr, asio::redirect_error(asio::use_awaitable, ec)); });
            if (ec) {
                failed("write");
                co_return r;
            }
            // The 100 was a complete message; the final answer needs its own parser.
            http::response_parser<SinkBody> final;
            final.get().body() = sink;
            final.header_limit(kHeaderLimit);
            final.body_limit(std::numeric_limits<std::uint64_t>::max());
            ec = co_await readResponse(final);
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
            ec = co_await readResponse(parser);
            if (ec) {
                failed("read");
                co_return r;
            }
        }
    } else {
        // The request head is formatted into a reused buffer and goes out
        // with the body in one gather write: no header container, no
        // serializer and no allocation per request.
        m_head.clear();
        m_head.append(http::to_string(spec.verb).data(), http::to_string(spec.verb).size());
        m_head += ' ';
        m_head += spec.target;
        m_head += " HTTP/1.1\r\nHost: ";
        m_head += m_hostHeader;
        m_head += "\r\n";
        m_head += m_authLine;
        if (spec.bodySize > 0 || spec.verb == http::verb::put) {
            char len[32];
            const auto n = std::snprintf(len, sizeof len, "Content-Length: %zu\r\n", spec.bodySize);
            m_head.append(len, static_cast<std::size_t>(n));
        }
        if (!spec.keepalive) m_head += "Connection: close\r\n";
        m_head += "\r\n";
        const std::array<asio::const_buffer, 2> buffers{asio::buffer(m_head), asio::buffer(spec.body, spec.bodySize)};
        co_await onStream(
            [&](auto& s) { return asio::async_write(s, buffers, asio::redirect_error(asio::use_awaitable, ec)); });
        if (ec) {
            failed("write");
            co_return r;
        }
        auto simple = co_await readSimpleHead(spec.verb == http::verb::head, r);
        if (simple.kind == SimpleHead::Kind::Failed) {
            ec = simple.error;
            failed("read");
            co_return r;
        }
        if (simple.kind == SimpleHead::Kind::Parsed) {
            ec = co_await readBody(sink, simple.bodyLength);
            if (ec) {
                failed("read");
                co_return r;
            }
            r.bodyBytes = sink.bytes;
            if (!simple.keepAlive || !spec.keepalive) close();
            co_return r;
        }
        ec = co_await readResponse(parser);
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
