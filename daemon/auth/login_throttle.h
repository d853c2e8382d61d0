#pragma once
// Failed logins slow down the next attempt for the same user name from the
// same client address: the first `freeFailures` cost nothing, each one
// after doubles the wait before the next attempt is heard (from `baseDelay`
// up to `maxDelay`), and a successful login clears the count. Keyed by
// name and address together, so a guesser elsewhere cannot lock a user out
// of their own machine; an unknown name is counted like a known one (the
// answer must not tell them apart). At most `maxEntries` keys are kept; when
// full, the oldest failure's key goes first.
//
// Thread safety: all methods may be called concurrently.

#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace tessera::daemon::auth {

class LoginThrottle {
public:
    using Clock = std::chrono::steady_clock;
    struct Options {
        int freeFailures = 5;
        std::chrono::milliseconds baseDelay{1000};
        std::chrono::milliseconds maxDelay{300000};
        // A key whose last failure is older than this starts over.
        std::chrono::milliseconds forgetAfter{900000};
        std::size_t maxEntries = 100000;
    };

    LoginThrottle();
    explicit LoginThrottle(Options options);

    // How long `user` from `address` must still wait; nullopt: may try now.
    std::optional<std::chrono::milliseconds> wait(const std::string& user, const std::string& address,
                                                  Clock::time_point now = Clock::now()) const;
    void failed(const std::string& user, const std::string& address, Clock::time_point now = Clock::now());
    void succeeded(const std::string& user, const std::string& address);
    std::size_t size() const;

private:
    struct Entry {
        int failures = 0;
        Clock::time_point last;
        Clock::time_point until;  // no attempt heard before this
    };
    static std::string key(const std::string& user, const std::string& address);

    Options m_options;
    mutable std::mutex m_mutex;
    std::map<std::string, Entry> m_entries;
};

}  // namespace tessera::daemon::auth
