#pragma once
// A mountpath's commit log: how a small object's PUT with fsync on is made
// durable with fewer disk syncs than objects.
//
// Without it every PUT waits for two syncs of its own (the file's bytes,
// then the folder with its new name). With it, a small object's record
// (bucket, name, metadata record, bytes) is appended to a log file that one
// fdatasync commits for every PUT that arrived meanwhile (a group commit),
// and only then is the object renamed into place, without a sync of its
// own, and acknowledged. After a crash the records still in the log are
// applied again at start (ObjectStore::create): a version that did not
// reach the disk as a file is written from its record, unless the name has
// a newer version or a newer deletion.
//
// Layout: <mountpath>/.tessera/commitlog/seg-0 and seg-1, two preallocated
// segments used in turn. When the active one is full (or has held records
// for `checkpointAfter`), appends go to the other, and a checkpoint thread
// waits until every record of the full one is in place as a file, syncs the
// filesystem (syncfs: the files' bytes and names) and clears the segment.
// A segment is written from its start by each use, under a random use id;
// a scan reads records from the start while the id, the sequence and each
// record's xxhash64 agree, so a torn tail or an earlier use's leftovers end
// it.
//
// Record: magic "TSCL" (u32), header size (u32), use id (u64), sequence
// (u64), lengths of bucket, name, bytes and metadata record (u32 each),
// xxhash64 of the header (this field zero) and the payload (u64); then the
// payload: bucket, name, bytes, metadata record. Little-endian. The bytes
// come before the metadata so that a PUT builds its record as its body
// arrives (startRecord) and adds the metadata, decided last, at append.
//
// Thread safety: append() and checkpoint() may be called concurrently.

#include "api/result.h"
#include "common/unique_fd.h"

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace tessera::daemon::target {

class CommitLog {
public:
    struct Options {
        std::uint64_t segmentBytes = std::uint64_t{32} << 20;  // each of the two
        // An active segment with records is checkpointed after this long at
        // most: a record is never older than that plus a checkpoint's time,
        // so it is never replayed over a deletion whose tombstone expired.
        std::chrono::milliseconds checkpointAfter{2000};
    };
    struct Record {
        std::uint64_t seq = 0;
        std::string bucket;
        std::string name;
        std::string meta;  // the metadata record (meta_record.h)
        std::string data;
    };
    static constexpr std::size_t kHeaderBytes = 48;

    // Opens (creating and preallocating) the segments under `dir`;
    // `syncPath` is the mountpath whose filesystem a checkpoint syncs. The
    // records a previous run left (not checkpointed) go to `leftover`, in
    // the order they were appended; apply them, then clearLeftovers()
    // before the first append.
    static api::Result<std::unique_ptr<CommitLog>> open(const std::string& dir, const std::string& syncPath,
                                                        Options options, std::vector<Record>* leftover);
    ~CommitLog();
    CommitLog(const CommitLog&) = delete;
    CommitLog& operator=(const CommitLog&) = delete;

    // After the leftovers were applied: syncs the filesystem, then clears
    // both segments. 0 or the errno.
    int clearLeftovers();

    // Keeps a durable record counted in its segment until its object is in
    // place (or given up): the segment is not checkpointed before.
    class Ticket {
    public:
        Ticket() = default;
        Ticket(Ticket&& o) noexcept;
        Ticket& operator=(Ticket&& o) noexcept;
        ~Ticket() { release(); }
        // 0 when the record is durable, else the errno of the write or sync.
        int error() const { return m_error; }
        void release();

    private:
        friend class CommitLog;
        CommitLog* m_log = nullptr;
        int m_segment = -1;
        int m_error = 0;
    };
    // Appends the record and waits until it is durable (one fdatasync for
    // every record appended meanwhile). EFBIG for a record larger than a
    // segment; EIO (and every append after) once a write or sync failed.
    Ticket append(std::string_view bucket, std::string_view name, std::string_view meta, std::string_view data);
    // The same for a record begun with startRecord() and the object's bytes
    // appended to it (no copy of them here).
    Ticket append(std::string record, std::string_view meta);
    // A record's start: room for its header, the bucket and the name.
    static std::string startRecord(std::string_view bucket, std::string_view name);
    // Every record appended before the call is then in place as a file and
    // synced, and out of the log (a destroyed bucket's records must not be
    // applied at the next start). 0 or the errno.
    int checkpoint();

    // Counters for tests and stats.
    std::uint64_t syncs() const;        // fdatasyncs of the log
    std::uint64_t appended() const;     // records made durable
    std::uint64_t checkpoints() const;  // segments synced and cleared

    // The whole record with its use id, sequence and hash zero.
    static std::string layoutRecord(std::string_view bucket, std::string_view name, std::string_view meta,
                                    std::string_view data);
    static std::string encodeRecord(std::uint64_t useId, std::uint64_t seq, std::string_view bucket,
                                    std::string_view name, std::string_view meta, std::string_view data);
    // The records of one segment file from its start (see the scan above).
    static std::vector<Record> scanSegment(int fd, std::uint64_t size);

private:
    // Writes the lengths of the bytes and the metadata, and appends the metadata.
    static void finishRecord(std::string& record, std::string_view meta);
    struct Pending {
        std::string bytes;  // the record (use id, sequence and hash filled in by the writer)
        int segment = -1;
        std::uint64_t offset = 0;  // where in the segment
        int error = 0;
        // Set under the log's mutex once the record is durable or failed,
        // and its appender woken alone (no broadcast to every appender).
        bool done = false;
        std::condition_variable cv;
    };
    enum class SegState { Free, Active, Closing };
    struct Segment {
        UniqueFd fd;
        SegState state = SegState::Free;
        std::uint64_t useId = 0;
        std::uint64_t offset = 0;    // next write
        std::uint64_t inflight = 0;  // tickets not released
        std::chrono::steady_clock::time_point firstRecord;
    };

    CommitLog(Options options, UniqueFd syncFd);
    void writerLoop();
    void checkpointLoop();
    // With m_mutex held: the active segment goes to the checkpoint thread
    // and the other (once free) becomes active. False when stopping.
    bool switchSegments(std::unique_lock<std::mutex>& lock);
    int clearSegment(int s);

    Options m_options;
    UniqueFd m_syncFd;
    std::array<Segment, 2> m_segs;
    int m_active = 0;
    std::uint64_t m_seq = 0;
    int m_failed = 0;  // errno of the first failed write or sync: appends fail from then on

    mutable std::mutex m_mutex;
    std::condition_variable m_wake;       // the writer: pending records, a checkpoint wanted, stop
    std::condition_variable m_closingCv;  // the checkpoint thread: a segment closing, a ticket released
    std::condition_variable m_freeCv;     // the writer and checkpoint(): a segment cleared
    std::deque<Pending*> m_pending;
    std::uint64_t m_checkpointWanted = 0;  // checkpoint() calls waiting for a switch
    std::uint64_t m_switches = 0;
    std::uint64_t m_cleared = 0;
    std::uint64_t m_syncs = 0;
    std::uint64_t m_appended = 0;
    bool m_stop = false;
    std::thread m_writer;
    std::thread m_checkpointer;
};

}  // namespace tessera::daemon::target
