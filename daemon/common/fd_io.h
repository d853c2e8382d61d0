#pragma once
// Reading and writing file descriptors whole: every loop over write/pread
// in the daemon is one of these, so short transfers and EINTR are handled
// in one place, and so is the meaning of errno (errnoError).
//
// The plain functions return 0 on success or the errno of the failed call
// (kEndOfFile when the file ended before `size` bytes were read), so that a
// caller that must classify the error (a mountpath fault) has the errno.

#include "api/result.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace tessera::daemon {

// Not an errno value: the file ended before the bytes asked for.
inline constexpr int kEndOfFile = -1;

[[nodiscard]] int writeAll(int fd, const void* data, std::size_t size);
[[nodiscard]] int pwriteAll(int fd, const void* data, std::size_t size, std::uint64_t offset);
[[nodiscard]] int preadExact(int fd, void* out, std::size_t size, std::uint64_t offset);

// A failed system call as an Error: ENOSPC and EDQUOT are NoSpace (507),
// ENOENT NotFound, kEndOfFile a Corruption ("shorter than expected"),
// anything else an IoError with the system's text as its cause.
// (Calls on a mountpath go through MountpathHealth::classify first, which
// turns device faults into a disabled mountpath.)
api::Error errnoError(int err, const std::string& what);

// Bytes [offset, offset + length) of `fd` to `sink`, in chunks of up to
// `chunk` bytes. A file shorter than that is an error (kEndOfFile).
// The default chunk is kCopyChunk: sinks mostly write files, and the kernel
// allocates a file's page cache in folios as large as each write. Writes of
// 1 MiB made it compact memory on a host whose memory was fragmented (1 GiB
// written cost 1.1-1.8 s of CPU, against 0.29 s in writes of 256 KiB).
inline constexpr std::size_t kCopyChunk = std::size_t{256} << 10;
using ByteSink = std::function<api::Status(const char*, std::size_t)>;
api::Status copyRange(int fd, std::uint64_t offset, std::uint64_t length, const ByteSink& sink, const std::string& what,
                      std::size_t chunk = kCopyChunk);
// All of `fd` from `offset` to its end, to `sink`.
api::Status copyToEnd(int fd, std::uint64_t offset, const ByteSink& sink, const std::string& what,
                      std::size_t chunk = kCopyChunk);

}  // namespace tessera::daemon
