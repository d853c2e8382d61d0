#pragma once
// A target's objects on its mountpaths. Layout per mountpath:
//   <mp>/buckets/<bucket>/<object name>   objects (names may contain '/')
//   <mp>/.tessera/work/                   in-flight PUTs, renamed into place
//   <mp>/.tessera/trash/                  destroyed buckets being removed
//   <mp>/.tessera/archidx/<bucket>/<name> offset index of a .tar shard (see
//                                          ArchiveIndexStore), on the object's
//                                          mountpath; removed with the object
//   <mp>/.tessera/tomb/<bucket>/<name>    tombstone of a deleted object: the
//                                          stamp of the delete, kept for the
//                                          tombstone TTL
//   <mp>/.tessera/ec/<bucket>/<name>      the slice of an erasure-coded object
//                                          this target keeps (daemon/ec/slice_store.h)
//   <mp>/.tessera/commitlog/seg-{0,1}     the commit log of small PUTs with
//                                          fsync on (commit_log.h)
// The mountpath of an object is chosen by HRW over the mountpath paths.
// Object metadata lives in the extended attribute "user.tessera.meta".
//
// Versions: every commit, delete and delivered copy of one name is
// serialized by a per-name lock (striped). A client write gets the next
// version number and a stamp from the target's hybrid clock (wall time, but
// never less than one more than any stamp seen); a delivered copy (PutParams
// ::transferStamp) keeps its own and is committed only when it is newer than
// both the copy here and the name's tombstone. The decision is made at
// commit time under the lock, never when a transfer starts.
//
// Thread safety: all methods may be called concurrently. Concurrent PUTs of
// one name each write their own work file; the last commit wins whole.

