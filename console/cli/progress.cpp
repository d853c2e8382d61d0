#include "progress.h"

#include "output.h"

#include <algorithm>
#include <ostream>

namespace tessera::cli {

namespace {
constexpr std::chrono::milliseconds kTtyPeriod{200};
constexpr std::chrono::milliseconds kLogPeriod{2000};
constexpr int kBarWidth = 24;
}  // namespace

Progress::Progress(std::ostream& os, bool tty, std::uint64_t totalObjects, std::uint64_t totalBytes)
    : m_os(os), m_tty(tty), m_totalObjects(totalObjects), m_totalBytes(totalBytes),
      m_start(std::chrono::steady_clock::now())
{
}

Progress::~Progress()
{
    if (m_thread.joinable()) finish();
}

void Progress::start()
{
    m_start = std::chrono::steady_clock::now();
    m_thread = std::thread([this] {
        std::unique_lock lock(m_mutex);
        const auto period = m_tty ? kTtyPeriod : kLogPeriod;
        while (!m_cv.wait_for(lock, period, [this] { return m_stop; })) {
            lock.unlock();
            draw(false);
            lock.lock();
        }
    });
}

void Progress::finish()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_cv.notify_all();
    if (m_thread.joinable()) m_thread.join();
    draw(true);
}

void Progress::add(std::uint64_t objects, std::uint64_t bytes)
{
    m_objects.fetch_add(objects);
    m_bytes.fetch_add(bytes);
}

void Progress::fail() { m_failed.fetch_add(1); }

double Progress::seconds() const
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
}

std::string Progress::line() const
{
    const auto objects = m_objects.load();
    const auto bytes = m_bytes.load();
    const auto failed = m_failed.load();
    const double secs = seconds();
    std::string out;
    if (m_tty) {
        // Bytes decide the fraction; a set of empty files falls back to objects.
        double fraction = 1.0;
        if (m_totalBytes > 0) fraction = static_cast<double>(bytes) / static_cast<double>(m_totalBytes);
        else if (m_totalObjects > 0)
            fraction = static_cast<double>(objects + failed) / static_cast<double>(m_totalObjects);
        fraction = std::clamp(fraction, 0.0, 1.0);
        const int filled = static_cast<int>(fraction * kBarWidth);
        out.assign(1, '[');
        out.append(static_cast<std::size_t>(filled), '#');
        out.append(static_cast<std::size_t>(kBarWidth - filled), '-');
        out += "] ";
        const auto pct = std::to_string(static_cast<int>(fraction * 100));
        out += std::string(3 - std::min<std::size_t>(3, pct.size()), ' ') + pct + "%  ";
    }
    out += std::to_string(objects) + "/" + std::to_string(m_totalObjects) + " objects  " + formatBytes(bytes) + "/" +
           formatBytes(m_totalBytes) + "  " + formatRate(secs > 0 ? static_cast<double>(bytes) / secs : 0);
    if (failed > 0) out += "  " + std::to_string(failed) + " failed";
    return out;
}

void Progress::draw(bool final)
{
    if (m_tty) {
        // "\r" + erase-to-end-of-line redraws in place whatever the previous width.
        m_os << "\r\033[K" << line() << (final ? "\n" : "") << std::flush;
    } else {
        m_os << line() << "\n" << std::flush;
    }
}

}  // namespace tessera::cli
