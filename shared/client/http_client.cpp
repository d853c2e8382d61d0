#include "http_client.h"

#include "api/headers.h"
#include "run_op.h"
#include "tls_setup.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <variant>

namespace tessera::client {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using TlsStream = ssl::stream<beast::tcp_stream>;

namespace {

constexpr std::size_t kChunk = 1024 * 1024;
// A body of known length given to a sink arrives in pieces of at most this.
// Sinks mostly write files, and the kernel allocates a file's page cache in
// folios as large as each write: writes of 1 MiB made it compact memory on a
// host whose memory was fragmented (1 GiB written cost 1.1-1.8 s of CPU
// against 0.29 s in 256 KiB writes). A piece this size also stays in the
// CPU's cache between the read and the sink.
constexpr std::size_t kSinkChunk = 256 * 1024;
constexpr std::uint64_t kExpectThreshold = api::kSmallBodyBytes;  // the server drains up to this

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

http::verb toVerb(Method m)
{
    switch (m) {
    case Method::Get: return http::verb::get;
    case Method::Head: return http::verb::head;
    case Method::Put: return http::verb::put;
    case Method::Post: return http::verb::post;
    case Method::Delete: return http::verb::delete_;
    case Method::Patch: return http::verb::patch;
    }
    return http::verb::get;
}

api::Error transportError(const beast::error_code& ec, const std::string& what)
{
    if (ec == beast::error::timeout) {
        return api::Error::timeout(what + ": timed out");
    }
    api::Error e = api::Error::unavailable(what + ": " + ec.message());
    return e;
}

constexpr std::string_view kConnectFailed = "connect to ";
constexpr std::string_view kResolveFailed = "cannot resolve ";
// How long a TLS connection being closed waits for the server's close_notify:
// the answer to ours is a formality, not worth holding a caller up for.
constexpr std::chrono::milliseconds kTlsCloseWait{1000};

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};
using UniqueFile = std::unique_ptr<std::FILE, FileCloser>;

// One connection, plain or TLS: the exchange code is a template over the
// stream and runs on whichever this holds (std::visit).
struct Conn {
    explicit Conn(asio::io_context& io) : ioc(io), stream(std::in_place_type<beast::tcp_stream>, io) {}
    Conn(asio::io_context& io, ssl::context& ctx) : ioc(io), stream(std::in_place_type<TlsStream>, io, ctx) {}
    Conn(const Conn&) = delete;
    Conn& operator=(const Conn&) = delete;
    ~Conn()
    {
        // A TLS connection that ended between messages says close_notify, so
        // the server can tell the end from a cut. Its answer is not needed:
        // the error (a server that just closes: stream_truncated) is moot.
        auto* secure = std::get_if<TlsStream>(&stream);
        if (secure == nullptr || !clean) return;
        secure->next_layer().expires_after(kTlsCloseWait);
        [[maybe_unused]] auto ec = runOp(ioc, [&](auto&& h) { secure->async_shutdown(h); });
    }

    beast::tcp_stream& tcp()
    {
        return std::visit([](auto& s) -> beast::tcp_stream& { return beast::get_lowest_layer(s); }, stream);
    }

    asio::io_context& ioc;
    std::variant<beast::tcp_stream, TlsStream> stream;
    beast::flat_buffer buffer;
    bool clean = false;  // the last exchange ended well: no broken or half-read stream
};

bool isRedirect(int status)
{
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

}  // namespace

std::string Response::header(std::string_view name) const
{
    auto it = headers.find(lower(name));
    return it == headers.end() ? std::string() : it->second;
}

api::Result<ParsedUrl> parseUrl(std::string_view url)
{
    ParsedUrl out;
    const auto sep = url.find("://");
    const std::string scheme = sep == std::string_view::npos ? std::string() : lower(url.substr(0, sep));
    if (scheme != "http" && scheme != "https") {
        return api::Error::badRequest("only http:// and https:// URLs are supported: \"" + std::string(url) + "\"");
    }
    out.tls = scheme == "https";
    const std::string defaultPort = out.tls ? "443" : "80";
    auto rest = url.substr(sep + 3);
    auto slash = rest.find('/');
    auto hostport = rest.substr(0, slash);
    out.target = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
    if (hostport.empty()) {
        return api::Error::badRequest("URL without a host: \"" + std::string(url) + "\"");
    }
    if (hostport.front() == '[') {
        auto close = hostport.find(']');
        if (close == std::string_view::npos) return api::Error::badRequest("malformed IPv6 URL");
        out.host = std::string(hostport.substr(1, close - 1));
        auto after = hostport.substr(close + 1);
        out.port = (!after.empty() && after.front() == ':') ? std::string(after.substr(1)) : defaultPort;
    } else {
        auto colon = hostport.rfind(':');
        out.host = std::string(hostport.substr(0, colon));
        out.port = colon == std::string_view::npos ? defaultPort : std::string(hostport.substr(colon + 1));
    }
    if (out.host.empty() || out.port.empty()) {
        return api::Error::badRequest("URL without a host or port: \"" + std::string(url) + "\"");
    }
    return out;
}

struct HttpClient::Impl {
    // Declared in this order so that idle connections, which close through
    // `ioc` and hold SSL objects of `tlsContext`, go first.
    asio::io_context ioc;
    std::optional<ssl::context> tlsContext;             // built on the first https:// request
    std::map<std::string, std::unique_ptr<Conn>> idle;  // "scheme://host:port" -> one idle keep-alive connection

