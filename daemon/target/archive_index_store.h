#pragma once
// Offset indexes of the target's uncompressed .tar shards: in memory (an LRU
// bounded by bytes), in a file beside the object (ObjectStore's
// archiveIndexPath), or built with one pass over the shard's headers and then
// kept in both. An index is tied to the exact bytes it describes by a key
// (size, modification time, xxhash64 of the object): a shard rewritten since
// never uses its old index, whatever file or cache entry is left over.
//
// Thread safety: all methods may be called concurrently. Two readers missing
// the same index may both build it; the last file written wins whole.

#include "archive/archive_limits.h"
#include "archive/tar_index.h"
#include "object_store.h"

#include "api/result.h"

#include <atomic>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace tessera::daemon::target {

// Which bytes an index describes.
struct ArchiveIndexKey {
    std::uint64_t size = 0;
    std::int64_t mtimeNs = 0;
    std::string checksum;  // xxhash64 hex; empty when the object has none
    bool operator==(const ArchiveIndexKey&) const = default;
    static ArchiveIndexKey of(const OpenObject& obj);
};

// Where an index came from, for the response header and the tests.
enum class IndexSource { Memory, File, Built };
std::string_view indexSourceName(IndexSource s);

struct IndexLookup {
    std::shared_ptr<const archive::TarIndex> index;
    IndexSource source = IndexSource::Built;
};

class ArchiveIndexStore {
public:
    ArchiveIndexStore(const ObjectStore& store, archive::ArchiveLimits limits, std::uint64_t cacheBytes);

    // The index of the .tar shard `obj` opened as bucket/name. Corruption
    // when the shard's headers are damaged or break a limit (as
    // ArchiveReader reports it); a damaged index file is rebuilt, not an
    // error.
    api::Result<IndexLookup> get(std::string_view bucket, std::string_view name, const OpenObject& obj);

    // The index file's bytes: a header binding it to `key`, then the index.
    static std::string encode(const ArchiveIndexKey& key, const archive::TarIndex& index);
    // NotFound when the file describes other bytes (a stale index),
    // Corruption when it is damaged.
    static api::Result<archive::TarIndex> decode(std::string_view bytes, const ArchiveIndexKey& expected);

    std::uint64_t cachedBytes() const;

private:
    struct Cached {
        ArchiveIndexKey key;
        std::shared_ptr<const archive::TarIndex> index;
        std::size_t bytes = 0;
        std::list<std::string>::iterator use;
    };
    std::shared_ptr<const archive::TarIndex> fromMemory(const std::string& uname, const ArchiveIndexKey& key);
    void remember(const std::string& uname, const ArchiveIndexKey& key, std::shared_ptr<const archive::TarIndex> idx);
    void persist(const std::string& path, const std::string& bytes) const;

    const ObjectStore& m_store;
    archive::ArchiveLimits m_limits;
    std::uint64_t m_cacheBytes;
    mutable std::mutex m_mutex;
    std::map<std::string, Cached, std::less<>> m_cache;
    std::list<std::string> m_use;  // unames, least recently used first
    std::uint64_t m_used = 0;
};

}  // namespace tessera::daemon::target
