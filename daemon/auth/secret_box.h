#pragma once
// Seals small secrets kept at rest (the S3 secret keys in users.db) with
// libsodium's crypto_secretbox (XSalsa20-Poly1305) under a 256-bit key held
// in a file of its own, mode 0600. A copy of users.db without the key file
// reveals no secret, and a sealed value moved to another row (another
// access key) does not open: each is sealed together with its context.
//
// SigV4 needs the secret itself (the HMAC key derives from it), so secrets
// cannot be stored hashed as passwords are; sealing is the next best.
//
// Thread safety: const after creation; seal/open from any thread.

#include "api/result.h"

#include <memory>
#include <string>
#include <string_view>

namespace tessera::daemon::auth {

class SecretBox {
public:
    static constexpr std::size_t kKeyBytes = 32;

    // Reads the key file (64 hex digits and a newline); when it does not
    // exist, creates it (a random key, mode 0600, written to a temporary
    // file, fsync'd and renamed). IoError when it cannot be read or made;
    // Corruption when it holds anything else (never replaced: the secrets
    // sealed under it would be lost).
    static api::Result<std::unique_ptr<SecretBox>> loadOrCreate(const std::string& path);
    // A box over a known key (tests). BadRequest unless kKeyBytes long.
    static api::Result<std::unique_ptr<SecretBox>> fromKey(std::string_view key);
    ~SecretBox();  // wipes the key
    SecretBox(const SecretBox&) = delete;
    SecretBox& operator=(const SecretBox&) = delete;

    // Hex text: a random 24-byte nonce, then the MAC and the ciphertext of
    // `context`, a newline and `plain`. `context` must hold no newline.
    std::string seal(std::string_view plain, std::string_view context) const;
    // The plain text. Corruption when `sealed` is not hex, is too short, was
    // sealed under another key, was changed, or names another context.
    api::Result<std::string> open(std::string_view sealed, std::string_view context) const;

private:
    explicit SecretBox(std::string key) : m_key(std::move(key)) {}
    std::string m_key;
};

}  // namespace tessera::daemon::auth
