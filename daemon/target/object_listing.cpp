// Listing a bucket: the directory walk of one page, and the cached name
// snapshot pages are cut from (part of ObjectStore; see object_store.h).
#include "object_store.h"

#include "api/go_time_format.h"
#include "store_files.h"

#include "api/checksum.h"
#include "api/hrw.h"
#include "api/json_util.h"
#include "common/fd_io.h"
#include "common/log.h"
#include "meta/node_identity.h"

#include <algorithm>
#include <cerrno>
#include <condition_variable>
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

namespace {

// Every object name under a bucket's root on one mountpath, relative to it,
// in directory order: a bucket's names are gathered first and sorted once
// (a sorted container per name cost a tree node and a rebalance each: 3.3M
// names took tens of seconds when three targets shared two CPUs).
struct NameWalk {
    std::vector<std::string>& names;
    int err = 0;  // errno of the failure walk() returned

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
            unsigned char type = e->d_type;
            if (type == DT_UNKNOWN) {
                struct stat st {};
                if (::lstat((dir + "/" + std::string(n)).c_str(), &st) != 0) continue;
                type = S_ISDIR(st.st_mode) ? DT_DIR : (S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN);
            }
            if (type == DT_DIR) {
                const std::string full = rel.empty() ? std::string(n) : rel + "/" + std::string(n);
                if (auto st = walk(dir + "/" + std::string(n), full); !st) return st;
            } else if (type == DT_REG) {
                if (rel.empty()) {
                    names.emplace_back(n);
                } else {
                    auto& full = names.emplace_back();
                    full.reserve(rel.size() + 1 + n.size());
                    full.append(rel).append(1, '/').append(n);
                }
            }
        }
        return {};
    }
};

}  // namespace

struct ObjectStore::SnapshotBuild {
    std::uint64_t generation = 0;
    bool done = false;
    api::Result<std::shared_ptr<const NameSnapshot>> result = api::Error::unavailable("listing not done");
    std::condition_variable cv;  // with m_snapshotMutex
};

api::Result<std::shared_ptr<const ObjectStore::NameSnapshot>> ObjectStore::nameSnapshot(std::string_view bucket) const
{
    constexpr std::size_t kCachedBuckets = 4;
    std::uint64_t generation = 0;
    auto build = std::make_shared<SnapshotBuild>();
    {
        std::unique_lock lock(m_snapshotMutex);
        if (auto g = m_generations.find(bucket); g != m_generations.end()) generation = g->second;
        if (auto it = m_snapshots.find(bucket); it != m_snapshots.end() && it->second->generation == generation) {
            auto u = std::find(m_snapshotUse.begin(), m_snapshotUse.end(), bucket);
            if (u != m_snapshotUse.end()) std::rotate(u, u + 1, m_snapshotUse.end());
            return it->second;
        }
        if (auto b = m_building.find(bucket); b != m_building.end() && b->second->generation == generation) {
            // The same state of the bucket is being walked (a listing that
            // timed out and came again, or a second client): one walk
            // serves both. Walks side by side only took longer each.
            auto other = b->second;
            other->cv.wait(lock, [&] { return other->done; });
            return other->result;
        }
        build->generation = generation;
        m_building.insert_or_assign(std::string(bucket), build);
    }
    api::Result<std::shared_ptr<const NameSnapshot>> result = api::Error::unavailable("listing not done");
    try {
        result = walkNames(bucket, generation);
    } catch (const std::exception& e) {
        result = api::Error::ioError("cannot list bucket \"" + std::string(bucket) + "\"", e.what());
    }
    std::lock_guard lock(m_snapshotMutex);
    if (auto b = m_building.find(bucket); b != m_building.end() && b->second == build) m_building.erase(b);
    build->done = true;
    build->result = result;
    build->cv.notify_all();
    auto g = m_generations.find(bucket);
    const std::uint64_t now = g == m_generations.end() ? 0 : g->second;
    if (result && now == generation) {
        // Unchanged during the walk: good for the pages to come.
        m_snapshots[std::string(bucket)] = *result;
        m_snapshotUse.erase(std::remove(m_snapshotUse.begin(), m_snapshotUse.end(), bucket), m_snapshotUse.end());
        m_snapshotUse.emplace_back(bucket);
        while (m_snapshotUse.size() > kCachedBuckets) {
            m_snapshots.erase(m_snapshotUse.front());
            m_snapshotUse.erase(m_snapshotUse.begin());
        }
    }
    return result;
}

api::Result<std::shared_ptr<const ObjectStore::NameSnapshot>> ObjectStore::walkNames(std::string_view bucket,
                                                                                     std::uint64_t generation) const
{
    // One walk of every mountpath, outside the lock (writers go on).
    m_nameWalks.fetch_add(1, std::memory_order_relaxed);
    auto snap = std::make_shared<NameSnapshot>();
    snap->generation = generation;
    NameWalk walk{snap->names};
    for (std::size_t mp = 0; mp < m_options.mountpaths.size(); ++mp) {
        // A missing mountpath would list as empty: a listing without its
        // names must say why instead.
        if (auto chk = checkMountpath(mp); !chk) return chk.error();
        if (!m_health.rootHealthy(mp)) return mountpathError(mp, ENOENT, "mountpath root is gone");
        auto st = walk.walk(bucketRoot(mp, bucket), "");
        if (!st) return mountpathError(mp, walk.err, st.error().message);
    }
    // A name on two mountpaths (a copy left where it no longer belongs) is
    // listed once.
    std::sort(snap->names.begin(), snap->names.end());
    snap->names.erase(std::unique(snap->names.begin(), snap->names.end()), snap->names.end());
    snap->names.shrink_to_fit();
    return std::shared_ptr<const NameSnapshot>(std::move(snap));
}

