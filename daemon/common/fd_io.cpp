#include "fd_io.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <unistd.h>
#include <vector>

namespace tessera::daemon {

int writeAll(int fd, const void* data, std::size_t size)
{
    const auto* p = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t n = ::write(fd, p, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        p += n;
        size -= static_cast<std::size_t>(n);
    }
    return 0;
}

int pwriteAll(int fd, const void* data, std::size_t size, std::uint64_t offset)
{
    const auto* p = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t n = ::pwrite(fd, p, size, static_cast<off_t>(offset));
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        p += n;
        size -= static_cast<std::size_t>(n);
        offset += static_cast<std::uint64_t>(n);
    }
    return 0;
}

int preadExact(int fd, void* out, std::size_t size, std::uint64_t offset)
{
    auto* p = static_cast<char*>(out);
    while (size > 0) {
        const ssize_t n = ::pread(fd, p, size, static_cast<off_t>(offset));
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        if (n == 0) return kEndOfFile;
        p += n;
        size -= static_cast<std::size_t>(n);
        offset += static_cast<std::uint64_t>(n);
    }
    return 0;
}

api::Error errnoError(int err, const std::string& what)
{
    switch (err) {
    case kEndOfFile: return api::Error::corruption(what + ": shorter than expected (changed meanwhile?)");
    case ENOSPC:
    case EDQUOT: return api::Error::noSpace(what + ": no space left on the device");
    case ENOENT: return api::Error::notFound(what + ": no such file");
    default: return api::Error::ioError(what, std::strerror(err));
    }
}

namespace {

api::Status copy(int fd, std::uint64_t offset, std::uint64_t length, bool toEnd, const ByteSink& sink,
                 const std::string& what, std::size_t chunk)
{
    // Not zeroed (new char[], not a vector): a whole-file read of a small
    // object must not pay for clearing a chunk-sized buffer.
    const auto bufSize = static_cast<std::size_t>(std::clamp<std::uint64_t>(length, 1, chunk));
    const std::unique_ptr<char[]> buf(new char[bufSize]);
    while (toEnd || length > 0) {
        const auto want = static_cast<std::size_t>(toEnd ? bufSize : std::min<std::uint64_t>(bufSize, length));
        const ssize_t n = ::pread(fd, buf.get(), want, static_cast<off_t>(offset));
        if (n < 0) {
            if (errno == EINTR) continue;
            return errnoError(errno, what);
        }
        if (n == 0) {
            if (toEnd) return {};
            return errnoError(kEndOfFile, what);
        }
        if (auto st = sink(buf.get(), static_cast<std::size_t>(n)); !st) return st;
        offset += static_cast<std::uint64_t>(n);
        if (!toEnd) length -= static_cast<std::uint64_t>(n);
    }
    return {};
}

}  // namespace

api::Status copyRange(int fd, std::uint64_t offset, std::uint64_t length, const ByteSink& sink, const std::string& what,
                      std::size_t chunk)
{
    return copy(fd, offset, length, false, sink, what, chunk);
}

api::Status copyToEnd(int fd, std::uint64_t offset, const ByteSink& sink, const std::string& what, std::size_t chunk)
{
    return copy(fd, offset, chunk, true, sink, what, chunk);
}

}  // namespace tessera::daemon
