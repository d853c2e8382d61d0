#pragma once
// The slices of erasure-coded objects a target keeps: at most one per
// object name, at <mountpath>/.tessera/ec/<bucket>/<name> on the name's HRW
// mountpath, with its SliceMeta in the file's extended attribute
// "user.tessera.ec". Written like objects: a work file, its bytes fsynced,
// then under the name's lock (the ObjectStore's) the decision, the metadata
// and the rename, then the directory fsynced (when the store fsyncs).
//
// Versions: a slice carries its object's version stamp. A delivered slice
// replaces the one here only when it is newer, or of the same version and
// another index or code (the holders or D and P changed); never when the
// name's tombstone is at least as new. An older whole copy of the name here
// (a small version copied whole before; see ObjectStore) stays: the owner
// has it dropped once every slice of the new version is kept
// (EcProtector), so an interrupted overwrite leaves the replaced version
// readable while the owner is away.
//
// Thread safety: all methods may be called concurrently.

#include "slice_meta.h"

#include "api/checksum.h"
#include "api/result.h"
#include "common/unique_fd.h"
#include "target/object_store.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::daemon::ec {

struct OpenSlice {
    std::shared_ptr<UniqueFd> fd;
    SliceMeta meta;
};

class SliceStore;

// One slice being received. Destroyed without commit(): nothing stays.
class SliceWriter {
public:
    ~SliceWriter();
    SliceWriter(const SliceWriter&) = delete;
    SliceWriter& operator=(const SliceWriter&) = delete;

    // TooLarge past the announced slice size.
    api::Status write(const char* data, std::size_t size);
    // Checks the size and the xxhash64 against the announced ones
    // (Corruption otherwise), then stores the slice unless superseded.
    api::Status commit();
    // After commit() returned OK: the slice here (or the tombstone) was at
    // least as new, so this one was not stored.
    bool superseded() const { return m_superseded; }

private:
    friend class SliceStore;
    SliceWriter() = default;

    const SliceStore* m_slices = nullptr;
    SliceMeta m_meta;
    std::string m_bucket;
    std::string m_name;
    std::size_t m_mp = 0;
    std::string m_workPath;
    std::string m_finalPath;
    UniqueFd m_fd;
    std::uint64_t m_size = 0;
    api::Xxh64Stream m_hash;
    bool m_committed = false;
    bool m_superseded = false;
};

class SliceStore {
public:
    explicit SliceStore(const target::ObjectStore& store) : m_store(store) {}

    std::string slicePath(std::string_view bucket, std::string_view name) const;
    // `meta` must validate (see slice_meta.h).
    api::Result<std::unique_ptr<SliceWriter>> beginPut(std::string_view bucket, std::string_view name,
                                                       SliceMeta meta) const;
    // The slice here; NotFound when there is none, Unavailable when its
    // mountpath is disabled.
    api::Result<OpenSlice> open(std::string_view bucket, std::string_view name) const;
    // Reads the slice and compares its xxhash64 with the stored one.
    api::Status verify(const OpenSlice& slice) const;
    // The owner deleted the object with a tombstone stamped `stamp`: the
    // slice goes unless it is newer (Conflict). OK when there is none.
    api::Status remove(std::string_view bucket, std::string_view name, std::int64_t stamp) const;
    // A whole copy of a newer version arrived: a slice older than `stamp` goes.
    api::Status removeOlder(std::string_view bucket, std::string_view name, std::int64_t stamp) const;

    struct Listed {
        std::string name;
        SliceMeta meta;
    };
    struct Page {
        std::vector<Listed> slices;
        // Set when `limit` names were found: names after it were not looked
        // at (every wanted one up to it is in `slices`, or was left out as
        // damaged or removed meanwhile).
        std::optional<std::string> last;
    };
    // The bucket's slices whose names start with `prefix`, are greater than
    // `after` and that `wanted` accepts, smallest names first, at most
    // `limit`. A walk of every mountpath (listings call it only while an
    // owner is away). Unavailable when a mountpath is disabled: its slices
    // cannot be listed.
    api::Result<Page> list(std::string_view bucket, std::string_view prefix, std::string_view after, std::size_t limit,
                           const std::function<bool(const std::string& name)>& wanted) const;

    const target::ObjectStore& objects() const { return m_store; }

private:
    friend class SliceWriter;
    // Removes the slice of bucket/name when `drop(its meta)` says so; under
    // the name's lock. Conflict from `drop` is returned as is.
    api::Status removeIf(std::string_view bucket, std::string_view name,
                         const std::function<api::Result<bool>(const SliceMeta&)>& drop) const;
    std::string root(std::size_t mp, std::string_view bucket) const;

    const target::ObjectStore& m_store;
};

}  // namespace tessera::daemon::ec
