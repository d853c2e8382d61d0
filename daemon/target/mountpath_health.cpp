#include "mountpath_health.h"

#include "common/log.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

namespace tessera::daemon::target {

MountpathHealth::MountpathHealth(std::vector<std::string> mountpaths, std::function<void()> onDisable)
    : m_mountpaths(std::move(mountpaths)), m_onDisable(std::move(onDisable)), m_reasons(m_mountpaths.size()),
      m_disabled(new std::atomic<bool>[m_mountpaths.size()])
{
    for (std::size_t i = 0; i < m_mountpaths.size(); ++i) m_disabled[i] = false;
}

api::Result<std::string> MountpathHealth::prepare(std::string& mp, const char* xattrName)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(mp, ec);
    if (!ec) mp = fs::canonical(mp, ec).string();
    if (ec) {
        mp = fs::absolute(mp).lexically_normal().string();
        return "cannot prepare it: " + ec.message();
    }
    for (const char* sub :
         {"/.tessera/work", "/.tessera/trash", "/.tessera/archidx", "/.tessera/tomb", "/.tessera/ec", "/buckets"}) {
        fs::create_directories(mp + sub, ec);
        if (ec) return "cannot prepare it: " + ec.message();
    }
    // Leftovers of a crashed run: half-written objects and half-removed buckets.
    for (const char* sub : {"/.tessera/work", "/.tessera/trash"}) {
        for (const auto& e : fs::directory_iterator(mp + sub, ec)) {
            std::error_code rec;
            fs::remove_all(e.path(), rec);
            if (rec) logWarn("cannot remove leftover ", e.path().string(), ": ", rec.message());
        }
    }
    // Extended attributes hold object metadata: refuse a filesystem without them.
    const std::string probe = mp + "/.tessera/work/xattr-probe";
    const int fd = ::open(probe.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return std::string("not writable: ") + std::strerror(errno);
    const bool ok = ::fsetxattr(fd, xattrName, "{}", 2, 0) == 0;
    const int e = errno;
    ::close(fd);
    ::unlink(probe.c_str());
    if (!ok && e != EIO && e != EROFS) {
        return api::Error::ioError("mountpath " + mp + " does not support user extended attributes", std::strerror(e));
    }
    return ok ? std::string() : std::string("cannot write metadata: ") + std::strerror(e);
}

bool MountpathHealth::rootHealthy(std::size_t mp) const
{
    const auto& root = m_mountpaths[mp];
    for (const auto& dir : {root, root + "/buckets", root + "/.tessera/work"}) {
        struct stat st {};
        if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
    }
    return ::access((root + "/.tessera/work").c_str(), W_OK) == 0;
}

void MountpathHealth::disable(std::size_t mp, const std::string& reason)
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_reasons[mp].empty()) return;
        m_reasons[mp] = reason;
        m_disabled[mp] = true;
    }
    if (m_onDisable) m_onDisable();
    logError("mountpath ", m_mountpaths[mp], " disabled: ", reason,
             "; its objects answer 503 until the target restarts with it healthy");
}

api::Status MountpathHealth::check(std::size_t mp) const
{
    if (!m_disabled[mp].load(std::memory_order_relaxed)) return {};
    std::lock_guard lock(m_mutex);
    return api::Error::unavailable("mountpath " + m_mountpaths[mp] + " of this target is disabled (" + m_reasons[mp] +
                                   ")");
}

api::Error MountpathHealth::classify(std::size_t mp, int err, const std::string& what)
{
    const bool deviceFault = err == EIO || err == EROFS || err == ENXIO || err == ENODEV || err == EUCLEAN;
    if (deviceFault || !rootHealthy(mp)) {
        disable(mp, what + ": " + std::strerror(err));
        return check(mp).error();
    }
    if (err == ENOSPC) return api::Error::noSpace("no space left on mountpath " + m_mountpaths[mp]);
    return api::Error::ioError(what, std::strerror(err));
}

std::string MountpathHealth::reason(std::size_t mp) const
{
    std::lock_guard lock(m_mutex);
    return m_reasons[mp];
}

}  // namespace tessera::daemon::target