#include "api/object_list.h"
#include "api/object_meta.h"
#include "api/result.h"
#include "commit_log.h"
#include "common/unique_fd.h"
#include "intent_store.h"
#include "mountpath_health.h"
#include "open_object.h"
#include "open_object_cache.h"
#include "tombstone_store.h"
#include "version_clock.h"

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::daemon::target {

struct MountpathInfo {
    std::string path;
    std::uint64_t total = 0;
    std::uint64_t used = 0;
    std::uint64_t available = 0;
    std::string disabled;  // why the mountpath is disabled; empty: in use
    std::string fs;        // its filesystem's device, "major:minor"; empty when unknown
};

// The filesystem `path` lives on, as "major:minor" of its device; empty
// when it cannot be read.
std::string filesystemOf(const std::string& path);

struct PutParams {
    std::string expectedChecksum;  // xxhash64 hex; empty: not checked
    std::map<std::string, std::string> custom;
    // A copy of an existing version delivered by a peer (rebalance) or
    // moved between mountpaths: when > 0 the copy keeps this stamp and
    // transferVersion, and commit() refuses it with Conflict unless it is
    // newer than the copy here and the tombstone.
    std::int64_t transferStamp = 0;
    std::string transferVersion;
    // A read-modify-write (a shard append): commit() refuses with Conflict,
    // and baseChanged() is true, unless the copy here still has this stamp
    // (0: there is no copy). Unset: no check.
    std::optional<std::int64_t> baseStamp;
    // With transferStamp: a good copy replaces a damaged one of the same
    // version (a scrub's repair); the copy here may have the same stamp.
    bool repair = false;
    // The version this commit replaces is kept until the writer goes, so
    // that rollback() can put it back (a mirrored PUT whose copies failed).
    bool undoable = false;
    // A bucket mirrored on the mountpaths of each target (mirror.copies,
    // across_targets false): the version is also stored on the next
    // mountpaths of the name's HRW order (ObjectStore::mountpathsFor), each
    // a whole file with the same metadata, all renamed into place under the
    // name's lock before the commit returns. A disabled mountpath is skipped.
    std::size_t mountpathCopies = 1;
    // S3 (PUT ...?s3=true, from the proxy's S3 front end): the body is also
    // hashed with MD5, kept as custom "s3-etag" (unless the caller set one: a
    // completed multipart upload's), and the write time as "s3-mtime".
    bool s3Etag = false;

    // A copy of stored version `meta` (a rebalance, a reconciliation, a
    // repair): it keeps the version's stamp and number, and bytes that do not
    // hash to its checksum are refused, never stored under a new one.
    static PutParams copyOf(const api::ObjectMeta& meta, bool repair = false)
    {
        PutParams p;
        p.expectedChecksum = meta.checksumValue;
        p.custom = meta.custom;
        p.transferStamp = meta.stamp;
        p.transferVersion = meta.version;
        p.repair = repair;
        return p;
    }
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
    // A small object's commit with fsync on (Options::commitLog): its record
    // goes to the mountpath's commit log, one fdatasync for every PUT that
    // arrived meanwhile, then the object is renamed into place without a
    // sync of its own (the log's checkpoint syncs it later; a crash before
    // is undone by applying the record at start). Taken by commit() for a
    // client's plain write: no transfer, read-modify-write, undo or
    // mountpath copies, at most Options::commitLogMaxObject bytes.
    // The first half of commit(), for a write whose copies go to other
    // targets before it is visible here: verifies the checksum, makes the
    // bytes durable and decides the version (stamp and number; a transfer
    // keeps the delivered one), written to the work file. commit() then only
    // renames it into place, unless a version at least as new was committed
    // meanwhile (then superseded() is true and this one is not stored). A
    // client's write, or a rebalance delivering a copy to its owner.
    api::Result<api::ObjectMeta> prepare();
    // After prepare(): the work file, to send the version from.
    int preparedFd() const { return m_prepared ? m_fd.get() : -1; }
    std::uint64_t bytesWritten() const { return m_size; }
    // True when committing waits for fsync (the store's fsync is on).
    bool syncs() const;
    // After a successful commit(): a descriptor of the committed file, this
    // version even if the name is replaced meanwhile; open while the writer lives.
    int committedFd() const { return m_committed ? m_fd.get() : -1; }
    // After a commit() refused a transfer: the copy here (or the tombstone)
    // is at least as new, so the delivered copy is not needed.
    bool superseded() const { return m_superseded; }
    // After a commit() refused a read-modify-write: the base changed.
    bool baseChanged() const { return m_baseChanged; }
    // After a successful commit() with PutParams::undoable: puts back the
    // version it replaced (or removes the name when there was none), unless
    // a newer version was committed meanwhile. The write never happened
    // for readers from then on.
    api::Status rollback();

private:
    friend class ObjectStore;
    PutWriter() = default;
    // The checksum check and the bytes made durable: the metadata of this
    // version but its stamp and number.
    api::Result<api::ObjectMeta> finishBytes(bool sync = true);
    // With the name's lock held: this version's stamp and number after `prev`.
    void decideVersion(const std::optional<api::ObjectMeta>& prev, api::ObjectMeta& meta) const;
    // PutParams::mountpathCopies: the bytes (durable) into a work file on each
    // other mountpath of the copy set; then, under the name's lock, their
    // metadata and renames.
    api::Status writeMountpathCopies();
    api::Status placeMountpathCopies(const std::string& metaRecord);
    // Renames the work file to the object's name (creating its folders); the
    // name's lock is held.
    api::Status renameIntoPlace();
    api::Result<api::ObjectMeta> commitLogged();

    const ObjectStore* m_store = nullptr;
    std::size_t m_mp = 0;
    std::string m_bucket;
    std::string m_name;
    std::string m_workPath;  // empty while the work file is unnamed (m_unnamed)
    std::string m_finalPath;
    std::string m_indexPath;  // the replaced object's shard index, now stale
    std::string m_undoPath;   // undoable: a link to the replaced version, in the work directory
    struct MountpathCopy {
        std::size_t mp = 0;
        std::string workPath;
        std::string finalPath;
        UniqueFd fd;
    };
    std::vector<MountpathCopy> m_copies;  // PutParams::mountpathCopies > 1
    std::int64_t m_stamp = 0;             // the committed version's
    std::string m_bucketRoot;
    UniqueFd m_fd;
    std::uint64_t m_size = 0;
    std::unique_ptr<struct HashState> m_hash;
    PutParams m_params;
    bool m_committed = false;
    bool m_prepared = false;
    api::ObjectMeta m_preparedMeta;
    bool m_superseded = false;
    bool m_baseChanged = false;
    // The work file is an O_TMPFILE file, not yet linked under any name.
    bool m_unnamed = false;
    bool m_linkedUnnamed = false;  // it was, and is linked now
    // commitLogged(): the log record, built as the bytes arrive while they fit
    // (CommitLog::startRecord).
    bool m_logged = false;
    std::string m_logRecord;
};

class ObjectStore {
public:
    struct Options {
        std::vector<std::string> mountpaths;
        bool fsync = true;
        std::uint64_t maxObjectSize = std::uint64_t{1} << 40;
        OpenObjectCache::Options openCache;  // open() keeps hot objects open
        std::chrono::milliseconds tombstoneTtl{24LL * 3600 * 1000};
        // With fsync: small objects are committed through each mountpath's
        // commit log (PutWriter::commitLogged).
        bool commitLog = true;
        std::uint64_t commitLogMaxObject = 64 * 1024;
        CommitLog::Options commitLogOptions;
    };

    // Prepares the mountpaths (creates the layout, checks xattr support,
    // removes leftover work files of a previous run) and applies the records
    // a previous run left in their commit logs.
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
    // open() for an object read once in a sweep (a job's source, a peer's
    // batch, a rebalance or dSort read): the open-object cache is neither
    // asked nor filled (a sweep of many objects would only evict the hot
    // ones, each insert closing an evicted descriptor).
    api::Result<OpenObject> openUncached(std::string_view bucket, std::string_view name) const;
    // The copy on mountpath `mp`, wherever placement would put the name now
    // (a rebalance moves copies a mountpath change left behind).
    api::Result<OpenObject> openAt(std::size_t mp, std::string_view bucket, std::string_view name) const;
    api::Status removeAt(std::size_t mp, std::string_view bucket, std::string_view name) const;
    std::size_t mountpathFor(std::string_view bucket, std::string_view name) const;
    // The first n mountpaths of the name's HRW order (mountpathFor first):
    // where a bucket mirrored on mountpaths keeps its copies.
    std::vector<std::size_t> mountpathsFor(std::string_view bucket, std::string_view name, std::size_t n) const;
    // Stores the version on `from` as a copy on `to` (same metadata, whole
    // file, renamed into place unless `to` has a version at least as new;
    // `repair`: a damaged copy of the same version is replaced too).
    api::Status copyBetweenMountpaths(std::string_view bucket, std::string_view name, std::size_t from, std::size_t to,
                                      bool repair = false) const;
    // Removes the copies on the mountpaths after the first of the name's
    // `n` (a bucket mirrored on mountpaths), unless newer than `stamp`.
    api::Status removeMountpathCopies(std::string_view bucket, std::string_view name, std::size_t n,
                                      std::int64_t stamp) const;
    api::Result<api::ObjectMeta> stat(std::string_view bucket, std::string_view name) const;
    // A client's DELETE: removes the copy and leaves a tombstone stamped
    // now, so that no older copy of the name can come back. NotFound (and no
    // tombstone) when there is no copy here.
    // `stampOut`, when given, receives the tombstone's stamp.
    api::Status remove(std::string_view bucket, std::string_view name, std::int64_t* stampOut = nullptr) const;
    // The owner of a mirrored object deleted it with a tombstone stamped
    // `stamp`: removes the copy here unless it is newer, and records the
    // same tombstone (so that no older copy can be delivered here later).
    api::Status removeCopy(std::string_view bucket, std::string_view name, std::int64_t stamp) const;
    // The name was deleted where this target cannot see it (a peer holds the
    // only copy until a rebalance brings it): records the tombstone only.
    api::Status markDeleted(std::string_view bucket, std::string_view name) const;
    // The stamp of the name's tombstone, if there is one.
    std::optional<std::int64_t> tombstone(std::string_view bucket, std::string_view name) const;
    // The bucket's recorded deletions whose names `wanted` accepts, in name
    // order (TombstoneStore::list); Unavailable naming a disabled mountpath,
    // or one whose records cannot be walked.
    api::Result<std::vector<TombstoneStore::Listed>> deletions(
        std::string_view bucket, const std::function<bool(const std::string& name)>& wanted) const;
    // Changes of mirrored objects in flight, and the names whose copies may
    // disagree after one was interrupted (see intent_store.h).
    IntentStore& intents() const { return m_intents; }
    // Gives the name's state here a fresh stamp: the version's metadata is
    // rewritten, or, without a version, a deletion is recorded. It is then
    // newer than anything a holder may have taken from an interrupted change.
    api::Status restamp(std::string_view bucket, std::string_view name) const;
    // Removes the copy on mountpath `mp` only if it is still the version
    // with `stamp` (a copy that was sent to its owner); Conflict otherwise.
    api::Status removeIfStamp(std::size_t mp, std::string_view bucket, std::string_view name, std::int64_t stamp) const;
    // Removes tombstones older than the TTL; returns how many went.
    std::size_t sweepTombstones() const;
    // Reads the whole object and compares its xxhash64 with the stored one.
    api::Status verify(const OpenObject& obj) const;

    // The page of up to req.pageSize names greater than the token, in name
    // order, across all mountpaths. continuationToken is set when the page
    // is full (more may follow).
    api::Result<api::ObjectList> list(std::string_view bucket, const api::ListRequest& req) const;
    // Walks of a bucket's names that listings made so far: one per state of
    // a bucket, however many listings asked for it at once.
    std::uint64_t nameWalks() const { return m_nameWalks.load(std::memory_order_relaxed); }

    // Removes every object of the bucket (moved to trash first, so the
    // names disappear at once).
    api::Status destroyBucket(std::string_view bucket) const;

    std::vector<MountpathInfo> mountpathInfo() const;
    // Mountpath `mp`'s commit log; null when small objects are not logged.
    CommitLog* commitLog(std::size_t mp) const { return mp < m_logs.size() ? m_logs[mp].get() : nullptr; }
    // Records of the commit logs applied at start (objects written again).
    std::size_t replayedAtStart() const { return m_replayed; }

    // Mountpath health. An I/O error that means the disk is gone or broken
    // (EIO, EROFS, a root that is missing or no longer a directory) disables
    // the mountpath: requests for objects placed on it answer Unavailable
    // naming it (never NotFound: the objects are not known to be gone), the
    // other mountpaths go on. Placement does not change, so a write never
    // creates a second copy elsewhere that the disk's return would shadow.
    // A disabled mountpath comes back when the target restarts with it healthy.
    // Returns the Unavailable error when `mp` is disabled.
    api::Status checkMountpath(std::size_t mp) const;
    // Classifies a failed system call on mountpath `mp`: a disk fault
    // disables it and gives Unavailable; anything else is an IoError.
    api::Error mountpathError(std::size_t mp, int err, const std::string& what) const;
    // A change made (renamed or unlinked) whose directory could not be
    // synced, or whose tombstone could not be written (`made`): when the
    // mountpath is what failed, or `made`, the answer is Unavailable saying
    // that the outcome is unknown (the change is visible, its durability is
    // not known; a failed mountpath is disabled); otherwise `failed` as it is.
    api::Error durabilityError(std::size_t mp, const api::Error& failed, bool made = false) const;
    const Options& options() const { return m_options; }

    // Erasure coding (daemon/ec/slice_store.h) keeps slices beside the
    // objects and follows the same rules: these let it.
    // The lock that serializes every change to bucket/name.
    std::unique_lock<std::mutex> lockName(std::string_view bucket, std::string_view name) const
    {
        return std::unique_lock<std::mutex>(nameLock(bucket, name));
    }
    // A fresh work file path on mountpath `mp` (removed at start if left over).
    std::string newWorkPath(std::size_t mp) const { return workPath(mp); }
    // Removes the whole copy of bucket/name here when it is older than
    // `stamp` (a slice of a newer version arrived); OK when there is none.
    api::Status removeCopyIfOlder(std::string_view bucket, std::string_view name, std::int64_t stamp) const;

    // The target's hybrid clock: a stamp larger than every stamp it has
    // issued or seen, and at least the wall time in ns.
    std::int64_t nextStamp() const;
    void observeStamp(std::int64_t stamp) const;

private:
    friend class PutWriter;
    explicit ObjectStore(Options options);
    std::mutex& nameLock(std::string_view bucket, std::string_view name) const;

    // Every change to a bucket's names bumps its generation, which retires
    // the cached name snapshot listings page through.
    void touchBucket(std::string_view bucket) const;
    // An object's file changed (written, replaced, removed): its cached
    // open copy goes, and the bucket's name snapshot is retired.
    void objectChanged(std::string_view bucket, std::string_view name) const;
    struct NameSnapshot {
        std::uint64_t generation = 0;
        std::vector<std::string> names;  // sorted, every object of the bucket on this target
        // Each name's size + 1 (0: not known yet), learned by the first page
        // that stats it and good for the snapshot's life: any write to the
        // bucket retires the snapshot, sizes with it. A listing that pages
        // through the bucket again, or the next page's overlap with the
        // last, reads it instead of a stat per name. Made by the first
        // sized page (8 bytes per name).
        mutable std::once_flag sizesMade;
        mutable std::unique_ptr<std::atomic<std::uint64_t>[]> sizes;
        std::atomic<std::uint64_t>* sizeCache() const;
    };
    // The bucket's snapshot: the cached one while the bucket is unchanged,
    // else one walk of every mountpath. Requests that arrive while a walk
    // of the same state runs wait for it instead of walking again.
    api::Result<std::shared_ptr<const NameSnapshot>> nameSnapshot(std::string_view bucket) const;
    api::Result<std::shared_ptr<const NameSnapshot>> walkNames(std::string_view bucket, std::uint64_t generation) const;
    struct SnapshotBuild;  // a walk in progress and the requests waiting for it
    std::string workPath(std::size_t mp) const;
    // Makes the removal of bucket/name on `mp` durable (the nearest
    // directory still there is synced).
    api::Status syncRemoval(std::size_t mp, std::string_view bucket, std::string_view name) const;

    // A commit-log record a previous run left: its version is written again
    // unless the name has it already, or a newer version or deletion.
    bool applyLogged(std::size_t mp, const CommitLog::Record& r);

    Options m_options;
    std::vector<std::unique_ptr<CommitLog>> m_logs;  // per mountpath; null: not logged
    std::size_t m_replayed = 0;
    bool m_unnamedWorkFiles = false;  // PUTs write to O_TMPFILE files
    mutable std::atomic<std::uint64_t> m_seq{0};
    mutable std::mutex m_snapshotMutex;
    mutable std::map<std::string, std::uint64_t, std::less<>> m_generations;
    mutable std::map<std::string, std::shared_ptr<const NameSnapshot>, std::less<>> m_snapshots;
    mutable std::vector<std::string> m_snapshotUse;  // bucket names, least recently used first
    mutable std::map<std::string, std::shared_ptr<SnapshotBuild>, std::less<>> m_building;
    mutable std::atomic<std::uint64_t> m_nameWalks{0};
    mutable OpenObjectCache m_openCache;
    mutable VersionClock m_clock;
    mutable MountpathHealth m_health;
    TombstoneStore m_tombstones;
    mutable IntentStore m_intents;
    static constexpr std::size_t kNameLocks = 1024;
    mutable std::array<std::mutex, kNameLocks> m_nameLocks;
};

}  // namespace tessera::daemon::target
