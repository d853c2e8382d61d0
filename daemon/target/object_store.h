#pragma once
// A target's objects on its mountpaths. Layout per mountpath:
//   <mp>/buckets/<bucket>/<object name>   objects (names may contain '/')
//   <mp>/.tessera/work/                   in-flight PUTs, renamed into place
//   <mp>/.tessera/trash/                  destroyed buckets being removed
//   <mp>/.tessera/archidx/<bucket>/<name> offset index of a .tar shard (see
//                                          ArchiveIndexStore), on the object's
//                                          mountpath; removed with the object
// The mountpath of an object is chosen by HRW over the mountpath paths.
// Object metadata lives in the extended attribute "user.tessera.meta".
//
// Thread safety: all methods may be called concurrently. Concurrent PUTs of
// one name each write their own work file; the last rename wins whole.

#include "api/object_list.h"
#include "api/object_meta.h"
#include "api/result.h"
#include "common/unique_fd.h"
#include "open_object.h"
#include "open_object_cache.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::daemon::target {

struct MountpathInfo {
    std::string path;
    std::uint64_t total = 0;
    std::uint64_t used = 0;
    std::uint64_t available = 0;
};

struct PutParams {
    std::string expectedChecksum;  // xxhash64 hex; empty: not checked
    std::map<std::string, std::string> custom;
    std::int64_t mtimeNs = 0;      // when set, the object keeps this modification time (a rebalanced copy)
};

class ObjectStore;

// One in-flight PUT. Destroying it without a successful commit() removes the
// work file: nothing appears under the object's name.
class PutWriter {
public:
    ~PutWriter();
    PutWriter(const PutWriter&) = delete;
    PutWriter& operator=(const PutWriter&) = delete;

    api::Status write(const char* data, std::size_t size);
    // Verifies the checksum, writes metadata, fsyncs (when configured) and
    // renames into place.
    api::Result<api::ObjectMeta> commit();
    std::uint64_t bytesWritten() const { return m_size; }

private:
    friend class ObjectStore;
    PutWriter() = default;

    const ObjectStore* m_store = nullptr;
    std::string m_bucket;
    std::string m_name;
    std::string m_workPath;
    std::string m_finalPath;
    std::string m_indexPath;  // the replaced object's shard index, now stale
    std::string m_bucketRoot;
    UniqueFd m_fd;
    std::uint64_t m_size = 0;
    std::unique_ptr<struct HashState> m_hash;
    PutParams m_params;
    bool m_committed = false;
};

class ObjectStore {
public:
    struct Options {
        std::vector<std::string> mountpaths;
        bool fsync = true;
        std::uint64_t maxObjectSize = std::uint64_t{1} << 40;
        OpenObjectCache::Options openCache;  // open() keeps hot objects open
    };

    // Prepares the mountpaths (creates the layout, checks xattr support,
    // removes leftover work files of a previous run).
    static api::Result<std::unique_ptr<ObjectStore>> create(Options options);

    // Names must be validated by the caller (api::validateBucketName and
    // api::validateObjectName).
    std::string objectPath(std::string_view bucket, std::string_view name) const;
    std::string bucketRoot(std::size_t mountpath, std::string_view bucket) const;
    // Where the offset index of shard bucket/name is kept (on the object's
    // mountpath). The file may be absent or stale; its reader validates it.
    std::string archiveIndexPath(std::string_view bucket, std::string_view name) const;
    // An unnamed file (O_TMPFILE) in the work directory of the mountpath
    // bucket/name lives on: scratch space for shard reads and appends that
    // disappears with its descriptor, even after a crash.
    api::Result<UniqueFd> openTempFile(std::string_view bucket, std::string_view name) const;

    api::Result<std::unique_ptr<PutWriter>> beginPut(std::string_view bucket, std::string_view name,
                                                     PutParams params) const;
    // The object at its placement mountpath; served from the open-object
    // cache when it holds the object (see open_object_cache.h).
    api::Result<OpenObject> open(std::string_view bucket, std::string_view name) const;
    // The copy on mountpath `mp`, wherever placement would put the name now
    // (a rebalance moves copies a mountpath change left behind).
    api::Result<OpenObject> openAt(std::size_t mp, std::string_view bucket, std::string_view name) const;
    api::Status removeAt(std::size_t mp, std::string_view bucket, std::string_view name) const;
    std::size_t mountpathFor(std::string_view bucket, std::string_view name) const;
    api::Result<api::ObjectMeta> stat(std::string_view bucket, std::string_view name) const;
    api::Status remove(std::string_view bucket, std::string_view name) const;
    // Reads the whole object and compares its xxhash64 with the stored one.
    api::Status verify(const OpenObject& obj) const;

    // The page of up to req.pageSize names greater than the token, in name
    // order, across all mountpaths. continuationToken is set when the page
    // is full (more may follow).
    api::Result<api::ObjectList> list(std::string_view bucket, const api::ListRequest& req) const;

    // Removes every object of the bucket (moved to trash first, so the
    // names disappear at once).
    api::Status destroyBucket(std::string_view bucket) const;

    std::vector<MountpathInfo> mountpathInfo() const;
    const Options& options() const { return m_options; }

private:
    friend class PutWriter;
    explicit ObjectStore(Options options);
    // Every change to a bucket's names bumps its generation, which retires
    // the cached name snapshot listings page through.
    void touchBucket(std::string_view bucket) const;
    // An object's file changed (written, replaced, removed): its cached
    // open copy goes, and the bucket's name snapshot is retired.
    void objectChanged(std::string_view bucket, std::string_view name) const;
    struct NameSnapshot {
        std::uint64_t generation = 0;
        std::vector<std::string> names;  // sorted, every object of the bucket on this target
    };
    api::Result<std::shared_ptr<const NameSnapshot>> nameSnapshot(std::string_view bucket) const;
    std::string workPath(std::size_t mp) const;

    Options m_options;
    mutable std::atomic<std::uint64_t> m_seq{0};
    mutable std::mutex m_snapshotMutex;
    mutable std::map<std::string, std::uint64_t, std::less<>> m_generations;
    mutable std::map<std::string, std::shared_ptr<const NameSnapshot>, std::less<>> m_snapshots;
    mutable std::vector<std::string> m_snapshotUse;  // bucket names, least recently used first
    mutable OpenObjectCache m_openCache;
};

}  // namespace tessera::daemon::target
