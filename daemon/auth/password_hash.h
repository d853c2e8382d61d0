#pragma once
// Password hashes: Argon2id through libsodium's crypto_pwhash_str, which
// picks a random salt and writes the algorithm, its parameters and the salt
// into the encoded string ("$argon2id$v=19$m=65536,t=2,p=1$..."), so a hash
// made with other parameters (a later, stronger setting) still verifies.
//
// Thread safety: all functions are safe to call from any thread. Each hash
// or verify takes kMemLimit bytes of memory for about 0.1 s of one core, and
// at most kMaxConcurrent run at once (the others block until one ends).

#include "api/result.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace tessera::daemon::auth {

class PasswordHash {
public:
    // Argon2id at libsodium's INTERACTIVE level (2 passes over 64 MiB).
    // A login is an online request at the proxy: MODERATE (256 MiB, ~0.7 s)
    // would let a handful of concurrent logins take a gigabyte and stall
    // the proxy's workers; INTERACTIVE is the level libsodium names for
    // exactly this case and still costs an offline guesser 64 MiB per try.
    // Logins are rare (a token then lasts its lifetime), so the cost is paid
    // seldom.
    static constexpr unsigned long long kOpsLimit = 2;               // crypto_pwhash_OPSLIMIT_INTERACTIVE
    static constexpr std::size_t kMemLimit = std::size_t{64} << 20;  // crypto_pwhash_MEMLIMIT_INTERACTIVE
    // Below 8 bytes a password falls to an online guesser within the
    // refresh lifetime; above 1 KiB it is not a password but a way to make
    // the hash read a large input.
    static constexpr std::size_t kMinPasswordBytes = 8;
    static constexpr std::size_t kMaxPasswordBytes = 1024;
    // Hashes and verifies running at once; more wait their turn. Logins are
    // open to anyone, so without a bound a burst of them would take
    // kMemLimit each: 4 x 64 MiB is the most hashing ever holds.
    static constexpr std::ptrdiff_t kMaxConcurrent = 4;

    // BadRequest naming the limit when the password is too short or long.
    static api::Status checkPolicy(std::string_view password);
    // The encoded Argon2id hash of `password` (after checkPolicy). Internal
    // when libsodium cannot allocate kMemLimit.
    static api::Result<std::string> hash(std::string_view password);
    // True when `password` matches `encoded`. False for a mismatch, for an
    // encoded string that is not a libsodium hash, and for a password
    // outside the policy's bounds.
    static bool verify(std::string_view encoded, std::string_view password);
    // The most hashes and verifies that ran at once since the process
    // started (never above kMaxConcurrent); for tests.
    static int peakConcurrent();
};

}  // namespace tessera::daemon::auth
