#pragma once
// The offset index of an uncompressed .tar shard: for every member, where
// its data starts in the file and how long it is. With it, reading one member
// is a seek and a read (or a sendfile), not a scan. Built with one pass of
// ArchiveReader over the headers (data is skipped, not read), kept beside
// the object by the target, and serialized in a small binary format with a
// version, so a damaged or older file is detected and rebuilt.
//
// Thread safety: immutable once built.

#include "archive_limits.h"

#include "api/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tessera::archive {

struct TarIndexEntry {
    std::string name;
    std::uint64_t offset = 0;  // of the data in the shard file
    std::uint64_t size = 0;
    std::int64_t mtime = 0;
};

class TarIndex {
public:
    TarIndex() = default;
    TarIndex(const TarIndex& other);
    TarIndex& operator=(const TarIndex& other);
    TarIndex(TarIndex&&) noexcept = default;  // the lookup's views point into the moved strings' owners
    TarIndex& operator=(TarIndex&&) noexcept = default;

    // Reads the headers of the .tar in fd[0, size). Corruption as
    // ArchiveReader reports it.
    static api::Result<TarIndex> build(int fd, std::uint64_t size, const ArchiveLimits& limits);
    static api::Result<TarIndex> deserialize(std::string_view bytes);
    std::string serialize() const;

    // Members in archive order. A name may appear twice (a later append of
    // the same name); find() returns the last, as tar extraction would.
    const std::vector<TarIndexEntry>& entries() const { return m_entries; }
    const TarIndexEntry* find(std::string_view name) const;
    // Where the end-of-archive marker begins: an append writes here.
    std::uint64_t endOffset() const { return m_endOffset; }
    // Approximate memory held, for the target's cache budget.
    std::size_t memoryBytes() const;

private:
    void buildLookup();
    std::vector<TarIndexEntry> m_entries;
    std::unordered_map<std::string_view, std::size_t> m_byName;
    std::uint64_t m_endOffset = 0;
};

}  // namespace tessera::archive
