#pragma once
// The signature a proxy appends to a redirect so the target can check the
// redirected request without the client's `Authorization` header (curl and
// most HTTP libraries drop it when a redirect changes host or port). It is
// a presigned URL: HMAC-SHA256, under the cluster-internal key, of the
// method, bucket, object and expiry, sent as two query parameters:
//   tsig  64 hex digits
//   texp  expiry, unix seconds
// The signed text length-prefixes bucket and object, so no two different
// (bucket, object) pairs sign the same text.
//
// What it does not bind: the query's other parameters and the body. Within
// its lifetime the same URL can be replayed for the same method, bucket and
// object only, which is what the client was already allowed to do.
//
// Thread safety: an instance is immutable; any thread may use it.

#include "api/result.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace tessera::daemon::auth {

class RequestSignature {
public:
    static constexpr const char* kSigParam = "tsig";
    static constexpr const char* kExpParam = "texp";
    // A client follows a redirect at once; 30 s covers a slow one and a few
    // seconds of clock difference between proxy and target.
    static constexpr std::int64_t kDefaultLifetime = 30;
    // The most a target accepts (texp - now), so a signature cannot be made
    // to last, whatever the signer asked.
    static constexpr std::int64_t kMaxLifetime = 300;
    // Same strength as the HMAC's hash.
    static constexpr std::size_t kMinKeyBytes = 32;

    // BadRequest for a key shorter than kMinKeyBytes.
    static api::Result<RequestSignature> create(std::string key);
    ~RequestSignature();
    RequestSignature(RequestSignature&&) noexcept = default;
    RequestSignature& operator=(RequestSignature&&) noexcept = default;
    RequestSignature(const RequestSignature&) = delete;
    RequestSignature& operator=(const RequestSignature&) = delete;

    // "tsig=<hex>&texp=<seconds>" for a request expiring `lifetime` seconds
    // after `now` (1..kMaxLifetime; clamped into it). `object` is empty for
    // a bucket-level request.
    std::string sign(std::string_view method, std::string_view bucket, std::string_view object, std::int64_t now,
                     std::int64_t lifetime = kDefaultLifetime) const;
    // Ok when `tsig` signs (method, bucket, object, texp) and texp is not
    // past `now` nor more than kMaxLifetime ahead of it. Unauthorized with
    // the reason otherwise (a malformed parameter included).
    api::Status verify(std::string_view method, std::string_view bucket, std::string_view object, std::string_view tsig,
                       std::string_view texp, std::int64_t now) const;

private:
    explicit RequestSignature(std::string key) : m_key(std::move(key)) {}
    std::string mac(std::string_view method, std::string_view bucket, std::string_view object,
                    std::int64_t expiresAt) const;

    std::string m_key;
};

}  // namespace tessera::daemon::auth
