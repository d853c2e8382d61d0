#include "console_assets.h"

#include "api/uri.h"
#include "common/log.h"

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace tessera::daemon::proxy {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kImmutable = "public, max-age=31536000, immutable";
constexpr std::string_view kNoCache = "no-cache";
constexpr std::string_view kAssetsPrefix = "assets/";

struct TypeByExt {
    std::string_view ext;
    std::string_view type;
};
constexpr std::array<TypeByExt, 12> kTypes{{
    {".html", "text/html; charset=utf-8"},
    {".js", "text/javascript; charset=utf-8"},
    {".mjs", "text/javascript; charset=utf-8"},
    {".css", "text/css; charset=utf-8"},
    {".json", "application/json"},
    {".map", "application/json"},
    {".svg", "image/svg+xml"},
    {".png", "image/png"},
    {".ico", "image/x-icon"},
    {".woff2", "font/woff2"},
    {".txt", "text/plain; charset=utf-8"},
    {".webmanifest", "application/manifest+json"},
}};

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool acceptsGzip(const net::Request& req)
{
    // A client that names gzip with q=0 refuses it; anything else that
    // names it takes it. Browsers send "gzip, deflate, br, zstd".
    const auto ae = req.header("Accept-Encoding");
    std::size_t pos = 0;
    while (pos < ae.size()) {
        auto comma = ae.find(',', pos);
        auto item = std::string_view(ae).substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        pos = comma == std::string::npos ? ae.size() : comma + 1;
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        auto semi = item.find(';');
        auto coding = item.substr(0, semi);
        while (!coding.empty() && coding.back() == ' ') coding.remove_suffix(1);
        if (coding != "gzip" && coding != "x-gzip" && coding != "*") continue;
        if (semi != std::string_view::npos) {
            auto q = item.find("q=", semi);
            if (q != std::string_view::npos) return std::strtod(std::string(item.substr(q + 2)).c_str(), nullptr) > 0;
        }
        return true;
    }
    return false;
}

// Each segment of the still-encoded path, decoded; a segment that is "."
// or "..", or holds '\\' or NUL after decoding, makes the path unsafe.
api::Result<std::string> safeRelativePath(std::string_view encoded)
{
    auto decoded = api::percentDecode(encoded);
    if (!decoded) return decoded.error();
    const std::string& p = *decoded;
    if (p.find('\0') != std::string::npos || p.find('\\') != std::string::npos) {
        return api::Error::badRequest("console path holds a backslash or a NUL");
    }
    std::size_t start = 0;
    while (start <= p.size()) {
        auto slash = p.find('/', start);
        auto seg = std::string_view(p).substr(start, slash == std::string::npos ? std::string::npos : slash - start);
        if (seg == "." || seg == "..") return api::Error::badRequest("console path holds a \".\" or \"..\" segment");
        if (slash == std::string::npos) break;
        start = slash + 1;
    }
    return p;
}

void addCommonHeaders(net::Response& r)
{
    r.header("Content-Security-Policy", std::string(ConsoleAssets::kContentSecurityPolicy));
    r.header("X-Content-Type-Options", "nosniff");
    r.header("Referrer-Policy", "no-referrer");
    r.header("Vary", "Accept-Encoding");
}

std::string exeDir()
{
    std::error_code ec;
    auto exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    return exe.parent_path().string();
}

std::string htmlEscape(std::string_view s)
{
    std::string out;
    for (char c : s) {
        switch (c) {
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '&': out += "&amp;"; break;
        case '"': out += "&quot;"; break;
        default: out += c;
        }
    }
    return out;
}

bool readWhole(const fs::path& p, std::string& out)
{
    std::ifstream in(p, std::ios::binary);
    if (!in) return false;
    std::ostringstream ss;
    ss << in.rdbuf();
    out = std::move(ss).str();
    return static_cast<bool>(in) || in.eof();
}

}  // namespace

std::string consoleContentType(std::string_view name)
{
    for (const auto& t : kTypes) {
        if (endsWith(name, t.ext)) return std::string(t.type);
    }
    return "application/octet-stream";
}

ConsoleAssets::ConsoleAssets(std::string dir) : m_dir(std::move(dir)) {}

void ConsoleAssets::registerRoutes(net::Router& router)
{
    namespace http = boost::beast::http;
    // On the worker pool: the first request (or every one while no bundle
    // is there) reads the directory.
    for (auto verb : {http::verb::get, http::verb::head}) {
        for (const char* pattern : {"/console", "/console/{path...}"}) {
            net::Route route;
            route.method = verb;
            route.pattern = pattern;
            route.exec = net::Exec::Worker;
            route.handler = [this](const net::Request& r) { return serve(r); };
            router.add(net::needs(std::move(route), net::Access::open()));
        }
    }
}

std::string ConsoleAssets::defaultDir()
{
    const auto base = exeDir();
    if (base.empty()) return {};
    const std::array<fs::path, 2> candidates{fs::path(base) / ".." / "share" / "tessera" / "console",
                                             fs::path(base) / ".." / "console" / "web" / "dist"};
    for (const auto& c : candidates) {
        std::error_code ec;
        if (fs::is_regular_file(c / "index.html", ec)) return fs::weakly_canonical(c, ec).string();
    }
    return fs::weakly_canonical(candidates[0]).string();
}

