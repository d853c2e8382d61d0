#include "object_store.h"

#include "api/checksum.h"
#include "api/hrw.h"
#include "api/json_util.h"
#include "common/fd_io.h"
#include "common/log.h"
#include "meta/node_identity.h"

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <thread>
#include <unistd.h>

namespace tessera::daemon::target {

namespace fs = std::filesystem;

struct HashState {
    api::Xxh64Stream stream;
};

namespace {

constexpr const char* kMetaXattr = "user.tessera.meta";
constexpr std::size_t kMaxMetaBytes = 64 * 1024;

std::string errnoText(int e) { return std::strerror(e); }

std::int64_t nowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Metadata is usually a few hundred bytes. The kernel allocates (and zeroes)
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
        auto m = api::parseObjectMeta(std::string_view(small, static_cast<std::size_t>(n)));
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
    auto m = api::parseObjectMeta(std::string_view(buf, static_cast<std::size_t>(n)));
    if (!m) return m.error();
    return std::optional<api::ObjectMeta>{std::move(m.value())};
}

std::int64_t fileMtimeNs(int fd)
{
    struct stat st{};
    if (::fstat(fd, &st) != 0) return 0;
    return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
}

// Creates every missing directory from `root` (which exists) down to the
// parent of `path`. An existing regular file in the way is a Conflict.
api::Status makeParents(const std::string& root, const std::string& path)
{
    struct stat rootSt{};
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
            struct stat st{};
            if (::stat(dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
                return api::Error::conflict("object name conflicts with an existing object \"" +
                                            dir.substr(root.size() + 1) + "\"");
            }
        }
        pos = slash + 1;
    }
}

api::Status fsyncDir(const std::string& dir)
{
    UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.valid()) return api::Error::ioError("cannot open directory for fsync", errnoText(errno));
    if (::fsync(fd.get()) != 0) return api::Error::ioError("directory fsync failed", errnoText(errno));
    return {};
}

// Removes now-empty parent directories of `path` up to (not including) root.
void pruneEmptyParents(const std::string& root, std::string path)
{
    while (true) {
        auto slash = path.rfind('/');
        if (slash == std::string::npos || slash <= root.size()) return;
        path.resize(slash);
        if (::rmdir(path.c_str()) != 0) return;
    }
}

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

struct ListWalk {
    const api::ListRequest& req;
    std::set<std::string> names;  // bounded to req.pageSize; holds the smallest names > token
    std::size_t limit;
    int err = 0;  // errno of the failure walk() returned

    bool full() const { return names.size() >= limit; }

    bool wantDir(const std::string& dirPrefix) const  // dirPrefix ends with '/'
    {
        const auto& prefix = req.prefix;
        if (!startsWith(dirPrefix, prefix) && !startsWith(prefix, dirPrefix)) return false;
        const auto& token = req.continuationToken;
        // Every name below is <= token: skip.
        if (!token.empty() && dirPrefix < token && !startsWith(token, dirPrefix)) return false;
        // Every name below is > the largest kept name of a full page: skip.
        if (full()) {
            const auto& maxKept = *names.rbegin();
            if (dirPrefix > maxKept && !startsWith(maxKept, dirPrefix)) return false;
        }
        return true;
    }

    void offer(std::string name)
    {
        if (!startsWith(name, req.prefix)) return;
        if (!req.continuationToken.empty() && name <= req.continuationToken) return;
        if (full() && name >= *names.rbegin()) return;
        names.insert(std::move(name));
        if (names.size() > limit) names.erase(std::prev(names.end()));
    }

