#pragma once
// The bytes of one dSort record (a WebDataset sample: its files in shard
// order) as the record store keeps them and as targets send them to each
// other:
//   u32 files | per file: u32 name length | name | i64 mtime | u64 size | bytes
// little-endian. A pull answer is such records back to back.
//
// Thread safety: pure functions; a RecordStreamParser is one thread's.

#include "api/result.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::daemon::dsort {

struct RecordFile {
    std::string name;
    std::int64_t mtime = 0;
    std::string data;
};

std::string encodeRecord(const std::vector<RecordFile>& files);
// The pieces of that layout, for a record put together from elsewhere (a
// record store reading its files in place): the file count, then per file
// its header followed by its `size` bytes.
void appendRecordCount(std::string& out, std::uint32_t files);
void appendFileHeader(std::string& out, std::string_view name, std::int64_t mtime, std::uint64_t size);
// Bytes of the layout: the count, and a file with its header.
inline constexpr std::uint64_t kRecordCountBytes = 4;
inline constexpr std::uint64_t encodedFileBytes(std::size_t nameSize, std::uint64_t size)
{
    return 4 + nameSize + 16 + size;
}

// Reads records back to back from bytes given in pieces of any size (a pull
// answer as it arrives, or a record read in chunks), without gathering a
// record first: each file's name, mtime and size go to `file`, then its
// bytes to `data` in the pieces they came in. A handler's error stops the
// parser and is returned from then on.
class RecordStreamParser {
public:
    using FileFn = std::function<api::Status(std::string_view name, std::int64_t mtime, std::uint64_t size)>;
    using DataFn = std::function<api::Status(const char* data, std::size_t size)>;
    static constexpr std::uint32_t kMaxNameBytes = 64 * 1024;  // longer: not a record

    RecordStreamParser(FileFn file, DataFn data);
    api::Status feed(const char* p, std::size_t n);
    // Whole records so far.
    std::uint64_t records() const { return m_records; }
    // Corruption unless the bytes so far end at a record's end.
    api::Status atRecordEnd() const;

private:
    enum class State { Count, NameLength, Name, Times, Data };
    void fileDone();

    FileFn m_file;
    DataFn m_data;
    State m_state = State::Count;
    std::string m_field;  // the fixed-size field or name being gathered
    std::uint32_t m_filesLeft = 0;
    std::uint32_t m_nameLength = 0;
    std::string m_name;
    std::uint64_t m_dataLeft = 0;
    std::uint64_t m_records = 0;
    api::Status m_error;
};

}  // namespace tessera::daemon::dsort
