#pragma once
// Owns a POSIX file descriptor and closes it on destruction (the CLI's
// files: the token file, bench file-put).

#include <unistd.h>
#include <utility>

namespace tessera::cli {

class Fd {
public:
    explicit Fd(int fd) : m_fd(fd) {}
    ~Fd()
    {
        if (m_fd >= 0) ::close(m_fd);
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return m_fd; }
    // Gives the descriptor up (to close it and see close's error).
    int release() { return std::exchange(m_fd, -1); }

private:
    int m_fd;
};

}  // namespace tessera::cli
