#include "s3_util.h"

#include "md5_stream.h"
#include "s3_errors.h"

#include "api/headers.h"
#include "api/object_meta.h"
#include "api/paths.h"
#include "api/s3_msg.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

namespace tessera::daemon::s3 {

std::string lower(std::string_view s)
{
    std::string out(s);
    for (auto& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

std::string unquote(std::string s)
{
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return s.substr(1, s.size() - 2);
    return s;
}

std::string hexOf(std::string_view s) { return Md5Stream::toHex(std::string(s)); }

api::Result<std::string> unhex(std::string_view s)
{
    if (s.size() % 2 != 0) return api::Error::badRequest("InvalidArgument: malformed continuation token");
    std::string out;
    for (std::size_t i = 0; i < s.size(); i += 2) {
        auto d = [](char c) { return (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1; };
        const int a = d(s[i]), b = d(s[i + 1]);
        if (a < 0 || b < 0) return api::Error::badRequest("InvalidArgument: malformed continuation token");
        out.push_back(static_cast<char>(a * 16 + b));
    }
    return out;
}

// A custom-metadata value: ',', '%' and bytes outside printable ASCII escaped.
std::string encodeValue(std::string_view v)
{
    static const char* kHex = "0123456789ABCDEF";
    std::string out;
    for (char c : v) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u > 0x7e || c == ',' || c == '%') {
            out.push_back('%');
            out.push_back(kHex[u >> 4]);
            out.push_back(kHex[u & 15]);
        } else {
            out.push_back(c);
        }
    }
    return out;
}

std::string decodeValue(std::string_view v)
{
    auto d = api::percentDecode(v);
    return d ? *d : std::string(v);
}

std::int64_t nowUnix()
{
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

ObjectView viewOf(const std::function<std::string(std::string_view)>& header)
{
    ObjectView v;
    const auto attrs = api::attrsFromHeaders(header);
    v.size = static_cast<std::uint64_t>(std::max<std::int64_t>(attrs.size, 0));
    if (auto md = api::parseCustomMd(header(api::kHdrCustomMd)); md) v.custom = std::move(md.value());
    if (auto it = v.custom.find("s3-etag"); it != v.custom.end()) {
        v.etag = "\"" + it->second + "\"";
    } else {
        // Written by the native API: no MD5 was kept; the xxhash, marked
        // with "-1" so that clients do not compare it with an MD5.
        const auto x = header(api::kHdrChecksumValue);
        v.etag = "\"" + (x.empty() ? std::string("0") : x) + "-1\"";
    }
    if (auto it = v.custom.find("s3-mtime"); it != v.custom.end()) {
        v.mtime = std::atoll(it->second.c_str());
    } else {
        v.mtime = std::atoll(header(api::kHdrAtime).c_str()) / 1000000000;
    }
    if (auto it = v.custom.find("s3-ct"); it != v.custom.end()) v.contentType = decodeValue(it->second);
    for (const auto& [k, val] : v.custom) {
        if (k.rfind("s3m.", 0) == 0) v.userMeta.emplace_back(k.substr(4), decodeValue(val));
    }
    return v;
}

void addObjectHeaders(net::Response& r, const ObjectView& v)
{
    r.header("ETag", v.etag);
    r.header("Last-Modified", api::httpDate(v.mtime));
    r.header("Content-Type", v.contentType.empty() ? "binary/octet-stream" : v.contentType);
    r.header("Accept-Ranges", "bytes");
    for (const auto& [k, val] : v.userMeta) r.header("x-amz-meta-" + k, val);
}

// If-Match, If-None-Match, If-Modified-Since, If-Unmodified-Since (RFC 7232
// order). nullopt: go on; else the 304 or 412 to answer.
std::optional<net::Response> checkConditions(const net::Request& req, const ObjectView& v, const std::string& resource)
{
    const auto tag = unquote(v.etag);
    const auto matches = [&](const std::string& list) {
        std::size_t start = 0;
        while (start <= list.size()) {
            auto comma = list.find(',', start);
            std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            while (!item.empty() && item.front() == ' ') item.erase(0, 1);
            while (!item.empty() && item.back() == ' ') item.pop_back();
            if (item.rfind("W/", 0) == 0) item = item.substr(2);
            if (item == "*" || unquote(item) == tag) return true;
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        return false;
    };
    const auto ifMatch = req.header("If-Match");
    const auto ifNoneMatch = req.header("If-None-Match");
    if (!ifMatch.empty() && !matches(ifMatch)) {
        return s3Error(412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold",
                       resource);
    }
    if (ifMatch.empty()) {
        const auto ius = req.header("If-Unmodified-Since");
        if (!ius.empty()) {
            if (auto t = api::parseHttpDate(ius); t && v.mtime > *t) {
                return s3Error(412, "PreconditionFailed",
                               "At least one of the pre-conditions you specified did not hold", resource);
            }
        }
    }
    const auto notModified = [&] {
        net::Response r;
        r.status = 304;
        r.header("ETag", v.etag);
        r.header("Last-Modified", api::httpDate(v.mtime));
        return r;
    };
    if (!ifNoneMatch.empty()) {
        if (matches(ifNoneMatch)) return notModified();
    } else {
        const auto ims = req.header("If-Modified-Since");
        if (!ims.empty()) {
            if (auto t = api::parseHttpDate(ims); t && v.mtime <= *t) return notModified();
        }
    }
    return std::nullopt;
}

// The user metadata and Content-Type of a PUT as custom metadata.
api::Result<std::map<std::string, std::string>> customFromRequest(const net::Request& req)
{
    std::map<std::string, std::string> out;
    std::size_t total = 0;
    if (req.headers != nullptr) {
        for (const auto& f : *req.headers) {
            const auto name = lower(std::string_view(f.name_string().data(), f.name_string().size()));
            if (name.rfind("x-amz-meta-", 0) != 0) continue;
            const auto key = name.substr(11);
            if (key.empty() || !std::all_of(key.begin(), key.end(), [](char c) {
                    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
                })) {
                return api::Error::badRequest("InvalidArgument: metadata name \"" + key +
                                              "\" must be of a-z, 0-9, '-', '_' and '.'");
            }
            const std::string value(f.value());
            total += key.size() + value.size();
            out["s3m." + key] = encodeValue(value);
        }
    }
    if (total > kMaxUserMetadata) {
        return api::Error::badRequest("MetadataTooLarge: x-amz-meta-* headers exceed " +
                                      std::to_string(kMaxUserMetadata) + " bytes");
    }
    const auto ct = req.header("Content-Type");
    if (!ct.empty()) out["s3-ct"] = encodeValue(ct);
    return out;
}

api::Result<std::pair<std::string, std::string>> parseCopySource(std::string_view header)
{
    auto src = api::percentDecode(header);
    if (!src) return api::Error::badRequest("InvalidArgument: malformed x-amz-copy-source");
    std::string s = *src;
    if (auto q = s.find("?versionId="); q != std::string::npos) s.resize(q);
    if (!s.empty() && s.front() == '/') s.erase(0, 1);
    const auto slash = s.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == s.size()) {
        return api::Error::badRequest("InvalidArgument: x-amz-copy-source must be <bucket>/<key>");
    }
    return std::make_pair(s.substr(0, slash), s.substr(slash + 1));
}

bool allDigits(std::string_view s, std::size_t maxDigits)
{
    return !s.empty() && s.size() <= maxDigits &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// /v1/objects/<b>/<name>?<query>&smap_version=<v>
std::string objectTarget(const std::string& bucket, const std::string& name, api::QueryMap query,
                         std::int64_t smapVersion)
{
    query[std::string(api::kQpSmapVersion)] = std::to_string(smapVersion);
    return api::path::object(bucket, name) + "?" + api::buildQuery(query);
}

}  // namespace tessera::daemon::s3
