#include "shard_tally.h"

#include "archive/archive_limits.h"
#include "archive/archive_reader.h"
#include "archive/member_name.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace tessera::cli::bench {

namespace fs = std::filesystem;

api::Result<ShardTally> tallyShard(std::string_view data, archive::ArchiveFormat format)
{
    archive::ArchiveLimits limits;
    limits.maxMembers = 10'000'000;
    limits.maxMemberSize = std::uint64_t{4} << 30;
    limits.maxTotalSize = std::uint64_t{64} << 30;
    auto reader = archive::ArchiveReader::openMemory(data, format, limits);
    if (!reader) return reader.error();
    ShardTally t;
    std::string key;
    std::uint64_t bytes = 0;
    // The data is handed over in libarchive's blocks (for a plain tar in
    // memory, pointers into the buffer); a training loader would decode it
    // from there, which is not what is measured here.
    const archive::DataSink sink = [&bytes](const char*, std::size_t n) -> api::Status {
        bytes += n;
        return {};
    };
    for (;;) {
        auto m = (*reader)->next();
        if (!m) return m.error();
        if (!*m) break;
        if (auto st = (*reader)->readData(sink); !st) return st.error();
        ++t.members;
        const auto k = archive::wdsKey((*m)->name);
        if (t.samples == 0 || k != key) {
            ++t.samples;
            key.assign(k);
        }
    }
    t.memberBytes = bytes;
    return t;
}

api::Result<std::vector<LoadedShard>> loadShardDir(const std::string& dir, std::uint64_t maxBytes)
{
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) return api::Error::badRequest("--dir " + dir + ": " + ec.message());
    std::vector<LoadedShard> shards;
    std::uint64_t total = 0;
    for (const auto& entry : it) {
        if (!entry.is_regular_file(ec)) continue;
        const auto name = entry.path().filename().string();
        const auto format = archive::formatFromName(name);
        if (!format) continue;
        const auto size = entry.file_size(ec);
        if (ec) return api::Error::badRequest("--dir: " + entry.path().string() + ": " + ec.message());
        total += size;
        if (total > maxBytes) {
            return api::Error::badRequest("--dir " + dir + " holds more than " + std::to_string(maxBytes) +
                                          " bytes of shards (they are read into memory)");
        }
        LoadedShard s{name, *format, std::string(size, '\0')};
        std::ifstream in(entry.path(), std::ios::binary);
        if (!in.read(s.data.data(), static_cast<std::streamsize>(size))) {
            return api::Error::badRequest("--dir: cannot read " + entry.path().string());
        }
        shards.push_back(std::move(s));
    }
    if (shards.empty()) {
        return api::Error::badRequest("--dir " + dir + " holds no shard (.tar, .tgz, .tar.gz, .tar.lz4, .zip)");
    }
    std::sort(shards.begin(), shards.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return shards;
}

}  // namespace tessera::cli::bench
