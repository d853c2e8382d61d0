#include "uploader.h"

#include "api/checksum.h"
#include "progress.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
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
    : m_endpoint(std::move(endpoint)), m_bucket(std::move(bucket)), m_workers(std::max(1u, workers)), m_verify(verify),
      m_direct(direct), m_progress(progress), m_tty(progressIsTty)
{
}

UploadResult Uploader::run(const std::vector<UploadItem>& items)
{
    std::uint64_t totalBytes = 0;
    for (const auto& i : items) totalBytes += i.size;

    std::atomic<std::size_t> next{0};
    std::mutex mutex;  // guards result.failures
    UploadResult result;
    Progress progress(m_progress, m_tty, items.size(), totalBytes);
    progress.start();

    auto failed = [&](const UploadItem& item, std::string message) {
        progress.fail();
        std::lock_guard lock(mutex);
        result.failures.emplace_back(item.objectName, std::move(message));
    };

    std::vector<std::thread> workers;
    const auto count = std::min<std::size_t>(m_workers, std::max<std::size_t>(items.size(), 1));
    for (std::size_t w = 0; w < count; ++w) {
        workers.emplace_back([&] {
            client::Client client(m_endpoint, m_clientOptions);
            client.setDirect(m_direct);
            while (true) {
                const auto idx = next.fetch_add(1);
                if (idx >= items.size()) return;
                const auto& item = items[idx];
                client::PutOptions opts;
                if (m_verify) {
                    opts.checksumValue = fileChecksum(item.path);
                    if (opts.checksumValue.empty()) {
                        failed(item, "cannot read " + item.path);
                        continue;
                    }
                }
                auto r = client.putFile(m_bucket, item.objectName, item.path, opts);
                if (!r) {
                    auto message = r.error().message;
                    if (!r.error().causedBy.empty()) message += " (" + r.error().causedBy + ")";
                    failed(item, std::move(message));
                    continue;
                }
                if (r->size >= 0 && static_cast<std::uint64_t>(r->size) != item.size) {
                    failed(item, "size changed during upload");
                    continue;
                }
                progress.add(1, item.size);
            }
        });
    }
    for (auto& t : workers) t.join();
    progress.finish();
    result.objects = progress.objects();
    result.bytes = progress.bytes();
    result.seconds = progress.seconds();
    std::sort(result.failures.begin(), result.failures.end());
    return result;
}

}  // namespace tessera::cli
