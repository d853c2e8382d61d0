#pragma once
// The bytes of one dSort record (a WebDataset sample: its files in shard
// order) as the record store keeps them and as targets send them to each
// other:
//   u32 files | per file: u32 name length | name | i64 mtime | u64 size | bytes
// little-endian. A pull answer is such records back to back.
//
// Thread safety: pure functions.

#include "api/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::daemon::dsort {

struct RecordFile {
    std::string name;
    std::int64_t mtime = 0;
    std::string data;
};

// A view of one file of an encoded record.
struct RecordFileView {
    std::string_view name;
    std::int64_t mtime = 0;
    std::string_view data;
};

std::string encodeRecord(const std::vector<RecordFile>& files);
// The record at the start of `in`: its files, and how many bytes it took.
// Corruption when `in` is not a whole record.
api::Result<std::vector<RecordFileView>> decodeRecord(std::string_view in, std::size_t& consumed);

}  // namespace tessera::daemon::dsort
