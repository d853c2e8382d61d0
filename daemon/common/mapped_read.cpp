#include "mapped_read.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <mutex>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tessera::daemon {

namespace {

// The mapping this thread is reading, for the SIGBUS handler.
struct MapGuard {
    const char* lo = nullptr;
    const char* hi = nullptr;
    volatile std::sig_atomic_t faulted = 0;
};
thread_local MapGuard* t_guard = nullptr;
std::uintptr_t g_pageMask = 0;
struct sigaction g_previous {};

void onSigbus(int, siginfo_t* info, void*)
{
    MapGuard* g = t_guard;
    const auto* at = static_cast<const char*>(info->si_addr);
    if (g != nullptr && at >= g->lo && at < g->hi) {
        // A page past the file's end: zeros in its place, and the read fails.
        void* page = reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(at) & g_pageMask);
        if (::mmap(page, ~g_pageMask + 1, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
            g->faulted = 1;
            return;
        }
    }
    // Not a read of ours: the fault happens again under the action there was.
    ::sigaction(SIGBUS, &g_previous, nullptr);
}

void installHandler()
{
    static std::once_flag once;
    std::call_once(once, [] {
        g_pageMask = ~(static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE)) - 1);
        struct sigaction sa {};
        sa.sa_sigaction = onSigbus;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        ::sigaction(SIGBUS, &sa, &g_previous);
    });
}

}  // namespace

api::Status readMapped(int fd, std::uint64_t offset, std::uint64_t length, const ByteSink& sink,
                       const std::string& what, std::size_t piece)
{
    piece = std::max<std::size_t>(piece, 1);
    // A small range costs less to copy than to map (mmap, page tables,
    // munmap with its TLB flush): ishard verifies 1 KiB samples.
    if (length < kMapFrom) return copyRange(fd, offset, length, sink, what, piece);
    installHandler();
    struct stat st {};
    if (::fstat(fd, &st) != 0) return errnoError(errno, what);
    // A range past the end is an error whether or not the sink reads it.
    if (offset + length > static_cast<std::uint64_t>(st.st_size)) return errnoError(kEndOfFile, what);
    const std::uint64_t pageSize = ~g_pageMask + 1;
    while (length > 0) {
        const std::uint64_t start = offset & ~(pageSize - 1);  // mappings begin on a page
        const std::uint64_t skip = offset - start;
        const std::uint64_t take = std::min(length, kMapWindow - skip);
        void* map = ::mmap(nullptr, skip + take, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, static_cast<off_t>(start));
        if (map == MAP_FAILED) return copyRange(fd, offset, length, sink, what, piece);
        const char* base = static_cast<const char*>(map) + skip;
        MapGuard guard{static_cast<const char*>(map), base + take, 0};
        t_guard = &guard;
        api::Status sunk;
        for (std::uint64_t at = 0; at < take && sunk && !guard.faulted;) {
            const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(take - at, piece));
            sunk = sink(base + at, n);
            at += n;
        }
        t_guard = nullptr;
        ::munmap(map, skip + take);
        if (guard.faulted) return errnoError(kEndOfFile, what);
        if (!sunk) return sunk;
        offset += take;
        length -= take;
    }
    return {};
}

}  // namespace tessera::daemon
