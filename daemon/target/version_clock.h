#pragma once
// The target's hybrid clock for version stamps: next() is at least the wall
// time in ns and always more than any stamp issued or observed, so a version
// written after a copy arrived from a peer is newer than that copy even when
// the peer's clock runs ahead.
//
// Thread safety: lock-free; all methods may be called concurrently.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>

namespace tessera::daemon::target {

class VersionClock {
public:
    std::int64_t next()
    {
        const std::int64_t now =
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
                .count();
        std::int64_t last = m_last.load();
        while (true) {
            const std::int64_t stamp = std::max(now, last + 1);
            if (m_last.compare_exchange_weak(last, stamp)) return stamp;
        }
    }

    void observe(std::int64_t stamp)
    {
        std::int64_t last = m_last.load();
        while (last < stamp && !m_last.compare_exchange_weak(last, stamp)) {
        }
    }

private:
    std::atomic<std::int64_t> m_last{0};
};

}  // namespace tessera::daemon::target
