#pragma once
// A small synchronous HTTP/1.1 client over Boost.Beast: keep-alive
// connections reused per host, connect and I/O timeouts, redirects followed
// (re-sending the body on 307/308), bodies streamed from files and into sinks
// so memory stays bounded whatever the object size. https:// URLs go over
// TLS (OpenSSL), the server's certificate checked against Options::tls.
//
// Thread safety: an HttpClient is used by one thread at a time. Create one per
// worker thread.

#include "api/result.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera::client {

enum class Method { Get, Head, Put, Post, Delete, Patch };

using Headers = std::vector<std::pair<std::string, std::string>>;

// Request body: nothing, bytes in memory, or a whole file streamed from disk.
struct Body {
    enum class Kind { None, String, File };
    Kind kind = Kind::None;
    std::string data;  // Kind::String: the bytes; Kind::File: the path

    static Body none() { return {}; }
    static Body string(std::string s) { return {Kind::String, std::move(s)}; }
    static Body file(std::string path) { return {Kind::File, std::move(path)}; }
};

struct Response {
    int status = 0;
    std::map<std::string, std::string> headers;  // names lowercased
    std::string body;                            // empty when streamed to a sink
    std::string finalUrl;                        // after redirects
    int redirects = 0;

    std::string header(std::string_view name) const;  // "" when absent; name is matched lowercased
    bool isSuccess() const { return status >= 200 && status < 300; }
};

// Receives a 2xx response body in chunks; a failing status aborts the transfer.
using Sink = std::function<api::Status(const char* data, std::size_t size)>;

struct ParsedUrl {
    std::string host;
    std::string port;    // "80" when absent ("443" for https)
    std::string target;  // path + query, at least "/"
    bool tls = false;    // https://
};
// http:// and https:// only (the scheme in any case); BadRequest otherwise.
api::Result<ParsedUrl> parseUrl(std::string_view url);

class HttpClient {
public:
    struct Options {
        std::chrono::milliseconds connectTimeout{5000};
        std::chrono::milliseconds ioTimeout{60000};
        int maxRedirects = 5;
        // A 503 with Retry-After (a target a moment behind the cluster map)
        // is retried this many times, waiting Retry-After capped at 1 s.
        int retriesOn503 = 2;
        bool followRedirects = true;
        std::size_t maxBodyInMemory = std::size_t{512} << 20;  // bodies bigger than this need a sink
        // Sent with every request and every redirect it follows (a
        // credential: `Authorization: Bearer ...` from the CLI, the cluster
        // key from a node); a call's own header of the same name wins.
        Headers headers;
        // How https:// servers are checked: their certificate must chain to
        // a trusted CA and name the URL's host (a DNS name or an IP address
        // SAN). A TLS handshake happens on the connection, before anything
        // of the request is sent.
        struct Tls {
            std::string caFile;     // PEM file of the CAs to trust; empty: the system's default store
            bool insecure = false;  // accept any certificate (test setups only)

            // What every Options of this process starts with (empty unless
            // set): a node sets its tls.ca_file once at start, so each client
            // it makes to call another node trusts the cluster's CA. Set it
            // before clients are made; thread-safe.
            static Tls processDefault();
            static void setProcessDefault(Tls t);
        };
        Tls tls = Tls::processDefault();
    };

    HttpClient();
    explicit HttpClient(Options options);
    ~HttpClient();
    HttpClient(const HttpClient&) = delete;
    HttpClient& operator=(const HttpClient&) = delete;

    // Sends a request. Any HTTP status is a successful Result; transport
    // failures (refused, reset, timeout, malformed response, a TLS handshake
    // that failed) are errors of kind Unavailable or Timeout; a CA file that
    // cannot be read is BadRequest. When `sink` is given and the final status
    // is 2xx, the body goes to the sink instead of Response::body.
    api::Result<Response> send(Method method, std::string_view url, const Body& body = {}, const Headers& headers = {},
                               const Sink* sink = nullptr);

    const Options& options() const { return m_options; }

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    Options m_options;
};

// An error of HttpClient::send that happened before any of the request
// could reach the server (it could not be resolved or connected to, or the
// TLS handshake failed): the server did nothing. Any other transport error
// leaves that unknown.
bool failedBeforeSending(const api::Error& e);

// An error of HttpClient::send because the server's certificate was not
// accepted (an unknown CA, another host's name, expired): the caller may
// suggest Options::tls.caFile. Implies failedBeforeSending.
bool failedOnCertificate(const api::Error& e);

}  // namespace tessera::client
