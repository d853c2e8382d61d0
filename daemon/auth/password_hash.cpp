#include "password_hash.h"

#include "sodium_runtime.h"

#include <algorithm>
#include <atomic>
#include <semaphore>
#include <sodium.h>

namespace tessera::daemon::auth {

// The constants are spelled as numbers in the header (so it needs no
// sodium.h); they must stay libsodium's INTERACTIVE level.
static_assert(PasswordHash::kOpsLimit == crypto_pwhash_OPSLIMIT_INTERACTIVE);
static_assert(PasswordHash::kMemLimit == crypto_pwhash_MEMLIMIT_INTERACTIVE);
static_assert(PasswordHash::kMaxPasswordBytes <= crypto_pwhash_PASSWD_MAX);

namespace {

std::counting_semaphore<PasswordHash::kMaxConcurrent> g_slots(PasswordHash::kMaxConcurrent);
std::atomic<int> g_running{0};
std::atomic<int> g_peak{0};

// Holds one of the kMaxConcurrent slots for one hash or verify.
class Slot {
public:
    Slot()
    {
        g_slots.acquire();
        const int now = g_running.fetch_add(1) + 1;
        int peak = g_peak.load();
        while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
        }
    }
    ~Slot()
    {
        g_running.fetch_sub(1);
        g_slots.release();
    }
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
};

}  // namespace

int PasswordHash::peakConcurrent() { return g_peak.load(); }

api::Status PasswordHash::checkPolicy(std::string_view password)
{
    if (password.size() < kMinPasswordBytes) {
        return api::Error::badRequest("a password needs at least " + std::to_string(kMinPasswordBytes) + " bytes");
    }
    if (password.size() > kMaxPasswordBytes) {
        return api::Error::badRequest("a password has at most " + std::to_string(kMaxPasswordBytes) + " bytes");
    }
    return {};
}

api::Result<std::string> PasswordHash::hash(std::string_view password)
{
    if (auto st = checkPolicy(password); !st) return st.error();
    ensureSodium();
    char out[crypto_pwhash_STRBYTES];
    Slot slot;
    if (crypto_pwhash_str(out, password.data(), password.size(), kOpsLimit, kMemLimit) != 0) {
        return api::Error::internal("password hash: out of memory (Argon2id needs " + std::to_string(kMemLimit >> 20) +
                                    " MiB)");
    }
    return std::string(out);
}

bool PasswordHash::verify(std::string_view encoded, std::string_view password)
{
    if (password.size() < kMinPasswordBytes || password.size() > kMaxPasswordBytes) return false;
    if (encoded.empty() || encoded.size() >= crypto_pwhash_STRBYTES) return false;
    ensureSodium();
    // crypto_pwhash_str_verify reads a NUL-terminated string.
    char buf[crypto_pwhash_STRBYTES] = {};
    encoded.copy(buf, encoded.size());
    Slot slot;
    return crypto_pwhash_str_verify(buf, password.data(), password.size()) == 0;
}

}  // namespace tessera::daemon::auth