    api::Result<ssl::context*> context(const Options& o)
    {
        if (!tlsContext) {
            auto made = tls::makeContext(o.tls);
            if (!made) return made.error();
            tlsContext.emplace(std::move(made).value());
        }
        return &*tlsContext;
    }

    api::Result<std::unique_ptr<Conn>> connect(const ParsedUrl& u, const Options& o)
    {
        ssl::context* ctx = nullptr;
        if (u.tls) {
            auto c = context(o);
            if (!c) return c.error();
            ctx = c.value();
        }
        tcp::resolver resolver(ioc);
        beast::error_code ec;
        auto results = resolver.resolve(u.host, u.port, ec);
        if (ec) {
            return api::Error::unavailable(std::string(kResolveFailed) + u.host + ": " + ec.message());
        }
        auto conn = ctx != nullptr ? std::make_unique<Conn>(ioc, *ctx) : std::make_unique<Conn>(ioc);
        conn->tcp().expires_after(o.connectTimeout);
        ec = runOp(ioc, [&](auto&& h) { conn->tcp().async_connect(results, h); });
        if (ec) {
            return transportError(ec, std::string(kConnectFailed) + u.host + ":" + u.port);
        }
        conn->tcp().socket().set_option(tcp::no_delay(true), ec);
        if (auto* stream = std::get_if<TlsStream>(&conn->stream)) {
            if (auto st = handshake(*stream, u, o); !st) return st.error();
        }
        return conn;
    }

    // The handshake counts as part of connecting: connectTimeout applies.
    api::Status handshake(TlsStream& stream, const ParsedUrl& u, const Options& o)
    {
        if (auto st = tls::preparePeer(stream.native_handle(), u.host, o.tls); !st) return st;
        stream.next_layer().expires_after(o.connectTimeout);
        const auto ec = runOp(ioc, [&](auto&& h) { stream.async_handshake(ssl::stream_base::client, h); });
        if (ec) return tls::handshakeError(ec, stream.native_handle(), u.host + ":" + u.port, o.tls);
        return {};
    }

