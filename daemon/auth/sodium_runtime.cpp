#include "sodium_runtime.h"

#include <mutex>
#include <sodium.h>
#include <stdexcept>

namespace tessera::daemon::auth {

void ensureSodium()
{
    static std::once_flag once;
    std::call_once(once, [] {
        // 0: initialized now, 1: already was; -1: failure.
        if (sodium_init() < 0) throw std::runtime_error("libsodium failed to initialize");
    });
}

}  // namespace tessera::daemon::auth
