#include "uploader.h"

#include "api/checksum.h"
#include "output.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <ostream>
#include <thread>

namespace tessera::cli {

std::string fileChecksum(const std::string& path)
{
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) return {};
    api::Xxh64Stream h;
    std::vector<char> buf(1 << 20);
    std::size_t n = 0;
    while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) h.update(buf.data(), n);
    const bool ok = !std::ferror(f);
    std::fclose(f);
    return ok ? h.hex() : std::string();
}

Uploader::Uploader(std::string endpoint, std::string bucket, unsigned workers, bool verify, bool direct,
                   std::ostream& progress, bool progressIsTty)
    : m_endpoint(std::move(endpoint)), m_bucket(std::move(bucket)), m_workers(std::max(1u, workers)),
      m_verify(verify), m_direct(direct), m_progress(progress), m_tty(progressIsTty)
{
}

UploadResult Uploader::run(const std::vector<UploadItem>& items)
{
    using Clock = std::chrono::steady_clock;
    std::uint64_t totalBytes = 0;
    for (const auto& i : items) totalBytes += i.size;

    std::atomic<std::size_t> next{0};
    std::atomic<std::uint64_t> doneObjects{0};
    std::atomic<std::uint64_t> doneBytes{0};
    std::mutex mutex;
    std::condition_variable cv;
    bool finished = false;
    UploadResult result;
    const auto start = Clock::now();

    auto report = [&](bool final) {
        const double secs = std::chrono::duration<double>(Clock::now() - start).count();
        const auto bytes = doneBytes.load();
        const double rate = secs > 0 ? static_cast<double>(bytes) / secs : 0;
        char line[256];
        std::snprintf(line, sizeof line, "%llu/%zu objects  %s/%s  %s",
                      static_cast<unsigned long long>(doneObjects.load()), items.size(), formatBytes(bytes).c_str(),
                      formatBytes(totalBytes).c_str(), formatRate(rate).c_str());
        if (m_tty) {
            m_progress << "\r" << line << "   " << (final ? "\n" : "") << std::flush;
        } else {
            m_progress << line << "\n" << std::flush;
        }
    };

    std::thread reporter([&] {
        std::unique_lock lock(mutex);
        const auto period = m_tty ? std::chrono::milliseconds(200) : std::chrono::milliseconds(2000);
        while (!cv.wait_for(lock, period, [&] { return finished; })) {
            lock.unlock();
            report(false);
            lock.lock();
        }
    });

    std::vector<std::thread> workers;
    for (unsigned w = 0; w < m_workers; ++w) {
        workers.emplace_back([&] {
            client::Client client(m_endpoint);
            client.setDirect(m_direct);
            while (true) {
                const auto idx = next.fetch_add(1);
                if (idx >= items.size()) return;
                const auto& item = items[idx];
                client::PutOptions opts;
                if (m_verify) {
                    opts.checksumValue = fileChecksum(item.path);
                    if (opts.checksumValue.empty()) {
                        std::lock_guard lock(mutex);
                        result.failures.emplace_back(item.objectName, "cannot read " + item.path);
                        continue;
                    }
                }
                auto r = client.putFile(m_bucket, item.objectName, item.path, opts);
                if (!r) {
                    std::lock_guard lock(mutex);
                    result.failures.emplace_back(item.objectName, r.error().message);
                    continue;
                }
                if (r->size >= 0 && static_cast<std::uint64_t>(r->size) != item.size) {
                    std::lock_guard lock(mutex);
                    result.failures.emplace_back(item.objectName, "size changed during upload");
                    continue;
                }
                doneObjects.fetch_add(1);
                doneBytes.fetch_add(item.size);
            }
        });
    }
    for (auto& t : workers) t.join();
    {
        std::lock_guard lock(mutex);
        finished = true;
    }
    cv.notify_all();
    reporter.join();
    report(true);
    result.objects = doneObjects.load();
    result.bytes = doneBytes.load();
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
}

}  // namespace tessera::cli
