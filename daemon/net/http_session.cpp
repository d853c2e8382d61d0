#include "http_session.h"

#include "authorizer.h"

#include "api/headers.h"
#include "api/http_error.h"
#include "common/fd_io.h"
#include "common/log.h"

#include <array>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl/stream_base.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/detect_ssl.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <limits>
#include <unistd.h>

namespace tessera::daemon::net {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {
constexpr std::uint64_t kDrainLimit = api::kSmallBodyBytes;  // unread bodies up to this size are drained
constexpr std::uint64_t kInlineFileBytes = 16 * 1024;        // file regions up to this size are read, not sendfile'd
constexpr std::size_t kKeepBodyCapacity = 64 * 1024;         // a response buffer kept for the next request
constexpr int kClientAbort = stats::StatsRecorder::kClientAbort;  // counted apart from errors

// Discards a body and then answers with a response decided before it.
class DrainSink : public UploadSink {
public:
    explicit DrainSink(Response res) : m_res(std::move(res)) {}
    api::Status write(const char*, std::size_t) override { return {}; }
    Response finish() override { return std::move(m_res); }
    bool finishesInline() const override { return true; }

private:
    Response m_res;
};
// A server-side stream on an accepted socket.
template <class S>
S makeStream(Socket&& socket, asio::ssl::context* tls)
{
    if constexpr (std::is_same_v<S, SslStream>) return S(std::move(socket), *tls);
    else return S(std::move(socket));
}
}  // namespace

void HttpSession::start(Socket socket, std::shared_ptr<ServerContext> ctx, boost::asio::ip::address peer)
{
    if (auto tls = ctx->tlsContext()) {
        std::make_shared<BasicHttpSession<SslStream>>(std::move(socket), std::move(ctx), peer, std::move(tls))->run();
    } else {
        std::make_shared<BasicHttpSession<Stream>>(std::move(socket), std::move(ctx), peer, nullptr)->run();
    }
}

void HttpSession::rejectBusy(Socket socket, bool tls)
{
    // The same JSON error body as every other 503, its length counted.
    static const std::string kBusy = [] {
        const auto body = api::errorBody(api::Error::unavailable("too many connections, retry later"));
        return "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\n"
               "Retry-After: 1\r\nContent-Length: " +
               std::to_string(body.size()) + "\r\n\r\n" + body;
    }();
    boost::system::error_code ec;
    socket.non_blocking(true, ec);
    if (!tls) socket.write_some(asio::buffer(kBusy), ec);
    socket.shutdown(tcp::socket::shutdown_both, ec);
    socket.close(ec);
}

template <class S>
BasicHttpSession<S>::BasicHttpSession(Socket socket, std::shared_ptr<ServerContext> ctx, boost::asio::ip::address peer,
                                      std::shared_ptr<asio::ssl::context> tls)
    : m_tls(std::move(tls)), m_stream(makeStream<S>(std::move(socket), m_tls.get())), m_ctx(std::move(ctx)),
      m_peer(peer), m_sendTimer(m_stream.get_executor())
{
    m_ctx->connections.fetch_add(1);
    // A response is often a header write followed by a sendfile of the body:
    // with Nagle on, the second segment waits for the peer's delayed ACK.
    boost::system::error_code ec;
    lowest().socket().set_option(tcp::no_delay(true), ec);
}

template <class S>
BasicHttpSession<S>::~BasicHttpSession()
{
    endRequest();
    m_ctx->removeSession(this);
    m_ctx->connections.fetch_sub(1);
    m_ctx->releaseAddress(m_peer);
}

template <class S>
void BasicHttpSession<S>::run()
{
    m_ctx->addSession(this->shared_from_this());
    // Everything touching the socket runs on the connection's own thread,
    // not the acceptor's.
    asio::dispatch(m_stream.get_executor(), [self = this->shared_from_this()] {
        if constexpr (kTls) {
            self->handshake();
        } else {
            self->doReadHeader();
        }
    });
}

template <class S>
void BasicHttpSession<S>::handshake()
{
    // The handshake gets the deadline of a first request head. A client
    // speaking plain HTTP to this port is told so in plain HTTP.
    lowest().expires_after(std::min(m_ctx->options.headerTimeout, m_ctx->options.idleTimeout));
    beast::async_detect_ssl(lowest(), m_buffer, [self = this->shared_from_this()](beast::error_code ec, bool tls) {
        if (ec) {
            self->closeConnection();
            return;
        }
        if (!tls) {
            self->refusePlaintext();
            return;
        }
        if constexpr (kTls) {
            self->m_stream.async_handshake(
                asio::ssl::stream_base::server, self->m_buffer.data(), [self](beast::error_code hec, std::size_t used) {
                    if (hec) {
                        logDebug("TLS handshake from ", self->m_peer.to_string(), " failed: ", hec.message());
                        self->closeConnection();
                        return;
                    }
                    self->m_buffer.consume(used);
                    self->doReadHeader();
                });
        }
    });
}

template <class S>
void BasicHttpSession<S>::refusePlaintext()
{
    static const std::string kRefusal = [] {
        const auto body = api::errorBody(
            api::Error::badRequest("this port speaks HTTPS only: a plain HTTP request was sent to it (use https://)"));
        return "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nConnection: close\r\n"
               "Content-Length: " +
               std::to_string(body.size()) + "\r\n\r\n" + body;
    }();
    lowest().expires_after(m_ctx->options.ioTimeout);
    asio::async_write(lowest(), asio::buffer(kRefusal),
                      [self = this->shared_from_this()](beast::error_code, std::size_t) { self->closeConnection(); });
}

template <class S>
void BasicHttpSession<S>::postCloseIfIdle()
{
    asio::post(m_stream.get_executor(), [self = this->shared_from_this()] {
        // Bytes in the buffer are the start of a request: it is answered.
        if (self->m_waitingForHead && self->m_buffer.size() == 0) self->closeConnection();
    });
}

template <class S>
void BasicHttpSession<S>::endRequest()
{
    if (!m_inFlight) return;
    m_inFlight = false;
    m_ctx->requestEnded();
}

template <class S>
void BasicHttpSession<S>::doReadHeader()
{
    if (m_ctx->draining.load() && m_buffer.size() == 0) {
        closeConnection();
        return;
    }
    m_parser.emplace();
    m_parser->header_limit(static_cast<std::uint32_t>(m_ctx->options.headerLimit));
    m_parser->body_limit(std::numeric_limits<std::uint64_t>::max());  // Boost 1.74 treats boost::none as exceeded
    m_req = Request{};
    m_route = nullptr;
    m_sink.reset();
    m_bodyComplete = false;
    m_bodyBytes = 0;
    m_sentBytes = 0;
    m_status = 0;
    m_recorded = false;
    m_audited = false;
    // A new connection's first request head, and under pressure (half the
    // slots taken) any head and the wait for it, get the shorter header
    // deadline: a connection that trickles its head (slowloris) or idles
    // between requests gives its slot up.
    const auto& o = m_ctx->options;
    const bool pressed = m_ctx->connections.load(std::memory_order_relaxed) * 2 >= o.maxConnections;
    lowest().expires_after(pressed || !m_hadRequest ? std::min(o.headerTimeout, o.idleTimeout) : o.idleTimeout);
    m_waitingForHead = true;
    http::async_read_header(
        m_stream, m_buffer, *m_parser,
        [self = this->shared_from_this()](beast::error_code ec, std::size_t n) { self->onHeader(ec, n); });
}

template <class S>
void BasicHttpSession<S>::onHeader(beast::error_code ec, std::size_t headBytes)
{
    m_waitingForHead = false;
    if (ec) {
        if (ec == http::error::end_of_stream || ec == beast::error::timeout || ec == asio::error::eof ||
            ec == asio::error::connection_reset || ec == asio::error::operation_aborted) {
            closeConnection();
            return;
        }
        if (ec == http::error::header_limit) {
            fail(api::Error{api::ErrorKind::HeaderTooLarge,
                            "request header larger than " + std::to_string(m_ctx->options.headerLimit) + " bytes",
                            {}},
                 true);
            return;
        }
        fail(api::Error::badRequest("malformed HTTP request: " + ec.message()), true);
        return;
    }
    // Beast bounds the request line and the fields each by the limit, so a
    // whole head may be up to twice as long (found by fuzz_http_request).
    if (headBytes > m_ctx->options.headerLimit) {
        fail(api::Error{api::ErrorKind::HeaderTooLarge,
                        "request header larger than " + std::to_string(m_ctx->options.headerLimit) + " bytes",
                        {}},
             true);
        return;
    }
    m_ctx->requests.fetch_add(1);
    m_ctx->requestStarted();
    m_inFlight = true;
    m_hadRequest = true;
    m_start = std::chrono::steady_clock::now();
    const auto& hdr = m_parser->get();
    m_req.method = hdr.method();
    m_req.target = std::string(hdr.target());
    m_req.headers = &hdr;
    m_req.peer = m_peer;
    auto split = api::splitTarget(m_req.target);
    m_req.path = std::move(split.path);
    m_req.hasBody = m_parser->content_length().has_value() ? *m_parser->content_length() > 0 : m_parser->chunked();
    m_req.contentLength = m_parser->content_length().value_or(0);

    auto query = api::parseQuery(split.query);
    if (!query) {
        fail(query.error(), m_req.hasBody);
        return;
    }
    m_req.query = std::move(query.value());

    auto match = m_ctx->router->match(m_req);
    if (!match) {
        fail(match.error(), m_req.hasBody);
        return;
    }
    if (match->route == nullptr) {
        if (match->pathMatched) {
            fail(api::Error{api::ErrorKind::MethodNotAllowed,
                            std::string("method ") + std::string(http::to_string(m_req.method)) + " not allowed on " +
                                m_req.path,
                            {}},
                 m_req.hasBody);
        } else {
            fail(api::Error::notFound("no such endpoint: " + m_req.path), m_req.hasBody);
        }
        return;
    }
    m_route = match->route;

    // The one place a route's Access is checked (auth on).
    if (m_ctx->authorizer != nullptr) {
        if (auto st = m_ctx->authorizer->authorize(m_req, *m_route); !st) {
            fail(st.error(), m_req.hasBody);
            return;
        }
    }

    if (m_route->websocket) {
        acceptWebSocket();
        return;
    }
    if (m_route->upload) {
        if (m_route->exec == Exec::Worker) {
            // A start that blocks (the S3 front end connects to a target).
            lowest().expires_never();
            asio::post(*m_ctx->workers, [self = this->shared_from_this()] {
                auto started = self->startUpload();
                asio::post(self->m_stream.get_executor(), [self, started = std::move(started)]() mutable {
                    self->onUploadStarted(std::move(started));
                });
            });
            return;
        }
        onUploadStarted(startUpload());
        return;
    }

    // Buffered route.
    if (m_req.hasBody) {
        if (m_req.contentLength > m_route->maxBody) {
            fail(api::Error{api::ErrorKind::TooLarge,
                            "request body larger than " + std::to_string(m_route->maxBody) + " bytes",
                            {}},
                 true);
            return;
        }
        sendContinueThen(&BasicHttpSession::readBody);
        return;
    }
    bodyDone();
}

template <class S>
std::variant<Response, std::unique_ptr<UploadSink>> BasicHttpSession<S>::startUpload()
{
    try {
        return m_route->upload(m_req);
    } catch (const std::exception& e) {
        logError("upload handler threw: ", e.what());
        Response res = Response::error(api::Error::internal(e.what()));
        res.close = true;
        return res;
    }
}

template <class S>
void BasicHttpSession<S>::onUploadStarted(std::variant<Response, std::unique_ptr<UploadSink>> started)
{
    if (std::holds_alternative<Response>(started)) {
        Response res = std::move(std::get<Response>(started));
        const bool expectContinue = beast::iequals(m_req.header("Expect"), "100-continue");
        if (m_req.hasBody && !expectContinue && m_parser->content_length() &&
            *m_parser->content_length() <= kDrainLimit) {
            // A small body already on its way: read and drop it so the
            // connection stays usable (a redirected PUT of a small object).
            m_sink = std::make_unique<DrainSink>(std::move(res));
            readBody();
            return;
        }
        // The body stays unread. Without a body, a client that asked for
        // 100 Continue and got a final answer instead may take the next
        // answer on this connection for this one's (botocore keeps the
        // status it read for the connection's next request): a new
        // connection starts it afresh.
        if (m_req.hasBody || expectContinue) res.close = true;
        send(std::move(res));
        return;
    }
    m_sink = std::move(std::get<std::unique_ptr<UploadSink>>(started));
    // A relay's writes each cost two thread hops: fewer, larger pieces.
    m_chunk.resize(m_sink->writesBlock() ? kRelayBodyChunk : kBodyChunk);
    if (!m_req.hasBody) {
        // An empty body with Expect: 100-continue gets its 100 Continue
        // too, as S3 sends it (see above: botocore's empty PUT).
        sendContinueThen(&BasicHttpSession::bodyDone);
        return;
    }
    sendContinueThen(&BasicHttpSession::readBody);
}

template <class S>
void BasicHttpSession<S>::sendContinueThen(void (BasicHttpSession::*next)())
{
    auto expect = m_req.header("Expect");
    if (!beast::iequals(expect, "100-continue")) {
        (this->*next)();
        return;
    }
    auto msg = std::make_shared<http::response<http::empty_body>>(http::status::continue_, 11);
    lowest().expires_after(m_ctx->options.ioTimeout);
    http::async_write(m_stream, *msg, [self = this->shared_from_this(), msg, next](beast::error_code ec, std::size_t) {
        if (ec) {
            self->closeConnection();
            return;
        }
        ((*self).*next)();
    });
}

template <class S>
void BasicHttpSession<S>::readBody()
{
    if (m_chunk.empty()) m_chunk.resize(kBodyChunk);
    if (!m_parser->chunked() && m_parser->content_length()) {
        // Content-Length bodies bypass the parser: bytes already buffered
        // behind the header first, then whole-chunk socket reads (one timer
        // arm per chunk instead of one per segment).
        m_remaining = *m_parser->content_length();
        auto buffered = m_buffer.data();
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(buffered.size(), m_remaining));
        if (n > 0) {
            consumeThen(static_cast<const char*>(buffered.data()), n, [self = this->shared_from_this(), n] {
                self->m_buffer.consume(n);
                self->m_remaining -= n;
                self->readRawBody();
            });
            return;
        }
        readRawBody();
        return;
    }
    m_parser->get().body().data = m_chunk.data();
    m_parser->get().body().size = m_chunk.size();
    lowest().expires_after(m_ctx->options.ioTimeout);
    http::async_read(m_stream, m_buffer, *m_parser,
                     [self = this->shared_from_this()](beast::error_code ec, std::size_t) { self->onBodyChunk(ec); });
}

