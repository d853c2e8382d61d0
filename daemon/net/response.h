#pragma once
// What a handler returns: a status, headers, and a body that is either bytes
// in memory or a region of an open file (sent with sendfile). Builders here
// are the only place handlers make JSON, error and redirect responses.

#include "api/result.h"
#include "common/unique_fd.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera::daemon::net {

struct FileRegion {
    std::shared_ptr<UniqueFd> fd;
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
};

// A body produced while it is sent (the proxy relaying a target's answer to
// an S3 client). read() fills at most `cap` bytes and returns how many (0 or
// an error: the source failed; the connection is then closed, the length
// having been promised). Called on the worker pool, one call at a time,
// never on the connection's I/O thread, so it may block.
class BodySource {
public:
    virtual ~BodySource() = default;
    virtual api::Result<std::size_t> read(char* buf, std::size_t cap) = 0;

    // The rest of the body as bytes already read (`buffered`) followed by a
    // plain socket the kernel can move them from (splice), when the source
    // is one: a connection without TLS whose remaining bytes are exactly the
    // promised length. Once it returned a value read() is not called again;
    // `fd` stays open (blocking, with a read timeout) until the source is
    // destroyed. Called on the connection's I/O thread before the first read.
    struct Raw {
        std::string buffered;
        int fd = -1;
    };
    virtual std::optional<Raw> takeRaw() { return std::nullopt; }
};

// One piece of a body sent in parts: bytes in memory, or a region of an
// open file (sendfile, as a whole-file body).
struct BodyPart {
    std::string bytes;
    std::unique_ptr<FileRegion> file;  // when set, this part is the region
};

struct Response {
    int status = 200;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    std::unique_ptr<FileRegion> file;    // when set, the body is this file region
    std::shared_ptr<BodySource> source;  // when set, the body is sourceLength bytes read from it
    std::uint64_t sourceLength = 0;
    // When not empty, the body is these parts in order (bytes and file
    // regions mixed; `body` is unused): a dSort pull sends its records'
    // headers from memory and their files' bytes by sendfile.
    std::vector<BodyPart> parts;
    bool close = false;                   // close the connection after sending
    std::uint64_t headContentLength = 0;  // for HEAD: the Content-Length to announce
    bool isHead = false;
    // Exec::InlineFirst: the rest of the handler's work, to run on the worker
    // pool (it blocks); its answer is the response. Set by continueOnWorker.
    std::function<Response()> continuation;

    Response& header(std::string name, std::string value)
    {
        headers.emplace_back(std::move(name), std::move(value));
        return *this;
    }
    // Sets a header, replacing one of the same name (ASCII case ignored).
    Response& setHeader(std::string_view name, std::string value);

    static Response ok();
    static Response json(const nlohmann::json& j, int status = 200);
    static Response jsonText(std::string text, int status = 200);
    // Content-Type: application/msgpack (AIStore's clients ask for it).
    static Response msgpack(std::string bytes, int status = 200);
    // The JSON error body with the kind's status. Every 503 (Unavailable)
    // carries Retry-After: 1; setHeader changes it. Every 401 carries
    // WWW-Authenticate: Bearer.
    static Response error(const api::Error& e);
    static Response redirect(std::string location);  // 307
    // The handler hands over what it has done so far (captured in `work`),
    // instead of being run again from the top. `work` may refer to the
    // request: the session keeps it until the answer is sent.
    static Response continueOnWorker(std::function<Response()> work)
    {
        Response r;
        r.continuation = std::move(work);
        return r;
    }
};

}  // namespace tessera::daemon::net
