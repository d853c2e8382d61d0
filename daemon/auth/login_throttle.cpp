#include "login_throttle.h"

#include <algorithm>

namespace tessera::daemon::auth {

LoginThrottle::LoginThrottle() : LoginThrottle(Options{}) {}

LoginThrottle::LoginThrottle(Options options) : m_options(options) {}

std::string LoginThrottle::key(const std::string& user, const std::string& address)
{
    // A NUL cannot be in an address: the pair is unambiguous.
    return address + '\0' + user;
}

std::optional<std::chrono::milliseconds> LoginThrottle::wait(const std::string& user, const std::string& address,
                                                             Clock::time_point now) const
{
    std::lock_guard lock(m_mutex);
    const auto it = m_entries.find(key(user, address));
    if (it == m_entries.end() || now >= it->second.until) return std::nullopt;
    // Rounded up: a client waiting what it was told is heard.
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(it->second.until - now);
    return std::max(left, std::chrono::milliseconds(1));
}

void LoginThrottle::failed(const std::string& user, const std::string& address, Clock::time_point now)
{
    std::lock_guard lock(m_mutex);
    const auto k = key(user, address);
    auto it = m_entries.find(k);
    if (it == m_entries.end()) {
        if (m_entries.size() >= m_options.maxEntries) {
            const auto oldest = std::min_element(m_entries.begin(), m_entries.end(), [](const auto& a, const auto& b) {
                return a.second.last < b.second.last;
            });
            if (oldest != m_entries.end()) m_entries.erase(oldest);
        }
        it = m_entries.emplace(k, Entry{}).first;
    }
    auto& e = it->second;
    if (e.failures > 0 && now - e.last > m_options.forgetAfter) e.failures = 0;
    ++e.failures;
    e.last = now;
    const int over = e.failures - m_options.freeFailures;
    if (over <= 0) {
        e.until = now;
        return;
    }
    auto delay = m_options.baseDelay;
    for (int i = 1; i < over && delay < m_options.maxDelay; ++i) delay *= 2;
    e.until = now + std::min(delay, m_options.maxDelay);
}

void LoginThrottle::succeeded(const std::string& user, const std::string& address)
{
    std::lock_guard lock(m_mutex);
    m_entries.erase(key(user, address));
}

std::size_t LoginThrottle::size() const
{
    std::lock_guard lock(m_mutex);
    return m_entries.size();
}

}  // namespace tessera::daemon::auth
