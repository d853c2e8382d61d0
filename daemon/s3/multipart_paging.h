#pragma once
// Paging of ListParts and ListMultipartUploads as the S3 API reference
// gives it, over the whole list the owning target(s) returned (a target
// keeps at most 10,000 parts per upload and 10,000 uploads: the proxy pages
// in memory).
//
// ListParts: parts numbered above `part-number-marker`, at most
// `max-parts` (default and cap 1,000); truncated: NextPartNumberMarker is
// the last part listed.
//
// ListMultipartUploads: uploads sorted by key, then by upload id (the order
// the upload-id-marker is defined in); keys above `key-marker`, and with an
// `upload-id-marker` also the marker key's uploads with a greater id; keys
// under `prefix`; with a `delimiter`, keys holding it after the prefix
// rolled up into CommonPrefixes (each counts once against `max-uploads`,
// default and cap 1,000). Truncated: NextKeyMarker/NextUploadIdMarker name
// the last upload listed, or NextKeyMarker the last common prefix (whose
// keys the next page then skips).
//
// Pure functions; no I/O.

#include "api/result.h"
#include "api/s3_multipart_msg.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::daemon::s3 {

inline constexpr std::uint32_t kMaxListPage = 1000;

// A `max-parts` / `max-uploads` value: absent means kMaxListPage; more is
// capped there. BadRequest (InvalidArgument) for anything but a whole
// number 0..2147483647.
api::Result<std::uint32_t> parsePageSize(const std::string& text, const char* name);
// A `part-number-marker`: absent means 0. BadRequest unless 0..2147483647.
api::Result<std::uint32_t> parsePartMarker(const std::string& text);

struct PartPage {
    std::vector<api::MultipartPart> parts;
    bool truncated = false;
    std::uint32_t nextMarker = 0;  // the last part listed (0 when none)
};
// `all` in any order.
PartPage pageParts(std::vector<api::MultipartPart> all, std::uint32_t marker, std::uint32_t maxParts);

struct UploadQuery {
    std::string prefix;
    std::string delimiter;
    std::string keyMarker;
    std::string uploadIdMarker;  // ignored without keyMarker
    std::uint32_t maxUploads = kMaxListPage;
};
struct UploadPage {
    std::vector<api::MultipartUpload> uploads;
    std::vector<std::string> commonPrefixes;
    bool truncated = false;
    std::string nextKeyMarker;
    std::string nextUploadIdMarker;
};
// `all` in any order.
UploadPage pageUploads(std::vector<api::MultipartUpload> all, const UploadQuery& q);

}  // namespace tessera::daemon::s3
