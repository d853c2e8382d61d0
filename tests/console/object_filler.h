#pragma once
// Test helper: writes many small objects fast, straight to their owning
// targets (the C++ client's direct mode), from a few threads at once.

#include "client/api_client.h"

#include <QString>
#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tessera::console::test {

// Writes objects named name(i) with bytes body(i) for i in [0, count).
// Returns an empty string on success, the first error otherwise. name and
// body are called from several threads.
inline QString fillObjects(const std::string& proxyUrl, const std::string& bucket, int count,
                           const std::function<std::string(int)>& name, const std::function<std::string(int)>& body,
                           int threads = 8)
{
    std::atomic<int> next{0};
    std::mutex mutex;
    std::string error;
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&] {
            client::Client c(proxyUrl);
            c.setDirect(true);
            for (int i = next++; i < count; i = next++) {
                auto r = c.putObject(bucket, name(i), body(i));
                if (!r) {
                    std::lock_guard lock(mutex);
                    if (error.empty()) error = name(i) + ": " + r.error().message;
                    return;
                }
            }
        });
    }
    for (auto& w : workers) w.join();
    return QString::fromStdString(error);
}

}  // namespace tessera::console::test
