#pragma once
// Minimal thread-safe logger: one line per call on stderr, with a UTC
// timestamp and level. The node's stderr is redirected to its log file.

#include <sstream>
#include <string>

namespace tessera::daemon {

enum class LogLevel { Debug = 0, Info = 1, Warn = 2, Error = 3 };

void setLogLevel(LogLevel level);
LogLevel logLevel();
void logLine(LogLevel level, const std::string& message);

template <typename... Args>
void logAt(LogLevel level, Args&&... args)
{
    if (level < logLevel()) return;
    std::ostringstream os;
    (os << ... << args);
    logLine(level, os.str());
}

template <typename... Args>
void logDebug(Args&&... a)
{
    logAt(LogLevel::Debug, std::forward<Args>(a)...);
}
template <typename... Args>
void logInfo(Args&&... a)
{
    logAt(LogLevel::Info, std::forward<Args>(a)...);
}
template <typename... Args>
void logWarn(Args&&... a)
{
    logAt(LogLevel::Warn, std::forward<Args>(a)...);
}
template <typename... Args>
void logError(Args&&... a)
{
    logAt(LogLevel::Error, std::forward<Args>(a)...);
}

}  // namespace tessera::daemon
