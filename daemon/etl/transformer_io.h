#pragma once
// What the transformer's parts share (transformer.cpp: processes per
// object and HTTP servers; transformer_framed.cpp: long-lived framed
// workers): deadlines, non-blocking pipes, and the output buffer with its
// max_output_size cap. Internal to daemon/etl.

#include "api/result.h"
#include "common/fd_io.h"
#include "common/unique_fd.h"

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <utility>

namespace tessera::daemon::etl::transformer_detail {

using Clock = std::chrono::steady_clock;
inline constexpr std::size_t kTailBytes = 1024;  // stderr quoted in an error

// Milliseconds until `deadline`, 0 when past (for poll()).
inline int msLeft(Clock::time_point deadline)
{
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1 << 30));
}

inline void setNonBlocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

inline std::string replaceAll(std::string s, const std::string& from, const std::string& to)
{
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
        s.replace(at, from.size(), to);
    }
    return s;
}

inline std::string tailOf(const std::string& s, std::size_t n) { return s.size() <= n ? s : s.substr(s.size() - n); }

// A child's stdin, stdout and stderr pipes (close-on-exec; the spawn
// dup2s the child's ends).
struct ChildPipes {
    UniqueFd inR, inW, outR, outW, errR, errW;
};
inline api::Result<ChildPipes> childPipes()
{
    ChildPipes c;
    for (auto [r, w] : {std::pair{&c.inR, &c.inW}, std::pair{&c.outR, &c.outW}, std::pair{&c.errR, &c.errW}}) {
        int p[2];
        if (::pipe2(p, O_CLOEXEC) != 0) return errnoError(errno, "cannot create a pipe");
        r->reset(p[0]);
        w->reset(p[1]);
    }
    return c;
}

// The output file with a size cap.
struct OutputBuffer {
    UniqueFd fd;
    std::uint64_t size = 0;
    std::uint64_t cap = 0;
    bool overflow = false;
    api::Status write(const char* p, std::size_t n)
    {
        if (size + n > cap) {
            overflow = true;
            return api::Error{api::ErrorKind::TooLarge, "output over max_output_size", {}};
        }
        if (const int err = writeAll(fd.get(), p, n); err != 0) return errnoError(err, "cannot buffer the output");
        size += n;
        return {};
    }
};

}  // namespace tessera::daemon::etl::transformer_detail