    // One request/response exchange on `conn`. `reusable` is set when the
    // connection may go back to the idle pool. `answered` is set once the
    // final response header has arrived: from then on a failure is not a
    // stale connection, and retrying could hand the sink the same bytes twice.
    template <typename Stream, typename ReqBody>
    api::Result<Response> exchange(Stream& stream, beast::flat_buffer& buffer, http::request<ReqBody>& req,
                                   bool useExpect, bool isHead, const Sink* sink, const Options& o, bool& reusable,
                                   bool& answered, const std::function<beast::error_code()>& rawBody = {})
    {
        auto& tcpStream = beast::get_lowest_layer(stream);
        reusable = false;
        answered = false;
        http::request_serializer<ReqBody> sr(req);
        beast::error_code ec;
        auto writeAll = [&](bool headerOnly) -> beast::error_code {
            while (headerOnly ? !sr.is_header_done() : !sr.is_done()) {
                tcpStream.expires_after(o.ioTimeout);
                beast::error_code wec;
                if (headerOnly) {
                    wec = runOp(ioc, [&](auto&& h) { http::async_write_header(stream, sr, h); });
                } else {
                    wec = runOp(ioc, [&](auto&& h) { http::async_write_some(stream, sr, h); });
                }
                if (wec) return wec;
            }
            if (!headerOnly && rawBody) return rawBody();
            return {};
        };

        bool bodySent = true;
        auto parser = std::make_unique<http::response_parser<http::buffer_body>>();
        parser->body_limit(std::numeric_limits<std::uint64_t>::max());  // Boost 1.74 treats boost::none as exceeded
        if (isHead) parser->skip(true);

        if (useExpect) {
            ec = writeAll(true);
            if (ec) return transportError(ec, "send request header");
            tcpStream.expires_after(o.ioTimeout);
            ec = runOp(ioc, [&](auto&& h) { http::async_read_header(stream, buffer, *parser, h); });
            if (ec) return transportError(ec, "read response");
            if (parser->get().result() == http::status::continue_) {
                ec = writeAll(false);
                if (ec) return transportError(ec, "send request body");
                parser = std::make_unique<http::response_parser<http::buffer_body>>();
                parser->body_limit(
                    std::numeric_limits<std::uint64_t>::max());  // Boost 1.74 treats boost::none as exceeded
                if (isHead) parser->skip(true);
            } else {
                bodySent = false;  // final answer before the body: the connection can't be reused
            }
        } else {
            ec = writeAll(false);
            if (ec) return transportError(ec, "send request");
        }

        if (!parser->is_header_done()) {
            tcpStream.expires_after(o.ioTimeout);
            ec = runOp(ioc, [&](auto&& h) { http::async_read_header(stream, buffer, *parser, h); });
            if (ec) return transportError(ec, "read response");
        }

        answered = true;
        Response res;
        const auto& msg = parser->get();
        res.status = static_cast<int>(msg.result_int());
        for (const auto& f : msg) {
            // A header sent on several lines is one comma-separated list
            // (RFC 9110 5.3): AIStore's ais-custom-md, one line per entry.
            auto& v = res.headers[lower(std::string_view(f.name_string().data(), f.name_string().size()))];
            if (!v.empty()) v += ", ";
            v += std::string(f.value());
        }
        const bool streamToSink = sink != nullptr && res.isSuccess();
        auto deliver = [&](const char* data, std::size_t n) -> api::Status {
            if (streamToSink) return (*sink)(data, n);
            if (res.body.size() + n > o.maxBodyInMemory) {
                return api::Error{api::ErrorKind::TooLarge, "response body too large to hold in memory", {}};
            }
            res.body.append(data, n);
            return {};
        };
        const bool noBody = isHead || res.status / 100 == 1 || res.status == 204 || res.status == 304;
        if (!noBody && !parser->chunked() && parser->content_length()) {
            // Known length: bytes already buffered behind the header, then
            // whole-chunk socket reads that bypass the parser.
            std::uint64_t remaining = *parser->content_length();
            if (!streamToSink) {
                // Into the body itself, sized once: no bounce buffer, no
                // regrowth of a body that may be many megabytes.
                if (remaining > o.maxBodyInMemory) {
                    return api::Error{api::ErrorKind::TooLarge, "response body too large to hold in memory", {}};
                }
                res.body.resize(static_cast<std::size_t>(remaining));
                std::size_t at = 0;
                auto buffered = buffer.data();
                const auto first = static_cast<std::size_t>(std::min<std::uint64_t>(buffered.size(), remaining));
                if (first > 0) {
                    std::memcpy(res.body.data(), buffered.data(), first);
                    buffer.consume(first);
                    at = first;
                }
                while (at < res.body.size()) {
                    const auto want = std::min<std::size_t>(res.body.size() - at, kChunk);
                    std::size_t got = 0;
                    tcpStream.expires_after(o.ioTimeout);
                    ec = runOp(ioc, [&](auto&& h) {
                        asio::async_read(stream, asio::buffer(res.body.data() + at, want),
                                         [&got, h](beast::error_code e, std::size_t n) mutable {
                                             got = n;
                                             h(e);
                                         });
                    });
                    if (ec) return transportError(ec, "read response body");
                    at += got;
                }
                reusable = bodySent && parser->get().keep_alive();
                return res;
            }
            // Not zeroed, and no bigger than kSinkChunk: a sink that writes a
            // file gets writes of at most that size (see kSinkChunk).
            const auto bufSize = static_cast<std::size_t>(std::min<std::uint64_t>(remaining, kSinkChunk));
            const std::unique_ptr<char[]> buf(new char[bufSize]);
            auto buffered = buffer.data();
            const auto first = static_cast<std::size_t>(std::min<std::uint64_t>(buffered.size(), remaining));
            if (first > 0) {
                auto st = deliver(static_cast<const char*>(buffered.data()), first);
                if (!st) return st.error();
                buffer.consume(first);
                remaining -= first;
            }
            while (remaining > 0) {
                const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(remaining, bufSize));
                std::size_t got = 0;
                tcpStream.expires_after(o.ioTimeout);
                ec = runOp(ioc, [&](auto&& h) {
                    asio::async_read(stream, asio::buffer(buf.get(), want),
                                     [&got, h](beast::error_code e, std::size_t n) mutable {
                                         got = n;
                                         h(e);
                                     });
                });
                if (ec) return transportError(ec, "read response body");
                auto st = deliver(buf.get(), got);
                if (!st) return st.error();
                remaining -= got;
            }
            reusable = bodySent && parser->get().keep_alive();
            return res;
        }
        std::vector<char> buf(parser->is_done() ? 0 : kChunk);
        while (!parser->is_done()) {
            parser->get().body().data = buf.data();
            parser->get().body().size = buf.size();
            tcpStream.expires_after(o.ioTimeout);
            ec = runOp(ioc, [&](auto&& h) { http::async_read(stream, buffer, *parser, h); });
            if (ec == http::error::need_buffer) ec = {};
            if (ec) return transportError(ec, "read response body");
            const std::size_t n = buf.size() - parser->get().body().size;
            if (n == 0) continue;
            auto st = deliver(buf.data(), n);
            if (!st) return st.error();
        }
        reusable = bodySent && parser->get().keep_alive();
        return res;
    }
};

