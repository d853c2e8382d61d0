#pragma once
// Object count and bytes per bucket and per mountpath, from a walk of the
// mountpaths: once at start, then every `interval`. Nothing on the data path
// pays for it; the figures are as old as `scannedAtNs` says (objects written
// since then are not in them), which node_stats reports with them.
//
// Thread safety: latest() may be called from any thread; the walk runs on
// the scanner's own thread.

#include "api/node_stats.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace tessera::daemon::target {

struct UsageReport {
    std::int64_t scannedAtNs = 0;  // wall clock when the walk finished
    std::int64_t durationNs = 0;
    std::vector<std::uint64_t> mountpathObjects;  // same order as the mountpaths
    std::map<std::string, api::BucketUsage> buckets;
};

// Which files of a bucket count as its objects: every file, unless the
// bucket keeps copies on several targets; then only those this target owns
// (each object is counted once in the cluster, by its owner). Unset: every file.
struct CountRule {
    std::function<bool(const std::string& bucket)> ownedOnly;
    std::function<bool(const std::string& bucket, const std::string& name)> owns;
};

class UsageScanner {
public:
    // `interval` 0: one walk at start only.
    UsageScanner(std::vector<std::string> mountpaths, std::chrono::milliseconds interval, CountRule rule = {});
    ~UsageScanner();
    UsageScanner(const UsageScanner&) = delete;
    UsageScanner& operator=(const UsageScanner&) = delete;

    void start();
    void stop();
    std::optional<UsageReport> latest() const;

    // One walk, synchronously (also what the thread runs); gives up early,
    // with partial figures, when `stop` becomes true.
    // Bucket figures follow `rule`; mountpath figures count every file.
    static UsageReport scan(const std::vector<std::string>& mountpaths, const std::atomic<bool>* stop = nullptr,
                            const CountRule& rule = {});

private:
    void run();

    std::vector<std::string> m_mountpaths;
    std::chrono::milliseconds m_interval;
    CountRule m_rule;
    mutable std::mutex m_mutex;
    std::optional<UsageReport> m_latest;
    std::condition_variable m_cv;
    bool m_stop = false;
    std::atomic<bool> m_stopFlag{false};  // read by a walk in progress
    std::thread m_thread;
};

}  // namespace tessera::daemon::target
