#include "router.h"

#include "api/headers.h"

namespace tessera::daemon::net {

namespace {
std::vector<std::string_view> splitPath(std::string_view path)
{
    std::vector<std::string_view> out;
    std::size_t i = 0;
    if (!path.empty() && path.front() == '/') i = 1;
    while (i <= path.size()) {
        auto slash = path.find('/', i);
        if (slash == std::string_view::npos) {
            out.push_back(path.substr(i));
            break;
        }
        out.push_back(path.substr(i, slash - i));
        i = slash + 1;
    }
    return out;
}

// Matches `path` against `pattern`, filling captures with still-encoded text.
bool matchPattern(std::string_view pattern, std::string_view path,
                  std::map<std::string, std::string, std::less<>>& caps)
{
    auto pp = splitPath(pattern);
    std::string_view rest = path;
    if (!rest.empty() && rest.front() == '/') rest.remove_prefix(1);
    for (std::size_t i = 0; i < pp.size(); ++i) {
        const auto seg = pp[i];
        if (seg.size() > 5 && seg.front() == '{' && seg.substr(seg.size() - 4) == "...}") {
            if (rest.empty()) return false;
            caps[std::string(seg.substr(1, seg.size() - 5))] = std::string(rest);
            return true;
        }
        auto slash = rest.find('/');
        auto cur = rest.substr(0, slash);
        if (seg.size() > 2 && seg.front() == '{' && seg.back() == '}') {
            if (cur.empty()) return false;
            caps[std::string(seg.substr(1, seg.size() - 2))] = std::string(cur);
        } else if (seg != cur) {
            return false;
        }
        if (slash == std::string_view::npos) {
            rest = {};
            if (i + 1 < pp.size()) return false;
        } else {
            rest = rest.substr(slash + 1);
            if (i + 1 == pp.size()) return rest.empty();  // tolerate one trailing '/'
        }
    }
    return rest.empty();
}
}  // namespace

void Router::add(Route route) { m_routes.push_back(std::move(route)); }

bool isAuditedChange(const Route& route, const Request& req)
{
    namespace http = boost::beast::http;
    if (req.method == http::verb::get || req.method == http::verb::head || route.websocket) return false;
    const bool control =
        route.access.kind == Access::Kind::Admin ||
        (route.access.kind == Access::Kind::Bucket && route.access.permission == api::Permission::AdminBucket);
    return control && req.header(api::kHdrClusterKey).empty();
}

api::Result<RouteMatch> Router::match(Request& req) const
{
    RouteMatch m;
    const auto rewritten = m_rewrite ? m_rewrite(req) : std::nullopt;
    const std::string& routed = rewritten ? *rewritten : req.path;
    for (const auto& r : m_routes) {
        std::map<std::string, std::string, std::less<>> caps;
        if (!matchPattern(r.pattern, routed, caps)) continue;
        m.pathMatched = true;
        const bool methodOk = r.method == req.method;
        if (!methodOk) continue;
        for (auto& [k, v] : caps) {
            auto d = api::percentDecode(v);
            if (!d) return d.error();
            req.params[k] = std::move(d.value());
        }
        m.route = &r;
        return m;
    }
    return m;
}

}  // namespace tessera::daemon::net
