#include "names.h"

#include <string>

namespace tessera::api {

bool isValidUtf8(std::string_view s)
{
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        std::size_t len = 0;
        std::uint32_t cp = 0;
        if (c < 0x80) {
            ++i;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            len = 2;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (i + len > s.size()) {
            return false;
        }
        for (std::size_t k = 1; k < len; ++k) {
            const auto cc = static_cast<unsigned char>(s[i + k]);
            if ((cc & 0xC0) != 0x80) {
                return false;
            }
            cp = (cp << 6) | (cc & 0x3F);
        }
        // Overlong encodings, surrogates and out-of-range code points.
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp <= 0xDFFF)) {
            return false;
        }
        i += len;
    }
    return true;
}

Status validateBucketName(std::string_view name)
{
    auto bad = [&](const std::string& why) {
        return Error::badRequest("invalid bucket name \"" + std::string(name.substr(0, 80)) + "\": " + why);
    };
    if (name.size() < kMinBucketNameLen || name.size() > kMaxBucketNameLen) {
        return bad("must be 3 to 63 characters long");
    }
    for (char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
        if (!ok) {
            return bad("only lowercase letters, digits, '.' and '-' are allowed");
        }
    }
    auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    if (!alnum(name.front()) || !alnum(name.back())) {
        return bad("must begin and end with a letter or digit");
    }
    if (name.find("..") != std::string_view::npos) {
        return bad("must not contain two adjacent periods");
    }
    // IPv4-shaped: four dot-separated groups of digits.
    int groups = 0;
    bool allDigits = true;
    std::size_t start = 0;
    while (start <= name.size()) {
        auto dot = name.find('.', start);
        auto part = name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
        ++groups;
        if (part.empty() || part.size() > 3) {
            allDigits = false;
        }
        for (char c : part) {
            if (c < '0' || c > '9') {
                allDigits = false;
            }
        }
        if (dot == std::string_view::npos) {
            break;
        }
        start = dot + 1;
    }
    if (groups == 4 && allDigits) {
        return bad("must not be formatted as an IP address");
    }
    return {};
}

Status validateObjectName(std::string_view name)
{
    auto bad = [&](const std::string& why) {
        std::string shown;
        for (char c : name.substr(0, 80)) {
            const auto u = static_cast<unsigned char>(c);
            shown += (u < 0x20 || u == 0x7f) ? '?' : c;
        }
        return Error::badRequest("invalid object name \"" + shown + "\": " + why);
    };
    if (name.empty()) {
        return bad("must not be empty");
    }
    if (name.size() > kMaxObjectNameBytes) {
        return bad("longer than 1024 bytes");
    }
    if (!isValidUtf8(name)) {
        return bad("not valid UTF-8");
    }
    for (char c : name) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) {
            return bad("control characters (including NUL) are not allowed");
        }
        if (c == '\\') {
            return bad("backslash is not allowed");
        }
    }
    if (name.front() == '/') {
        return bad("must not start with '/'");
    }
    if (name.back() == '/') {
        return bad("must not end with '/'");
    }
    std::size_t start = 0;
    while (true) {
        auto slash = name.find('/', start);
        auto comp = name.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
        if (comp.empty()) {
            return bad("empty path component ('//')");
        }
        if (comp == "." || comp == "..") {
            return bad("'.' and '..' path components are not allowed");
        }
        if (comp.size() > kMaxNameComponentBytes) {
            return bad("a path component is longer than 255 bytes");
        }
        if (slash == std::string_view::npos) {
            break;
        }
        start = slash + 1;
    }
    return {};
}

}  // namespace tessera::api
