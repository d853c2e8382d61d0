#pragma once
// HMAC-SHA256 over OpenSSL and a constant-time comparison, shared by the
// token check and the redirect signature.

#include <array>
#include <cstddef>
#include <string_view>

namespace tessera::daemon::auth {

using Mac = std::array<unsigned char, 32>;

// HMAC-SHA256 of `data` under `key`. Throws std::logic_error only if
// OpenSSL cannot compute SHA-256 at all (a broken installation: a bug, not
// an expected failure).
Mac hmacSha256(std::string_view key, std::string_view data);

// True when the two byte strings are equal; the time taken depends only on
// their lengths, never on where they first differ.
bool sameBytes(std::string_view a, std::string_view b);

}  // namespace tessera::daemon::auth
