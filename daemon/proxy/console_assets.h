#pragma once
// The web console's static files (console/web, built by esbuild) served by
// the proxy at /console/. The files are read into memory from one directory
// when first asked for (the bundle is about 100 KiB; at most kMaxTotalBytes
// are read, kMaxFiles files): a request names an entry of that table, never
// a path on disk, so no request can read outside the bundle.
//
// Rules (docs/web-console.md, "Serving rules"):
// - `assets/<name>-<hash>.<ext>`: the bundle's hashed files, `Cache-Control:
//   public, max-age=31536000, immutable`; `404` for a name not in the bundle.
// - every other path under /console/ (a bucket, a prefix, an object, a job:
//   the console's deep links) answers `index.html` with `Cache-Control:
//   no-cache`, so a reload after an upgrade gets the new asset names.
// - a path with a `..` or `.` segment, a backslash or a NUL (raw or
//   percent-encoded) is `400`.
// - gzip: a file with a `<file>.gz` beside it (written by the build) is sent
//   compressed to clients whose Accept-Encoding takes gzip (`Vary:
//   Accept-Encoding` on every answer).
// - every answer carries the Content-Security-Policy below (no inline script
//   or style, connections to the proxy's own origin only), nosniff and
//   `frame-ancestors 'none'`.
// - no bundle in the directory: an HTML page (`503`) saying how to build it.
//
// Thread safety: serve() may be called from any thread at once.

#include "net/request.h"
#include "net/response.h"
#include "net/router.h"

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace tessera::daemon::proxy {

class ConsoleAssets {
public:
    static constexpr std::size_t kMaxFiles = 256;
    static constexpr std::size_t kMaxTotalBytes = std::size_t{32} << 20;  // 32 MiB
    static constexpr std::string_view kContentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; "
        "connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'";

    // `dir`: the bundle directory (index.html and assets/). It may be
    // absent or empty: then every answer is the "how to build" page, and
    // each request looks again (a bundle built after the proxy started is
    // served without a restart).
    explicit ConsoleAssets(std::string dir);

    // GET and HEAD of /console and /console/..., open to anyone when auth
    // is on (the files hold no data; the page signs in).
    void registerRoutes(net::Router& router);

    // GET or HEAD of /console or /console/<path...>.
    net::Response serve(const net::Request& req);

    // The directory the proxy uses by default: the first of
    // <exe>/../share/tessera/console (an install) and
    // <exe>/../console/web/dist (the build tree, where tessera-node sits in
    // daemon/) that holds an index.html; the install location otherwise.
    static std::string defaultDir();

    const std::string& dir() const { return m_dir; }

private:
    struct File {
        std::string contentType;
        std::string bytes;
        std::string gzip;  // empty: no compressed copy
    };
    using Table = std::map<std::string, File, std::less<>>;

    // The loaded table, loading it first when it is not there yet.
    std::shared_ptr<const Table> table();
    net::Response missingBundle() const;

    std::string m_dir;
    std::mutex m_mutex;
    std::shared_ptr<const Table> m_table;  // null until a bundle was found
};

// The Content-Type for a file name's extension (application/octet-stream
// when unknown).
std::string consoleContentType(std::string_view name);

}  // namespace tessera::daemon::proxy
