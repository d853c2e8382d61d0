#include "virtual_host.h"

#include <algorithm>
#include <cctype>

namespace tessera::daemon::s3 {

namespace {

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

// "name:port" -> "name"; an IPv6 literal "[::1]:80" is left whole (never a
// virtual host).
std::string_view withoutPort(std::string_view host)
{
    if (!host.empty() && host.front() == '[') return host;
    const auto colon = host.rfind(':');
    if (colon == std::string_view::npos) return host;
    const auto port = host.substr(colon + 1);
    if (port.empty() || !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return host;
    }
    return host.substr(0, colon);
}

}  // namespace

std::optional<std::string> checkVirtualHostSuffix(std::string_view suffix)
{
    if (suffix.empty() || suffix.size() > 253) return std::string("s3 virtual host: a DNS name of 1..253 bytes");
    std::size_t start = 0;
    while (start <= suffix.size()) {
        const auto dot = suffix.find('.', start);
        const auto label = suffix.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
        const bool ok = !label.empty() && label.size() <= 63 && label.front() != '-' && label.back() != '-' &&
                        std::all_of(label.begin(), label.end(), [](char c) {
                            return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
                        });
        if (!ok) {
            return "s3 virtual host \"" + std::string(suffix) +
                   "\": labels of 1..63 lower-case letters, digits and '-' joined by '.'";
        }
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    return std::nullopt;
}

std::optional<std::string> virtualHostPath(std::string_view host, std::string_view path, std::string_view suffix,
                                           std::string_view prefix)
{
    if (suffix.empty() || host.empty()) return std::nullopt;
    const auto name = lower(withoutPort(host));
    const std::string p = path.empty() ? std::string("/") : std::string(path);
    if (name == suffix) return std::string(prefix) + (p == "/" && !prefix.empty() ? std::string() : p);
    if (name.size() <= suffix.size() + 1 || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0 ||
        name[name.size() - suffix.size() - 1] != '.') {
        return std::nullopt;
    }
    const auto bucket = std::string_view(name).substr(0, name.size() - suffix.size() - 1);
    const bool ok = std::all_of(bucket.begin(), bucket.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
    });
    if (!ok) return std::nullopt;
    return std::string(prefix) + "/" + std::string(bucket) + (p == "/" ? std::string() : p);
}

}  // namespace tessera::daemon::s3
