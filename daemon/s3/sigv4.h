#pragma once
// AWS Signature Version 4 as S3 clients send it: parsed from the
// Authorization header or from a presigned URL's query, and verified against
// a secret key (OpenSSL HMAC-SHA256). Also the signatures of the chunks of a
// STREAMING-AWS4-HMAC-SHA256-PAYLOAD[-TRAILER] body and of its trailer (see
// AwsChunkedDecoder).
//
// Without a secret (auth off) a request is only parsed: a well-formed
// signature is accepted, a malformed one is a BadRequest (S3's
// AuthorizationHeaderMalformed) and a request without any is anonymous.

#include "api/result.h"
#include "api/uri.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::daemon::s3 {

inline constexpr std::string_view kUnsignedPayload = "UNSIGNED-PAYLOAD";
inline constexpr std::string_view kStreamingPayload = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD";
// aws-chunked without chunk signatures, its checksum in a trailer named by
// x-amz-trailer (awscli over https, newer SDKs by default).
inline constexpr std::string_view kStreamingUnsignedTrailer = "STREAMING-UNSIGNED-PAYLOAD-TRAILER";
// Signed chunks, then trailer lines signed by x-amz-trailer-signature
// (the AWS SDKs for Java, Go and .NET with a checksum over a signed body).
inline constexpr std::string_view kStreamingSignedTrailer = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER";
// A presigned URL is valid for at most 7 days (S3's own limit).
inline constexpr std::int64_t kMaxPresignSeconds = 7 * 24 * 3600;
// Header form: the request's X-Amz-Date may be this far from the node's clock.
inline constexpr std::int64_t kMaxClockSkewSeconds = 15 * 60;

// What the signer needs of a request; `header` returns a field's value ("" when
// absent), the name in any case.
struct SignedRequest {
    std::string method;   // "GET"
    std::string path;     // as received, still percent-encoded
    api::QueryMap query;  // decoded
    std::function<std::string(std::string_view)> header;
};

struct SigV4 {
    std::string accessKey;
    std::string date;  // YYYYMMDD of the credential scope
    std::string region;
    std::string service;                     // "s3"
    std::string amzDate;                     // YYYYMMDDTHHMMSSZ
    std::vector<std::string> signedHeaders;  // lower case, sorted as sent
    std::string signature;                   // 64 lowercase hex digits
    std::string payloadHash;                 // x-amz-content-sha256: hex, UNSIGNED-PAYLOAD or the streaming marker
    bool presigned = false;
    std::int64_t expires = 0;  // presigned: seconds

    std::string scope() const { return date + "/" + region + "/" + service + "/aws4_request"; }
    bool streaming() const { return payloadHash == kStreamingPayload; }
    bool unsignedTrailer() const { return payloadHash == kStreamingUnsignedTrailer; }
    bool signedTrailer() const { return payloadHash == kStreamingSignedTrailer; }
    // The body is aws-chunked (signed chunks with or without a signed
    // trailer, or unsigned chunks with a trailer).
    bool awsChunked() const { return streaming() || unsignedTrailer() || signedTrailer(); }
};

// The request's signature; nullopt when it carries none (anonymous).
// BadRequest for a malformed one, and for SigV2 ("AWS key:sig"), which is not
// supported.
api::Result<std::optional<SigV4>> parseSigV4(const SignedRequest& req);

// The pieces of the computation, exposed for tests.
std::string canonicalRequest(const SignedRequest& req, const SigV4& sig);
std::string stringToSign(const SigV4& sig, std::string_view canonical);
// The 32-byte signing key of `secret` for the signature's scope.
std::string signingKey(std::string_view secret, const SigV4& sig);
std::string hmacHex(std::string_view key, std::string_view data);
std::string sha256Hex(std::string_view data);

// Checks the signature with `secret`, and (header form) the clock skew and
// (presigned) the expiry against `nowUnix`. Forbidden with S3's reason
// (SignatureDoesNotMatch, RequestTimeTooSkewed, expired) in the message.
api::Status verifySigV4(const SignedRequest& req, const SigV4& sig, std::string_view secret, std::int64_t nowUnix);

// Parses YYYYMMDDTHHMMSSZ to unix seconds.
api::Result<std::int64_t> parseAmzDate(std::string_view s);

// The signature of one chunk of a streaming upload, chained from the
// previous one (the seed signature first).
std::string chunkSignature(std::string_view signingKey, const SigV4& sig, std::string_view previous,
                           std::string_view chunkSha256Hex);
// The x-amz-trailer-signature of a signed trailer, chained from the final
// (empty) chunk's signature. `canonicalTrailers`: each trailer line but the
// signature, as "<lower-case name>:<trimmed value>\n", in the order sent.
std::string trailerSignature(std::string_view signingKey, const SigV4& sig, std::string_view previous,
                             std::string_view canonicalTrailers);

}  // namespace tessera::daemon::s3
