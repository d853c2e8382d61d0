#pragma once
// The keys that sign and verify tokens, each named by a key id (the JWT's
// `kid` header). New tokens are signed with the newest key; every key in the
// ring still verifies, so rotating (adding a key) keeps the tokens already
// issued valid until their key is dropped.
//
// Thread safety: none; the owner (TokenService) serializes calls.

#include "api/result.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::daemon::auth {

struct SigningKey {
    std::string kid;     // 16 hex digits
    std::string secret;  // kKeyBytes random bytes
};

class KeyRing {
public:
    // 256-bit keys: HS256's own strength (RFC 7518 asks for at least the
    // hash's size).
    static constexpr std::size_t kKeyBytes = 32;
    // A ring needs only the current key and those of tokens still alive;
    // more than a few means keys are rotated without ever being dropped.
    static constexpr std::size_t kMaxKeys = 8;

    KeyRing() = default;
    ~KeyRing();  // wipes the secrets
    KeyRing(const KeyRing&) = delete;
    KeyRing& operator=(const KeyRing&) = delete;

    // Adds a new random key (libsodium's randombytes_buf) and makes it the
    // newest; returns its id. Conflict when the ring is full.
    api::Result<std::string> rotate();
    // Adds a known key as the newest (loading a persisted ring). BadRequest
    // for a secret shorter than kKeyBytes or a kid that is not 1..64
    // printable ASCII; Conflict for a kid already present or a full ring.
    api::Status add(std::string kid, std::string secret);
    // Drops a key: tokens it signed stop verifying. NotFound for an unknown
    // kid; Conflict for the newest key (new tokens need one to be signed).
    api::Status drop(std::string_view kid);
    // Replaces the whole ring with `keys` (oldest first; the last signs),
    // checked as add() checks each; on any error the ring is unchanged.
    // BadRequest for an empty list.
    api::Status assign(std::vector<SigningKey> keys);

    // The signing key; nullptr while the ring is empty.
    const SigningKey* newest() const;
    // nullptr when no key has that id.
    const SigningKey* find(std::string_view kid) const;
    // Oldest first.
    std::vector<std::string> kids() const;

private:
    std::vector<SigningKey> m_keys;  // oldest first
};

}  // namespace tessera::daemon::auth
