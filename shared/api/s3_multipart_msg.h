#pragma once
// S3 multipart uploads between the proxy's S3 front end and the target that
// owns the final object (docs/s3.md). The parts live on that target, in a
// staging area of the object's mountpath, and are assembled there; these are
// the messages of its internal calls (cluster key, like every
// /v1/internal/... call):
//   POST   /v1/internal/s3/uploads/<b>/<key>                     MultipartCreate -> MultipartUpload
//   HEAD   /v1/internal/s3/uploads/<b>/<key>?upload_id=U         200, or 404 NoSuchUpload
//   GET    /v1/internal/s3/uploads/<b>/<key>?upload_id=U         -> MultipartPartList
//   DELETE /v1/internal/s3/uploads/<b>/<key>?upload_id=U         204 (abort)
//   GET    /v1/internal/s3/uploads/<b>?prefix=P                  -> MultipartUploadList
//   PUT    /v1/internal/s3/parts/<b>/<key>?upload_id=U&part=N    body: the part -> MultipartPart
//   POST   /v1/internal/s3/part-copy/<b>/<key>?upload_id=U&part=N  MultipartPartCopy -> MultipartPart
//   POST   /v1/internal/s3/complete/<b>/<key>?upload_id=U        MultipartComplete -> MultipartCompleted
// Every call carries smap_version. An error is the node's JSON error; its
// message starts with the S3 code ("NoSuchUpload: ...", "InvalidPart: ...").

#include "wire.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::api {

// The limits (S3's own).
inline constexpr std::uint32_t kMultipartMaxParts = 10000;                      // part numbers 1..10,000
inline constexpr std::uint64_t kMultipartMinPartSize = std::uint64_t{5} << 20;  // every part but the last
inline constexpr std::uint64_t kMultipartMaxPartSize = std::uint64_t{5} << 30;
// An upload id: 32 lowercase hex digits.
inline constexpr std::size_t kMultipartIdLength = 32;
bool validMultipartId(std::string_view id);

// CreateMultipartUpload: the final object's custom metadata (its S3 user
// metadata and Content-Type, as the S3 front end stores them).
struct MultipartCreate {
    std::map<std::string, std::string> custom;
    bool operator==(const MultipartCreate&) const = default;
};
void to_json(nlohmann::json& j, const MultipartCreate& v);
void readFields(FieldReader& r, MultipartCreate& v);

// An upload in progress: the target's record of it (kept in its staging
// directory), the answer of a create, an item of a listing.
struct MultipartUpload {
    std::string bucket;
    std::string key;
    std::string uploadId;
    std::int64_t initiatedNs = 0;
    std::map<std::string, std::string> custom;
    bool operator==(const MultipartUpload&) const = default;
};
void to_json(nlohmann::json& j, const MultipartUpload& v);
void readFields(FieldReader& r, MultipartUpload& v);

// A stored part: its MD5 (32 hex digits, the part's ETag without quotes),
// computed by the target while it wrote the part.
struct MultipartPart {
    std::uint32_t number = 0;
    std::string etag;
    std::uint64_t size = 0;
    std::int64_t mtimeNs = 0;
    bool operator==(const MultipartPart&) const = default;
};
void to_json(nlohmann::json& j, const MultipartPart& v);
void readFields(FieldReader& r, MultipartPart& v);

// UploadPartCopy: the part is (a range of) another object, which the
// upload's target reads itself (from its own disk when it owns the source,
// else from the source's owner): the bytes never pass through the proxy.
struct MultipartPartCopy {
    std::string bucket;  // the source
    std::string key;
    // An inclusive byte range (x-amz-copy-source-range: bytes=first-last);
    // both or neither. None: the whole object.
    std::optional<std::uint64_t> first;
    std::optional<std::uint64_t> last;
    bool operator==(const MultipartPartCopy&) const = default;
};
void to_json(nlohmann::json& j, const MultipartPartCopy& v);
void readFields(FieldReader& r, MultipartPartCopy& v);

// ListParts: every part, by number.
struct MultipartPartList {
    MultipartUpload upload;
    std::vector<MultipartPart> parts;
    bool operator==(const MultipartPartList&) const = default;
};
void to_json(nlohmann::json& j, const MultipartPartList& v);
void readFields(FieldReader& r, MultipartPartList& v);

// ListMultipartUploads on one target.
struct MultipartUploadList {
    std::vector<MultipartUpload> uploads;
    bool operator==(const MultipartUploadList&) const = default;
};
void to_json(nlohmann::json& j, const MultipartUploadList& v);
void readFields(FieldReader& r, MultipartUploadList& v);

// CompleteMultipartUpload: the parts the client chose, as it listed them
// (number and ETag); at most kMultipartMaxParts, numbers 1..10,000.
struct MultipartComplete {
    struct Part {
        std::uint32_t number = 0;
        std::string etag;
        bool operator==(const Part&) const = default;
    };
    std::vector<Part> parts;
    bool operator==(const MultipartComplete&) const = default;
};
void to_json(nlohmann::json& j, const MultipartComplete::Part& v);
void readFields(FieldReader& r, MultipartComplete::Part& v);
void to_json(nlohmann::json& j, const MultipartComplete& v);
void readFields(FieldReader& r, MultipartComplete& v);

// The object a completion wrote: its S3 ETag ("<md5 of the part MD5s>-N",
// no quotes), size and time.
struct MultipartCompleted {
    std::string etag;
    std::uint64_t size = 0;
    std::int64_t mtimeNs = 0;
    bool operator==(const MultipartCompleted&) const = default;
};
void to_json(nlohmann::json& j, const MultipartCompleted& v);
void readFields(FieldReader& r, MultipartCompleted& v);

namespace path {
std::string multipartUploads(std::string_view bucket);                         // /v1/internal/s3/uploads/<b>
std::string multipartUpload(std::string_view bucket, std::string_view key);    // /v1/internal/s3/uploads/<b>/<key>
std::string multipartPart(std::string_view bucket, std::string_view key);      // /v1/internal/s3/parts/<b>/<key>
std::string multipartPartCopy(std::string_view bucket, std::string_view key);  // /v1/internal/s3/part-copy/<b>/<key>
std::string multipartComplete(std::string_view bucket, std::string_view key);  // /v1/internal/s3/complete/<b>/<key>
}  // namespace path

}  // namespace tessera::api