template <class S>
void BasicHttpSession<S>::readRawBody()
{
    if (m_remaining == 0) {
        bodyDone();
        return;
    }
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(m_remaining, m_chunk.size()));
    lowest().expires_after(m_ctx->options.ioTimeout);
    asio::async_read(m_stream, asio::buffer(m_chunk.data(), want),
                     [self = this->shared_from_this()](beast::error_code ec, std::size_t n) {
                         if (ec) {
                             // Client gone or too slow mid-body: nothing is stored.
                             self->m_sink.reset();
                             self->recordOp(kClientAbort);
                             self->closeConnection();
                             return;
                         }
                         self->consumeThen(self->m_chunk.data(), n, [self, n] {
                             self->m_remaining -= n;
                             self->readRawBody();
                         });
                     });
}

template <class S>
void BasicHttpSession<S>::consumeThen(const char* data, std::size_t n, std::function<void()> next)
{
    if (n == 0) {
        next();
        return;
    }
    if (!m_sink || !m_sink->writesBlock()) {
        if (consumeBody(data, n)) next();
        return;
    }
    // A sink that writes to another node: its write runs on a worker, and
    // the next read waits for it (`data` stays untouched until then).
    m_bodyBytes += n;
    lowest().expires_never();
    asio::post(*m_ctx->workers, [self = this->shared_from_this(), data, n, next = std::move(next)]() mutable {
        api::Status st;
        try {
            st = self->m_sink->write(data, n);
        } catch (const std::exception& e) {
            logError("upload write threw: ", e.what());
            st = api::Error::internal(e.what());
        }
        asio::post(self->m_stream.get_executor(), [self, st = std::move(st), next = std::move(next)]() mutable {
            if (!st) {
                self->m_sink.reset();
                self->fail(st.error(), true);
                return;
            }
            next();
        });
    });
}

