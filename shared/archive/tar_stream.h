#pragma once
// A plain .tar written directly (ArchiveWriter's .tar path): POSIX ustar
// headers, with a pax extended header ('x') before a member whose name does
// not fit ustar (longer than 100 bytes without a '/' that splits it into a
// 155-byte prefix and a 100-byte name, or not ASCII) or whose size does not
// fit its 11 octal digits (8 GiB and more). That is the layout libarchive's
// pax_restricted writer produces; writing it here skips libarchive's entry
// objects and string conversions, which cost about 2 us a member (a tenth of
// a target's CPU when ishard packs 70,000 small samples).
// Bytes reach the sink in whole blocks of kBlockBytes from the buffer (the
// last one shorter), except member data given in pieces of kBlockBytes or
// more: those go straight from where they are, after what is buffered, in
// pieces of at most kDirectBytes. The archive ends with two zero blocks and
// no padding after them.

#include "archive_reader.h"

#include "api/result.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace tessera::archive {

class TarStream {
public:
    static constexpr std::size_t kBlockBytes = 64 * 1024;
    static constexpr std::size_t kDirectBytes = 256 * 1024;

    explicit TarStream(DataSink sink);

    // The header(s) of a member of `size` bytes (the caller checked the name).
    api::Status header(std::string_view name, std::uint64_t size, std::int64_t mtime);
    // Member data; the caller keeps the count against the declared size.
    api::Status data(const char* p, std::size_t n);
    // Pads the member's data to a 512-byte record.
    api::Status endMember(std::uint64_t size);
    // The end-of-archive marker, and everything still buffered to the sink.
    api::Status finish();

    std::uint64_t bytesOut() const { return m_out; }

private:
    api::Status put(const char* p, std::size_t n);
    api::Status flush();
    api::Status ustar(std::string_view name, std::string_view prefix, std::uint64_t size, std::int64_t mtime,
                      char type);

    DataSink m_sink;
    std::string m_buf;
    std::uint64_t m_out = 0;
    api::Status m_error;  // the sink's first error: every later call returns it
};

}  // namespace tessera::archive
