#pragma once
// Which of a target's mountpaths are usable. An I/O error that means the
// disk is gone or broken (EIO, EROFS, ENXIO, ENODEV, EUCLEAN, or a root that
// is missing or no longer a directory) disables the mountpath for the rest
// of the process: requests for objects placed on it answer Unavailable
// naming it, never NotFound (the objects are not known to be gone). It
// comes back when the target restarts with it healthy.
//
// Thread safety: all methods may be called concurrently; check() is one
// relaxed atomic load while the mountpath is healthy (it is on every GET).

#include "api/result.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tessera::daemon::target {

class MountpathHealth {
public:
    // `onDisable` runs once per disabled mountpath (the store drops the open
    // descriptors it keeps).
    MountpathHealth(std::vector<std::string> mountpaths, std::function<void()> onDisable);

    // Prepares mountpath `path` at start (its layout, leftovers of a crash
    // removed, extended attributes probed with `xattrName`) and makes the
    // path canonical. The reason it cannot be used (it then starts
    // disabled: its disk gone, read-only), empty when it is fine; an error
    // only for a filesystem without extended attributes (a configuration
    // mistake, not a fault).
    static api::Result<std::string> prepare(std::string& path, const char* xattrName);

    // Unavailable naming the mountpath when it is disabled.
    api::Status check(std::size_t mp) const;
    // A failed system call on `mp`: a disk fault disables it and gives
    // Unavailable; ENOSPC is NoSpace; anything else an IoError.
    api::Error classify(std::size_t mp, int err, const std::string& what);
    void disable(std::size_t mp, const std::string& reason);
    // The root, its buckets and its work directory are directories, and
    // the work directory is writable.
    bool rootHealthy(std::size_t mp) const;
    // Why `mp` is disabled; empty while it is in use.
    std::string reason(std::size_t mp) const;

private:
    std::vector<std::string> m_mountpaths;
    std::function<void()> m_onDisable;
    mutable std::mutex m_mutex;
    std::vector<std::string> m_reasons;
    std::unique_ptr<std::atomic<bool>[]> m_disabled;
};

}  // namespace tessera::daemon::target