template <class S>
bool BasicHttpSession<S>::consumeBody(const char* data, std::size_t n)
{
    m_bodyBytes += n;
    if (m_sink) {
        auto st = m_sink->write(data, n);
        if (!st) {
            m_sink.reset();
            fail(st.error(), true);
            return false;
        }
        return true;
    }
    if (m_req.body.size() + n > m_route->maxBody) {
        fail(api::Error{api::ErrorKind::TooLarge,
                        "request body larger than " + std::to_string(m_route->maxBody) + " bytes",
                        {}},
             true);
        return false;
    }
    m_req.body.append(data, n);
    return true;
}

template <class S>
void BasicHttpSession<S>::onBodyChunk(beast::error_code ec)
{
    if (ec == http::error::need_buffer) ec = {};
    if (ec) {
        // The client went away or sent garbage mid-body: nothing is stored.
        m_sink.reset();
        if (ec == beast::error::timeout || ec == http::error::partial_message || ec == asio::error::eof ||
            ec == asio::error::connection_reset) {
            recordOp(kClientAbort);
            closeConnection();
        } else {
            fail(api::Error::badRequest("malformed request body: " + ec.message()), true);  // counted as its 400
        }
        return;
    }
    const std::size_t n = m_chunk.size() - m_parser->get().body().size;
    consumeThen(m_chunk.data(), n, [self = this->shared_from_this()] {
        if (self->m_parser->is_done()) {
            self->bodyDone();
            return;
        }
        self->readBody();
    });
}