std::shared_ptr<const ConsoleAssets::Table> ConsoleAssets::table()
{
    std::lock_guard lock(m_mutex);
    if (m_table) return m_table;
    std::error_code ec;
    const fs::path root(m_dir);
    if (m_dir.empty() || !fs::is_regular_file(root / "index.html", ec)) return nullptr;
    auto t = std::make_shared<Table>();
    std::size_t total = 0;
    // index.html at the top, everything else in assets/ (one level: the
    // build writes no deeper tree). Symbolic links are not followed.
    std::vector<std::pair<std::string, fs::path>> found{{"index.html", root / "index.html"}};
    for (fs::directory_iterator it(root / "assets", ec), end; !ec && it != end; it.increment(ec)) {
        if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
        const auto name = it->path().filename().string();
        if (endsWith(name, ".gz")) continue;
        found.emplace_back(std::string(kAssetsPrefix) + name, it->path());
    }
    if (found.size() > kMaxFiles) {
        logWarn("console: ", m_dir, " holds ", found.size(), " files, more than ", kMaxFiles, "; not served");
        return nullptr;
    }
    for (const auto& [name, path] : found) {
        File f;
        f.contentType = consoleContentType(name);
        if (!readWhole(path, f.bytes)) {
            logWarn("console: cannot read ", path.string());
            return nullptr;
        }
        auto gz = path;
        gz += ".gz";
        if (fs::is_regular_file(gz, ec) && !readWhole(gz, f.gzip)) f.gzip.clear();
        total += f.bytes.size() + f.gzip.size();
        if (total > kMaxTotalBytes) {
            logWarn("console: ", m_dir, " holds more than ", kMaxTotalBytes, " bytes; not served");
            return nullptr;
        }
        t->emplace(name, std::move(f));
    }
    logInfo("console: ", t->size(), " file(s), ", total, " bytes from ", m_dir, " at /console/");
    m_table = std::move(t);
    return m_table;
}

net::Response ConsoleAssets::missingBundle() const
{
    std::string body =
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Tessera console: not built</title>"
        "</head><body><h1>The web console is not built</h1>\n"
        "<p>This proxy looked for the console's files in <code>" +
        (m_dir.empty() ? std::string("(no directory)") : htmlEscape(m_dir)) +
        "</code> and found no <code>index.html</code>.</p>\n"
        "<p>Build it with Node.js 18 or newer and npm (Debian: <code>apt-get install nodejs npm</code>, "
        "or <code>installers/deps.sh</code>), then build Tessera again: the CMake target "
        "<code>tessera_web_console</code> runs <code>npm ci</code> and the bundle build "
        "(<code>installers/build.sh release</code>), or by hand: <code>cd console/web &amp;&amp; npm ci &amp;&amp; "
        "npm run build</code>. Point the proxy at the result with <code>--console-dir DIR</code> "
        "(config <code>console_dir</code>); this page serves it as soon as it is there.</p>\n"
        "<p>The REST API (<code>/v1/</code>) and the feed (<code>/v1/ws</code>) work without it.</p>\n"
        "</body></html>\n";
    net::Response r;
    r.status = 503;
    r.body = std::move(body);
    r.header("Content-Type", "text/html; charset=utf-8");
    r.header("Cache-Control", "no-store");
    addCommonHeaders(r);
    return r;
}

net::Response ConsoleAssets::serve(const net::Request& req)
{
    if (req.path == "/console") {
        net::Response r = net::Response::redirect("/console/");
        addCommonHeaders(r);
        return r;
    }
    constexpr std::string_view kPrefix = "/console/";
    std::string_view rest = req.path;
    if (rest.substr(0, kPrefix.size()) == kPrefix) rest.remove_prefix(kPrefix.size());
    else rest = {};
    auto rel = safeRelativePath(rest);
    if (!rel) {
        net::Response r = net::Response::error(rel.error());
        addCommonHeaders(r);
        return r;
    }
    auto t = table();
    if (!t) return missingBundle();

    const bool asset = rel->substr(0, kAssetsPrefix.size()) == kAssetsPrefix;
    auto it = t->find(asset ? std::string_view(*rel) : std::string_view("index.html"));
    if (it == t->end()) {
        net::Response r = net::Response::error(api::Error::notFound("no console asset \"" + *rel + "\""));
        r.header("Cache-Control", "no-store");
        addCommonHeaders(r);
        return r;
    }
    const File& f = it->second;
    net::Response r;
    const bool gzip = !f.gzip.empty() && acceptsGzip(req);
    r.body = gzip ? f.gzip : f.bytes;
    r.header("Content-Type", f.contentType);
    if (gzip) r.header("Content-Encoding", "gzip");
    r.header("Cache-Control", std::string(asset ? kImmutable : kNoCache));
    addCommonHeaders(r);
    return r;
}

}  // namespace tessera::daemon::proxy
