#include "log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace tessera::daemon {

namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::Info)};
std::mutex g_mutex;
const char* levelName(LogLevel l)
{
    switch (l) {
    case LogLevel::Debug: return "D";
    case LogLevel::Info: return "I";
    case LogLevel::Warn: return "W";
    case LogLevel::Error: return "E";
    }
    return "?";
}
}  // namespace

void setLogLevel(LogLevel level) { g_level = static_cast<int>(level); }
LogLevel logLevel() { return static_cast<LogLevel>(g_level.load()); }

void logLine(LogLevel level, const std::string& message)
{
    const auto now = std::chrono::system_clock::now();
    const auto secs = std::chrono::system_clock::to_time_t(now);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char ts[32];
    std::strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
    std::lock_guard lock(g_mutex);
    std::fprintf(stderr, "%s.%03dZ %s %s\n", ts, static_cast<int>(ms), levelName(level), message.c_str());
    std::fflush(stderr);
}

}  // namespace tessera::daemon
