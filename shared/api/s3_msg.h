#pragma once
// The S3 API's XML documents (the S3 front end on the proxy speaks them to
// S3 clients): each type is written with toXml and read back with its
// parse function, through pugixml. Parsing never throws: malformed XML, a
// wrong root element or a bad number is a BadRequest naming what is wrong
// (the front end answers it as S3's MalformedXML).

#include "result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::api {

inline constexpr std::string_view kS3Xmlns = "http://s3.amazonaws.com/doc/2006-03-01/";
// The largest XML request body the front end reads (DeleteObjects with
// 1,000 keys of 1 KiB each fits; CompleteMultipartUpload with 10,000 parts).
inline constexpr std::size_t kS3MaxXmlBody = 2 * 1024 * 1024;
inline constexpr std::size_t kS3MaxDeleteKeys = 1000;
inline constexpr std::uint32_t kS3MaxKeys = 1000;

// <Error>: an S3 error answer.
struct S3Error {
    std::string code;  // NoSuchBucket, NoSuchKey, ...
    std::string message;
    std::string resource;
    std::string requestId;
    bool operator==(const S3Error&) const = default;
};
std::string toXml(const S3Error& v);
Result<S3Error> parseS3Error(std::string_view xml);

// <ListAllMyBucketsResult>
struct S3Bucket {
    std::string name;
    std::string creationDate;  // ISO 8601, UTC
    bool operator==(const S3Bucket&) const = default;
};
struct S3BucketList {
    std::string ownerId;
    std::vector<S3Bucket> buckets;
    bool operator==(const S3BucketList&) const = default;
};
std::string toXml(const S3BucketList& v);
Result<S3BucketList> parseS3BucketList(std::string_view xml);

// <ListBucketResult> of ListObjectsV2 (v2) or ListObjects (v1). Keys and
// prefixes are written as given: with encoding-type=url the caller has
// encoded them already.
struct S3Object {
    std::string key;
    std::string lastModified;  // ISO 8601, UTC
    std::string etag;          // with its quotes
    std::int64_t size = 0;
    bool operator==(const S3Object&) const = default;
};
struct S3ObjectList {
    bool v2 = true;
    std::string name;
    std::string prefix;
    std::string delimiter;
    std::string encodingType;  // "url" or empty
    std::uint32_t maxKeys = kS3MaxKeys;
    bool isTruncated = false;
    // v2
    std::string continuationToken;
    std::string nextContinuationToken;
    std::string startAfter;
    std::uint32_t keyCount = 0;
    // v1
    std::string marker;
    std::string nextMarker;
    std::vector<S3Object> contents;
    std::vector<std::string> commonPrefixes;
    bool operator==(const S3ObjectList&) const = default;
};
std::string toXml(const S3ObjectList& v);
Result<S3ObjectList> parseS3ObjectList(std::string_view xml);

// <Delete> (DeleteObjects request) and <DeleteResult>.
struct S3DeleteRequest {
    bool quiet = false;
    std::vector<std::string> keys;
    bool operator==(const S3DeleteRequest&) const = default;
};
std::string toXml(const S3DeleteRequest& v);
// At most kS3MaxDeleteKeys keys, each non-empty.
Result<S3DeleteRequest> parseS3DeleteRequest(std::string_view xml);

struct S3DeleteError {
    std::string key;
    std::string code;
    std::string message;
    bool operator==(const S3DeleteError&) const = default;
};
struct S3DeleteResult {
    std::vector<std::string> deleted;
    std::vector<S3DeleteError> errors;
    bool operator==(const S3DeleteResult&) const = default;
};
std::string toXml(const S3DeleteResult& v);
Result<S3DeleteResult> parseS3DeleteResult(std::string_view xml);

// <CopyObjectResult> (and <CopyPartResult> with part = true).
struct S3CopyResult {
    std::string etag;
    std::string lastModified;
    bool part = false;
    bool operator==(const S3CopyResult&) const = default;
};
std::string toXml(const S3CopyResult& v);
Result<S3CopyResult> parseS3CopyResult(std::string_view xml);

// Multipart upload.
struct S3InitiateUpload {
    std::string bucket;
    std::string key;
    std::string uploadId;
    bool operator==(const S3InitiateUpload&) const = default;
};
std::string toXml(const S3InitiateUpload& v);
Result<S3InitiateUpload> parseS3InitiateUpload(std::string_view xml);

struct S3Part {
    std::uint32_t number = 0;
    std::string etag;          // with its quotes
    std::int64_t size = 0;     // ListParts only
    std::string lastModified;  // ListParts only
    bool operator==(const S3Part&) const = default;
};
inline constexpr std::uint32_t kS3MaxParts = 10000;
// <CompleteMultipartUpload>: at least one part, numbers 1..10000.
struct S3CompleteUpload {
    std::vector<S3Part> parts;
    bool operator==(const S3CompleteUpload&) const = default;
};
std::string toXml(const S3CompleteUpload& v);
Result<S3CompleteUpload> parseS3CompleteUpload(std::string_view xml);

struct S3CompleteResult {
    std::string location;
    std::string bucket;
    std::string key;
    std::string etag;
    bool operator==(const S3CompleteResult&) const = default;
};
std::string toXml(const S3CompleteResult& v);
Result<S3CompleteResult> parseS3CompleteResult(std::string_view xml);

struct S3PartList {
    std::string bucket;
    std::string key;
    std::string uploadId;
    std::uint32_t partNumberMarker = 0;      // the request's
    std::uint32_t nextPartNumberMarker = 0;  // the last part listed (0: none)
    std::uint32_t maxParts = 1000;
    bool isTruncated = false;
    std::vector<S3Part> parts;
    bool operator==(const S3PartList&) const = default;
};
std::string toXml(const S3PartList& v);
Result<S3PartList> parseS3PartList(std::string_view xml);

struct S3Upload {
    std::string key;
    std::string uploadId;
    std::string initiated;
    bool operator==(const S3Upload&) const = default;
};
struct S3UploadList {
    std::string bucket;
    std::string prefix;
    std::string delimiter;
    std::string encodingType;  // "url" or empty
    std::string keyMarker;     // the request's markers
    std::string uploadIdMarker;
    std::string nextKeyMarker;  // truncated only
    std::string nextUploadIdMarker;
    std::uint32_t maxUploads = 1000;
    bool isTruncated = false;
    std::vector<S3Upload> uploads;
    std::vector<std::string> commonPrefixes;
    bool operator==(const S3UploadList&) const = default;
};
std::string toXml(const S3UploadList& v);
Result<S3UploadList> parseS3UploadList(std::string_view xml);

// ISO 8601 with milliseconds, UTC ("2026-11-22T13:27:30.000Z"), as S3 lists
// times; and RFC 7231 ("Sun, 22 Nov 2026 13:27:30 GMT") for Last-Modified.
std::string s3IsoTime(std::int64_t unixSeconds);
std::string httpDate(std::int64_t unixSeconds);
// Parses the three date forms HTTP allows (If-Modified-Since); nullopt-like
// error for anything else.
Result<std::int64_t> parseHttpDate(std::string_view text);

}  // namespace tessera::api
