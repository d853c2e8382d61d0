#pragma once
// The check of a route's Access (router.h) when auth is on: who is calling
// (a token, the cluster key, a signed redirect) and whether that caller may
// call this route. The server calls it once per request, after routing and
// before the handler, on the connection's I/O thread (so it must not block
// for long: no password hashing, no calls to other nodes).

#include "request.h"
#include "router.h"

#include "api/result.h"

namespace tessera::daemon::net {

class Authorizer {
public:
    virtual ~Authorizer() = default;
    // Ok to go on (and may set req.user); Unauthorized (401) for missing or
    // invalid credentials, Forbidden (403) for a caller without the right.
    virtual api::Status authorize(Request& req, const Route& route) const = 0;
};

}  // namespace tessera::daemon::net
