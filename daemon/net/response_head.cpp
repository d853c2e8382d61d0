// writeResponseHead (http_session.h): a response's status line and fields,
// written by hand into a buffer the connection reuses.
#include "http_session.h"

#include "api/headers.h"

#include <boost/beast/http/status.hpp>
#include <charconv>

namespace tessera::daemon::net {

namespace http = boost::beast::http;

namespace {

// Fields the session writes itself, whatever a handler put in.
bool sessionField(std::string_view name)
{
    return api::sameFieldName(name, "Server") || api::sameFieldName(name, "Content-Length") ||
           api::sameFieldName(name, "Connection") || api::sameFieldName(name, "Transfer-Encoding");
}

void appendFieldText(std::string& out, std::string_view text)
{
    // A CR or LF in a name or value would end the field (or the head) early:
    // never written. Appended whole when there is none (the usual case).
    const auto from = out.size();
    out.append(text.data(), text.size());
    // Two vectorised scans (find_first_of would call memchr once per byte).
    if (text.find('\r') == std::string_view::npos && text.find('\n') == std::string_view::npos) return;
    for (auto i = from; i < out.size(); ++i) {
        if (out[i] == '\r' || out[i] == '\n') out[i] = ' ';
    }
}

}  // namespace

void writeResponseHead(std::string& out, unsigned version, const Response& res, bool keepAlive,
                       std::uint64_t contentLength)
{
    out.clear();
    out += version == 10 ? "HTTP/1.0 " : "HTTP/1.1 ";
    char num[24];
    auto r = std::to_chars(num, num + sizeof num, res.status);
    out.append(num, r.ptr);
    out.push_back(' ');
    const auto reason = http::obsolete_reason(static_cast<http::status>(res.status));
    out.append(reason.data(), reason.size());
    out += "\r\n";
    const auto& hs = res.headers;
    for (std::size_t i = 0; i < hs.size(); ++i) {
        if (sessionField(hs[i].first)) continue;
        // A later value of the same field replaces this one, except for a
        // field sent once per entry (AIStore's ais-custom-md: "k=v" lines).
        const bool repeats = api::sameFieldName(hs[i].first, api::kHdrCustomMd);
        bool replaced = false;
        for (std::size_t j = i + 1; j < hs.size() && !replaced && !repeats; ++j)
            replaced = api::sameFieldName(hs[i].first, hs[j].first);
        if (replaced) continue;
        appendFieldText(out, hs[i].first);
        out += ": ";
        appendFieldText(out, hs[i].second);
        out += "\r\n";
    }
    out += "Server: tessera\r\n";
    if (version >= 11 && !keepAlive) out += "Connection: close\r\n";
    if (version < 11 && keepAlive) out += "Connection: keep-alive\r\n";
    // 1xx, 204 and 304 carry no body and no length.
    if (res.status >= 200 && res.status != 204 && res.status != 304) {
        out += "Content-Length: ";
        r = std::to_chars(num, num + sizeof num, contentLength);
        out.append(num, r.ptr);
        out += "\r\n";
    }
    out += "\r\n";
}

}  // namespace tessera::daemon::net
