#pragma once
// Records of deleted objects: <mountpath>/.tessera/tomb/<bucket>/<name>
// holds the stamp of the deletion (decimal ns), on the name's placement
// mountpath, for the TTL. A copy of a name that is older than its tombstone
// (a rebalance in flight, a peer's leftover, a decommissioned target
// returning) is refused, so a deletion is never undone. A name that is both
// deleted and the parent of deleted names ("a" and "a/b") keeps its record
// as "a/.tomb".
//
// Thread safety: all methods may be called concurrently; the caller
// serializes records of one name (ObjectStore's per-name lock).

#include "api/result.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::daemon::target {

class TombstoneStore {
public:
    TombstoneStore(std::vector<std::string> mountpaths, std::chrono::milliseconds ttl, bool fsync);

    api::Status write(std::size_t mp, std::string_view bucket, std::string_view name, std::int64_t stamp) const;
    // The stamp of the name's deletion; a torn record (a crash while it was
    // written) counts, with its file time.
    std::optional<std::int64_t> read(std::size_t mp, std::string_view bucket, std::string_view name) const;
    // Removes records older than the TTL; returns how many went.
    std::size_t sweep() const;
    struct Listed {
        std::string name;
        std::int64_t stamp = 0;
    };
    // The bucket's records on every mountpath whose names `wanted` accepts,
    // in name order (a name recorded on two mountpaths once, the newest
    // stamp). A walk of the records: listings call it only while an owner
    // of an erasure-coded bucket is away. `failed` receives the mountpath
    // whose records could not be walked.
    api::Result<std::vector<Listed>> list(std::string_view bucket,
                                          const std::function<bool(const std::string& name)>& wanted,
                                          std::size_t* failed = nullptr) const;
    // Where a bucket's records live on `mp` (destroying the bucket drops it).
    std::string bucketDir(std::size_t mp, std::string_view bucket) const;

private:
    std::string path(std::size_t mp, std::string_view bucket, std::string_view name) const;

    std::vector<std::string> m_mountpaths;
    std::chrono::milliseconds m_ttl;
    bool m_fsync;
};

}  // namespace tessera::daemon::target
