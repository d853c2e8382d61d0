#include "etl_process.h"

#include "common/fd_io.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace tessera::daemon::etl {

namespace fs = std::filesystem;

namespace {

// In the child, between fork and execve: only async-signal-safe calls.
[[noreturn]] void childFail(int errFd, int err)
{
    const int e = err;
    [[maybe_unused]] auto n = ::write(errFd, &e, sizeof e);
    ::_exit(127);
}

// What the child needs, prepared before vfork.
struct ChildArgs {
    const char* path;
    char* const* argv;
    char* const* envp;
    const char* cwd;
    int in, out, err;
    int errFd;
    pid_t parent;
    std::uint64_t memoryLimit, cpuSeconds, maxOpenFiles;
};

// The child between vfork and execve: system calls only, on its own locals.
[[noreturn]] void runChild(const ChildArgs& c)
{
    const int ef = c.errFd;
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != c.parent) ::_exit(127);  // the node died meanwhile
    // Default dispositions before any signal is let through (a handler
    // of the node must never run in the child).
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig) {
        if (sig != SIGKILL && sig != SIGSTOP) ::sigaction(sig, &dfl, nullptr);
    }
    // dup2 onto 0..2 (a source already at 0..2 would be closed by an
    // earlier dup2: move them out of the way first).
    int fds[3] = {c.in, c.out, c.err};
    for (int& f : fds) {
        if (f <= 2) {
            const int moved = ::fcntl(f, F_DUPFD_CLOEXEC, 3);
            if (moved < 0) childFail(ef, errno);
            f = moved;
        }
    }
    for (int i = 0; i < 3; ++i) {
        if (::dup2(fds[i], i) < 0) childFail(ef, errno);
    }
    if (c.cwd[0] != '\0' && ::chdir(c.cwd) != 0) childFail(ef, errno);
    if (c.memoryLimit > 0) {
        const rlimit r{c.memoryLimit, c.memoryLimit};
        ::setrlimit(RLIMIT_AS, &r);
    }
    if (c.cpuSeconds > 0) {
        const rlimit r{c.cpuSeconds, c.cpuSeconds + 1};
        ::setrlimit(RLIMIT_CPU, &r);
    }
    if (c.maxOpenFiles > 0) {
        const rlimit r{c.maxOpenFiles, c.maxOpenFiles};
        ::setrlimit(RLIMIT_NOFILE, &r);
    }
    // Nothing of the node's beyond 0..2 and the error pipe (close-on-exec).
    if (ef > 3) ::syscall(SYS_close_range, 3U, static_cast<unsigned>(ef - 1), 0U);
    if (::syscall(SYS_close_range, static_cast<unsigned>(ef + 1), ~0U, 0U) != 0) {
        for (int fd = ef + 1; fd < 4096; ++fd) ::close(fd);
    }
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execve(c.path, c.argv, c.envp);
    childFail(ef, errno);
}

}  // namespace

api::Result<pid_t> spawn(const SpawnSpec& spec)
{
    // Everything the child needs is built before fork.
    std::vector<std::string> envStrings;
    envStrings.reserve(spec.env.size());
    for (const auto& [k, v] : spec.env) envStrings.push_back(k + "=" + v);
    std::vector<char*> argv, envp;
    for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (auto& e : envStrings) envp.push_back(e.data());
    envp.push_back(nullptr);
    int errPipe[2];
    if (::pipe2(errPipe, O_CLOEXEC) != 0) return errnoError(errno, "cannot create a pipe");
    UniqueFd errRead(errPipe[0]), errWrite(errPipe[1]);
    const int devNull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devNull < 0) return errnoError(errno, "cannot open /dev/null");
    UniqueFd nullFd(devNull);
    const int in = spec.stdinFd >= 0 ? spec.stdinFd : devNull;
    const int out = spec.stdoutFd >= 0 ? spec.stdoutFd : devNull;
    const int err = spec.stderrFd >= 0 ? spec.stderrFd : devNull;
    const pid_t parent = ::getpid();

    // vfork: the child borrows the node's memory until execve instead of
    // copying its page tables (fork of a large, many-threaded node costs
    // milliseconds per transformer). The child touches nothing of the
    // parent's but its own locals and only makes system calls.
    const ChildArgs child{
        spec.path.c_str(), argv.data(),     envp.data(),      spec.cwd.c_str(), in, out, err, errWrite.get(), parent,
        spec.memoryLimit,  spec.cpuSeconds, spec.maxOpenFiles};
    sigset_t all, old;
    sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &old);
    const pid_t pid = ::vfork();
    if (pid < 0) {
        const int e = errno;
        ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
        return errnoError(e, "cannot start a process");
    }
    if (pid == 0) runChild(child);
    ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
    errWrite.reset();
    int childErr = 0;
    ssize_t n;
    do {
        n = ::read(errRead.get(), &childErr, sizeof childErr);
    } while (n < 0 && errno == EINTR);
    if (n == static_cast<ssize_t>(sizeof childErr)) {
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        return api::Error{api::ErrorKind::Forbidden, "cannot run " + spec.path, std::strerror(childErr)};
    }
    return pid;
}

