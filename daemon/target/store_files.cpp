#include "store_files.h"

#include "common/unique_fd.h"
#include "meta_record.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

namespace tessera::daemon::target::store_detail {

std::string errnoText(int e) { return std::strerror(e); }

std::int64_t nowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Metadata is usually a few dozen bytes (a few hundred with custom entries). The kernel allocates (and zeroes)
// a buffer as large as the one getxattr is given, so asking with 64 KiB on
// every GET cost a 64 KiB page allocation per request (5 % of a 1 KiB GET's
// CPU in perf): ask with a small buffer first, and with the limit only when
// the kernel says it is too small.
constexpr std::size_t kMetaFirstTry = 2048;

api::Result<std::optional<api::ObjectMeta>> readMetaFd(int fd)
{
    char small[kMetaFirstTry];
    ssize_t n = ::fgetxattr(fd, kMetaXattr, small, sizeof small);
    if (n >= 0) {
        auto m = decodeMetaRecord(std::string_view(small, static_cast<std::size_t>(n)));
        if (!m) return m.error();
        return std::optional<api::ObjectMeta>{std::move(m.value())};
    }
    if (errno == ENODATA) return std::optional<api::ObjectMeta>{};
    if (errno != ERANGE) return api::Error::ioError("cannot read object metadata", errnoText(errno));
    char buf[kMaxMetaBytes];
    n = ::fgetxattr(fd, kMetaXattr, buf, sizeof buf);
    if (n < 0) {
        if (errno == ENODATA) return std::optional<api::ObjectMeta>{};
        return api::Error::ioError("cannot read object metadata", errnoText(errno));
    }
    auto m = decodeMetaRecord(std::string_view(buf, static_cast<std::size_t>(n)));
    if (!m) return m.error();
    return std::optional<api::ObjectMeta>{std::move(m.value())};
}

std::int64_t fileMtimeNs(int fd)
{
    struct stat st {};
    if (::fstat(fd, &st) != 0) return 0;
    return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
}

api::Status makeParents(const std::string& root, const std::string& path)
{
    struct stat rootSt {};
    if (::stat(root.c_str(), &rootSt) != 0) {
        return api::Error::notFound("the bucket was destroyed while the object was being written");
    }
    std::size_t pos = root.size() + 1;
    while (true) {
        auto slash = path.find('/', pos);
        if (slash == std::string::npos) return {};
        const std::string dir = path.substr(0, slash);
        if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
            if (errno == ENOTDIR) {
                return api::Error::conflict("an object exists where a directory of this name is needed");
            }
            if (errno == ENOSPC) return api::Error::noSpace("no space left creating " + dir);
            return api::Error::ioError("cannot create directory", errnoText(errno));
        }
        if (errno == EEXIST) {
            struct stat st {};
            if (::stat(dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
                return api::Error::conflict("object name conflicts with an existing object \"" +
                                            dir.substr(root.size() + 1) + "\"");
            }
        }
        pos = slash + 1;
    }
}

int makeDirsUnder(const std::string& root, const std::string& dir)
{
    if (dir.size() <= root.size() || dir.compare(0, root.size(), root) != 0 || dir[root.size()] != '/') return EINVAL;
    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0) return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
    for (std::size_t pos = root.size() + 1;;) {
        const auto slash = dir.find('/', pos);
        const std::string part = dir.substr(0, slash);
        if (::mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return errno;
        if (slash == std::string::npos) return 0;
        pos = slash + 1;
    }
}

std::optional<api::ObjectMeta> currentVersion(const std::string& path)
{
    UniqueFd old(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    if (!old.valid()) return std::nullopt;
    auto pm = readMetaFd(old.get());
    if (!pm || !pm->has_value()) return std::nullopt;
    auto prev = std::move(**pm);
    if (prev.stamp == 0) prev.stamp = fileMtimeNs(old.get());
    return prev;
}

api::Status fsyncDir(const std::string& dir)
{
    UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.valid()) return api::Error::ioError("cannot open directory for fsync", errnoText(errno));
    if (::fsync(fd.get()) != 0) return api::Error::ioError("directory fsync failed", errnoText(errno));
    return {};
}

void pruneEmptyParents(const std::string& root, std::string path)
{
    while (true) {
        auto slash = path.rfind('/');
        if (slash == std::string::npos || slash <= root.size()) return;
        path.resize(slash);
        if (::rmdir(path.c_str()) != 0) return;
    }
}

}  // namespace tessera::daemon::target::store_detail
