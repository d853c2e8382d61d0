#include "outbound_fetch.h"

#include "client/http_client.h"

#include <algorithm>
#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <charconv>

namespace tessera::daemon::net {

namespace asio = boost::asio;
using asio::ip::address;

namespace {

struct Range {
    const char* network;
    const char* name;
};

// The ranges a user-given URL may not reach (RFC 6890 special-purpose
// blocks that lead inside the node's network, or nowhere useful).
constexpr std::array kForbidden{
    Range{"0.0.0.0/8", "\"this network\""},
    Range{"10.0.0.0/8", "private"},
    Range{"100.64.0.0/10", "carrier-grade NAT"},
    Range{"127.0.0.0/8", "loopback"},
    Range{"169.254.0.0/16", "link-local (cloud metadata)"},
    Range{"172.16.0.0/12", "private"},
    Range{"192.0.0.0/24", "IETF protocol assignments"},
    Range{"192.168.0.0/16", "private"},
    Range{"198.18.0.0/15", "benchmarking"},
    Range{"224.0.0.0/4", "multicast"},
    Range{"240.0.0.0/4", "reserved"},
    Range{"::/128", "unspecified"},
    Range{"::1/128", "loopback"},
    Range{"64:ff9b::/96", "NAT64"},
    Range{"fc00::/7", "unique local (private)"},
    Range{"fe80::/10", "link-local"},
    Range{"ff00::/8", "multicast"},
};

address unmapped(const address& a)
{
    if (a.is_v6() && a.to_v6().is_v4_mapped()) return asio::ip::make_address_v4(asio::ip::v4_mapped, a.to_v6());
    return a;
}

std::vector<unsigned char> bytesOf(const address& a)
{
    if (a.is_v4()) {
        const auto b = a.to_v4().to_bytes();
        return {b.begin(), b.end()};
    }
    const auto b = a.to_v6().to_bytes();
    return {b.begin(), b.end()};
}

}  // namespace

api::Result<IpNetwork> IpNetwork::parse(std::string_view text)
{
    const auto bad = [&](const std::string& why) {
        return api::Error::badRequest("\"" + std::string(text) + "\" is not a network (" + why + "): use a.b.c.d/n");
    };
    const auto slash = text.find('/');
    boost::system::error_code ec;
    const auto base = asio::ip::make_address(std::string(text.substr(0, slash)), ec);
    if (ec) return bad("not an address");
    const unsigned max = base.is_v4() ? 32 : 128;
    unsigned prefix = max;
    if (slash != std::string_view::npos) {
        const auto digits = text.substr(slash + 1);
        auto [p, e] = std::from_chars(digits.data(), digits.data() + digits.size(), prefix);
        if (digits.empty() || e != std::errc() || p != digits.data() + digits.size() || prefix > max) {
            return bad("the prefix length must be 0.." + std::to_string(max));
        }
    }
    return IpNetwork{base, prefix};
}

bool IpNetwork::contains(const address& a) const
{
    const auto candidate = unmapped(a);
    if (candidate.is_v4() != base.is_v4()) return false;
    const auto x = bytesOf(candidate), y = bytesOf(base);
    unsigned left = prefix;
    for (std::size_t i = 0; i < x.size() && left > 0; ++i) {
        const unsigned bits = std::min(left, 8u);
        const auto mask = static_cast<unsigned char>(0xff << (8 - bits));
        if ((x[i] & mask) != (y[i] & mask)) return false;
        left -= bits;
    }
    return true;
}

std::string IpNetwork::toString() const { return base.to_string() + "/" + std::to_string(prefix); }

std::string forbiddenRange(const address& a, const std::vector<IpNetwork>& allowed)
{
    const auto candidate = unmapped(a);
    for (const auto& n : allowed) {
        if (n.contains(candidate)) return {};
    }
    // Parsed once: the table is fixed and valid (checked by the unit test).
    static const std::vector<std::pair<IpNetwork, const char*>> forbidden = [] {
        std::vector<std::pair<IpNetwork, const char*>> out;
        for (const auto& r : kForbidden) {
            if (auto net = IpNetwork::parse(r.network)) out.emplace_back(std::move(net.value()), r.name);
        }
        return out;
    }();
    for (const auto& [net, name] : forbidden) {
        if (net.contains(candidate)) return name;
    }
    return {};
}

api::Result<std::string> fetchUserUrl(const std::string& url, const OutboundFetchOptions& options)
{
    const auto parsed = client::parseUrl(url);
    if (!parsed) return api::Error::badRequest("\"" + url + "\": " + parsed.error().message);
    const auto refuse = [&](const std::string& why) { return api::Error::badRequest("\"" + url + "\": " + why); };

    asio::io_context io;
    asio::ip::tcp::resolver resolver(io);
    boost::system::error_code ec;
    const auto results = resolver.resolve(parsed->host, parsed->port, ec);
    if (ec || results.empty()) return refuse("cannot resolve " + parsed->host + ": " + ec.message());
    std::vector<address> addresses;
    for (const auto& r : results) addresses.push_back(r.endpoint().address());
    for (const auto& a : addresses) {
        const auto range = forbiddenRange(a, options.allowed);
        if (!range.empty()) {
            return refuse(parsed->host + " is " + unmapped(a).to_string() + ", a " + range +
                          " address: a node does not fetch from it for a user (allow the network with "
                          "fetch_allow_networks)");
        }
    }

    client::HttpClient::Options o;
    o.followRedirects = false;
    o.retriesOn503 = 0;
    o.connectTimeout = options.timeout;
    o.ioTimeout = options.timeout;
    o.maxBodyInMemory = options.maxBytes;
    std::string target = url;
    if (!parsed->tls) {
        // Connect to the address that was checked; the server still sees its name.
        const auto& a = addresses.front();
        const auto host = a.is_v6() ? "[" + a.to_string() + "]" : a.to_string();
        target = "http://" + host + ":" + parsed->port + parsed->target;
        o.headers.emplace_back("Host", parsed->host + ":" + parsed->port);
    }
    client::HttpClient http(o);
    auto r = http.send(client::Method::Get, target);
    if (!r) {
        if (r.kind() == api::ErrorKind::TooLarge) {
            return refuse("larger than " + std::to_string(options.maxBytes >> 20) + " MiB");
        }
        return api::Error::unavailable("\"" + url + "\": " + r.error().message);
    }
    if (r->status / 100 == 3) return refuse("answered a redirect (" + std::to_string(r->status) + "), not followed");
    if (!r->isSuccess()) return refuse("answered " + std::to_string(r->status));
    return std::move(r->body);
}

}  // namespace tessera::daemon::net
