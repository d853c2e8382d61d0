#include "hmac_sha256.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdexcept>

namespace tessera::daemon::auth {

Mac hmacSha256(std::string_view key, std::string_view data)
{
    Mac out{};
    unsigned int len = 0;
    const auto* r = HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
                         reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data(), &len);
    if (r == nullptr || len != out.size()) throw std::logic_error("OpenSSL HMAC-SHA256 failed");
    return out;
}

bool sameBytes(std::string_view a, std::string_view b)
{
    if (a.size() != b.size()) return false;
    return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace tessera::daemon::auth