void killGroup(pid_t pid)
{
    if (pid > 0) ::kill(-pid, SIGKILL);
}

std::string describeExit(int status)
{
    if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        const char* name = ::strsignal(sig);
        return "was killed by signal " + std::to_string(sig) + " (" + (name ? name : "?") + ")";
    }
    return "ended (status " + std::to_string(status) + ")";
}

api::Result<UniqueFd> openPidFd(pid_t pid)
{
    const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (fd < 0) return errnoError(errno, "pidfd_open");
    return UniqueFd(fd);
}

api::Result<UniqueFd> makeOutputFile(const std::string& name)
{
    const int fd = ::memfd_create(name.c_str(), MFD_CLOEXEC);
    if (fd < 0) return errnoError(errno, "cannot create an output buffer");
    return UniqueFd(fd);
}

std::map<std::string, std::string> baseEnvironment(const std::string& workDir)
{
    return {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
            {"LANG", "C.UTF-8"},
            {"LC_ALL", "C.UTF-8"},
            {"HOME", workDir},
            {"TMPDIR", workDir},
            {"PYTHONDONTWRITEBYTECODE", "1"}};
}

api::Result<std::string> resolveExecutable(const std::string& command0, const std::vector<std::string>& binDirs)
{
    const auto rule = [&] {
        std::string dirs;
        for (const auto& d : binDirs) dirs += (dirs.empty() ? "" : ", ") + d;
        return "transformers must be executables inside the node's etl_bin_dirs (" + (dirs.empty() ? "none" : dirs) +
               ")";
    };
    std::vector<std::string> roots;
    for (const auto& d : binDirs) {
        std::error_code ec;
        auto real = fs::canonical(d, ec);
        if (!ec) roots.push_back(real.string());
    }
    std::vector<fs::path> candidates;
    if (command0.find('/') != std::string::npos) {
        candidates.emplace_back(command0);
    } else {
        if (command0 == "." || command0 == "..") return api::Error{api::ErrorKind::Forbidden, rule(), {}};
        for (const auto& r : roots) candidates.emplace_back(fs::path(r) / command0);
    }
    for (const auto& c : candidates) {
        std::error_code ec;
        auto real = fs::canonical(c, ec);
        if (ec) continue;
        const auto s = real.string();
        bool inside = false;
        for (const auto& r : roots)
            inside =
                inside || (s.size() > r.size() && s.compare(0, r.size(), r) == 0 && (r == "/" || s[r.size()] == '/'));
        if (!inside) {
            return api::Error{api::ErrorKind::Forbidden,
                              "\"" + command0 + "\" resolves to " + s + ", outside the allowed directories: " + rule(),
                              {}};
        }
        struct stat st {};
        if (::stat(s.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || ::access(s.c_str(), X_OK) != 0) {
            return api::Error{api::ErrorKind::Forbidden, s + " is not an executable file", {}};
        }
        return s;
    }
    if (command0.find('/') != std::string::npos) {
        return api::Error{api::ErrorKind::Forbidden, "\"" + command0 + "\" does not exist; " + rule(), {}};
    }
    return api::Error{api::ErrorKind::Forbidden, "\"" + command0 + "\" is not in any of them; " + rule(), {}};
}

}  // namespace tessera::daemon::etl
