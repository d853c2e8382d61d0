#pragma once
// One blocking HTTP/1.1 exchange with a target, for the S3 front end's
// relay: the request head is sent at once, the body is written as it
// arrives from the S3 client, and the answer's body is read in pieces as
// the S3 client takes it. Memory is the parser's buffer and the caller's
// chunk, whatever the object's size. An https:// target is reached over
// TLS with the node's client context: its certificate must chain to the CA
// the node trusts (tls.ca_file) and name the target's host.
//
// Thread safety: one thread at a time (the relay hands it from worker to
// worker, one call after the other).

#include "api/result.h"
#include "client/http_client.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::daemon::s3 {

struct TargetHead {
    int status = 0;
    std::map<std::string, std::string> headers;  // names lower case
    std::optional<std::uint64_t> contentLength;  // none: chunked
    std::string header(std::string_view name) const
    {
        auto it = headers.find(std::string(name));
        return it == headers.end() ? std::string() : it->second;
    }
};

class TargetCall {
public:
    ~TargetCall();
    TargetCall(const TargetCall&) = delete;
    TargetCall& operator=(const TargetCall&) = delete;

    // Connects to `baseUrl` ("http://host:port" or "https://host:port"; TLS
    // handshake included) and sends the request head
    // (with Content-Length when `contentLength` is set). Unavailable when the
    // target cannot be reached.
    static api::Result<std::unique_ptr<TargetCall>> start(std::string_view baseUrl, std::string_view method,
                                                          std::string_view pathAndQuery, const client::Headers& headers,
                                                          std::optional<std::uint64_t> contentLength,
                                                          std::chrono::milliseconds timeout);
    // Body bytes, in order; at most the announced length in all.
    api::Status write(const char* data, std::size_t size);
    // The answer's status and fields (once the body, if any, was written).
    api::Result<TargetHead> readHead(bool headRequest = false);
    // After readHead: up to `cap` body bytes (0: the body ended).
    api::Result<std::size_t> readBody(char* buf, std::size_t cap);
    // After readHead: the whole body, when it is at most `limit` bytes (an
    // error document).
    api::Result<std::string> readSmallBody(std::size_t limit);
    // Right after readHead, for a body of known length over plain TCP: the
    // body bytes read along with the head, and the socket that carries the
    // rest (blocking, reads time out). The call is then used up: only its
    // destructor may follow. Nullopt over TLS or for a chunked body.
    struct RawBody {
        std::string buffered;
        int fd = -1;
    };
    std::optional<RawBody> takeRawBody();

private:
    TargetCall();
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace tessera::daemon::s3
