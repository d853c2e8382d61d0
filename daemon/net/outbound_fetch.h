#pragma once
// Fetches a URL a user handed the cluster (a dSort EKM file given as
// http(s)://...), guarded against server-side request forgery: the name is
// resolved first and every address it resolves to must lie outside the
// networks a node can reach but a user must not (loopback, link-local with
// the cloud metadata service at 169.254.169.254, private, carrier-grade NAT,
// multicast, reserved), unless the node's config allows that network
// (fetch_allow_networks). Redirects are not followed (a redirect could name
// any address); a plain-HTTP fetch connects to the address that was checked,
// so a second DNS answer cannot move it. Over HTTPS the connection goes to
// the name (its certificate must match it).
//
// Blocking (name resolution and the transfer): call it on a worker thread.

#include "api/result.h"

#include <boost/asio/ip/address.hpp>
#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::daemon::net {

// An address range as "a.b.c.d/n" or "x:y::/n" (a bare address is /32 or /128).
struct IpNetwork {
    boost::asio::ip::address base;
    unsigned prefix = 0;

    // BadRequest for anything but a CIDR range or an address.
    static api::Result<IpNetwork> parse(std::string_view text);
    bool contains(const boost::asio::ip::address& a) const;
    std::string toString() const;
};

// Why a user-given fetch may not reach `a` ("loopback", "link-local", ...),
// or "" when it may: a public address, or one inside a network of `allowed`.
// An IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
std::string forbiddenRange(const boost::asio::ip::address& a, const std::vector<IpNetwork>& allowed);

struct OutboundFetchOptions {
    std::vector<IpNetwork> allowed;  // fetch_allow_networks
    std::size_t maxBytes = 16 << 20;
    std::chrono::milliseconds timeout{10000};  // connect, and each read
};

// The body of a GET of `url` (http:// or https://). BadRequest naming the
// URL and the reason for a malformed URL, a name that does not resolve, an
// address in a forbidden range, a redirect, a non-2xx answer or a body over
// maxBytes; Unavailable when the server cannot be reached or times out.
api::Result<std::string> fetchUserUrl(const std::string& url, const OutboundFetchOptions& options);

}  // namespace tessera::daemon::net
