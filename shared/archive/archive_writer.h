#pragma once
// Writes a shard to a sink (a PUT's work file, a socket, a string). Tar is
// written directly (TarStream) as POSIX pax (plain ustar headers when names
// fit), readable by GNU tar, bsdtar and Python's tarfile; .tgz (gzip),
// .tar.lz4 (the lz4 frame format) and .zip (deflate) are written with
// libarchive.
// The archive ends with its end-of-archive marker only after finish(); a
// writer destroyed before that leaves the sink with an incomplete archive,
// which the caller discards (a PutWriter without commit does).
//
// Thread safety: one writer per thread.

#include "archive_format.h"
#include "archive_reader.h"

#include "api/result.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

struct archive;  // libarchive's handle

namespace tessera::archive {

class ArchiveWriter {
public:
    ~ArchiveWriter();
    ArchiveWriter(const ArchiveWriter&) = delete;
    ArchiveWriter& operator=(const ArchiveWriter&) = delete;

    // The sink receives the archive's bytes in order; an error from it fails
    // the current call (and every later one).
    static api::Result<std::unique_ptr<ArchiveWriter>> create(ArchiveFormat format, DataSink sink);

    // Starts a member of exactly `size` bytes; the name must pass
    // validateMemberName. mtime in seconds since the epoch.
    api::Status begin(std::string_view name, std::uint64_t size, std::int64_t mtime);
    // Part of the current member's data.
    api::Status write(const char* data, std::size_t size);
    // A whole member at once.
    api::Status add(std::string_view name, std::string_view data, std::int64_t mtime);
    // Ends the archive (end-of-archive marker, compressor flush). Every
    // member must have received its declared size.
    api::Status finish();

    std::uint64_t bytesOut() const;  // bytes handed to the sink so far

    struct State;  // sink and progress behind libarchive's callback (internal)

private:
    ArchiveWriter() = default;
    api::Status endMember();
    api::Status failed(const std::string& what);
    api::Status fail(const api::Status& st);  // the writer is done: st, and errors after it

    std::unique_ptr<State> m_state;
    ::archive* m_archive = nullptr;
};

// Bytes a .tar member occupies as this writer writes it: its header(s) and
// its data padded to 512 bytes. Exact for names that fit a ustar header
// (up to 100 bytes, or 255 split at a '/'); pax names add their extended
// header, estimated here.
std::uint64_t tarMemberBytes(std::string_view name, std::uint64_t size);
// The end-of-archive marker of a .tar (two zero blocks).
inline constexpr std::uint64_t kTarEndBytes = 1024;

}  // namespace tessera::archive
