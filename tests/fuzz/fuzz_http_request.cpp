// A request's way from the socket to its handler, without the socket: the
// bytes go through Beast's request parser with the server's header limit,
// then through what HttpSession::onHeader does with a parsed head (split the
// target, parse the query, match the route table; daemon/net/http_session.cpp)
// against the routes a proxy and a target register, with handlers that only
// answer.
//
// Properties: a head the parser accepts fits twice the header limit (the
// request line and the fields each fit it; see below); a malformed
// query or a malformed escape in a capture is a BadRequest, never an
// exception; a match is a route of the request's method whose captures,
// percent-encoded into the route's pattern again, match the same route with
// the same captures.

#include "fuzz_check.h"

#include "net/http_server.h"
#include "net/request.h"
#include "net/router.h"

#include "api/uri.h"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <limits>

using namespace tessera;
namespace http = boost::beast::http;
namespace net = tessera::daemon::net;

namespace {

// The patterns the nodes register (grep router.add in daemon/): the proxy's
// and the target's, the internal ones included; several share a path with
// different methods, so 405 and route order are exercised as in a node.
struct Pattern {
    http::verb method;
    const char* pattern;
};
constexpr Pattern kPatterns[] = {
    {http::verb::put, "/v1/objects/{bucket}/{name...}"},
    {http::verb::get, "/v1/objects/{bucket}/{name...}"},
    {http::verb::head, "/v1/objects/{bucket}/{name...}"},
    {http::verb::delete_, "/v1/objects/{bucket}/{name...}"},
    {http::verb::get, "/v1/buckets"},
    {http::verb::get, "/v1/buckets/{bucket}"},
    {http::verb::post, "/v1/buckets/{bucket}"},
    {http::verb::delete_, "/v1/buckets/{bucket}"},
    {http::verb::head, "/v1/buckets/{bucket}"},
    {http::verb::patch, "/v1/buckets/{bucket}"},
    {http::verb::delete_, "/v1/internal/buckets/{bucket}"},
    {http::verb::post, "/v1/cluster/join"},
    {http::verb::post, "/v1/cluster/keepalive"},
    {http::verb::get, "/v1/cluster"},
    {http::verb::put, "/v1/cluster"},
    {http::verb::get, "/v1/daemon"},
    {http::verb::get, "/v1/reverse/daemon"},
    {http::verb::get, "/v1/health"},
    {http::verb::put, "/v1/metasync"},
    {http::verb::get, "/metrics"},
    {http::verb::get, "/v1/ws"},
    {http::verb::post, "/v1/jobs"},
    {http::verb::get, "/v1/jobs"},
    {http::verb::get, "/v1/jobs/{id}"},
    {http::verb::delete_, "/v1/jobs/{id}"},
    {http::verb::post, "/v1/internal/jobs"},
    {http::verb::get, "/v1/internal/jobs"},
    {http::verb::get, "/v1/internal/jobs/{id}"},
    {http::verb::delete_, "/v1/internal/jobs/{id}"},
    {http::verb::post, "/v1/internal/batch-get"},
    {http::verb::put, "/v1/internal/ec/{bucket}/{name...}"},
    {http::verb::get, "/v1/internal/ec/{bucket}/{name...}"},
    {http::verb::head, "/v1/internal/ec/{bucket}/{name...}"},
    {http::verb::delete_, "/v1/internal/ec/{bucket}/{name...}"},
    {http::verb::post, "/v1/internal/ec/{bucket}/{name...}"},
    {http::verb::post, "/v1/sort"},
    {http::verb::get, "/v1/sort"},
    {http::verb::delete_, "/v1/sort/abort"},
    {http::verb::delete_, "/v1/sort"},
    {http::verb::post, "/v1/internal/dsort/{id}/records"},
    {http::verb::post, "/v1/internal/dsort/{id}/assign"},
    {http::verb::post, "/v1/internal/dsort/{id}/pull"},
    {http::verb::post, "/v1/internal/dsort/{id}/done"},
    {http::verb::post, "/v1/internal/dsort/{id}/fail"},
    {http::verb::get, "/v1/internal/dsort/{id}/metrics"},
    {http::verb::post, "/v1/ishard"},
    {http::verb::put, "/v1/etl"},
    {http::verb::get, "/v1/etl"},
    {http::verb::get, "/v1/etl/{name}"},
    {http::verb::get, "/v1/etl/{name}/logs"},
    {http::verb::post, "/v1/etl/{name}/start"},
    {http::verb::post, "/v1/etl/{name}/stop"},
    {http::verb::delete_, "/v1/etl/{name}"},
    {http::verb::get, "/v1/internal/etl"},
    {http::verb::get, "/v1/internal/etl/{name}/logs"},
    {http::verb::post, "/v1/internal/etl/check"},
    {http::verb::post, "/v1/tokens"},
    {http::verb::post, "/v1/tokens/refresh"},
    {http::verb::delete_, "/v1/tokens"},
    {http::verb::get, "/v1/whoami"},
    {http::verb::get, "/v1/users"},
    {http::verb::post, "/v1/users"},
    {http::verb::delete_, "/v1/users/{user}"},
    {http::verb::post, "/v1/users/{user}/grants"},
    {http::verb::delete_, "/v1/users/{user}/grants/{bucket}/{permission}"},
};

net::Route routeOf(const Pattern& p)
{
    return net::Route{
        p.method, p.pattern, net::Exec::Inline, [](const net::Request&) { return net::Response::ok(); }, {}};
}

const net::Router& router()
{
    static const net::Router r = [] {
        net::Router out;
        for (const auto& p : kPatterns) out.add(routeOf(p));
        return out;
    }();
    return r;
}

// The path a client would send for `params` on `pattern`: each capture
// percent-encoded ('/' kept in a rest-of-path capture).
std::string pathFor(std::string_view pattern, const net::Request& req)
{
    std::string out;
    for (const auto seg : fuzz::splitAll(pattern.substr(1), '/')) {
        out += '/';
        if (seg.size() > 5 && seg.front() == '{' && seg.substr(seg.size() - 4) == "...}") {
            out += api::percentEncode(req.param(seg.substr(1, seg.size() - 5)), true);
        } else if (seg.size() > 2 && seg.front() == '{' && seg.back() == '}') {
            out += api::percentEncode(req.param(seg.substr(1, seg.size() - 2)), false);
        } else {
            out += seg;
        }
    }
    return out;
}

void checkMatch(const net::Request& req, const net::Route& route)
{
    FUZZ_CHECK(route.method == req.method, req.target);
    // Route order decides between patterns that both match a path, so the
    // captures are checked against this route alone.
    net::Router alone;
    alone.add(route);
    net::Request again;
    again.method = req.method;
    again.path = pathFor(route.pattern, req);
    const auto m = alone.match(again);
    FUZZ_CHECK(m && m->route != nullptr, req.target + " -> " + again.path + " " + fuzz::errorText(m));
    FUZZ_CHECK(again.params == req.params, req.target + " -> " + again.path);
    // The handler sees the request as the session gives it.
    (void)route.handler(req);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::size_t limit = net::ServerOptions{}.headerLimit;
    http::request_parser<http::empty_body> parser;
    parser.header_limit(static_cast<std::uint32_t>(limit));
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());
    parser.eager(false);  // the session reads the head alone, then decides on the body

