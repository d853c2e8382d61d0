#pragma once
// One HTTP/1.1 connection of a benchmark worker to one host:port, used by
// one coroutine at a time on its io_context's thread. It connects on first
// use (and again after the server or the client closed it), sends one
// request and reads the response into a SinkBody.
//
// Bodies above api::kSmallBodyBytes go with `Expect: 100-continue` when the
// request may be redirected (a proxy answers 307 before the body, then
// closes): the same rule as client::HttpClient, so the bench measures what
// Tessera's own client does.

#include "sink_body.h"

#include "api/result.h"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/verb.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::cli::bench {

struct RequestSpec {
    boost::beast::http::verb verb = boost::beast::http::verb::get;
    std::string_view target;  // path and query
    const char* body = nullptr;
    std::size_t bodySize = 0;
    bool expectContinue = false;  // only honoured for bodies > kSmallBodyBytes
    bool keepalive = true;
};

struct ExchangeResult {
    std::string error;  // empty when a whole response was read
    bool transportError = false;
    bool reused = false;  // the connection had served a request before this one
    unsigned status = 0;
    std::string location;  // Location, for redirects
    std::string checksum;  // ais-checksum-value
    std::uint64_t bodyBytes = 0;
};

// The TLS context of a run's connections (one per I/O thread): peers are
// verified with the CAs in `caFile` (empty: the system's store) unless
// `insecure`. BadRequest naming the file when it cannot be loaded.
api::Result<std::unique_ptr<boost::asio::ssl::context>> makeTlsContext(const std::string& caFile, bool insecure);

class BenchConnection {
public:
    // `tls`: speak TLS with this context (it outlives the connection);
    // nullptr: plain TCP.
    BenchConnection(boost::asio::io_context& io, std::string host, std::string port,
                    boost::asio::ssl::context* tls = nullptr);

    const std::string& host() const { return m_host; }
    const std::string& port() const { return m_port; }
    // Sent as the Authorization field of every request from now on.
    void setAuthorization(const std::string& value)
    {
        m_authorization = value;
        m_authLine = value.empty() ? std::string() : "Authorization: " + value + "\r\n";
    }

    // Never throws; failures are in ExchangeResult::error. After a failure,
    // or a response that closes the connection, the next call reconnects.
    // `sink` says where the body goes (its byte count starts from zero).
    boost::asio::awaitable<ExchangeResult> exchange(const RequestSpec& spec, SinkBody::value_type sink);

    std::uint64_t connects() const { return m_connects; }

    // Ends the exchange in progress with a timeout error (the worker's
    // watchdog calls it on the same thread). Per-operation timers would
    // cost more than the operation on a fast server, so timeouts are
    // checked by one timer per I/O thread instead.
    void abortForTimeout();

private:
    boost::asio::awaitable<std::string> connect();
    // The rest of a response whose header may already be parsed.
    boost::asio::awaitable<boost::beast::error_code> readResponse(
        boost::beast::http::response_parser<SinkBody>& parser);
    // A body of known length, from the buffer and then the socket, to `body`.
    boost::asio::awaitable<boost::beast::error_code> readBody(SinkBody::value_type& body, std::uint64_t length);
    struct SimpleHead {
        enum class Kind { Fallback, Parsed, Failed } kind = Kind::Fallback;
        boost::beast::error_code error;  // Failed
        bool keepAlive = false;
        std::uint64_t bodyLength = 0;
    };
    // Reads and parses a common response head (status, fields the bench
    // needs, Content-Length) into `r`; Fallback leaves it in the buffer for
    // Beast's parser.
    boost::asio::awaitable<SimpleHead> readSimpleHead(bool headRequest, ExchangeResult& r);
    void close();
    // The TCP socket under TLS or the plain one.
    boost::asio::ip::tcp::socket& lowest() { return m_tls ? m_tls->next_layer() : m_socket; }
    // Calls `f` with the stream requests go over (TLS or plain); each use
    // returns the same awaitable type, so one call site serves both.
    template <typename F>
    auto onStream(F&& f)
    {
        if (m_tls) return f(*m_tls);
        return f(m_socket);
    }

    std::string m_host;
    std::string m_port;
    std::string m_hostHeader;
    std::string m_authorization;  // the field's value; empty: none
    std::string m_authLine;       // the whole field line, for the hand-written head
    std::string m_head;           // the request head, reused
    std::vector<char> m_scratch;  // large bodies are read into this (allocated on first use)
    static constexpr std::size_t kScratchBytes = 256 * 1024;
    boost::asio::ip::tcp::socket m_socket;                                        // plain
    boost::asio::ssl::context* m_tlsContext = nullptr;                            // TLS: set
    std::optional<boost::asio::ssl::stream<boost::asio::ip::tcp::socket>> m_tls;  // TLS: one per connection
    bool m_timedOut = false;
    boost::beast::flat_buffer m_buffer;
    bool m_open = false;
    bool m_resolved = false;
    boost::asio::ip::tcp::endpoint m_endpoint;
    std::uint64_t m_requestsOnConnection = 0;
    std::uint64_t m_connects = 0;
};

}  // namespace tessera::cli::bench
