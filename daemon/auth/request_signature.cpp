#include "request_signature.h"

#include "hmac_sha256.h"

#include <algorithm>
#include <charconv>
#include <openssl/crypto.h>

namespace tessera::daemon::auth {

namespace {

api::Error refused(std::string why)
{
    return api::Error::unauthorized("redirect signature refused: " + std::move(why));
}

std::string toHex(const Mac& m)
{
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    out.reserve(2 * m.size());
    for (unsigned char b : m) {
        out += kDigits[b >> 4];
        out += kDigits[b & 0xf];
    }
    return out;
}

}  // namespace

api::Result<RequestSignature> RequestSignature::create(std::string key)
{
    if (key.size() < kMinKeyBytes) {
        return api::Error::badRequest("the redirect signing key needs at least " + std::to_string(kMinKeyBytes) +
                                      " bytes");
    }
    return RequestSignature(std::move(key));
}

RequestSignature::~RequestSignature()
{
    if (!m_key.empty()) OPENSSL_cleanse(m_key.data(), m_key.size());
}

std::string RequestSignature::mac(std::string_view method, std::string_view bucket, std::string_view object,
                                  std::int64_t expiresAt) const
{
    std::string text = "tessera-redirect-v1\n";
    text.append(method).append("\n");
    text.append(std::to_string(bucket.size())).append(":").append(bucket).append("\n");
    text.append(std::to_string(object.size())).append(":").append(object).append("\n");
    text.append(std::to_string(expiresAt));
    return toHex(hmacSha256(m_key, text));
}

std::string RequestSignature::sign(std::string_view method, std::string_view bucket, std::string_view object,
                                   std::int64_t now, std::int64_t lifetime) const
{
    const auto expiresAt = now + std::clamp<std::int64_t>(lifetime, 1, kMaxLifetime);
    return std::string(kSigParam) + "=" + mac(method, bucket, object, expiresAt) + "&" + kExpParam + "=" +
           std::to_string(expiresAt);
}

api::Status RequestSignature::verify(std::string_view method, std::string_view bucket, std::string_view object,
                                     std::string_view tsig, std::string_view texp, std::int64_t now) const
{
    std::int64_t expiresAt = 0;
    const auto [end, ec] = std::from_chars(texp.data(), texp.data() + texp.size(), expiresAt);
    const bool digits = std::all_of(texp.begin(), texp.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (texp.empty() || texp.size() > 18 || !digits || ec != std::errc() || end != texp.data() + texp.size()) {
        return refused(std::string(kExpParam) + " is not unix seconds");
    }
    if (expiresAt < now) return refused("expired");
    if (expiresAt - now > kMaxLifetime) return refused("expiry beyond the maximum lifetime");
    if (!sameBytes(mac(method, bucket, object, expiresAt), tsig)) return refused("does not match the request");
    return {};
}

}  // namespace tessera::daemon::auth
