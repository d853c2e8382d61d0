#pragma once
// Percent-encoding and query strings, shared by the node and every client.

#include "result.h"

#include <map>
#include <string>
#include <string_view>

namespace tessera::api {

// Decodes %XX escapes. '+' is left as is (it is a literal in paths).
// Malformed escapes are a BadRequest.
Result<std::string> percentDecode(std::string_view s);

// Encodes everything outside RFC 3986 unreserved characters; '/' is kept when
// keepSlash is true (object names in paths).
std::string percentEncode(std::string_view s, bool keepSlash = false);

using QueryMap = std::map<std::string, std::string, std::less<>>;

// Parses "a=1&b=x%20y"; '+' decodes to a space in query values.
Result<QueryMap> parseQuery(std::string_view query);
std::string buildQuery(const QueryMap& query);

struct SplitTarget {
    std::string path;   // still percent-encoded
    std::string query;  // without '?'
};
SplitTarget splitTarget(std::string_view target);

// A node's endpoint as a user types it, as the base URL requests are built
// on: "host:port", "http://host:port" and "https://host:port/" all work
// (no scheme means http; a trailing path, query or fragment is dropped).
// BadRequest for anything else (another scheme, no host, a bad port).
Result<std::string> normalizeEndpoint(std::string_view text);

}  // namespace tessera::api
