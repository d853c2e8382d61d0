#include "file_put.h"

#include "file_descriptor.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/xattr.h>
#include <unistd.h>

namespace tessera::cli::bench {

namespace {

// Roughly the size of a target's metadata record.
constexpr char kAttr[] = "user.tessera.bench";
constexpr std::string_view kAttrValue = "v1 0123456789abcdef 4096 1 17";

std::string failed(const char* what, const std::string& path, int err)
{
    return std::string(what) + " " + path + ": " + std::strerror(err);
}

}  // namespace

std::string writeCommittedFile(const std::string& root, const std::string& rel, std::string_view bytes, bool fsync)
{
    const auto slash = rel.rfind('/');
    if (slash == std::string::npos) return "no folder in \"" + rel + "\"";
    const std::string dir = root + "/" + rel.substr(0, slash);
    const std::string work = dir + "/" + std::string(kFileWorkDir) + "/" + rel.substr(slash + 1);
    const std::string path = root + "/" + rel;
    Fd fd(::open(work.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644));
    if (fd.get() < 0) return failed("cannot create", work, errno);
    for (std::size_t done = 0; done < bytes.size();) {
        const ssize_t n = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return failed("cannot write", work, errno);
        done += static_cast<std::size_t>(n);
    }
    if (fsync && ::fdatasync(fd.get()) != 0) return failed("fdatasync failed on", work, errno);
    if (::fsetxattr(fd.get(), kAttr, kAttrValue.data(), kAttrValue.size(), 0) != 0) {
        return failed("cannot set an attribute on", work, errno);
    }
    if (::close(fd.release()) != 0) return failed("cannot close", work, errno);
    if (::rename(work.c_str(), path.c_str()) != 0) return failed("cannot rename to", path, errno);
    if (!fsync) return {};
    Fd d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (d.get() < 0) return failed("cannot open", dir, errno);
    if (::fsync(d.get()) != 0) return failed("fsync failed on", dir, errno);
    return {};
}

}  // namespace tessera::cli::bench
