#include "splice_pump.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>

namespace tessera::daemon::net {

namespace {
// A pipe of 1 MiB (the default of fs.pipe-max-size): with the default 64 KiB
// a 256 MiB body takes 8,192 splice pairs instead of 512.
constexpr int kPipeBytes = 1024 * 1024;
constexpr std::size_t kDefaultPipeBytes = 64 * 1024;
}  // namespace

SplicePump::SplicePump(UniqueFd r, UniqueFd w, std::size_t pipeSize)
    : m_pipeRead(std::move(r)), m_pipeWrite(std::move(w)), m_pipeSize(pipeSize)
{
}

api::Result<SplicePump> SplicePump::create()
{
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
        return api::Error{api::ErrorKind::Unavailable, "cannot make a pipe for the relay", std::strerror(errno)};
    }
    UniqueFd r(fds[0]);
    UniqueFd w(fds[1]);
    const int got = ::fcntl(w.get(), F_SETPIPE_SZ, kPipeBytes);
    const std::size_t size = got > 0 ? static_cast<std::size_t>(got) : kDefaultPipeBytes;
    return SplicePump(std::move(r), std::move(w), size);
}

api::Result<SplicePump::Step> SplicePump::run(int from, int to, std::uint64_t& left, std::size_t budget)
{
    std::size_t moved = 0;
    while (left > 0) {
        if (m_inPipe == 0) {
            const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(left, m_pipeSize));
            const ssize_t n = ::splice(from, nullptr, m_pipeWrite.get(), nullptr, want, SPLICE_F_MOVE);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) {
                const bool silent = errno == EAGAIN || errno == EWOULDBLOCK;
                return api::Error{api::ErrorKind::Unavailable,
                                  silent ? "the target went silent mid-body" : "the target broke off the body",
                                  std::strerror(errno)};
            }
            if (n == 0) return api::Error{api::ErrorKind::Unavailable, "the target's body ended early", {}};
            m_inPipe = static_cast<std::size_t>(n);
        }
        const unsigned more = left > m_inPipe ? SPLICE_F_MORE : 0;
        const ssize_t m =
            ::splice(m_pipeRead.get(), nullptr, to, nullptr, m_inPipe, SPLICE_F_MOVE | SPLICE_F_NONBLOCK | more);
        if (m < 0 && errno == EINTR) continue;
        if (m < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return Step::Wait;
        if (m < 0 && (errno == EPIPE || errno == ECONNRESET)) return Step::ClientGone;
        if (m <= 0) {
            return api::Error{api::ErrorKind::Internal, "cannot move the body to the client",
                              m < 0 ? std::strerror(errno) : "splice moved nothing"};
        }
        m_inPipe -= static_cast<std::size_t>(m);
        left -= static_cast<std::uint64_t>(m);
        moved += static_cast<std::size_t>(m);
        if (moved >= budget && left > 0) return Step::More;
    }
    return Step::Done;
}

}  // namespace tessera::daemon::net
