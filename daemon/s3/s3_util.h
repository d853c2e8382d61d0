#pragma once
// What the S3 handlers share beyond the request context: the S3 view of an
// object (ETag, time, type, user metadata) read from a target's answer and
// written to a client's, S3's conditional requests, the custom metadata a
// PUT carries, and small text helpers. Pure functions; any thread.

#include "api/result.h"
#include "api/uri.h"
#include "net/request.h"
#include "net/response.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera::daemon::s3 {

inline constexpr std::size_t kMaxUserMetadata = 2048;  // S3's limit on x-amz-meta-* (names and values)
inline constexpr std::uint64_t kMaxObjectSize = std::uint64_t{5} << 40;  // 5 TiB, S3's single-object limit
inline constexpr std::size_t kRelayChunk = 256 * 1024;

std::string lower(std::string_view s);
std::string unquote(std::string s);
std::string hexOf(std::string_view s);
// Two hex digits per byte; BadRequest (a malformed continuation token) otherwise.
api::Result<std::string> unhex(std::string_view s);
// A custom-metadata value: ',', '%' and bytes outside printable ASCII escaped.
std::string encodeValue(std::string_view v);
std::string decodeValue(std::string_view v);
std::int64_t nowUnix();
// True when `s` is 1..`maxDigits` decimal digits.
bool allDigits(std::string_view s, std::size_t maxDigits);

// The S3 view of an object, from a target's (or the native API's) answer.
struct ObjectView {
    std::uint64_t size = 0;
    std::string etag;  // with quotes
    std::int64_t mtime = 0;
    std::string contentType;
    std::vector<std::pair<std::string, std::string>> userMeta;  // name without x-amz-meta-, value
    std::map<std::string, std::string> custom;                  // as stored
};
ObjectView viewOf(const std::function<std::string(std::string_view)>& header);
void addObjectHeaders(net::Response& r, const ObjectView& v);

// If-Match, If-None-Match, If-Modified-Since, If-Unmodified-Since (RFC 7232
// order). nullopt: go on; else the 304 or 412 to answer.
std::optional<net::Response> checkConditions(const net::Request& req, const ObjectView& v, const std::string& resource);

// The user metadata and Content-Type of a PUT (or of a
// CreateMultipartUpload) as custom metadata.
api::Result<std::map<std::string, std::string>> customFromRequest(const net::Request& req);

// x-amz-copy-source: "[/]<bucket>/<key>", percent-encoded (a ?versionId
// is ignored: no versioning); {bucket, key}, or InvalidArgument.
api::Result<std::pair<std::string, std::string>> parseCopySource(std::string_view header);

// /v1/objects/<b>/<name>?<query>&smap_version=<v>
std::string objectTarget(const std::string& bucket, const std::string& name, api::QueryMap query,
                         std::int64_t smapVersion);

}  // namespace tessera::daemon::s3
