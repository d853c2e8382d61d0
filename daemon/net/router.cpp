#include "router.h"

#include "api/headers.h"

namespace tessera::daemon::net {

std::vector<Router::Segment> Router::compile(std::string_view pattern)
{
    std::vector<Segment> out;
    std::size_t i = 0;
    if (!pattern.empty() && pattern.front() == '/') i = 1;
    while (i <= pattern.size()) {
        auto slash = pattern.find('/', i);
        const auto seg = pattern.substr(i, slash == std::string_view::npos ? std::string_view::npos : slash - i);
        Segment s;
        if (seg.size() > 5 && seg.front() == '{' && seg.substr(seg.size() - 4) == "...}") {
            s.kind = Segment::Kind::Rest;
            s.text = std::string(seg.substr(1, seg.size() - 5));
        } else if (seg.size() > 2 && seg.front() == '{' && seg.back() == '}') {
            s.kind = Segment::Kind::Param;
            s.text = std::string(seg.substr(1, seg.size() - 2));
        } else {
            s.text = std::string(seg);
        }
        out.push_back(std::move(s));
        if (slash == std::string_view::npos) break;
        i = slash + 1;
    }
    return out;
}

// Matches `path` against a split pattern, filling captures with
// still-encoded text (views of `path`).
bool Router::matches(const std::vector<Segment>& pattern, std::string_view path, Captures& caps)
{
    caps.clear();
    std::string_view rest = path;
    if (!rest.empty() && rest.front() == '/') rest.remove_prefix(1);
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        const auto& seg = pattern[i];
        if (seg.kind == Segment::Kind::Rest) {
            if (rest.empty()) return false;
            caps.emplace_back(seg.text, rest);
            return true;
        }
        auto slash = rest.find('/');
        auto cur = rest.substr(0, slash);
        if (seg.kind == Segment::Kind::Param) {
            if (cur.empty()) return false;
            caps.emplace_back(seg.text, cur);
        } else if (seg.text != cur) {
            return false;
        }
        if (slash == std::string_view::npos) {
            rest = {};
            if (i + 1 < pattern.size()) return false;
        } else {
            rest = rest.substr(slash + 1);
            if (i + 1 == pattern.size()) return rest.empty();  // tolerate one trailing '/'
        }
    }
    return rest.empty();
}

void Router::add(Route route)
{
    m_patterns.push_back(compile(route.pattern));
    m_routes.push_back(std::move(route));
}

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
    Captures caps;
    for (std::size_t i = 0; i < m_routes.size(); ++i) {
        const auto& r = m_routes[i];
        if (!matches(m_patterns[i], routed, caps)) continue;
        m.pathMatched = true;
        const bool methodOk = r.method == req.method;
        if (!methodOk) continue;
        for (const auto& [k, v] : caps) {
            auto d = api::percentDecode(v);
            if (!d) return d.error();
            req.params[std::string(k)] = std::move(d.value());
        }
        m.route = &r;
        return m;
    }
    return m;
}

}  // namespace tessera::daemon::net
