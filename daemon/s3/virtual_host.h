#pragma once
// Virtual-host style S3 (config s3_virtual_host, e.g. "s3.local"): a
// request whose Host is "<bucket>.s3.local[:port]" addresses that bucket,
// its path being the key ("/" the bucket itself); a Host of "s3.local"
// itself addresses the service (ListBuckets at "/"). Such a request is
// routed as the path-style request under the S3 routes' prefix ("/s3" on
// the proxy's port, "" on the S3 port). The request keeps the path it
// arrived with: SigV4 signs that path and the Host, not the routed path.

#include <optional>
#include <string>
#include <string_view>

namespace tessera::daemon::s3 {

// BadRequest-worthy text unless `suffix` is a DNS name: labels of
// [a-z0-9-] (1..63 bytes, no leading or trailing '-') joined by '.', at most
// 253 bytes, at least one label. Empty optional: valid.
std::optional<std::string> checkVirtualHostSuffix(std::string_view suffix);

// The path to route for a request with `host` (the Host header) and `path`
// (percent-encoded), or nullopt when the Host is not the suffix nor a name
// under it (route `path` as it is). The Host is compared without its port
// and case; a bucket label of anything but [a-z0-9.-] is not taken (nullopt).
std::optional<std::string> virtualHostPath(std::string_view host, std::string_view path, std::string_view suffix,
                                           std::string_view prefix);

}  // namespace tessera::daemon::s3
