#pragma once
// Reading a file through a read-only mapping, for a sink that only looks at
// the bytes (a checksum): the page cache is read where it is, with no copy
// into a buffer first. A verification of a whole object costs its hash and
// nothing else.
//
// A mapped file that is cut short underneath (by hand, on the mountpath)
// would kill the process with SIGBUS when a page past its new end is read.
// Here that is an error instead: a SIGBUS on a page of a mapping being read
// puts a page of zeros in its place, and the read fails (Corruption,
// "shorter than expected") once the sink returns. A SIGBUS anywhere else
// keeps its usual meaning.
//
// Thread safety: any thread; each read is its own.

#include "fd_io.h"

namespace tessera::daemon {

// Bytes [offset, offset + length) of `fd` to `sink` in pieces of up to
// `piece` bytes, through a mapping of at most kMapWindow bytes at a time.
// A range past the file's end is Corruption, as for copyRange. A range
// shorter than kMapFrom, or a file that cannot be mapped, is read with
// copyRange instead.
inline constexpr std::uint64_t kMapWindow = std::uint64_t{64} << 20;
inline constexpr std::uint64_t kMapFrom = std::uint64_t{256} << 10;
api::Status readMapped(int fd, std::uint64_t offset, std::uint64_t length, const ByteSink& sink,
                       const std::string& what, std::size_t piece = std::size_t{256} << 10);

}  // namespace tessera::daemon
