#pragma once
// Routing as a table: {method, path pattern} -> handler. Patterns are
// '/'-separated; "{name}" captures one segment, "{name...}" captures the rest
// of the path (possibly with '/'). Captures are percent-decoded.

#include "request.h"
#include "response.h"
#include "upload_sink.h"

#include "api/auth_msg.h"
#include "api/node_stats.h"

#include "stream.h"
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/verb.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace tessera::daemon::net {

// Where a buffered handler runs: on the connection's I/O thread (fast, never
// blocks) or on the worker pool (disk walks, calls to other nodes).
// InlineFirst runs it on the connection's I/O thread; when it must block
// (hash a whole object, ask other nodes) it answers
// Response::continueOnWorker(rest) and `rest` runs on the worker pool. It
// spares the common case two thread hops.
// Peer: on the pool of work that never waits on another node (a slice or a
// copy a peer reads, writes or removes), so that nodes whose workers all
// wait on each other's answers still get them.
// For a streaming (upload) route, Worker runs its start on the worker pool
// (it may block: a relay connecting to another node); the others run it on
// the I/O thread.
enum class Exec { Inline, Worker, InlineFirst, Peer };

using Handler = std::function<Response(const Request&)>;
// Called with the header only; returns either a final response (the body is
// then not read) or a sink that receives the body.
using UploadStart = std::function<std::variant<Response, std::unique_ptr<UploadSink>>(const Request&)>;
// Takes over the connection of a WebSocket upgrade request (already checked
// to be one): either moves `stream` away and returns nullopt, or leaves it
// and returns the refusal to send (403 origin, 503 too many sessions).
// Called on the connection's I/O thread; must not block.
using WebSocketAccept = std::function<std::optional<Response>(
    const Request&, AnyStream stream, boost::beast::http::request<boost::beast::http::empty_body>&&)>;

// A member function of `self` as a Handler: routes name their handlers as
// bind(this, &Api::method).
template <typename T>
Handler bind(T* self, Response (T::*fn)(const Request&))
{
    return [self, fn](const Request& r) { return (self->*fn)(r); };
}

// Who may call a route when auth is on; the node's Authorizer checks it
// once, before the handler runs (with auth off nothing is checked). The
// default is the strictest: a route nobody classified is for admins (and
// for the other nodes, which present the cluster key).
struct Access {
    enum class Kind {
        Admin,   // an admin's token
        Open,    // anyone: logging in, health
        User,    // any valid token
        Bucket,  // a token whose user holds `permission` on the route's {bucket}
    };
    Kind kind = Kind::Admin;
    api::Permission permission = api::Permission::Read;

    static Access open() { return {Kind::Open, {}}; }
    static Access user() { return {Kind::User, {}}; }
    static Access bucket(api::Permission p) { return {Kind::Bucket, p}; }
};

struct Route {
    boost::beast::http::verb method;
    std::string pattern;
    Exec exec = Exec::Inline;
    Handler handler;                  // buffered routes
    UploadStart upload;               // streaming routes
    std::size_t maxBody = 1 << 20;    // buffered routes: body limit
    std::optional<api::OpKind> op{};  // counted in the node's statistics under this kind
    WebSocketAccept websocket{};      // set: the route only accepts WebSocket upgrades
    Access access{};                  // checked when auth is on
};

// Whether answering `req` on `route` is a control change the audit trail
// records: a method other than GET or HEAD on a route for admins or for a
// bucket's admin-bucket permission (buckets created, destroyed or changed,
// bucket actions, jobs, ETL, dSort, users, grants, token keys, cluster
// actions), called by a person: not by another node (the cluster key
// header), not a WebSocket upgrade. Object writes and deletes are data, not
// control, and are counted in the statistics instead.
bool isAuditedChange(const Route& route, const Request& req);

inline Route counted(Route r, api::OpKind op)
{
    r.op = op;
    return r;
}

inline Route needs(Route r, Access a)
{
    r.access = a;
    return r;
}

struct RouteMatch {
    const Route* route = nullptr;
    bool pathMatched = false;  // some route matched the path but not the method (405)
};

class Router {
public:
    void add(Route route);
    // Fills req.params on a match. A malformed escape in a capture is a
    // BadRequest.
    api::Result<RouteMatch> match(Request& req) const;
    // Set: the path a request is routed by, when the function gives one
    // (S3's virtual-host style: the Host names the bucket); req.path stays
    // as received. Before the server starts; called from I/O threads.
    using PathRewrite = std::function<std::optional<std::string>(const Request&)>;
    void setPathRewrite(PathRewrite f) { m_rewrite = std::move(f); }

private:
    // A route's pattern split once, at add(): a literal segment, a {param}
    // (one segment) or a {rest...} (the rest of the path).
    struct Segment {
        enum class Kind { Literal, Param, Rest } kind = Kind::Literal;
        std::string text;  // the literal, or the capture's name
    };
    using Captures = std::vector<std::pair<std::string_view, std::string_view>>;  // name, still-encoded text
    static std::vector<Segment> compile(std::string_view pattern);
    static bool matches(const std::vector<Segment>& pattern, std::string_view path, Captures& caps);

    std::vector<Route> m_routes;
    std::vector<std::vector<Segment>> m_patterns;  // m_routes[i]'s, split
    PathRewrite m_rewrite;
};

}  // namespace tessera::daemon::net
