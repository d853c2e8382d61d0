#pragma once
// Reads a shard member by member with libarchive, refusing what is unsafe:
// members named with an absolute path or "..", links leading outside the
// shard, device files, FIFOs and sockets, and anything past ArchiveLimits.
// Directories and links that stay inside are skipped (not members).
// A truncated or garbage shard is a Corruption error, never a crash.
//
// Thread safety: one reader per thread. The source (fd or memory) must
// outlive the reader.

#include "archive_format.h"
#include "archive_limits.h"

#include "api/result.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

struct archive;  // libarchive's handle

namespace tessera::archive {

struct MemberInfo {
    std::string name;  // normalized (no leading "./")
    std::uint64_t size = 0;
    std::int64_t mtime = 0;  // seconds since the epoch
    // Offset of the member's data in the uncompressed stream; for .tar it is
    // the file offset (what the tar index records).
    std::uint64_t dataOffset = 0;
    // Offset just past the member's data and its padding in the
    // uncompressed stream (.tar: where the next header or the end begins).
    std::uint64_t endOffset = 0;
};

using DataSink = std::function<api::Status(const char* data, std::size_t size)>;

class ArchiveReader {
public:
    ~ArchiveReader();
    ArchiveReader(const ArchiveReader&) = delete;
    ArchiveReader& operator=(const ArchiveReader&) = delete;

    // Reads the `size` bytes of `fd` from offset 0 with pread (the fd's own
    // offset is not used; the fd is not closed).
    static api::Result<std::unique_ptr<ArchiveReader>> openFd(int fd, std::uint64_t size, ArchiveFormat format,
                                                              const ArchiveLimits& limits);
    static api::Result<std::unique_ptr<ArchiveReader>> openMemory(std::string_view data, ArchiveFormat format,
                                                                  const ArchiveLimits& limits);

    // The next member (a regular file), or nullopt at the end. Corruption for
    // an unsafe member, a limit broken or a damaged shard; the reader is
    // unusable afterwards.
    api::Result<std::optional<MemberInfo>> next();
    // The data of the member next() returned last, in chunks, to `sink`; a
    // sink error stops and is returned. Skipped when not called.
    api::Status readData(const DataSink& sink);
    // The same, into memory (up to limits.maxMemberSize).
    api::Result<std::string> readAll();

    // Where the end-of-archive begins once next() returned nullopt (.tar:
    // the offset an append writes at).
    std::uint64_t endOffset() const { return m_endOffset; }

    struct Source;  // the byte source behind libarchive's callbacks (internal)

private:
    ArchiveReader() = default;
    static api::Result<std::unique_ptr<ArchiveReader>> start(std::unique_ptr<Source> src, ArchiveFormat format,
                                                             const ArchiveLimits& limits);
    api::Error damaged(const std::string& what) const;

    std::unique_ptr<Source> m_src;
    ::archive* m_archive = nullptr;
    ArchiveFormat m_format = ArchiveFormat::Tar;
    ArchiveLimits m_limits;
    std::uint64_t m_members = 0;
    std::uint64_t m_declaredTotal = 0;
    std::uint64_t m_producedTotal = 0;
    std::optional<MemberInfo> m_current;
    bool m_dataRead = false;
    bool m_failed = false;
    std::uint64_t m_endOffset = 0;
};

}  // namespace tessera::archive
