#pragma once
// Helpers of the dSort integration tests: input shards of WebDataset
// samples with varied sizes and 2-3 files each, running a dSort to its end
// over REST, and reading output shards back as records.

#include "shard_test_util.h"

#include "archive/archive_writer.h"
#include "archive/member_name.h"
#include "client/api_client.h"

#include <QTest>
#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

namespace tessera::tests {

// A record: its key and its files (name, bytes) in order.
struct DsortRecordData {
    std::string key;
    Members files;
    bool operator==(const DsortRecordData&) const = default;
    bool operator<(const DsortRecordData& o) const { return key != o.key ? key < o.key : files < o.files; }
};

// A tar of the records' files, in order.
inline std::string makeShard(const std::vector<DsortRecordData>& records,
                             archive::ArchiveFormat format = archive::ArchiveFormat::Tar)
{
    std::string out;
    auto w = archive::ArchiveWriter::create(format, [&out](const char* d, std::size_t n) -> api::Status {
        out.append(d, n);
        return {};
    });
    if (!w) qFatal("cannot create a shard writer");
    for (const auto& r : records) {
        for (const auto& [name, data] : r.files) {
            if (!(*w)->add(name, data, 1700000000)) qFatal("cannot add %s", name.c_str());
        }
    }
    if (!(*w)->finish()) qFatal("cannot finish a shard");
    return out;
}

// Groups members into records: consecutive files sharing a key.
inline std::vector<DsortRecordData> toRecords(const Members& members)
{
    std::vector<DsortRecordData> out;
    for (const auto& [name, data] : members) {
        const std::string key(archive::wdsKey(name));
        if (out.empty() || out.back().key != key) out.push_back({key, {}});
        out.back().files.emplace_back(name, data);
    }
    return out;
}

struct OutputShard {
    std::string name;
    std::uint64_t size = 0;
    std::vector<DsortRecordData> records;
};

// Every object of `bucket` under `prefix`, in name order, read as shards.
inline std::vector<OutputShard> readOutputs(client::Client& c, const std::string& bucket, const std::string& prefix,
                                            archive::ArchiveFormat format)
{
    std::vector<OutputShard> out;
    auto list = c.listAll(bucket, prefix);
    if (!list) qFatal("cannot list %s", bucket.c_str());
    for (const auto& e : *list) {
        auto bytes = c.getObject(bucket, e.name);
        if (!bytes) qFatal("cannot read %s", e.name.c_str());
        bool ok = false;
        auto members = readShard(*bytes, format, &ok);
        if (!ok) qFatal("%s/%s is not a readable shard", bucket.c_str(), e.name.c_str());
        out.push_back({e.name, bytes->size(), toRecords(members)});
    }
    return out;
}

inline std::vector<DsortRecordData> allRecords(const std::vector<OutputShard>& shards)
{
    std::vector<DsortRecordData> out;
    for (const auto& s : shards) out.insert(out.end(), s.records.begin(), s.records.end());
    return out;
}

inline std::vector<std::string> keysOf(const std::vector<DsortRecordData>& rs)
{
    std::vector<std::string> out;
    for (const auto& r : rs) out.push_back(r.key);
    return out;
}

// Input shards of records whose .bin files are sent between targets by
// sendfile (64 KiB and more: exactly 64 KiB, just under, a few hundred KiB,
// just over 1 MiB) next to small .cls files read with the headers: `shards`
// shards of `perShard` records each (keys big-0000, big-0001, ...), put as
// <bucket>/big-<i><ext> in `format` into a new bucket. Returns every record,
// sorted.
inline std::vector<DsortRecordData> putBigFileShards(client::Client& c, const std::string& bucket, int shards,
                                                     int perShard, archive::ArchiveFormat format,
                                                     const std::string& ext)
{
    static constexpr std::size_t kSizes[] = {65536, 65535, 300001, (std::size_t{1} << 20) + 7};
    if (!c.createBucket(bucket)) qFatal("cannot create bucket %s", bucket.c_str());
    std::vector<DsortRecordData> all;
    int n = 0;
    for (int s = 0; s < shards; ++s) {
        std::vector<DsortRecordData> shard;
        for (int k = 0; k < perShard; ++k, ++n) {
            char key[32];
            std::snprintf(key, sizeof key, "big-%04d", n);
            DsortRecordData r{key, {}};
            r.files.emplace_back(r.key + ".bin", randomBytes(kSizes[n % 4], static_cast<std::uint64_t>(n) + 1));
            r.files.emplace_back(r.key + ".cls", std::to_string(n % 7));
            shard.push_back(std::move(r));
        }
        if (!c.putObject(bucket, "big-" + std::to_string(s) + ext, makeShard(shard, format)))
            qFatal("cannot put %s/big-%d%s", bucket.c_str(), s, ext.c_str());
        all.insert(all.end(), shard.begin(), shard.end());
    }
    std::sort(all.begin(), all.end());
    return all;
}

// Polls GET /v1/sort?uuid= until the job ends (or the deadline: the last status).
inline client::Client::DsortStatus waitDsort(client::Client& c, const std::string& id,
                                             std::chrono::milliseconds deadline = std::chrono::seconds(60))
{
    client::Client::DsortStatus last;
    // A timeout is seen by the caller in the returned (non-final) state.
    static_cast<void>(QTest::qWaitFor(
        [&] {
            auto st = c.dsortStatus(id);
            if (st) last = *st;
            return st && api::isFinal(st->job.state);
        },
        static_cast<int>(deadline.count())));
    return last;
}

}  // namespace tessera::tests
