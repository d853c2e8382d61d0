#pragma once
// Starting transformer processes, fenced: no shell (argv straight to
// execve), a scrubbed environment, a working directory of the ETL's own,
// resource limits, and a process group of its own so that it is killed as
// a group (with anything it started). The child dies with the node
// (PR_SET_PDEATHSIG), and every child started here is reaped by its owner.

#include "api/result.h"
#include "common/unique_fd.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <sys/types.h>
#include <vector>

namespace tessera::daemon::etl {

struct SpawnSpec {
    std::string path;               // resolved executable
    std::vector<std::string> argv;  // argv[0] included
    std::map<std::string, std::string> env;
    std::string cwd;
    std::uint64_t memoryLimit = 0;  // RLIMIT_AS; 0: none
    std::uint64_t cpuSeconds = 0;   // RLIMIT_CPU; 0: none
    std::uint64_t maxOpenFiles = 1024;
    int stdinFd = -1;  // -1: /dev/null
    int stdoutFd = -1;
    int stderrFd = -1;
};

// fork + execve. The child is the leader of a new process group. An exec
// failure (ENOENT, EACCES, ...) is reported here, not as an exit status.
api::Result<pid_t> spawn(const SpawnSpec& spec);

// SIGKILL to the process group `pid` leads (ignores ESRCH).
void killGroup(pid_t pid);

// "exited with status 1", "killed by signal 11 (Segmentation fault)".
std::string describeExit(int waitStatus);

// An fd that becomes readable when `pid` exits (pidfd_open).
api::Result<UniqueFd> openPidFd(pid_t pid);

// An anonymous in-memory file (memfd) for a transformer's output.
api::Result<UniqueFd> makeOutputFile(const std::string& name);

// The environment every transformer starts from: a fixed PATH, LANG, HOME
// and TMPDIR in its working directory; nothing of the node's.
std::map<std::string, std::string> baseEnvironment(const std::string& workDir);

// The executable `command0` resolved inside one of `binDirs` (realpath;
// a name without '/' is looked up in each directory in order). Forbidden,
// naming the rule, when it resolves elsewhere; NotFound when it does not
// exist; Forbidden when it is not an executable regular file.
api::Result<std::string> resolveExecutable(const std::string& command0, const std::vector<std::string>& binDirs);

}  // namespace tessera::daemon::etl
