#include "websocket_protocols.h"

#include <boost/beast/http/field.hpp>

namespace tessera::daemon::net {

namespace {

// RFC 7230 3.2.6 tchar.
bool isTokenChar(char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
    return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

api::Error tooLong()
{
    return api::Error::badRequest("Sec-WebSocket-Protocol is longer than " + std::to_string(kMaxProtocolHeader) +
                                  " bytes");
}

}  // namespace

api::Result<OfferedProtocols> parseOfferedProtocols(std::string_view value)
{
    if (value.size() > kMaxProtocolHeader) return tooLong();
    OfferedProtocols out;
    while (!value.empty()) {
        const auto comma = value.find(',');
        const auto entry = trim(value.substr(0, comma));
        value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
        if (entry.empty()) continue;
        for (char c : entry) {
            if (!isTokenChar(c)) {
                // Never quote the entry: it may hold a token.
                return api::Error::badRequest("Sec-WebSocket-Protocol has an entry that is not a token");
            }
        }
        ++out.count;
        if (entry == kFeedProtocol) {
            out.feed = true;
        } else if (entry.substr(0, kBearerProtocolPrefix.size()) == kBearerProtocolPrefix) {
            const auto token = entry.substr(kBearerProtocolPrefix.size());
            if (token.empty()) {
                return api::Error::badRequest("Sec-WebSocket-Protocol: \"" + std::string(kBearerProtocolPrefix) +
                                              "\" without a token");
            }
            if (!out.bearer.empty()) {
                return api::Error::badRequest("Sec-WebSocket-Protocol offers more than one \"" +
                                              std::string(kBearerProtocolPrefix) + "\" token");
            }
            out.bearer = std::string(token);
        }
    }
    return out;
}

api::Result<OfferedProtocols> offeredProtocols(const Request& req)
{
    if (req.headers == nullptr) return OfferedProtocols{};
    std::string joined;
    auto range = req.headers->equal_range(boost::beast::http::field::sec_websocket_protocol);
    for (auto it = range.first; it != range.second; ++it) {
        if (!joined.empty()) joined += ',';
        joined.append(it->value().data(), it->value().size());
        if (joined.size() > kMaxProtocolHeader) return tooLong();
    }
    return parseOfferedProtocols(joined);
}

}  // namespace tessera::daemon::net