    api::Status walk(const std::string& dir, const std::string& rel)
    {
        DIR* d = ::opendir(dir.c_str());
        if (d == nullptr) {
            if (errno == ENOENT) return {};
            err = errno;
            return api::Error::ioError("cannot list " + dir, errnoText(errno));
        }
        std::unique_ptr<DIR, int (*)(DIR*)> guard(d, ::closedir);
        while (dirent* e = ::readdir(d)) {
            const std::string_view n = e->d_name;
            if (n == "." || n == "..") continue;
            std::string full = rel.empty() ? std::string(n) : rel + "/" + std::string(n);
            unsigned char type = e->d_type;
            if (type == DT_UNKNOWN) {
                struct stat st{};
                if (::lstat((dir + "/" + std::string(n)).c_str(), &st) != 0) continue;
                type = S_ISDIR(st.st_mode) ? DT_DIR : (S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN);
            }
            if (type == DT_DIR) {
                if (wantDir(full + "/")) {
                    auto st = walk(dir + "/" + std::string(n), full);
                    if (!st) return st;
                }
            } else if (type == DT_REG) {
                offer(std::move(full));
            }
        }
        return {};
    }
};

}  // namespace

// ---------------------------------------------------------------- PutWriter

PutWriter::~PutWriter()
{
    if (!m_committed && !m_workPath.empty()) {
        m_fd.reset();
        ::unlink(m_workPath.c_str());
    }
}

api::Status PutWriter::write(const char* data, std::size_t size)
{
    if (m_size + size > m_store->options().maxObjectSize) {
        return api::Error{api::ErrorKind::TooLarge,
                          "object larger than the limit of " + std::to_string(m_store->options().maxObjectSize) +
                              " bytes",
                          {}};
    }
    if (const int err = writeAll(m_fd.get(), data, size); err != 0) return m_store->mountpathError(m_mp, err, "write failed");
    m_hash->stream.update(data, size);
    m_size += size;
    return {};
}

