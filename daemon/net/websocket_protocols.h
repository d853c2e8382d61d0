#pragma once
// The WebSocket subprotocols a client offers on `GET /v1/ws`
// (Sec-WebSocket-Protocol). A browser cannot put `Authorization: Bearer` on
// a WebSocket upgrade, but it can offer subprotocols, so the web console
// offers two: `tessera.feed.v1` (the protocol the proxy selects) and
// `tessera.bearer.<access token>` (the token; JWT characters are valid
// token characters). The authorizer takes the token from here when there is
// no Authorization header; the feed answers with `tessera.feed.v1` only,
// never echoing the bearer entry.
//
// The one parser of that header: the authorizer and the feed both call it.

#include "request.h"

#include "api/result.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace tessera::daemon::net {

inline constexpr std::string_view kFeedProtocol = "tessera.feed.v1";
inline constexpr std::string_view kBearerProtocolPrefix = "tessera.bearer.";
// Longer Sec-WebSocket-Protocol values (all fields together) are refused.
inline constexpr std::size_t kMaxProtocolHeader = 8 * 1024;

struct OfferedProtocols {
    std::size_t count = 0;  // entries offered (empty list elements are not counted)
    bool feed = false;      // tessera.feed.v1 is one of them
    std::string bearer;     // the token of the tessera.bearer.<token> entry; empty: none offered
};

// Parses one Sec-WebSocket-Protocol value: comma-separated tokens (RFC 6455
// 4.1, RFC 7230 7: optional whitespace around them, empty elements
// ignored). Bad Request for a value longer than kMaxProtocolHeader, an
// entry that is not a token, a bearer entry without a token, or two bearer
// entries.
api::Result<OfferedProtocols> parseOfferedProtocols(std::string_view value);

// The same over every Sec-WebSocket-Protocol field of `req` (a client may
// split the list over several fields).
api::Result<OfferedProtocols> offeredProtocols(const Request& req);

}  // namespace tessera::daemon::net
