#pragma once
// Live progress of a transfer of many objects: a bar redrawn in place when
// the stream is a terminal, a plain line every few seconds otherwise (logs,
// pipes, CI).
//
// Thread safety: add() and fail() may be called from any thread; drawing
// happens on the Progress's own thread between start() and finish().

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <iosfwd>
#include <mutex>
#include <string>
#include <thread>

namespace tessera::cli {

class Progress {
public:
    Progress(std::ostream& os, bool tty, std::uint64_t totalObjects, std::uint64_t totalBytes);
    ~Progress();
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    void start();
    // Stops the drawing thread and draws the final state once.
    void finish();

    void add(std::uint64_t objects, std::uint64_t bytes);
    void fail();

    std::uint64_t objects() const { return m_objects.load(); }
    std::uint64_t bytes() const { return m_bytes.load(); }
    double seconds() const;

    // The text of one report, e.g. "[#####-----]  50%  3/6 objects  1.0 MiB/2.0 MiB  4.0 MiB/s".
    std::string line() const;

private:
    void draw(bool final);

    std::ostream& m_os;
    const bool m_tty;
    const std::uint64_t m_totalObjects;
    const std::uint64_t m_totalBytes;
    std::atomic<std::uint64_t> m_objects{0};
    std::atomic<std::uint64_t> m_bytes{0};
    std::atomic<std::uint64_t> m_failed{0};
    std::chrono::steady_clock::time_point m_start;
    std::mutex m_mutex;
    std::condition_variable m_cv;
    bool m_stop = false;
    std::thread m_thread;
};

}  // namespace tessera::cli
