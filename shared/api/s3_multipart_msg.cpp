#include "s3_multipart_msg.h"

#include "names.h"
#include "uri.h"

#include <algorithm>

namespace tessera::api {

bool validMultipartId(std::string_view id)
{
    return id.size() == kMultipartIdLength &&
           std::all_of(id.begin(), id.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

namespace {
bool isMd5Hex(const std::string& s) { return s.size() == 32 && validMultipartId(s); }
}  // namespace

void to_json(nlohmann::json& j, const MultipartCreate& v) { j = nlohmann::json{{"custom", v.custom}}; }

void readFields(FieldReader& r, MultipartCreate& v) { r.optional("custom", v.custom); }

void to_json(nlohmann::json& j, const MultipartUpload& v)
{
    j = nlohmann::json{{"bucket", v.bucket},
                       {"key", v.key},
                       {"upload_id", v.uploadId},
                       {"initiated_ns", v.initiatedNs},
                       {"custom", v.custom}};
}

void readFields(FieldReader& r, MultipartUpload& v)
{
    r.required("bucket", v.bucket)
        .required("key", v.key)
        .required("upload_id", v.uploadId)
        .required("initiated_ns", v.initiatedNs)
        .optional("custom", v.custom);
    if (!r.ok()) return;
    if (auto st = validateBucketName(v.bucket); !st) return r.fail(r.pointerTo("bucket"), st.error().message);
    if (auto st = validateObjectName(v.key); !st) return r.fail(r.pointerTo("key"), st.error().message);
    if (!validMultipartId(v.uploadId)) return r.fail(r.pointerTo("upload_id"), "must be 32 lowercase hex digits");
}

void to_json(nlohmann::json& j, const MultipartPart& v)
{
    j = nlohmann::json{{"number", v.number}, {"etag", v.etag}, {"size", v.size}, {"mtime_ns", v.mtimeNs}};
}

void readFields(FieldReader& r, MultipartPart& v)
{
    r.required("number", v.number).required("etag", v.etag).required("size", v.size).required("mtime_ns", v.mtimeNs);
    if (!r.ok()) return;
    if (v.number < 1 || v.number > kMultipartMaxParts) return r.fail(r.pointerTo("number"), "must be 1..10000");
    if (!isMd5Hex(v.etag)) return r.fail(r.pointerTo("etag"), "must be an MD5 in 32 lowercase hex digits");
    if (v.size > kMultipartMaxPartSize) return r.fail(r.pointerTo("size"), "is larger than 5 GiB");
}

void to_json(nlohmann::json& j, const MultipartPartCopy& v)
{
    j = nlohmann::json{{"bucket", v.bucket}, {"key", v.key}};
    if (v.first) j["first"] = *v.first;
    if (v.last) j["last"] = *v.last;
}

void readFields(FieldReader& r, MultipartPartCopy& v)
{
    r.required("bucket", v.bucket).required("key", v.key).optional("first", v.first).optional("last", v.last);
    if (!r.ok()) return;
    if (auto st = validateBucketName(v.bucket); !st) return r.fail(r.pointerTo("bucket"), st.error().message);
    if (auto st = validateObjectName(v.key); !st) return r.fail(r.pointerTo("key"), st.error().message);
    if (v.first.has_value() != v.last.has_value()) return r.fail(r.pointerTo("last"), "first and last go together");
    if (v.first && *v.first > *v.last) return r.fail(r.pointerTo("last"), "must not be less than first");
    if (v.first && *v.last - *v.first >= kMultipartMaxPartSize) {
        return r.fail(r.pointerTo("last"), "the range is larger than 5 GiB");
    }
}

void to_json(nlohmann::json& j, const MultipartPartList& v)
{
    j = nlohmann::json{{"upload", v.upload}, {"parts", v.parts}};
}

void readFields(FieldReader& r, MultipartPartList& v)
{
    r.required("upload", v.upload).required("parts", v.parts);
    if (!r.ok()) return;
    if (v.parts.size() > kMultipartMaxParts) return r.fail(r.pointerTo("parts"), "more than 10000 parts");
}

void to_json(nlohmann::json& j, const MultipartUploadList& v) { j = nlohmann::json{{"uploads", v.uploads}}; }

void readFields(FieldReader& r, MultipartUploadList& v) { r.required("uploads", v.uploads); }

void to_json(nlohmann::json& j, const MultipartComplete::Part& v)
{
    j = nlohmann::json{{"number", v.number}, {"etag", v.etag}};
}

void readFields(FieldReader& r, MultipartComplete::Part& v)
{
    r.required("number", v.number).required("etag", v.etag);
    if (!r.ok()) return;
    if (v.number < 1 || v.number > kMultipartMaxParts) return r.fail(r.pointerTo("number"), "must be 1..10000");
}

void to_json(nlohmann::json& j, const MultipartComplete& v) { j = nlohmann::json{{"parts", v.parts}}; }

void readFields(FieldReader& r, MultipartComplete& v)
{
    r.required("parts", v.parts);
    if (!r.ok()) return;
    if (v.parts.empty()) return r.fail(r.pointerTo("parts"), "must name at least one part");
    if (v.parts.size() > kMultipartMaxParts) return r.fail(r.pointerTo("parts"), "more than 10000 parts");
}

void to_json(nlohmann::json& j, const MultipartCompleted& v)
{
    j = nlohmann::json{{"etag", v.etag}, {"size", v.size}, {"mtime_ns", v.mtimeNs}};
}

void readFields(FieldReader& r, MultipartCompleted& v)
{
    r.required("etag", v.etag).required("size", v.size).required("mtime_ns", v.mtimeNs);
}

namespace path {
namespace {
std::string under(std::string_view what, std::string_view bucket, std::string_view key)
{
    return "/v1/internal/s3/" + std::string(what) + "/" + percentEncode(bucket) + "/" + percentEncode(key, true);
}
}  // namespace

std::string multipartUploads(std::string_view bucket) { return "/v1/internal/s3/uploads/" + percentEncode(bucket); }
std::string multipartUpload(std::string_view bucket, std::string_view key) { return under("uploads", bucket, key); }
std::string multipartPart(std::string_view bucket, std::string_view key) { return under("parts", bucket, key); }
std::string multipartPartCopy(std::string_view bucket, std::string_view key) { return under("part-copy", bucket, key); }
std::string multipartComplete(std::string_view bucket, std::string_view key) { return under("complete", bucket, key); }
}  // namespace path

}  // namespace tessera::api
