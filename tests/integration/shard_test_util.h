#pragma once
// Helpers shared by the shard-job integration tests: parallel uploads,
// waiting for a job with a deadline, and reading a shard's members.

#include "archive/archive_format.h"
#include "archive/archive_reader.h"
#include "client/api_client.h"

#include <QTest>
#include <atomic>
#include <chrono>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace tessera::tests {

using Members = std::vector<std::pair<std::string, std::string>>;

inline std::string randomBytes(std::size_t n, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(rng() & 0xff);
    return s;
}

// PUTs every object with `threads` clients in parallel; the number that failed.
inline int putAll(const std::string& endpoint, const std::string& bucket,
                  const std::map<std::string, std::string>& objects, int threads = 8)
{
    std::vector<const std::pair<const std::string, std::string>*> items;
    for (const auto& kv : objects) items.push_back(&kv);
    std::atomic<std::size_t> next{0};
    std::atomic<int> failed{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&] {
            client::Client c(endpoint);
            c.setDirect(true);
            for (std::size_t i = next++; i < items.size(); i = next++) {
                if (!c.putObject(bucket, items[i]->first, items[i]->second)) ++failed;
            }
        });
    }
    for (auto& t : pool) t.join();
    return failed.load();
}

// Polls until the job ends (or the deadline passes: then the last status).
inline api::JobStatus waitJob(client::Client& c, const std::string& id,
                              std::chrono::milliseconds deadline = std::chrono::minutes(3))
{
    api::JobStatus last;
    // A timeout is seen by the caller in the returned (non-final) state.
    static_cast<void>(QTest::qWaitFor(
        [&] {
            auto st = c.job(id);
            if (st) last = *st;
            return st && api::isFinal(st->state);
        },
        static_cast<int>(deadline.count())));
    return last;
}

// The members of a shard, in order; an empty list with `ok` false when it
// cannot be read.
inline Members readShard(const std::string& bytes, archive::ArchiveFormat format, bool* ok = nullptr)
{
    Members out;
    if (ok) *ok = false;
    auto r = archive::ArchiveReader::openMemory(bytes, format, archive::ArchiveLimits{});
    if (!r) return out;
    while (true) {
        auto m = (*r)->next();
        if (!m) return {};
        if (!m->has_value()) break;
        auto data = (*r)->readAll();
        if (!data) return {};
        out.emplace_back((*m)->name, std::move(data.value()));
    }
    if (ok) *ok = true;
    return out;
}

}  // namespace tessera::tests