namespace {
std::mutex g_processTlsMutex;
HttpClient::Options::Tls g_processTls;
}  // namespace

HttpClient::Options::Tls HttpClient::Options::Tls::processDefault()
{
    std::lock_guard lock(g_processTlsMutex);
    return g_processTls;
}

void HttpClient::Options::Tls::setProcessDefault(Tls t)
{
    std::lock_guard lock(g_processTlsMutex);
    g_processTls = std::move(t);
}

HttpClient::HttpClient() : HttpClient(Options{}) {}

HttpClient::HttpClient(Options options) : m_impl(std::make_unique<Impl>()), m_options(options) {}

HttpClient::~HttpClient() = default;

api::Result<Response> HttpClient::send(Method method, std::string_view urlIn, const Body& body, const Headers& headers,
                                       const Sink* sink)
{
    std::string url(urlIn);
    Method curMethod = method;
    const Body* curBody = &body;
    const Body noBody;
    int retries503 = 0;
    for (int redirects = 0;; ++redirects) {
        auto parsed = parseUrl(url);
        if (!parsed) return parsed.error();
        const std::string key = (parsed->tls ? "https://" : "http://") + parsed->host + ":" + parsed->port;

        api::Result<Response> result = api::Error::internal("no attempt");
        for (int attempt = 0; attempt < 2; ++attempt) {
            std::unique_ptr<Conn> conn;
            bool reused = false;
            if (auto it = m_impl->idle.find(key); it != m_impl->idle.end()) {
                conn = std::move(it->second);
                m_impl->idle.erase(it);
                reused = true;
            } else {
                auto c = m_impl->connect(*parsed, m_options);
                // A retry that cannot connect: the first attempt's error
                // stands (its request may have reached the server).
                if (!c) return attempt > 0 ? result.error() : c.error();
                conn = std::move(c.value());
            }
            bool reusable = false;
            bool answered = false;
            const bool isHead = curMethod == Method::Head;
            auto setCommon = [&](auto& req) {
                req.method(toVerb(curMethod));
                req.target(parsed->target);
                req.version(11);
                req.set(http::field::host, parsed->host + ":" + parsed->port);
                req.set(http::field::user_agent, "tessera-client/0.1");
                for (const auto& [k, v] : m_options.headers) req.set(k, v);
                for (const auto& [k, v] : headers) req.set(k, v);
            };
            if (curBody->kind == Body::Kind::File) {
                // Header through Beast, then the file in large slices straight
                // to the socket (Beast's file_body moves 4 KiB per write).
                UniqueFile file(std::fopen(curBody->data.c_str(), "rb"));
                if (!file) {
                    return api::Error::badRequest("cannot open \"" + curBody->data + "\": " + std::strerror(errno));
                }
                std::fseek(file.get(), 0, SEEK_END);
                const auto size = static_cast<std::uint64_t>(std::ftell(file.get()));
                std::fseek(file.get(), 0, SEEK_SET);
                http::request<http::empty_body> req;
                setCommon(req);
                req.content_length(size);
                // Small files go without the 100-continue round trip: a proxy
                // that redirects reads and drops up to 64 KiB and keeps the
                // connection (see the server's drain limit).
                const bool expect = size > kExpectThreshold;
                if (expect) req.set(http::field::expect, "100-continue");
                std::vector<char> slice(size > 0 ? kChunk : 0);
                auto writeFile = [&](auto& stream) -> beast::error_code {
                    std::uint64_t left = size;
                    while (left > 0) {
                        const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(left, slice.size()));
                        const auto got = std::fread(slice.data(), 1, want, file.get());
                        if (got != want) return beast::error_code(EIO, boost::system::generic_category());
                        beast::get_lowest_layer(stream).expires_after(m_options.ioTimeout);
                        auto wec = runOp(m_impl->ioc, [&](auto&& h) {
                            asio::async_write(stream, asio::buffer(slice.data(), got), h);
                        });
                        if (wec) return wec;
                        left -= got;
                    }
                    return {};
                };
                result = std::visit(
                    [&](auto& stream) {
                        return m_impl->exchange(stream, conn->buffer, req, expect, isHead, sink, m_options, reusable,
                                                answered, [&] { return writeFile(stream); });
                    },
                    conn->stream);
            } else {
                http::request<http::string_body> req;
                setCommon(req);
                if (curBody->kind == Body::Kind::String) {
                    req.body() = curBody->data;
                    req.prepare_payload();
                } else if (curMethod == Method::Put || curMethod == Method::Post || curMethod == Method::Patch) {
                    req.content_length(0);
                }
                const bool expect = curBody->kind == Body::Kind::String && curBody->data.size() > kExpectThreshold;
                if (expect) req.set(http::field::expect, "100-continue");
                result = std::visit(
                    [&](auto& stream) {
                        return m_impl->exchange(stream, conn->buffer, req, expect, isHead, sink, m_options, reusable,
                                                answered);
                    },
                    conn->stream);
            }
            conn->clean = result.ok();
            if (result.ok()) {
                if (reusable) m_impl->idle[key] = std::move(conn);
                break;
            }
            // A kept-alive connection the server closed meanwhile: retry once on
            // a fresh one, but only while no answer has started (a body cut
            // short is an error, never a silent re-delivery).
            if (!reused || answered || result.kind() != api::ErrorKind::Unavailable) break;
        }
        if (!result) return result;

        Response& res = result.value();
        res.finalUrl = url;
        res.redirects = redirects;
        if (res.status == 503 && retries503 < m_options.retriesOn503 && !res.header("retry-after").empty()) {
            int seconds = 1;
            try {
                seconds = std::stoi(res.header("retry-after"));
            } catch (const std::exception&) {
                seconds = 1;
            }
            ++retries503;
            --redirects;  // the same hop again
            std::this_thread::sleep_for(
                std::min(std::chrono::milliseconds(1000), std::chrono::milliseconds(std::max(seconds, 0) * 1000)));
            continue;
        }
        if (!m_options.followRedirects || !isRedirect(res.status)) {
            return result;
        }
        if (redirects >= m_options.maxRedirects) {
            return api::Error::unavailable("too many redirects (last: " + url + ")");
        }
        auto loc = res.header("location");
        if (loc.empty()) return result;
        if (loc.front() == '/') {
            const bool v6 = parsed->host.find(':') != std::string::npos;
            loc = (parsed->tls ? "https://" : "http://") + (v6 ? "[" + parsed->host + "]" : parsed->host) + ":" +
                  parsed->port + loc;
        }
        url = loc;
        if (res.status == 303 || ((res.status == 301 || res.status == 302) && curMethod == Method::Post)) {
            curMethod = Method::Get;
            curBody = &noBody;
        }
    }
}

bool failedBeforeSending(const api::Error& e)
{
    for (auto prefix : {kConnectFailed, kResolveFailed, tls::kHandshakeFailed, tls::kCaFileFailed}) {
        if (e.message.rfind(prefix, 0) == 0) return true;
    }
    return false;
}

bool failedOnCertificate(const api::Error& e)
{
    return e.message.rfind(tls::kHandshakeFailed, 0) == 0 &&
           e.message.find(tls::kCertificateRefused) != std::string::npos;
}

}  // namespace tessera::client