api::Result<api::ObjectMeta> PutWriter::commit()
{
    api::ObjectMeta meta;
    meta.size = static_cast<std::int64_t>(m_size);
    meta.checksumValue = m_hash->stream.hex();
    meta.custom = m_params.custom;
    meta.atimeNs = nowNs();
    if (!m_params.expectedChecksum.empty() && m_params.expectedChecksum != meta.checksumValue) {
        if (m_params.transferStamp > 0) {
            // A copy of a stored version: its bytes no longer match the
            // checksum they were stored with. Never stored under a new one.
            return api::Error::corruption("object \"" + m_bucket + "/" + m_name + "\" is corrupted: stored checksum " +
                                          m_params.expectedChecksum + ", its bytes hash to " + meta.checksumValue);
        }
        return api::Error::badRequest("checksum mismatch: client sent " + m_params.expectedChecksum +
                                      ", received bytes hash to " + meta.checksumValue);
    }
    // The bytes are made durable before the name's lock is taken: the lock
    // only covers deciding the version, the metadata and the rename.
    if (m_store->options().fsync && ::fdatasync(m_fd.get()) != 0) {
        return m_store->mountpathError(m_mp, errno, "fsync failed");
    }
    {
        std::lock_guard nameLock(m_store->nameLock(m_bucket, m_name));
        std::optional<api::ObjectMeta> prev;
        {
            UniqueFd old(::open(m_finalPath.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
            if (old.valid()) {
                auto pm = readMetaFd(old.get());
                if (pm && pm->has_value()) {
                    prev = std::move(**pm);
                    if (prev->stamp == 0) prev->stamp = fileMtimeNs(old.get());
                }
            }
        }
        if (m_params.baseStamp && *m_params.baseStamp != (prev ? prev->stamp : 0)) {
            m_baseChanged = true;
            return api::Error::conflict("object \"" + m_bucket + "/" + m_name + "\" changed while being rewritten");
        }
        if (m_params.transferStamp > 0) {
            if (prev && prev->stamp >= m_params.transferStamp) {
                m_superseded = true;
                return api::Error::conflict("object \"" + m_bucket + "/" + m_name +
                                            "\" is already here and not older than the delivered copy");
            }
            if (auto tomb = m_store->tombstone(m_bucket, m_name); tomb && *tomb >= m_params.transferStamp) {
                m_superseded = true;
                return api::Error::conflict("object \"" + m_bucket + "/" + m_name +
                                            "\" was deleted after the delivered copy was written");
            }
            meta.stamp = m_params.transferStamp;
            meta.version = m_params.transferVersion.empty() ? "1" : m_params.transferVersion;
            m_store->observeStamp(meta.stamp);
        } else {
            meta.stamp = m_store->nextStamp();
            if (prev) {
                try {
                    meta.version = std::to_string(std::stoll(prev->version) + 1);
                } catch (const std::exception&) {
                    meta.version = "1";
                }
            }
        }
        const std::string json = api::dumpJson(nlohmann::json(meta));
        if (::fsetxattr(m_fd.get(), kMetaXattr, json.data(), json.size(), 0) != 0) {
            return m_store->mountpathError(m_mp, errno, "cannot write object metadata");
        }
        // The parent directories may be removed by a concurrent DELETE
        // pruning empty directories; retry a few times.
        for (int attempt = 0;; ++attempt) {
            auto st = makeParents(m_bucketRoot, m_finalPath);
            if (!st && !m_store->m_health.rootHealthy(m_mp)) {
                return m_store->mountpathError(m_mp, ENOTDIR, "cannot create the object's directory");
            }
            if (!st) return st.error();
            if (::rename(m_workPath.c_str(), m_finalPath.c_str()) == 0) break;
            const int e = errno;
            if (e == ENOENT && attempt < 5) continue;
            if (e == EISDIR || e == ENOTEMPTY || e == EEXIST || e == ENOTDIR) {
                return api::Error::conflict("object name conflicts with an existing directory of objects");
            }
            return m_store->mountpathError(m_mp, e, "rename into place failed");
        }
        m_committed = true;
    }
    m_fd.reset();
    // The index of the shard this replaced no longer matches (its reader
    // would notice by size, time and checksum; this frees the space).
    ::unlink(m_indexPath.c_str());
    m_store->objectChanged(m_bucket, m_name);
    if (m_store->options().fsync) {
        // Commits the rename and, with it, the metadata written before it.
        auto st = fsyncDir(m_finalPath.substr(0, m_finalPath.rfind('/')));
        if (!st) return st.error();
    }
    return meta;
}

// -------------------------------------------------------------- ObjectStore

ObjectStore::ObjectStore(Options options)
    : m_options(std::move(options)), m_openCache(m_options.openCache),
      m_health(m_options.mountpaths, [this] { m_openCache.clear(); }),
      m_tombstones(m_options.mountpaths, m_options.tombstoneTtl, m_options.fsync)
{
}

api::Status ObjectStore::checkMountpath(std::size_t mp) const { return m_health.check(mp); }

api::Error ObjectStore::mountpathError(std::size_t mp, int err, const std::string& what) const
{
    return m_health.classify(mp, err, what);
}

std::size_t ObjectStore::sweepTombstones() const { return m_tombstones.sweep(); }

std::optional<std::int64_t> ObjectStore::tombstone(std::string_view bucket, std::string_view name) const
{
    return m_tombstones.read(mountpathFor(bucket, name), bucket, name);
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
    for (std::size_t i = 0; i < broken.size(); ++i) {
        if (!broken[i].empty()) store->m_health.disable(i, broken[i]);
    }
    if (const auto swept = store->sweepTombstones(); swept > 0) logInfo("removed ", swept, " expired tombstone(s)");
    return store;
}

std::size_t ObjectStore::mountpathFor(std::string_view bucket, std::string_view name) const
{
    return api::hrwIndex(m_options.mountpaths, api::objectUname(bucket, name));
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
    w->m_workPath = workPath(mp);
    w->m_indexPath = archiveIndexPath(bucket, name);
    w->m_params = std::move(params);
    w->m_hash = std::make_unique<HashState>();
    std::error_code ec;
    fs::create_directories(w->m_bucketRoot, ec);
    if (ec) return mountpathError(mp, ec.value(), "cannot create bucket directory");
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
    struct stat st{};
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
    api::Xxh64Stream h;
    auto hashed = copyToEnd(
        obj.fd->get(), 0,
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

api::Status ObjectStore::remove(std::string_view bucket, std::string_view name) const
{
    const auto mp = mountpathFor(bucket, name);
    {
        std::lock_guard lock(nameLock(bucket, name));
        auto st = removeAt(mp, bucket, name);
        if (!st) return st;
        auto ts = m_tombstones.write(mp, bucket, name, nextStamp());
        if (!ts) return ts;
    }
    if (m_options.fsync) {
        const auto path = objectPath(bucket, name);
        // The nearest directory still there holds the removal.
        std::string dir = path.substr(0, path.rfind('/'));
        const auto root = bucketRoot(mp, bucket);
        while (dir.size() > root.size() && ::access(dir.c_str(), F_OK) != 0) dir.resize(dir.rfind('/'));
        auto st = fsyncDir(dir);
        if (!st) return st;
    }
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
    const auto h = std::hash<std::string_view>{}(bucket) * 31 + std::hash<std::string_view>{}(name);
    return m_nameLocks[h % kNameLocks];
}

api::Status ObjectStore::removeAt(std::size_t mp, std::string_view bucket, std::string_view name) const
{
    if (auto chk = checkMountpath(mp); !chk) return chk;
    const auto root = bucketRoot(mp, bucket);
    const auto path = root + "/" + std::string(name);
    struct stat st{};
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

api::Result<std::shared_ptr<const ObjectStore::NameSnapshot>> ObjectStore::nameSnapshot(std::string_view bucket) const
{
    constexpr std::size_t kCachedBuckets = 4;
    std::uint64_t generation = 0;
    {
        std::lock_guard lock(m_snapshotMutex);
        if (auto g = m_generations.find(bucket); g != m_generations.end()) generation = g->second;
        if (auto it = m_snapshots.find(bucket); it != m_snapshots.end() && it->second->generation == generation) {
            auto u = std::find(m_snapshotUse.begin(), m_snapshotUse.end(), bucket);
            if (u != m_snapshotUse.end()) std::rotate(u, u + 1, m_snapshotUse.end());
            return it->second;
        }
    }
    // One walk of every mountpath, outside the lock (writers go on).
    api::ListRequest all;
    ListWalk walk{all, {}, std::numeric_limits<std::size_t>::max()};
    for (std::size_t mp = 0; mp < m_options.mountpaths.size(); ++mp) {
        // A missing mountpath would list as empty: a listing without its
        // names must say why instead.
        if (auto chk = checkMountpath(mp); !chk) return chk.error();
        if (!m_health.rootHealthy(mp)) return mountpathError(mp, ENOENT, "mountpath root is gone");
        auto st = walk.walk(bucketRoot(mp, bucket), "");
        if (!st) return mountpathError(mp, walk.err, st.error().message);
    }
    auto snap = std::make_shared<NameSnapshot>();
    snap->generation = generation;
    snap->names.assign(std::make_move_iterator(walk.names.begin()), std::make_move_iterator(walk.names.end()));
    std::lock_guard lock(m_snapshotMutex);
    auto g = m_generations.find(bucket);
    const std::uint64_t now = g == m_generations.end() ? 0 : g->second;
    if (now == generation) {
        // Unchanged during the walk: good for the pages to come.
        m_snapshots[std::string(bucket)] = snap;
        m_snapshotUse.erase(std::remove(m_snapshotUse.begin(), m_snapshotUse.end(), bucket), m_snapshotUse.end());
        m_snapshotUse.emplace_back(bucket);
        while (m_snapshotUse.size() > kCachedBuckets) {
            m_snapshots.erase(m_snapshotUse.front());
            m_snapshotUse.erase(m_snapshotUse.begin());
        }
    }
    return std::shared_ptr<const NameSnapshot>(std::move(snap));
}

api::Result<api::ObjectList> ObjectStore::list(std::string_view bucket, const api::ListRequest& req) const
{
    // Pages come from a sorted snapshot of the bucket's names, walked once
    // and reused until a write to the bucket retires it: paging through a
    // bucket of N names costs one walk, not one walk per page.
    // A cached snapshot outlives a disk that died since: a page must not
    // leave that disk's names out silently (or list names it cannot back).
    for (std::size_t mp = 0; mp < m_options.mountpaths.size(); ++mp) {
        if (auto chk = checkMountpath(mp); !chk) return chk.error();
        if (!m_health.rootHealthy(mp)) return mountpathError(mp, ENOENT, "mountpath root is gone");
    }
    auto snap = nameSnapshot(bucket);
    if (!snap) return snap.error();
    const auto& all = (*snap)->names;
    const std::size_t limit = req.pageSize == 0 ? api::kDefaultPageSize : req.pageSize;
    std::vector<std::string_view> page;
    const std::string& from = req.continuationToken > req.prefix ? req.continuationToken : req.prefix;
    for (auto it = std::lower_bound(all.begin(), all.end(), from); it != all.end() && page.size() < limit; ++it) {
        if (!req.continuationToken.empty() && *it <= req.continuationToken) continue;
        if (!startsWith(*it, req.prefix)) break;  // sorted: no later name has the prefix
        page.push_back(*it);
    }
    api::ObjectList out;
    out.entries.reserve(page.size());
    const bool needMeta = (req.props & (api::kPropChecksum | api::kPropVersion)) != 0;
    for (const auto& pageName : page) {
        const std::string name(pageName);
        api::ObjEntry e;
        e.name = name;
        e.size = -1;
        if (req.props & (api::kPropSize | api::kPropAtime | api::kPropChecksum | api::kPropVersion)) {
            const auto mp = mountpathFor(bucket, name);
            const auto path = bucketRoot(mp, bucket) + "/" + name;
            UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
            if (!fd.valid()) {
                const int err = errno;
                if ((err == ENOENT || err == ENOTDIR) && m_health.rootHealthy(mp)) continue;  // deleted meanwhile
                return mountpathError(mp, err, "cannot list " + name);
            }
            struct stat st{};
            if (::fstat(fd.get(), &st) != 0) continue;
            if (req.props & api::kPropSize) e.size = static_cast<std::int64_t>(st.st_size);
            if (req.props & api::kPropAtime) {
                e.atime = api::formatRfc3339(static_cast<std::int64_t>(st.st_atim.tv_sec) * 1000000000 +
                                             st.st_atim.tv_nsec);
            }
            if (needMeta) {
                auto m = readMetaFd(fd.get());
                if (m && m->has_value()) {
                    if (req.props & api::kPropChecksum) e.checksum = (*m)->checksumValue;
                    if (req.props & api::kPropVersion) e.version = (*m)->version;
                }
            }
        }
        out.entries.push_back(std::move(e));
    }
    // The page covers every name up to the last one taken, even when some of
    // them could not be opened (deleted meanwhile, or not on their placement
    // mountpath): more may follow whenever the page is full.
    if (page.size() >= limit) out.continuationToken = std::string(page.back());
    return out;
}

api::Status ObjectStore::destroyBucket(std::string_view bucket) const
{
    std::vector<std::string> moved;
    for (std::size_t mp = 0; mp < m_options.mountpaths.size(); ++mp) {
        const auto root = bucketRoot(mp, bucket);
        const auto trash = m_options.mountpaths[mp] + "/.tessera/trash/" + std::string(bucket) + "-" +
                           meta::randomId(8);
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
        const auto trash = m_options.mountpaths[mp] + "/.tessera/trash/archidx-" + std::string(bucket) + "-" +
                           meta::randomId(8);
        if (::rename(idx.c_str(), trash.c_str()) == 0) moved.push_back(trash);
        // Tombstones of the old bucket's names must not shadow a new bucket's.
        const auto tomb = m_tombstones.bucketDir(mp, bucket);
        const auto tombTrash = m_options.mountpaths[mp] + "/.tessera/trash/tomb-" + std::string(bucket) + "-" +
                               meta::randomId(8);
        if (::rename(tomb.c_str(), tombTrash.c_str()) == 0) moved.push_back(tombTrash);
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
    struct stat st{};
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
        struct statvfs vfs{};
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