    boost::beast::error_code ec;
    std::size_t used = 0;
    while (!parser.is_header_done() && used < size) {
        const auto n = parser.put(boost::asio::buffer(data + used, size - used), ec);
        used += n;
        if (ec || n == 0) break;
    }
    if (!parser.is_header_done()) {
        // Incomplete, refused (400) or too large (431): the session answers
        // without routing. Input larger than the limit without a complete
        // head within it is never a head.
        return 0;
    }
    // Beast bounds the request line and the fields by the limit each, not
    // their sum (basic_parser.ipp): a head of up to twice the limit parses.
    // HttpSession::onHeader answers 431 for a head over the limit before
    // routing it (found by this harness, 16,491 bytes; docs/security.md,
    // "What the runs found").
    FUZZ_CHECK(used <= 2 * limit, std::to_string(used) + " header bytes");
    if (used > limit) return 0;

    // HttpSession::onHeader, in order.
    const auto& hdr = parser.get();
    net::Request req;
    req.method = hdr.method();
    req.target = std::string(hdr.target());
    req.headers = &hdr;
    auto split = api::splitTarget(req.target);
    req.path = std::move(split.path);
    req.hasBody = parser.content_length().has_value() ? *parser.content_length() > 0 : parser.chunked();
    req.contentLength = parser.content_length().value_or(0);
    (void)req.header("Authorization");
    (void)req.header("Origin");

    auto query = api::parseQuery(split.query);
    if (!query) {
        FUZZ_CHECK(query.kind() == api::ErrorKind::BadRequest, fuzz::errorText(query));
        return 0;
    }
    req.query = std::move(query.value());

    const auto match = router().match(req);
    if (!match) {
        FUZZ_CHECK(match.kind() == api::ErrorKind::BadRequest, fuzz::errorText(match));
        return 0;
    }
    if (match->route == nullptr) {
        FUZZ_CHECK(req.params.empty(), req.target);
        return 0;
    }
    FUZZ_CHECK(match->pathMatched, req.target);
    checkMatch(req, *match->route);
    return 0;
}
