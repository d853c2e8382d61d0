#pragma once

#include <chrono>
#include <random>

namespace tessera::console {

// Reconnect delays: exponential from `initial` up to `maximum`, each with up to
// `jitter` (a fraction) added at random so that many consoles that lost the same
// proxy do not come back in lockstep. Not thread-safe; one per connection.
class Backoff {
public:
    Backoff(std::chrono::milliseconds initial, std::chrono::milliseconds maximum, double jitter);

    // The delay before the next attempt; each call doubles the base up to the maximum.
    std::chrono::milliseconds next();
    // Back to the initial delay (after a successful connection).
    void reset();
    int attempts() const { return m_attempts; }

private:
    std::chrono::milliseconds m_initial;
    std::chrono::milliseconds m_maximum;
    double m_jitter;
    std::chrono::milliseconds m_base;
    int m_attempts = 0;
    std::mt19937 m_random;
};

}  // namespace tessera::console
