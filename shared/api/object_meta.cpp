#include "object_meta.h"

#include "go_time_format.h"

#include "headers.h"
#include "json_util.h"
#include "json_whole_numbers.h"

#include <algorithm>
#include <limits>

#include <nlohmann/json.hpp>

namespace tessera::api {

void to_json(nlohmann::json& j, const ObjectMeta& v)
{
    j = nlohmann::json{{"size", v.size},       {"cksum_type", v.checksumType}, {"cksum_value", v.checksumValue},
                       {"version", v.version}, {"atime", v.atimeNs},           {"custom", v.custom}};
    if (v.stamp != 0) j["stamp"] = v.stamp;
}

void from_json(const nlohmann::json& j, ObjectMeta& v)
{
    j.at("size").get_to(v.size);
    j.at("cksum_type").get_to(v.checksumType);
    j.at("cksum_value").get_to(v.checksumValue);
    j.at("version").get_to(v.version);
    j.at("atime").get_to(v.atimeNs);
    v.custom = j.value("custom", std::map<std::string, std::string>{});
    v.stamp = j.contains("stamp") ? j.at("stamp").get<std::int64_t>() : 0;
}

Result<ObjectMeta> parseObjectMeta(std::string_view json)
{
    auto r = parseWholeNumberJsonAs<ObjectMeta>(json, "object metadata");
    if (!r) {
        return Error::corruption("object metadata is unreadable: " + r.error().message);
    }
    return r;
}

Result<std::map<std::string, std::string>> parseCustomMd(std::string_view header)
{
    std::map<std::string, std::string> out;
    if (header.size() > kMaxCustomMdBytes) {
        return Error::badRequest("custom metadata larger than 4096 bytes");
    }
    std::size_t start = 0;
    while (start < header.size()) {
        // Whitespace after a comma: the lines of a repeated header joined
        // (AIStore sends one k=v line per entry).
        while (start < header.size() && (header[start] == ' ' || header[start] == '\t')) ++start;
        if (start == header.size()) break;
        auto comma = header.find(',', start);
        auto item = header.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        auto eq = item.find('=');
        if (eq == std::string_view::npos || eq == 0) {
            return Error::badRequest("custom metadata must be \"key=value[,key=value]\"");
        }
        auto key = item.substr(0, eq);
        auto val = item.substr(eq + 1);
        for (char c : key) {
            const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                            c == '-' || c == '.';
            if (!ok) return Error::badRequest("custom metadata key \"" + std::string(key) + "\" has bad characters");
        }
        for (char c : val) {
            const auto u = static_cast<unsigned char>(c);
            if (u < 0x20 || u == 0x7f) {
                return Error::badRequest("custom metadata value has control characters");
            }
        }
        out[std::string(key)] = std::string(val);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return out;
}

std::string formatCustomMd(const std::map<std::string, std::string>& md)
{
    std::string s;
    for (const auto& [k, v] : md) {
        if (!s.empty()) s.push_back(',');
        s += k;
        s.push_back('=');
        s += v;
    }
    return s;
}

void appendMetaHeaders(HeaderPairs& h, const ObjectMeta& m, std::string_view location, bool withStamp)
{
    h.emplace_back(std::string(kHdrSize), std::to_string(m.size));
    if (!m.checksumValue.empty()) {
        h.emplace_back(std::string(kHdrChecksumType), m.checksumType);
        h.emplace_back(std::string(kHdrChecksumValue), m.checksumValue);
    }
    h.emplace_back(std::string(kHdrVersion), m.version);
    h.emplace_back(std::string(kHdrAtime), std::to_string(m.atimeNs));
    if (!m.custom.empty()) h.emplace_back(std::string(kHdrCustomMd), formatCustomMd(m.custom));
    if (withStamp && m.stamp != 0) h.emplace_back(std::string(kHdrVersionStamp), std::to_string(m.stamp));
    if (!location.empty()) h.emplace_back(std::string(kHdrLocation), std::string(location));
}

void appendHttpValidators(HeaderPairs& h, const ObjectMeta& m)
{
    const std::int64_t mtimeNs = m.stamp != 0 ? m.stamp : m.atimeNs;
    if (auto it = m.custom.find("ETag"); it != m.custom.end() && !it->second.empty()) {
        h.emplace_back("ETag", "\"" + it->second + "\"");
    } else if (!m.checksumValue.empty()) {
        char b36[16];  // 2^64 - 1 has 13 base-36 digits
        std::size_t at = sizeof b36;
        for (auto v = static_cast<std::uint64_t>(std::max<std::int64_t>(mtimeNs, 0)); v != 0 || at == sizeof b36;
             v /= 36) {
            b36[--at] = "0123456789abcdefghijklmnopqrstuvwxyz"[v % 36];
        }
        std::string etag;
        etag.reserve(m.checksumValue.size() + sizeof b36 + 6);
        etag.append("\"v1-").append(m.checksumValue).append("-").append(b36 + at, sizeof b36 - at).append("\"");
        h.emplace_back("ETag", std::move(etag));
    }
    if (mtimeNs > 0) h.emplace_back("Last-Modified", formatHttpDate(mtimeNs));
}

namespace {

bool readInt64(const std::string& s, std::int64_t& out)
{
    if (s.empty() || s.size() > 20) return false;
    std::int64_t v = 0;
    std::size_t i = 0;
    const bool neg = s[0] == '-';
    if (neg) i = 1;
    if (i == s.size()) return false;
    for (; i < s.size(); ++i) {
        if (s[i] < '0' || s[i] > '9') return false;
        const int d = s[i] - '0';
        if (v > (std::numeric_limits<std::int64_t>::max() - d) / 10) return false;
        v = v * 10 + d;
    }
    out = neg ? -v : v;
    return true;
}

}  // namespace

ObjectAttrs attrsFromHeaders(const std::function<std::string(std::string_view)>& header)
{
    ObjectAttrs a;
    if (!readInt64(header(kHdrSize), a.size)) {
        if (!readInt64(header("content-length"), a.size)) a.size = -1;
    }
    readInt64(header(kHdrAtime), a.atimeNs);
    readInt64(header(kHdrVersionStamp), a.stamp);
    a.checksumType = header(kHdrChecksumType);
    a.checksumValue = header(kHdrChecksumValue);
    a.version = header(kHdrVersion);
    a.location = header(kHdrLocation);
    if (const auto md = header(kHdrCustomMd); !md.empty()) {
        if (auto parsed = parseCustomMd(md)) a.custom = std::move(parsed.value());
    }
    return a;
}

}  // namespace tessera::api