template <class S>
void BasicHttpSession<S>::bodyDone()
{
    m_bodyComplete = true;
    if (m_sink) {
        finishUpload();
        return;
    }
    dispatch(*m_route);
}

template <class S>
void BasicHttpSession<S>::dispatch(const Route& route)
{
    auto run = [self = this->shared_from_this(), &route]() -> Response {
        try {
            return route.handler(self->m_req);
        } catch (const std::exception& e) {
            logError("handler for ", self->m_req.path, " threw: ", e.what());
            return Response::error(api::Error::internal(e.what()));
        }
    };
    std::function<Response()> work = run;
    if (route.exec != Exec::Worker && route.exec != Exec::Peer) {
        Response res = run();
        if (!res.continuation) {
            send(std::move(res));
            return;
        }
        if (route.exec != Exec::InlineFirst) {
            logError("handler for ", m_req.path, " continued on the workers outside an InlineFirst route");
            send(Response::error(api::Error::internal("handler continued on an inline route")));
            return;
        }
        work = [self = this->shared_from_this(), rest = std::move(res.continuation)]() -> Response {
            try {
                return rest();
            } catch (const std::exception& e) {
                logError("handler for ", self->m_req.path, " threw: ", e.what());
                return Response::error(api::Error::internal(e.what()));
            }
        };
    }
    // A long handler (a big listing) must not trip the read timeout armed for
    // the request; send() arms the write timeout.
    lowest().expires_never();
    auto& pool =
        route.exec == Exec::Peer && m_ctx->internalWorkers != nullptr ? *m_ctx->internalWorkers : *m_ctx->workers;
    asio::post(pool, [self = this->shared_from_this(), work = std::move(work)]() mutable {
        Response res = work();
        asio::post(self->m_stream.get_executor(),
                   [self, res = std::move(res)]() mutable { self->send(std::move(res)); });
    });
}

