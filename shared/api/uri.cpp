#include "uri.h"

#include <cctype>

namespace tessera::api {

namespace {
int hexValue(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

Result<std::string> decode(std::string_view s, bool plusIsSpace)
{
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '%') {
            if (i + 2 >= s.size()) {
                return Error::badRequest("malformed percent-encoding");
            }
            const int hi = hexValue(s[i + 1]);
            const int lo = hexValue(s[i + 2]);
            if (hi < 0 || lo < 0) {
                return Error::badRequest("malformed percent-encoding");
            }
            out.push_back(static_cast<char>(hi * 16 + lo));
            i += 2;
        } else if (c == '+' && plusIsSpace) {
            out.push_back(' ');
        } else {
            out.push_back(c);
        }
    }
    return out;
}
}  // namespace

Result<std::string> percentDecode(std::string_view s) { return decode(s, false); }

std::string percentEncode(std::string_view s, bool keepSlash)
{
    static const char* kHex = "0123456789ABCDEF";
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        const bool unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                                c == '-' || c == '_' || c == '.' || c == '~' || (keepSlash && c == '/');
        if (unreserved) {
            out.push_back(c);
        } else {
            out.push_back('%');
            out.push_back(kHex[u >> 4]);
            out.push_back(kHex[u & 0xF]);
        }
    }
    return out;
}

Result<QueryMap> parseQuery(std::string_view query)
{
    QueryMap out;
    std::size_t start = 0;
    while (start < query.size()) {
        auto amp = query.find('&', start);
        auto part = query.substr(start, amp == std::string_view::npos ? std::string_view::npos : amp - start);
        if (!part.empty()) {
            auto eq = part.find('=');
            auto k = decode(part.substr(0, eq), true);
            if (!k) return k.error();
            std::string v;
            if (eq != std::string_view::npos) {
                auto dv = decode(part.substr(eq + 1), true);
                if (!dv) return dv.error();
                v = std::move(dv.value());
            }
            out[std::move(k.value())] = std::move(v);
        }
        if (amp == std::string_view::npos) break;
        start = amp + 1;
    }
    return out;
}

std::string buildQuery(const QueryMap& query)
{
    std::string out;
    for (const auto& [k, v] : query) {
        if (!out.empty()) out.push_back('&');
        out += percentEncode(k);
        out.push_back('=');
        out += percentEncode(v);
    }
    return out;
}

SplitTarget splitTarget(std::string_view target)
{
    auto q = target.find('?');
    if (q == std::string_view::npos) {
        return {std::string(target), {}};
    }
    return {std::string(target.substr(0, q)), std::string(target.substr(q + 1))};
}

Result<std::string> normalizeEndpoint(std::string_view text)
{
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\n')) text.remove_suffix(1);
    const auto bad = [&](const std::string& why) {
        return Error::badRequest("bad endpoint \"" + std::string(text.substr(0, 200)) + "\": " + why +
                                 " (expected host:port or http://host:port)");
    };
    if (text.empty()) return bad("empty");
    std::string scheme = "http";
    std::string_view rest = text;
    if (const auto p = text.find("://"); p != std::string_view::npos) {
        scheme = std::string(text.substr(0, p));
        for (auto& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        rest = text.substr(p + 3);
        if (scheme != "http" && scheme != "https") return bad("the scheme must be http or https");
    }
    const auto end = rest.find_first_of("/?#");
    const std::string_view authority = rest.substr(0, end);
    if (authority.empty()) return bad("no host");
    if (authority.find('@') != std::string_view::npos) return bad("user information is not supported");
    std::string_view host = authority;
    std::string_view port;
    if (authority.front() == '[') {
        const auto close = authority.find(']');
        if (close == std::string_view::npos) return bad("unclosed [ in an IPv6 address");
        host = authority.substr(0, close + 1);
        const auto after = authority.substr(close + 1);
        if (!after.empty()) {
            if (after.front() != ':') return bad("junk after the address");
            port = after.substr(1);
        }
    } else if (const auto colon = authority.rfind(':'); colon != std::string_view::npos) {
        host = authority.substr(0, colon);
        port = authority.substr(colon + 1);
        if (port.empty()) return bad("empty port");
    }
    if (host.empty() || host == "[]") return bad("no host");
    for (char c : host) {
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' || c == '[' || c == ']' ||
              c == ':')) {
            return bad("bad character in the host");
        }
    }
    if (!port.empty()) {
        if (port.size() > 5) return bad("bad port");
        unsigned n = 0;
        for (char c : port) {
            if (!std::isdigit(static_cast<unsigned char>(c))) return bad("bad port");
            n = n * 10 + static_cast<unsigned>(c - '0');
        }
        if (n == 0 || n > 65535) return bad("port out of range");
    }
    std::string out = scheme + "://" + std::string(host);
    if (!port.empty()) out += ":" + std::string(port);
    return out;
}

}  // namespace tessera::api
