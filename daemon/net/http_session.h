#pragma once
// One HTTP/1.1 connection: reads a request header, routes it, reads the body
// (buffered into memory up to the route's limit, or streamed into an
// UploadSink), runs the handler inline or on the worker pool, writes the
// response (sendfile for file regions), and loops while keep-alive holds.
// Everything touching the socket runs on the connection's io_context, which
// one thread runs (HttpServer); work from other threads is posted to it.

#include "http_server.h"
#include "splice_pump.h"

#include "stream.h"
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <variant>
#include <vector>

namespace tessera::daemon::net {

// Writes a response's status line and fields into `out` (replacing what it
// held): the handler's fields (a later one of a name replaces an earlier; CR
// and LF never pass), Server, Connection as keep-alive and the version ask,
// and Content-Length unless the status carries no body. Exposed for tests.
void writeResponseHead(std::string& out, unsigned version, const Response& res, bool keepAlive,
                       std::uint64_t contentLength);

// What the server and a drain reach of every HTTP session, plain or TLS.
class HttpSession {
public:
    virtual ~HttpSession() = default;

    // A session on an accepted socket, TLS when the server has a TLS
    // context (the handshake is its first step). `peer` holds one of its
    // address's connection slots (acquired by the server), released when the
    // session ends.
    static void start(Socket socket, std::shared_ptr<ServerContext> ctx, boost::asio::ip::address peer);
    // During a drain: closes the connection if it is waiting for a request
    // and no byte of one has arrived. Any thread; the session's last
    // reference is then dropped on its own I/O thread.
    static void closeIfIdle(std::shared_ptr<HttpSession> session) { session->postCloseIfIdle(); }
    // Answers 503 on a socket over the connection cap and closes it (TLS:
    // closes it; a plaintext answer would not be read).
    static void rejectBusy(Socket socket, bool tls);

protected:
    virtual void postCloseIfIdle() = 0;
};

// One connection over stream type S (Stream or SslStream).
template <class S>
class BasicHttpSession final : public HttpSession, public std::enable_shared_from_this<BasicHttpSession<S>> {
public:
    static constexpr bool kTls = std::is_same_v<S, SslStream>;
    static constexpr std::size_t kBodyChunk = 256 * 1024;        // request bodies are read in pieces of this size
    static constexpr std::size_t kRelayBodyChunk = 1024 * 1024;  // ... and relayed ones (UploadSink::writesBlock)

    BasicHttpSession(Socket socket, std::shared_ptr<ServerContext> ctx, boost::asio::ip::address peer,
                     std::shared_ptr<boost::asio::ssl::context> tls);
    ~BasicHttpSession() override;

    void run();

private:
    void postCloseIfIdle() override;
    // TLS: tells a plain HTTP client off, or completes the handshake and
    // reads the first request head.
    void handshake();
    // TLS port, plain HTTP request: a 400 in plain HTTP, then close.
    void refusePlaintext();
    void doReadHeader();
    // `headBytes`: the request head's length, line and fields.
    void onHeader(boost::beast::error_code ec, std::size_t headBytes);
    void sendContinueThen(void (BasicHttpSession::*next)());
    void readBody();
    void onBodyChunk(boost::beast::error_code ec);
    void readRawBody();
    // Hands body bytes to the sink or the in-memory body; on failure the
    // error response is already under way and false is returned.
    bool consumeBody(const char* data, std::size_t n);
    // Gives the bytes to the sink (on a worker when its writes block) or the
    // buffered body, then runs `next` on this connection's thread; on a
    // refusal the error is sent instead.
    void consumeThen(const char* data, std::size_t n, std::function<void()> next);
    std::variant<Response, std::unique_ptr<UploadSink>> startUpload();
    void onUploadStarted(std::variant<Response, std::unique_ptr<UploadSink>> started);
    void bodyDone();
    void dispatch(const Route& route);
    void finishUpload();
    void send(Response res);
    void onWritten(boost::beast::error_code ec);
    void sendFileChunk();
    // TLS: a file region read in chunks and written through the stream
    // (sendfile would bypass the encryption).
    void sendFileChunkTls();
    // After a file region: the next part of a body in parts, or the end.
    void fileSent();
    // A body in parts: the next one (bytes written, a region by sendfile).
    void sendNextPart();
    // A BodySource: each chunk read on the worker pool, written here.
    void sendSourceChunk();
    void sendSpliceChunk();
    void endSplice();
    void fail(const api::Error& e, bool close);
    // Counts the request in the node's statistics (once; routes with an op).
    void recordOp(int status);
    void acceptWebSocket();
    void closeConnection();
    // The request counted in ServerContext::inFlight is over (once).
    void endRequest();

    auto& lowest() { return boost::beast::get_lowest_layer(m_stream); }

    std::shared_ptr<boost::asio::ssl::context> m_tls;  // kept alive for m_stream (TLS only)
    S m_stream;
    boost::beast::flat_buffer m_buffer;
    std::shared_ptr<ServerContext> m_ctx;
    boost::asio::ip::address m_peer;
    bool m_hadRequest = false;      // a first request head arrived (see doReadHeader)
    bool m_waitingForHead = false;  // between requests (a drain may close it)
    bool m_inFlight = false;        // counted in ServerContext::inFlight
    std::optional<boost::beast::http::request_parser<boost::beast::http::buffer_body>> m_parser;
    Request m_req;
    const Route* m_route = nullptr;
    std::unique_ptr<UploadSink> m_sink;
    std::vector<char> m_chunk;
    bool m_bodyComplete = false;
    std::uint64_t m_remaining = 0;                  // Content-Length body bytes still to read
    std::chrono::steady_clock::time_point m_start;  // request header complete
    std::uint64_t m_bodyBytes = 0;                  // request body bytes received
    std::uint64_t m_sentBytes = 0;                  // response payload bytes promised
    int m_status = 0;                               // status of the response in flight
    bool m_recorded = false;

    // response in flight
    std::string m_head;  // status line and fields (reused between requests)
    std::string m_body;  // in-memory body
    std::unique_ptr<FileRegion> m_file;
    std::vector<BodyPart> m_parts;  // a body in parts: m_nextPart is the next to send
    std::size_t m_nextPart = 0;
    std::shared_ptr<BodySource> m_source;
    std::uint64_t m_sourceLeft = 0;
    std::vector<char> m_sourceBuf;         // while a BodySource is sent (1 MiB)
    std::unique_ptr<SplicePump> m_splice;  // set: m_source's rest moves by splice from m_spliceFrom
    int m_spliceFrom = -1;
    bool m_audited = false;  // this request's control change was told to the auditor
    bool m_closeAfter = false;
    boost::asio::basic_waitable_timer<std::chrono::steady_clock, boost::asio::wait_traits<std::chrono::steady_clock>,
                                      Executor>
        m_sendTimer;
};

}  // namespace tessera::daemon::net