template <class S>
void BasicHttpSession<S>::finishUpload()
{
    if (m_sink->finishesInline()) {
        Response res = m_sink->finish();
        m_sink.reset();
        send(std::move(res));
        return;
    }
    lowest().expires_never();
    auto* pool = m_ctx->workers;
    if (m_sink->receivesFromPeer() && m_ctx->internalWorkers != nullptr) pool = m_ctx->internalWorkers;
    else if (m_sink->finishWaitsOnDisk() && m_ctx->commitWorkers != nullptr) pool = m_ctx->commitWorkers;
    asio::post(*pool, [self = this->shared_from_this()]() mutable {
        Response res;
        try {
            res = self->m_sink->finish();
        } catch (const std::exception& e) {
            logError("upload finish threw: ", e.what());
            res = Response::error(api::Error::internal(e.what()));
        }
        asio::post(self->m_stream.get_executor(), [self, res = std::move(res)]() mutable {
            self->m_sink.reset();
            self->send(std::move(res));
        });
    });
}

template <class S>
void BasicHttpSession<S>::send(Response res)
{
    const bool keepAlive = m_parser && m_parser->get().keep_alive() && !res.close &&
                           (m_bodyComplete || !m_req.hasBody) && !m_ctx->draining.load(std::memory_order_relaxed);
    m_closeAfter = !keepAlive;
    const unsigned version = m_parser ? m_parser->get().version() : 11;
    const bool headRequest = m_req.method == http::verb::head;
    m_status = res.status;
    std::uint64_t partsLength = 0;
    for (const auto& p : res.parts) partsLength += p.file ? p.file->length : p.bytes.size();
    const bool inParts = !res.parts.empty();
    m_sentBytes = headRequest ? 0
                  : inParts   ? partsLength
                              : (res.file     ? res.file->length
                                 : res.source ? res.sourceLength
                                              : res.body.size());
    if (m_ctx->auditor && !m_audited && m_route != nullptr && isAuditedChange(*m_route, m_req)) {
        m_audited = true;
        m_ctx->auditor(m_req, res.status);
    }

    // A small file region goes out with the header in one write: cheaper
    // than a header write plus a sendfile for a few KiB.
    if (res.file && !headRequest && res.file->length <= kInlineFileBytes) {
        std::string body(static_cast<std::size_t>(res.file->length), '\0');
        if (const int rerr = preadExact(res.file->fd->get(), body.data(), body.size(), res.file->offset); rerr != 0) {
            const auto e = errnoError(rerr, "cannot read the object");
            logWarn("read of ", m_req.path, " failed: ", e.message, " ", e.causedBy);
            Response err = Response::error(e);
            err.close = true;
            res = std::move(err);
            m_status = res.status;
            m_sentBytes = res.body.size();
        } else {
            res.body = std::move(body);
            res.file.reset();
        }
    }

    // The head is written by hand into a buffer the connection reuses: for a
    // small response, a generic serializer and a header container cost more
    // CPU than the rest of the request. File bodies follow by sendfile; a
    // HEAD answer announces a length and sends no body.
    const bool bodyFollows = !headRequest && !res.isHead && !res.file && !res.source && !inParts;
    const std::uint64_t length = inParts      ? partsLength
                                 : res.file   ? res.file->length
                                 : res.source ? res.sourceLength
                                 : res.isHead ? res.headContentLength
                                              : res.body.size();
    writeResponseHead(m_head, version, res, keepAlive, length);
    if (bodyFollows) m_body = std::move(res.body);
    else m_body.clear();
    if (!headRequest) m_file = std::move(res.file);
    m_parts.clear();
    m_nextPart = 0;
    if (!headRequest && inParts) {
        m_parts = std::move(res.parts);
        if (!m_parts.front().file) m_body = std::move(m_parts[m_nextPart++].bytes);  // goes with the head
    }
    if (!headRequest && res.source) {
        m_source = std::move(res.source);
        m_sourceLeft = res.sourceLength;
        if constexpr (!kTls) {
            // A plain relay moves by splice: the bytes read with the source's
            // head go out with this head, the rest socket to socket.
            if (auto pump = SplicePump::create()) {
                if (auto raw = m_source->takeRaw(); raw && raw->buffered.size() <= m_sourceLeft) {
                    m_sourceLeft -= raw->buffered.size();
                    m_body = std::move(raw->buffered);
                    m_spliceFrom = raw->fd;
                    m_splice = std::make_unique<SplicePump>(std::move(*pump));
                }
            }
        }
    }
    lowest().expires_after(m_ctx->options.ioTimeout);
    if constexpr (kTls) {
        // One buffer: the SSL stream, given the head and a body of more
        // than 16 KiB as two, wrote the head and stalled on the body.
        m_head += m_body;
        m_body.clear();
    }
    const std::array<asio::const_buffer, 2> buffers{asio::buffer(m_head), asio::buffer(m_body)};
    asio::async_write(m_stream, buffers, [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
        if (!ec && !self->m_parts.empty()) {
            self->sendNextPart();
            return;
        }
        if (!ec && self->m_file) {
            self->sendFileChunk();
            return;
        }
        if (!ec && self->m_splice) {
            self->sendSpliceChunk();
            return;
        }
        if (!ec && self->m_source) {
            self->sendSourceChunk();
            return;
        }
        self->onWritten(ec);
    });
}

