#pragma once
// What the shard modes of `tessera bench` do with a shard: read it member by
// member with libarchive, touching every byte of every member, and count
// members and WebDataset samples (consecutive members sharing a key). The
// same function serves shard-read (the shard came over HTTP) and shard-scan
// (the shard was loaded from a local file), so the two differ only by the
// transfer.
//
// Thread safety: the functions keep no state; one call per thread at a time
// per buffer.

#include "api/result.h"
#include "archive/archive_format.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::cli::bench {

struct ShardTally {
    std::uint64_t members = 0;
    std::uint64_t samples = 0;
    std::uint64_t memberBytes = 0;  // data bytes of the members (not headers)
};

// Corruption when the shard cannot be read (the archive limits are wide:
// a benchmark reads what the cluster stores).
api::Result<ShardTally> tallyShard(std::string_view data, archive::ArchiveFormat format);

struct LoadedShard {
    std::string name;
    archive::ArchiveFormat format = archive::ArchiveFormat::Tar;
    std::string data;
};

// The regular files of `dir` (not recursive) whose names carry an archive
// extension, read into memory, sorted by name. BadRequest when the folder
// cannot be read, holds no shard, or holds more than `maxBytes` of them.
api::Result<std::vector<LoadedShard>> loadShardDir(const std::string& dir, std::uint64_t maxBytes);

}  // namespace tessera::cli::bench
