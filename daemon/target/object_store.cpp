#include "object_store.h"
#include "meta_record.h"
#include "store_files.h"

#include "api/checksum.h"
#include "api/hrw.h"
#include "api/json_util.h"
#include "api/names.h"
#include "common/fd_io.h"
#include "common/log.h"
#include "common/mapped_read.h"
#include "meta/node_identity.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <thread>
#include <unistd.h>

namespace tessera::daemon::target {

namespace fs = std::filesystem;
using namespace store_detail;

ObjectStore::ObjectStore(Options options)
    : m_options(std::move(options)), m_openCache(m_options.openCache),
      m_health(m_options.mountpaths, [this] { m_openCache.clear(); }),
      m_tombstones(m_options.mountpaths, m_options.tombstoneTtl, m_options.fsync), m_intents(m_options.mountpaths)
{
}

api::Status ObjectStore::checkMountpath(std::size_t mp) const { return m_health.check(mp); }

api::Error ObjectStore::mountpathError(std::size_t mp, int err, const std::string& what) const
{
    return m_health.classify(mp, err, what);
}

api::Error ObjectStore::durabilityError(std::size_t mp, const api::Error& failed, bool made) const
{
    const bool healthy = m_health.rootHealthy(mp);
    if (healthy && !made) return failed;
    // Only a mountpath that failed is disabled.
    auto e = healthy ? api::Error::unavailable(failed.message) : mountpathError(mp, ENOTDIR, failed.message);
    e.kind = api::ErrorKind::Unavailable;
    e.message += "; the change was made but is not known to be durable: its outcome is unknown";
    return e;
}

std::size_t ObjectStore::sweepTombstones() const { return m_tombstones.sweep(); }

std::optional<std::int64_t> ObjectStore::tombstone(std::string_view bucket, std::string_view name) const
{
    return m_tombstones.read(mountpathFor(bucket, name), bucket, name);
}

api::Result<std::vector<TombstoneStore::Listed>> ObjectStore::deletions(
    std::string_view bucket, const std::function<bool(const std::string& name)>& wanted) const
{
    for (std::size_t mp = 0; mp < m_options.mountpaths.size(); ++mp) {
        if (auto st = checkMountpath(mp); !st) return st.error();
    }
    std::size_t failed = 0;
    auto out = m_tombstones.list(bucket, wanted, &failed);
    if (!out) return mountpathError(failed, EIO, out.error().message);
    return out;
}

api::Result<std::unique_ptr<ObjectStore>> ObjectStore::create(Options options)
{
    if (options.mountpaths.empty()) return api::Error::badRequest("no mountpaths");
    // A mountpath that cannot be prepared (its disk gone, read-only) starts
    // disabled; the target serves the others. Only a filesystem without
    // extended attributes is a configuration error.
    std::vector<std::string> broken(options.mountpaths.size());
    for (std::size_t i = 0; i < options.mountpaths.size(); ++i) {
        auto why = MountpathHealth::prepare(options.mountpaths[i], kMetaXattr);
        if (!why) return why.error();
        broken[i] = std::move(why.value());
    }
    if (std::all_of(broken.begin(), broken.end(), [](const std::string& b) { return !b.empty(); })) {
        return api::Error::ioError("no usable mountpath: " + options.mountpaths[0] + " " + broken[0]);
    }
    for (std::size_t i = 0; i < options.mountpaths.size(); ++i) {
        for (std::size_t j = i + 1; j < options.mountpaths.size(); ++j) {
            if (options.mountpaths[i] == options.mountpaths[j]) {
                return api::Error::badRequest("mountpath given twice: " + options.mountpaths[i]);
            }
        }
    }
    // Two mountpaths on one filesystem share its space and its failures:
    // allowed (a test rig, a laptop), but no redundancy and no extra capacity.
    std::map<std::string, std::string> byFs;
    for (const auto& mp : options.mountpaths) {
        const auto fs = filesystemOf(mp);
        if (fs.empty()) continue;
        auto [it, fresh] = byFs.emplace(fs, mp);
        if (!fresh) {
            logWarn("mountpaths ", it->second, " and ", mp, " are on the same filesystem (device ", fs,
                    "): they share its space, which is counted once");
        }
    }
    std::unique_ptr<ObjectStore> store(new ObjectStore(std::move(options)));
    // Unnamed work files are linked under their name through /proc.
    store->m_unnamedWorkFiles = ::access("/proc/self/fd", X_OK) == 0;
    for (std::size_t i = 0; i < broken.size(); ++i) {
        if (!broken[i].empty()) store->m_health.disable(i, broken[i]);
    }
    store->m_intents.load();
    // The commit logs: a previous run's records are applied, then cleared.
    store->m_logs.resize(store->m_options.mountpaths.size());
    for (std::size_t i = 0; store->m_options.fsync && store->m_options.commitLog && i < broken.size(); ++i) {
        if (!broken[i].empty()) continue;
        const auto& mp = store->m_options.mountpaths[i];
        std::vector<CommitLog::Record> left;
        auto log = CommitLog::open(mp + "/.tessera/commitlog", mp, store->m_options.commitLogOptions, &left);
        if (!log) {
            store->m_health.disable(i, "its commit log cannot be opened: " + log.error().message);
            continue;
        }
        if (!left.empty()) {
            std::size_t applied = 0;
            for (const auto& r : left) applied += store->applyLogged(i, r) ? 1 : 0;
            if (const int e = (*log)->clearLeftovers(); e != 0) {
                store->m_health.disable(i, std::string("its commit log cannot be cleared: ") + std::strerror(e));
                continue;
            }
            logInfo("commit log of ", mp, ": ", left.size(), " record(s) from the last run, ", applied,
                    " written again (the others were in place or replaced)");
            store->m_replayed += applied;
        }
        store->m_logs[i] = std::move(log.value());
    }
    if (const auto swept = store->sweepTombstones(); swept > 0) logInfo("removed ", swept, " expired tombstone(s)");
    return store;
}

bool ObjectStore::applyLogged(std::size_t mp, const CommitLog::Record& r)
{
    const auto skip = [&](const std::string& why) {
        logWarn("commit log of ", m_options.mountpaths[mp], ": record ", r.seq, " not applied: ", why);
        return false;
    };
    if (!api::validateBucketName(r.bucket) || !api::validateObjectName(r.name)) return skip("a bad name");
    auto meta = decodeMetaRecord(r.meta);
    if (!meta) return skip(meta.error().message);
    if (meta->size != static_cast<std::int64_t>(r.data.size()) ||
        (meta->checksumType == "xxhash" && meta->checksumValue != api::xxhash64Hex(r.data))) {
        return skip("its bytes do not match its metadata");
    }
    observeStamp(meta->stamp);
    std::lock_guard lock(nameLock(r.bucket, r.name));
    if (auto tomb = m_tombstones.read(mp, r.bucket, r.name); tomb && *tomb >= meta->stamp) return false;
    const auto root = bucketRoot(mp, r.bucket);
    const auto final = root + "/" + r.name;
    if (auto cur = currentVersion(final)) {
        if (cur->stamp > meta->stamp) return false;
        if (cur->stamp == meta->stamp) {
            // In place, unless its bytes did not reach the disk before the crash.
            UniqueFd fd(::open(final.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
            std::string have(r.data.size() + 1, '\0');
            const auto n = fd.valid() ? ::pread(fd.get(), have.data(), have.size(), 0) : -1;
            if (n == static_cast<ssize_t>(r.data.size()) && std::string_view(have).substr(0, r.data.size()) == r.data) {
                return false;
            }
        }
    }
    if (const int e = makeDirsUnder(m_options.mountpaths[mp], root)) return skip(errnoText(e));
    const auto work = workPath(mp);
    UniqueFd fd(::open(work.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644));
    if (!fd.valid()) return skip("cannot create a work file: " + errnoText(errno));
    const auto fail = [&](const std::string& why) {
        ::unlink(work.c_str());
        return skip(why);
    };
    if (const int e = writeAll(fd.get(), r.data.data(), r.data.size()); e != 0) return fail(errnoText(e));
    if (::fsetxattr(fd.get(), kMetaXattr, r.meta.data(), r.meta.size(), 0) != 0) return fail(errnoText(errno));
    if (auto st = makeParents(root, final); !st) return fail(st.error().message);
    if (::rename(work.c_str(), final.c_str()) != 0) return fail(errnoText(errno));
    return true;
}

std::size_t ObjectStore::mountpathFor(std::string_view bucket, std::string_view name) const
{
    return api::hrwIndex(m_options.mountpaths, api::objectUname(bucket, name));
}

std::vector<std::size_t> ObjectStore::mountpathsFor(std::string_view bucket, std::string_view name, std::size_t n) const
{
    const auto uname = api::objectUname(bucket, name);
    std::vector<std::pair<std::uint64_t, std::size_t>> all;
    all.reserve(m_options.mountpaths.size());
    for (std::size_t i = 0; i < m_options.mountpaths.size(); ++i) {
        all.emplace_back(api::hrwWeight(m_options.mountpaths[i], uname), i);
    }
    // Ties go to the lower index, as in hrwIndex.
    std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < all.size() && i < std::max<std::size_t>(n, 1); ++i) out.push_back(all[i].second);
    return out;
}

api::Status ObjectStore::copyBetweenMountpaths(std::string_view bucket, std::string_view name, std::size_t from,
                                               std::size_t to, bool repair) const
{
    auto src = openAt(from, bucket, name);
    if (!src) return src.error();
    if (auto st = checkMountpath(to); !st) return st;
    const auto root = bucketRoot(to, bucket);
    if (const int e = makeDirsUnder(m_options.mountpaths[to], root)) {
        return mountpathError(to, e, "cannot create bucket directory");
    }
    const auto work = workPath(to);
    UniqueFd out(::open(work.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644));
    if (!out.valid()) return mountpathError(to, errno, "cannot create work file");
    struct Cleanup {
        std::string path;
        ~Cleanup()
        {
            if (!path.empty()) ::unlink(path.c_str());
        }
    } cleanup{work};
    auto copied = copyToEnd(
        src->fd->get(), 0,
        [&](const char* p, std::size_t n) -> api::Status {
            if (const int e = writeAll(out.get(), p, n); e != 0) return mountpathError(to, e, "write failed");
            return {};
        },
        "cannot read " + std::string(bucket) + "/" + std::string(name));
    if (!copied) return copied;
    if (m_options.fsync && ::fdatasync(out.get()) != 0) return mountpathError(to, errno, "fsync failed");
    const std::string json = encodeMetaRecord(src->meta);
    if (::fsetxattr(out.get(), kMetaXattr, json.data(), json.size(), 0) != 0) {
        return mountpathError(to, errno, "cannot write object metadata");
    }
    const auto final = root + "/" + std::string(name);
    {
        std::lock_guard lock(nameLock(bucket, name));
        if (auto here = openAt(to, bucket, name);
            here && (here->meta.stamp > src->meta.stamp || (here->meta.stamp == src->meta.stamp && !repair))) {
            return {};
        }
        if (auto st = makeParents(root, final); !st) return st;
        if (::rename(work.c_str(), final.c_str()) != 0) return mountpathError(to, errno, "rename into place failed");
        cleanup.path.clear();
    }
    objectChanged(bucket, name);
    if (m_options.fsync) return fsyncDir(final.substr(0, final.rfind('/')));
    return {};
}

api::Status ObjectStore::removeMountpathCopies(std::string_view bucket, std::string_view name, std::size_t n,
                                               std::int64_t stamp) const
{
    if (n <= 1) return {};
    const auto mps = mountpathsFor(bucket, name, n);
    {
        std::lock_guard lock(nameLock(bucket, name));
        for (std::size_t i = 1; i < mps.size(); ++i) {
            if (!checkMountpath(mps[i])) continue;  // a disabled disk keeps what it has
            if (auto here = openAt(mps[i], bucket, name); !here || here->meta.stamp > stamp) continue;
            if (auto st = removeAt(mps[i], bucket, name); !st && st.kind() != api::ErrorKind::NotFound) return st;
        }
    }
    objectChanged(bucket, name);
    return {};
}

std::string ObjectStore::bucketRoot(std::size_t mp, std::string_view bucket) const
{
    return m_options.mountpaths[mp] + "/buckets/" + std::string(bucket);
}

std::string ObjectStore::objectPath(std::string_view bucket, std::string_view name) const
{
    return bucketRoot(mountpathFor(bucket, name), bucket) + "/" + std::string(name);
}

std::string ObjectStore::archiveIndexPath(std::string_view bucket, std::string_view name) const
{
    return m_options.mountpaths[mountpathFor(bucket, name)] + "/.tessera/archidx/" + std::string(bucket) + "/" +
           std::string(name);
}

api::Result<UniqueFd> ObjectStore::openTempFile(std::string_view bucket, std::string_view name) const
{
    const auto mp = mountpathFor(bucket, name);
    if (auto st = checkMountpath(mp); !st) return st.error();
    const auto dir = m_options.mountpaths[mp] + "/.tessera/work";
    UniqueFd fd(::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
    if (!fd.valid()) return mountpathError(mp, errno, "cannot create a temporary file in " + dir);
    return fd;
}

std::string ObjectStore::workPath(std::size_t mp) const
{
    return m_options.mountpaths[mp] + "/.tessera/work/" + std::to_string(::getpid()) + "-" +
           std::to_string(m_seq.fetch_add(1)) + "-" + meta::randomId(6);
}

api::Result<std::unique_ptr<PutWriter>> ObjectStore::beginPut(std::string_view bucket, std::string_view name,
                                                              PutParams params) const
{
    const auto mp = mountpathFor(bucket, name);
    std::unique_ptr<PutWriter> w(new PutWriter());
    w->m_store = this;
    w->m_mp = mp;
    if (auto st = checkMountpath(mp); !st) return st.error();
    w->m_bucket = std::string(bucket);
    w->m_name = std::string(name);
    w->m_bucketRoot = bucketRoot(mp, bucket);
    w->m_finalPath = w->m_bucketRoot + "/" + std::string(name);
    w->m_indexPath = archiveIndexPath(bucket, name);
    w->m_params = std::move(params);
    w->m_hash = std::make_unique<HashState>();
    const auto& pp = w->m_params;
    w->m_logged =
        commitLog(mp) != nullptr && pp.transferStamp == 0 && !pp.baseStamp && !pp.undoable && pp.mountpathCopies <= 1;
    if (w->m_logged) w->m_logRecord = CommitLog::startRecord(bucket, name);
    if (w->m_params.mountpathCopies > 1) {
        const auto mps = mountpathsFor(bucket, name, w->m_params.mountpathCopies);
        for (std::size_t i = 1; i < mps.size(); ++i) {
            if (!checkMountpath(mps[i])) continue;  // a disabled disk gets its copy from the next reprotect
            PutWriter::MountpathCopy c;
            c.mp = mps[i];
            c.finalPath = bucketRoot(mps[i], bucket) + "/" + std::string(name);
            w->m_copies.push_back(std::move(c));
        }
    }
    if (const int e = makeDirsUnder(m_options.mountpaths[mp], w->m_bucketRoot)) {
        return mountpathError(mp, e, "cannot create bucket directory");
    }
    if (m_unnamedWorkFiles && (!m_options.fsync || w->m_logged)) {
        // An unnamed work file: no entry in the work folder to add and
        // remove, so concurrent PUTs do not queue on that folder's lock, and
        // nothing is left behind by a crash. Linked under its name at commit.
        // Only where nothing syncs the file's own link (fsync off), or the
        // commit log's checkpoint syncs the whole filesystem; a commit with
        // its own syncs renames a named work file, whose inode was synced
        // with its one link.
        const auto dir = m_options.mountpaths[mp] + "/.tessera/work";
        w->m_fd.reset(::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0644));
        if (w->m_fd.valid()) {
            w->m_unnamed = true;
            return w;
        }
        if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
            return mountpathError(mp, errno, "cannot create work file");
        }
    }
    w->m_workPath = workPath(mp);
    w->m_fd.reset(::open(w->m_workPath.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644));
    if (!w->m_fd.valid()) {
        const int e = errno;
        w->m_workPath.clear();
        return mountpathError(mp, e, "cannot create work file");
    }
    return w;
}

api::Result<OpenObject> ObjectStore::open(std::string_view bucket, std::string_view name) const
{
    if (auto hit = m_openCache.find(bucket, name)) return std::move(*hit);
    const auto epoch = m_openCache.epoch();
    auto obj = openAt(mountpathFor(bucket, name), bucket, name);
    if (obj) m_openCache.insert(bucket, name, *obj, epoch);
    return obj;
}

api::Result<OpenObject> ObjectStore::openUncached(std::string_view bucket, std::string_view name) const
{
    return openAt(mountpathFor(bucket, name), bucket, name);
}

api::Result<OpenObject> ObjectStore::openAt(std::size_t mp, std::string_view bucket, std::string_view name) const
{
    if (auto st = checkMountpath(mp); !st) return st.error();
    const auto path = bucketRoot(mp, bucket) + "/" + std::string(name);
    auto fd = std::make_shared<UniqueFd>(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    if (!fd->valid()) {
        const int e = errno;
        if ((e == ENOENT || e == ENOTDIR || e == ELOOP) && m_health.rootHealthy(mp)) {
            return api::Error::notFound("object \"" + std::string(bucket) + "/" + std::string(name) +
                                        "\" does not exist");
        }
        return mountpathError(mp, e, "cannot open object");
    }
    struct stat st {};
    if (::fstat(fd->get(), &st) != 0) return api::Error::ioError("stat failed", errnoText(errno));
    if (!S_ISREG(st.st_mode)) {
        return api::Error::notFound("object \"" + std::string(bucket) + "/" + std::string(name) + "\" does not exist");
    }
    auto meta = readMetaFd(fd->get());
    if (!meta) return meta.error();
    OpenObject out;
    out.fd = std::move(fd);
    if (meta->has_value()) out.meta = std::move(**meta);
    else out.meta.checksumValue.clear();
    out.meta.size = static_cast<std::int64_t>(st.st_size);
    out.meta.atimeNs = static_cast<std::int64_t>(st.st_atim.tv_sec) * 1000000000 + st.st_atim.tv_nsec;
    out.mtimeNs = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    if (out.meta.stamp == 0) out.meta.stamp = out.mtimeNs;
    out.ctimeNs = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
    return out;
}

api::Result<api::ObjectMeta> ObjectStore::stat(std::string_view bucket, std::string_view name) const
{
    auto o = open(bucket, name);
    if (!o) return o.error();
    return o->meta;
}

api::Status ObjectStore::verify(const OpenObject& obj) const
{
    if (obj.meta.checksumValue.empty()) return {};
    // Hashed where the page cache holds it (no copy into a buffer): a
    // verification costs the hash alone.
    struct stat st {};
    if (::fstat(obj.fd->get(), &st) != 0) return errnoError(errno, "read failed");
    api::Xxh64Stream h;
    auto hashed = readMapped(
        obj.fd->get(), 0, static_cast<std::uint64_t>(st.st_size),
        [&h](const char* p, std::size_t n) {
            h.update(p, n);
            return api::Status{};
        },
        "read failed");
    if (!hashed) return hashed;
    if (h.hex() != obj.meta.checksumValue) {
        return api::Error::corruption("checksum mismatch: stored " + obj.meta.checksumValue + ", data hashes to " +
                                      h.hex());
    }
    return {};
}

api::Status ObjectStore::remove(std::string_view bucket, std::string_view name, std::int64_t* stampOut) const
{
    const auto mp = mountpathFor(bucket, name);
    {
        std::lock_guard lock(nameLock(bucket, name));
        auto st = removeAt(mp, bucket, name);
        if (!st) return st;
        const auto stamp = nextStamp();
        auto ts = m_tombstones.write(mp, bucket, name, stamp);
        if (!ts) return durabilityError(mp, ts.error(), true);  // the object is gone already
        if (stampOut != nullptr) *stampOut = stamp;
    }
    return syncRemoval(mp, bucket, name);
}

api::Status ObjectStore::removeCopy(std::string_view bucket, std::string_view name, std::int64_t stamp) const
{
    const auto mp = mountpathFor(bucket, name);
    {
        std::lock_guard lock(nameLock(bucket, name));
        observeStamp(stamp);
        auto here = openAt(mp, bucket, name);
        if (here && here->meta.stamp > stamp) {
            return api::Error::conflict("the copy of \"" + std::string(bucket) + "/" + std::string(name) +
                                        "\" here is newer than the deletion");
        }
        if (!here && here.kind() != api::ErrorKind::NotFound) return here.error();
        if (here) {
            if (auto st = removeAt(mp, bucket, name); !st && st.kind() != api::ErrorKind::NotFound) return st;
        }
        if (auto old = m_tombstones.read(mp, bucket, name); !old || *old < stamp) {
            auto ts = m_tombstones.write(mp, bucket, name, stamp);
            if (!ts) return here ? durabilityError(mp, ts.error(), true) : ts;  // removed already when here
        }
        if (!here) return {};  // nothing removed: the tombstone is durable by itself
    }
    return syncRemoval(mp, bucket, name);
}

api::Status ObjectStore::removeCopyIfOlder(std::string_view bucket, std::string_view name, std::int64_t stamp) const
{
    const auto mp = mountpathFor(bucket, name);
    {
        std::lock_guard lock(nameLock(bucket, name));
        auto here = openAt(mp, bucket, name);
        if (!here) return here.kind() == api::ErrorKind::NotFound ? api::Status{} : api::Status{here.error()};
        if (here->meta.stamp >= stamp) return {};
        if (auto st = removeAt(mp, bucket, name); !st && st.kind() != api::ErrorKind::NotFound) return st;
    }
    return syncRemoval(mp, bucket, name);
}

api::Status ObjectStore::syncRemoval(std::size_t mp, std::string_view bucket, std::string_view name) const
{
    if (!m_options.fsync) return {};
    const auto path = objectPath(bucket, name);
    // The nearest directory still there holds the removal; a concurrent
    // removal may prune it meanwhile (then its parent holds both).
    std::string dir = path.substr(0, path.rfind('/'));
    const auto root = bucketRoot(mp, bucket);
    // No directory of the bucket on this mountpath: nothing was removed from
    // it (the deletion of a name never stored here only records a tombstone).
    while (dir.size() > root.size() && ::access(dir.c_str(), F_OK) != 0) dir.resize(dir.rfind('/'));
    if (::access(dir.c_str(), F_OK) != 0 && m_health.rootHealthy(mp)) return {};
    for (;;) {
        while (dir.size() > root.size() && ::access(dir.c_str(), F_OK) != 0) dir.resize(dir.rfind('/'));
        auto st = fsyncDir(dir);
        if (!st && !m_health.rootHealthy(mp)) return durabilityError(mp, st.error());
        if (st || dir.size() <= root.size() || ::access(dir.c_str(), F_OK) == 0) return st;
    }
}

api::Status ObjectStore::restamp(std::string_view bucket, std::string_view name) const
{
    const auto mp = mountpathFor(bucket, name);
    if (auto st = checkMountpath(mp); !st) return st;
    {
        std::lock_guard lock(nameLock(bucket, name));
        const auto path = bucketRoot(mp, bucket) + "/" + std::string(name);
        UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
        if (fd.valid()) {
            auto meta = readMetaFd(fd.get());
            if (!meta || !meta->has_value()) {
                return mountpathError(mp, EIO,
                                      "cannot read the metadata of " + std::string(bucket) + "/" + std::string(name));
            }
            auto m = std::move(**meta);
            m.stamp = nextStamp();
            const std::string json = encodeMetaRecord(m);
            if (::fsetxattr(fd.get(), kMetaXattr, json.data(), json.size(), 0) != 0 ||
                (m_options.fsync && ::fsync(fd.get()) != 0)) {
                return mountpathError(mp, errno, "cannot restamp " + std::string(bucket) + "/" + std::string(name));
            }
        } else if (errno == ENOENT || errno == ENOTDIR) {
            if (auto ts = m_tombstones.write(mp, bucket, name, nextStamp()); !ts) return ts;
        } else {
            return mountpathError(mp, errno, "cannot open " + std::string(bucket) + "/" + std::string(name));
        }
    }
    objectChanged(bucket, name);
    return {};
}

api::Status ObjectStore::markDeleted(std::string_view bucket, std::string_view name) const
{
    std::lock_guard lock(nameLock(bucket, name));
    return m_tombstones.write(mountpathFor(bucket, name), bucket, name, nextStamp());
}

api::Status ObjectStore::removeIfStamp(std::size_t mp, std::string_view bucket, std::string_view name,
                                       std::int64_t stamp) const
{
    std::lock_guard lock(nameLock(bucket, name));
    auto here = openAt(mp, bucket, name);
    if (!here) return here.error();
    if (here->meta.stamp != stamp) {
        return api::Error::conflict("object \"" + std::string(bucket) + "/" + std::string(name) +
                                    "\" changed since its copy was sent");
    }
    return removeAt(mp, bucket, name);
}

std::int64_t ObjectStore::nextStamp() const { return m_clock.next(); }

void ObjectStore::observeStamp(std::int64_t stamp) const { m_clock.observe(stamp); }

std::mutex& ObjectStore::nameLock(std::string_view bucket, std::string_view name) const
{
    const auto h = std::hash<std::string_view>{}(bucket)*31 + std::hash<std::string_view>{}(name);
    return m_nameLocks[h % kNameLocks];
}

api::Status ObjectStore::removeAt(std::size_t mp, std::string_view bucket, std::string_view name) const
{
    if (auto chk = checkMountpath(mp); !chk) return chk;
    const auto root = bucketRoot(mp, bucket);
    const auto path = root + "/" + std::string(name);
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
        const int e = errno;
        if (!m_health.rootHealthy(mp)) return mountpathError(mp, e, "cannot delete object");
        return api::Error::notFound("object \"" + std::string(bucket) + "/" + std::string(name) + "\" does not exist");
    }
    if (::unlink(path.c_str()) != 0) {
        if (errno == ENOENT) {
            return api::Error::notFound("object \"" + std::string(bucket) + "/" + std::string(name) +
                                        "\" does not exist");
        }
        return mountpathError(mp, errno, "cannot delete object");
    }
    pruneEmptyParents(root, path);
    const auto index = m_options.mountpaths[mp] + "/.tessera/archidx/" + std::string(bucket) + "/" + std::string(name);
    if (::unlink(index.c_str()) == 0) {
        pruneEmptyParents(m_options.mountpaths[mp] + "/.tessera/archidx/" + std::string(bucket), index);
    }
    objectChanged(bucket, name);
    return {};
}

void ObjectStore::objectChanged(std::string_view bucket, std::string_view name) const
{
    m_openCache.invalidate(bucket, name);
    touchBucket(bucket);
}

void ObjectStore::touchBucket(std::string_view bucket) const
{
    std::lock_guard lock(m_snapshotMutex);
    auto it = m_generations.find(bucket);
    if (it == m_generations.end()) it = m_generations.emplace(std::string(bucket), 0).first;
    ++it->second;
}

api::Status ObjectStore::destroyBucket(std::string_view bucket) const
{
    // The bucket's records in the commit logs must not be applied at the
    // next start: everything logged so far is put in place and synced.
    for (const auto& log : m_logs) {
        if (!log) continue;
        if (const int e = log->checkpoint(); e != 0) {
            return api::Error::ioError("cannot checkpoint the commit log before removing the bucket", errnoText(e));
        }
    }
    std::vector<std::string> moved;
    for (std::size_t mp = 0; mp < m_options.mountpaths.size(); ++mp) {
        const auto root = bucketRoot(mp, bucket);
        const auto trash =
            m_options.mountpaths[mp] + "/.tessera/trash/" + std::string(bucket) + "-" + meta::randomId(8);
        if (::rename(root.c_str(), trash.c_str()) != 0) {
            if (errno == ENOENT) continue;
            return api::Error::ioError("cannot remove bucket directory", errnoText(errno));
        }
        moved.push_back(trash);
    }
    // Shard indexes of the bucket go too (a new bucket of the name must not
    // find them; they would fail validation, but take space).
    for (std::size_t mp = 0; mp < m_options.mountpaths.size(); ++mp) {
        const auto idx = m_options.mountpaths[mp] + "/.tessera/archidx/" + std::string(bucket);
        const auto trash =
            m_options.mountpaths[mp] + "/.tessera/trash/archidx-" + std::string(bucket) + "-" + meta::randomId(8);
        if (::rename(idx.c_str(), trash.c_str()) == 0) moved.push_back(trash);
        // Tombstones of the old bucket's names must not shadow a new bucket's.
        const auto tomb = m_tombstones.bucketDir(mp, bucket);
        const auto tombTrash =
            m_options.mountpaths[mp] + "/.tessera/trash/tomb-" + std::string(bucket) + "-" + meta::randomId(8);
        if (::rename(tomb.c_str(), tombTrash.c_str()) == 0) moved.push_back(tombTrash);
        // And the slices of its erasure-coded objects.
        const auto slices = m_options.mountpaths[mp] + "/.tessera/ec/" + std::string(bucket);
        const auto slicesTrash =
            m_options.mountpaths[mp] + "/.tessera/trash/ec-" + std::string(bucket) + "-" + meta::randomId(8);
        if (::rename(slices.c_str(), slicesTrash.c_str()) == 0) moved.push_back(slicesTrash);
    }
    m_openCache.clear();
    touchBucket(bucket);
    // The names are gone; free the space in the background.
    if (!moved.empty()) {
        std::thread([moved] {
            for (const auto& p : moved) {
                std::error_code ec;
                fs::remove_all(p, ec);
                if (ec) logWarn("cannot remove ", p, ": ", ec.message());
            }
        }).detach();
    }
    return {};
}

std::string filesystemOf(const std::string& path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return {};
    return std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
}

std::vector<MountpathInfo> ObjectStore::mountpathInfo() const
{
    std::vector<MountpathInfo> out;
    for (const auto& mp : m_options.mountpaths) {
        MountpathInfo info;
        info.path = mp;
        info.disabled = m_health.reason(out.size());
        info.fs = filesystemOf(mp);
        struct statvfs vfs {};
        if (::statvfs(mp.c_str(), &vfs) == 0) {
            info.total = static_cast<std::uint64_t>(vfs.f_blocks) * vfs.f_frsize;
            info.available = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
            info.used = info.total - static_cast<std::uint64_t>(vfs.f_bfree) * vfs.f_frsize;
        }
        out.push_back(info);
    }
    return out;
}

}  // namespace tessera::daemon::target