std::atomic<std::uint64_t>* ObjectStore::NameSnapshot::sizeCache() const
{
    std::call_once(sizesMade, [this] { sizes = std::make_unique<std::atomic<std::uint64_t>[]>(names.size()); });
    return sizes.get();
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
    std::vector<std::size_t> page;  // indexes into `all`
    const std::string& from = req.continuationToken > req.prefix ? req.continuationToken : req.prefix;
    for (auto it = std::lower_bound(all.begin(), all.end(), from); it != all.end() && page.size() < limit; ++it) {
        if (!req.continuationToken.empty() && *it <= req.continuationToken) continue;
        if (!startsWith(*it, req.prefix)) break;  // sorted: no later name has the prefix
        page.push_back(static_cast<std::size_t>(it - all.begin()));
    }
    api::ObjectList out;
    out.entries.reserve(page.size());
    const bool needMeta = (req.props & (api::kPropChecksum | api::kPropVersion | api::kPropCustom)) != 0;
    // Only a size (ishard's planner, a sized listing): known sizes need no stat.
    const bool sizeOnly = (req.props & api::kPropSize) != 0 && (req.props & api::kPropAtime) == 0 && !needMeta;
    std::atomic<std::uint64_t>* sizes = (req.props & api::kPropSize) != 0 ? (*snap)->sizeCache() : nullptr;
    // A page's names are sorted, so runs of them share a directory on each
    // mountpath: each name is looked up from its directory's descriptor,
    // opened once per run, not by its whole path (the path walk was a third
    // of a sized listing's CPU).
    struct DirRun {
        UniqueFd fd;
        std::string rel;
        int err = 0;  // errno of the directory's open, 0 when open
        bool open = false;
    };
    std::vector<DirRun> dirs(m_options.mountpaths.size());
    for (const auto index : page) {
        const std::string_view pageName = all[index];
        // Filled in place (an ObjEntry is seven strings); a name passed
        // over below is taken off again.
        auto& e = out.entries.emplace_back();
        e.name = all[index];
        const std::string& name = e.name;
        e.size = -1;
        e.flags = api::kEntryIsCached;  // AIStore's flag for an object present in the cluster
        // The mountpath is hashed only for a property that needs it (a
        // name-only page and known sizes do not). TargetApi puts the
        // target's id in front of a location.
        if (req.props & api::kPropLocation) e.location = m_options.mountpaths[mountpathFor(bucket, name)];
        const std::uint64_t known = sizeOnly ? sizes[index].load(std::memory_order_relaxed) : 0;
        if (known != 0) {
            e.size = static_cast<std::int64_t>(known - 1);
        } else if (req.props &
                   (api::kPropSize | api::kPropAtime | api::kPropChecksum | api::kPropVersion | api::kPropCustom)) {
            const auto mp = mountpathFor(bucket, name);
            const auto slash = pageName.rfind('/');
            const std::string_view rel =
                slash == std::string_view::npos ? std::string_view() : pageName.substr(0, slash);
            const std::string base(slash == std::string_view::npos ? pageName : pageName.substr(slash + 1));
            auto& dir = dirs[mp];
            if (!dir.open || dir.rel != rel) {
                const auto path = bucketRoot(mp, bucket) + (rel.empty() ? "" : "/" + std::string(rel));
                dir.fd = UniqueFd(::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW));
                dir.err = dir.fd.valid() ? 0 : errno;
                dir.rel = rel;
                dir.open = true;
            }
            struct stat st {};
            UniqueFd fd;
            // Size and atime need no open: one stat, not open + fstat + close.
            int rc = -1;
            errno = dir.err;
            if (dir.err != 0) {
                // The run's directory is gone or unreadable: judged below.
            } else if (needMeta) {
                fd = UniqueFd(::openat(dir.fd.get(), base.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
                rc = fd.valid() ? ::fstat(fd.get(), &st) : -1;
            } else {
                rc = ::fstatat(dir.fd.get(), base.c_str(), &st, AT_SYMLINK_NOFOLLOW);
            }
            if (rc != 0) {
                const int err = errno;
                if (((err == ENOENT || err == ENOTDIR) && m_health.rootHealthy(mp)) || fd.valid()) {
                    // Deleted meanwhile; or an fstat of an open file failed,
                    // which says nothing about the disk.
                    out.entries.pop_back();
                    continue;
                }
                return mountpathError(mp, err, "cannot list " + name);
            }
            if (!S_ISREG(st.st_mode)) {  // a link or a directory placed by hand: not an object
                out.entries.pop_back();
                continue;
            }
            if (req.props & api::kPropSize) {
                e.size = static_cast<std::int64_t>(st.st_size);
                sizes[index].store(static_cast<std::uint64_t>(st.st_size) + 1, std::memory_order_relaxed);
            }
            if (req.props & api::kPropAtime) {
                e.atime = api::formatGoTime(
                    static_cast<std::int64_t>(st.st_atim.tv_sec) * 1000000000 + st.st_atim.tv_nsec, req.timeFormat);
            }
            if (needMeta) {
                auto m = readMetaFd(fd.get());
                if (m && m->has_value()) {
                    if (req.props & api::kPropChecksum) e.checksum = (*m)->checksumValue;
                    if (req.props & api::kPropVersion) e.version = (*m)->version;
                    if ((req.props & api::kPropCustom) && !(*m)->custom.empty()) {
                        e.custom = api::customMdToLso((*m)->custom);
                    }
                }
            }
        }
    }
    // The page covers every name up to the last one taken, even when some of
    // them could not be opened (deleted meanwhile, or not on their placement
    // mountpath): more may follow whenever the page is full.
    if (page.size() >= limit) out.continuationToken = all[page.back()];
    return out;
}

}  // namespace tessera::daemon::target
