#pragma once
// libsodium must be initialized once per process before any of its calls
// (it picks the fastest implementations and opens the random source).

namespace tessera::daemon::auth {

// Initializes libsodium on first call; later calls return at once. Thread
// safe. Throws std::runtime_error when libsodium cannot start (no random
// source): a start-up failure, nothing a caller can work around.
void ensureSodium();

}  // namespace tessera::daemon::auth
