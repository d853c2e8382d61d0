#pragma once
// Shards as first-class objects on a target: one member of a shard
// (AIStore's archpath), the members matching a pattern as one .tar
// (archregx + archmode), a shard's members for a listing with the archive
// flag, and appending a member (PUT with archpath, append-or-create).
//
// Reads of an uncompressed .tar go through its offset index (a seek, then
// sendfile); other formats are read with ArchiveReader, a member kept in
// memory when small and in an unnamed temporary file otherwise, so no read
// holds more than kMemoryMemberBytes in memory. A damaged or hostile shard
// is a Corruption error (422), never more.
//
// Thread safety: all methods may be called concurrently; they block (disk),
// so they run on the worker pool. Appends to one shard are serialized.

#include "archive/archive_format.h"
#include "archive/archive_limits.h"
#include "archive/archive_reader.h"
#include "archive/member_match.h"
#include "archive_index_store.h"
#include "net/response.h"
#include "object_store.h"

#include "api/object_list.h"
#include "api/object_meta.h"
#include "api/result.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::daemon::target {

// What a read returns: bytes in memory or a file region (the shard itself,
// or a temporary file).
struct ShardPayload {
    std::string bytes;
    std::unique_ptr<net::FileRegion> file;
    std::uint64_t size = 0;
    std::string indexUse;  // "memory", "file", "built" (the .tar index), or "none"
};

class ShardService {
public:
    struct Options {
        archive::ArchiveLimits limits;
        bool useIndex = true;  // false: .tar shards are scanned like the others (benchmarks)
    };
    // Members up to this size are read into memory; bigger ones go through a
    // temporary file.
    static constexpr std::uint64_t kMemoryMemberBytes = 1 << 20;

    ShardService(const ObjectStore& store, ArchiveIndexStore& indexes, Options options);

    // The member `member` (validated, "./" removed by the caller) of the
    // shard `obj` opened as bucket/name. NotFound names the member.
    api::Result<ShardPayload> readMember(std::string_view bucket, std::string_view name, const OpenObject& obj,
                                         archive::ArchiveFormat format, std::string_view member);
    // Every member the matcher selects, as one .tar (names kept, in shard
    // order). NotFound when none matches.
    api::Result<ShardPayload> readMatches(std::string_view bucket, std::string_view name, const OpenObject& obj,
                                          archive::ArchiveFormat format, const archive::MemberMatcher& matcher);

    // A listing page with every shard followed by its members
    // ("shard.tar/member", kEntryInArch, sizes). A shard that cannot be read
    // keeps its place, flagged kEntryArchError with the reason; the page
    // never fails for it. Names that are not shards, entries flagged
    // kEntryArchError already and deletion records are left alone.
    void addMembers(std::string_view bucket, api::ObjectList& page);

    // Appends `size` bytes read from `bodyFd` (from offset 0) as member
    // `member` of shard bucket/name, creating the shard when absent. The new
    // shard replaces the old one whole (work file, rename). A .tar keeps its
    // bytes and gets the member at its end; other formats are rewritten, a
    // member of the same name replaced.
    api::Result<api::ObjectMeta> append(std::string_view bucket, std::string_view name, archive::ArchiveFormat format,
                                        std::string_view member, int bodyFd, std::uint64_t size);

    const archive::ArchiveLimits& limits() const { return m_options.limits; }

private:
    api::Result<api::ObjectMeta> appendOnce(std::string_view bucket, std::string_view name,
                                            archive::ArchiveFormat format, std::string_view member, int bodyFd,
                                            std::uint64_t size, bool& baseChanged);
    std::shared_ptr<std::mutex> shardLock(const std::string& uname);
    // The members of the shard bucket/name in shard order (names and sizes).
    api::Result<std::vector<archive::MemberInfo>> members(std::string_view bucket, std::string_view name,
                                                          const OpenObject& obj, archive::ArchiveFormat format);

    const ObjectStore& m_store;
    ArchiveIndexStore& m_indexes;
    Options m_options;
    std::mutex m_locksMutex;
    std::map<std::string, std::weak_ptr<std::mutex>, std::less<>> m_locks;
};

}  // namespace tessera::daemon::target
