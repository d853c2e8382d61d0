#include "tombstone_store.h"

#include "common/fd_io.h"
#include "common/unique_fd.h"
#include "meta/node_identity.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

namespace tessera::daemon::target {

namespace fs = std::filesystem;

namespace {
std::int64_t fileMtimeNs(int fd)
{
    struct stat st {};
    if (::fstat(fd, &st) != 0) return 0;
    return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
}
}  // namespace

TombstoneStore::TombstoneStore(std::vector<std::string> mountpaths, std::chrono::milliseconds ttl, bool fsync)
    : m_mountpaths(std::move(mountpaths)), m_ttl(ttl), m_fsync(fsync)
{
}

std::string TombstoneStore::path(std::size_t mp, std::string_view bucket, std::string_view name) const
{
    return bucketDir(mp, bucket) + "/" + std::string(name);
}

std::string TombstoneStore::bucketDir(std::size_t mp, std::string_view bucket) const
{
    return m_mountpaths[mp] + "/.tessera/tomb/" + std::string(bucket);
}

api::Status TombstoneStore::write(std::size_t mp, std::string_view bucket, std::string_view name,
                                  std::int64_t stamp) const
{
    const auto root = m_mountpaths[mp] + "/.tessera/tomb";
    // A name may be a directory of tombstones too ("a" and "a/b" both
    // deleted): the file of "a" then lives as "a/.tomb" below it.
    std::string file = path(mp, bucket, name);
    struct stat st {};
    if (::lstat(file.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) file += "/.tomb";
    // Each parent that is a tombstone file ("a" deleted, now "a/b") becomes
    // a directory holding it as ".tomb".
    for (std::size_t pos = root.size() + 1;;) {
        const auto slash = file.find('/', pos);
        if (slash == std::string::npos) break;
        const std::string dir = file.substr(0, slash);
        if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
            if (errno == ENOSPC) return api::Error::noSpace("no space left recording a deletion");
            return api::Error::ioError("cannot record the deletion", std::strerror(errno));
        }
        if (::lstat(dir.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
            const std::string aside = dir + ".tomb-" + meta::randomId(6);
            if (::rename(dir.c_str(), aside.c_str()) != 0 || ::mkdir(dir.c_str(), 0755) != 0 ||
                ::rename(aside.c_str(), (dir + "/.tomb").c_str()) != 0) {
                return api::Error::ioError("cannot record the deletion", std::strerror(errno));
            }
        }
        pos = slash + 1;
    }
    const std::string text = std::to_string(stamp) + "\n";
    UniqueFd fd(::open(file.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644));
    if (!fd.valid()) {
        if (errno == ENOSPC) return api::Error::noSpace("no space left recording a deletion");
        return api::Error::ioError("cannot record the deletion", std::strerror(errno));
    }
    if (const int err = writeAll(fd.get(), text.data(), text.size()); err != 0) {
        return errnoError(err, "cannot record the deletion");
    }
    if (m_fsync && ::fdatasync(fd.get()) != 0) {
        return api::Error::ioError("cannot record the deletion", std::strerror(errno));
    }
    return {};
}

std::optional<std::int64_t> TombstoneStore::read(std::size_t mp, std::string_view bucket, std::string_view name) const
{
    std::string file = path(mp, bucket, name);
    UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    if (!fd.valid()) return std::nullopt;
    if (struct stat st{}; ::fstat(fd.get(), &st) == 0 && S_ISDIR(st.st_mode)) {
        file += "/.tomb";
        fd.reset(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
        if (!fd.valid()) return std::nullopt;
    }
    char buf[32] = {};
    const ssize_t n = ::read(fd.get(), buf, sizeof buf - 1);
    std::int64_t stamp = 0;
    if (n > 0) {
        for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9' && stamp < (INT64_MAX / 10 - 10); ++i) {
            stamp = stamp * 10 + (buf[i] - '0');
        }
    }
    // A torn record (a crash while writing it) still marks a deletion: its
    // file time is when it happened.
    if (stamp == 0) stamp = fileMtimeNs(fd.get());
    return stamp;
}

api::Result<std::vector<TombstoneStore::Listed>> TombstoneStore::list(
    std::string_view bucket, const std::function<bool(const std::string& name)>& wanted, std::size_t* failed) const
{
    std::map<std::string, std::int64_t> found;
    for (std::size_t mp = 0; mp < m_mountpaths.size(); ++mp) {
        const fs::path top(bucketDir(mp, bucket));
        std::error_code ec;
        fs::recursive_directory_iterator it(top, fs::directory_options::skip_permission_denied, ec);
        if (ec) {
            if (ec == std::errc::no_such_file_or_directory) continue;
            if (failed != nullptr) *failed = mp;
            return api::Error::ioError("cannot list the deletions recorded in " + top.string(), ec.message());
        }
        for (fs::recursive_directory_iterator end; it != end; it.increment(ec)) {
            if (ec) {
                if (failed != nullptr) *failed = mp;
                return api::Error::ioError("cannot list the deletions recorded in " + top.string(), ec.message());
            }
            std::error_code fec;
            if (!it->is_regular_file(fec)) continue;
            auto name = it->path().lexically_relative(top).generic_string();
            // "a/.tomb": the record of "a", which is also a parent of records.
            constexpr std::string_view kParentRecord = "/.tomb";
            if (name.ends_with(kParentRecord)) name.resize(name.size() - kParentRecord.size());
            if (name.empty() || !wanted(name)) continue;
            const auto stamp = read(mp, bucket, name);
            if (!stamp) continue;  // removed meanwhile (swept, or the name written again)
            auto [at, fresh] = found.emplace(std::move(name), *stamp);
            if (!fresh) at->second = std::max(at->second, *stamp);
        }
    }
    std::vector<Listed> out;
    out.reserve(found.size());
    for (auto& [name, stamp] : found) out.push_back({name, stamp});
    return out;
}

std::size_t TombstoneStore::sweep() const
{
    const auto cutoff = std::filesystem::file_time_type::clock::now() - m_ttl;
    std::size_t removed = 0;
    for (const auto& mp : m_mountpaths) {
        std::error_code ec;
        const fs::path root = mp + "/.tessera/tomb";
        std::vector<fs::path> dirs;
        for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
             !ec && it != end; it.increment(ec)) {
            std::error_code fec;
            if (it->is_directory(fec)) {
                dirs.push_back(it->path());
                continue;
            }
            if (it->last_write_time(fec) < cutoff && !fec && fs::remove(it->path(), fec)) ++removed;
        }
        // Deepest first: empty directories go too.
        std::sort(dirs.begin(), dirs.end(),
                  [](const fs::path& a, const fs::path& b) { return a.native().size() > b.native().size(); });
        for (const auto& d : dirs) ::rmdir(d.c_str());
    }
    return removed;
}

}  // namespace tessera::daemon::target
