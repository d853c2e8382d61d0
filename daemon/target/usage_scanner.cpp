#include "usage_scanner.h"

#include "common/log.h"

#include <filesystem>

namespace tessera::daemon::target {

namespace fs = std::filesystem;

namespace {
std::int64_t wallNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}
}  // namespace

UsageScanner::UsageScanner(std::vector<std::string> mountpaths, std::chrono::milliseconds interval, CountRule rule)
    : m_mountpaths(std::move(mountpaths)), m_interval(interval), m_rule(std::move(rule))
{
}

UsageScanner::~UsageScanner() { stop(); }

void UsageScanner::start()
{
    m_thread = std::thread([this] { run(); });
}

void UsageScanner::stop()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
        m_stopFlag = true;
    }
    m_cv.notify_all();
    if (m_thread.joinable()) m_thread.join();
}

std::optional<UsageReport> UsageScanner::latest() const
{
    std::lock_guard lock(m_mutex);
    return m_latest;
}

UsageReport UsageScanner::scan(const std::vector<std::string>& mountpaths, const std::atomic<bool>* stop,
                               const CountRule& rule)
{
    const auto started = std::chrono::steady_clock::now();
    UsageReport r;
    r.mountpathObjects.assign(mountpaths.size(), 0);
    for (std::size_t i = 0; i < mountpaths.size(); ++i) {
        std::error_code ec;
        // Layout: <mountpath>/buckets/<bucket>/<object name as a path>.
        for (fs::directory_iterator b(mountpaths[i] + "/buckets", ec), end; !ec && b != end; b.increment(ec)) {
            std::error_code bec;
            if (!b->is_directory(bec)) continue;
            const auto bucket = b->path().filename().string();
            auto& usage = r.buckets[bucket];
            const bool ownedOnly = rule.ownedOnly && rule.owns && rule.ownedOnly(bucket);
            for (fs::recursive_directory_iterator it(b->path(), fs::directory_options::skip_permission_denied, bec), e;
                 !bec && it != e; it.increment(bec)) {
                if (stop != nullptr && stop->load(std::memory_order_relaxed)) return r;
                std::error_code fec;
                if (!it->is_regular_file(fec)) continue;
                const auto size = it->file_size(fec);
                if (fec) continue;  // removed while walking
                ++r.mountpathObjects[i];
                if (ownedOnly && !rule.owns(bucket, it->path().lexically_relative(b->path()).generic_string()))
                    continue;
                ++usage.objects;
                usage.bytes += size;
            }
        }
    }
    r.scannedAtNs = wallNs();
    r.durationNs =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - started).count();
    return r;
}

void UsageScanner::run()
{
    std::unique_lock lock(m_mutex);
    while (!m_stop) {
        lock.unlock();
        auto report = scan(m_mountpaths, &m_stopFlag, m_rule);
        logDebug("usage scan: ", report.buckets.size(), " bucket(s) in ", report.durationNs / 1'000'000, " ms");
        lock.lock();
        m_latest = std::move(report);
        if (m_interval.count() == 0) {
            m_cv.wait(lock, [this] { return m_stop; });
            break;
        }
        m_cv.wait_for(lock, m_interval, [this] { return m_stop; });
    }
}

}  // namespace tessera::daemon::target
