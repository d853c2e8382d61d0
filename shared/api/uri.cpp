#include "uri.h"

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

}  // namespace tessera::api