template <class S>
void BasicHttpSession<S>::onWritten(beast::error_code ec)
{
    if (m_body.capacity() > kKeepBodyCapacity) std::string().swap(m_body);  // a big answer's memory goes
    recordOp(ec ? kClientAbort : m_status);
    endRequest();
    if (ec || m_closeAfter) {
        closeConnection();
        return;
    }
    doReadHeader();
}

template <class S>
void BasicHttpSession<S>::fail(const api::Error& e, bool close)
{
    Response res = Response::error(e);
    res.close = close;
    send(std::move(res));
}

template <class S>
void BasicHttpSession<S>::recordOp(int status)
{
    if (m_recorded || m_route == nullptr || !m_route->op || m_ctx->stats == nullptr) return;
    m_recorded = true;
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - m_start);
    m_ctx->stats->record(*m_route->op, status, m_bodyBytes + m_sentBytes, static_cast<std::uint64_t>(ns.count()));
}

template <class S>
void BasicHttpSession<S>::acceptWebSocket()
{
    const auto& hdr = m_parser->get();
    if (!beast::websocket::is_upgrade(hdr)) {
        fail(api::Error{api::ErrorKind::BadRequest,
                        "this endpoint only accepts WebSocket upgrades (GET with Connection: Upgrade and "
                        "Upgrade: websocket)",
                        {}},
             m_req.hasBody);
        return;
    }
    http::request<http::empty_body> up;
    up.base() = hdr.base();
    std::optional<Response> refused;
    try {
        refused = m_route->websocket(m_req, AnyStream{&m_stream}, std::move(up));
    } catch (const std::exception& e) {
        logError("websocket accept threw: ", e.what());
        refused = Response::error(api::Error::internal(e.what()));
    }
    if (refused) {
        refused->close = true;
        send(std::move(*refused));
    }
    // Otherwise the stream has left this session, which ends here.
}

template <class S>
void BasicHttpSession<S>::closeConnection()
{
    beast::error_code ec;
    lowest().socket().shutdown(tcp::socket::shutdown_send, ec);
    lowest().socket().close(ec);
}

template class BasicHttpSession<Stream>;
template class BasicHttpSession<SslStream>;

}  // namespace tessera::daemon::net
