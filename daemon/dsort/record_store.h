#pragma once
// The records a target extracted for one dSort job, until the creation
// phase has sent them where they go. A record of a plain .tar input is kept
// as a reference: the input shard's open descriptor and each file's offset
// and size in it (nothing is copied until it is pulled). Other records are
// kept in memory, encoded, while the job's memory budget (the spec's
// max_mem_usage on this target) allows, and appended to a spill file beyond
// it, under <mountpath>/.tessera/dsort/<job>/ on the target's first
// mountpath. The spill directory goes with the store (and a leftover one of
// a crashed node is removed at start, see DsortRegistry).
//
// Thread safety: every member may be called from any thread.

#include "record_codec.h"

#include "api/result.h"
#include "common/unique_fd.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::daemon::dsort {

class RecordStore {
public:
    struct Stats {
        std::uint64_t records = 0;
        std::uint64_t referencedRecords = 0;  // .tar inputs, read in place
        std::uint64_t memoryBytes = 0;
        std::uint64_t spilledRecords = 0;
        std::uint64_t spilledBytes = 0;
    };

    RecordStore(std::uint64_t memoryBudget, std::string spillDir);
    ~RecordStore();  // removes the spill file and its directory
    RecordStore(const RecordStore&) = delete;
    RecordStore& operator=(const RecordStore&) = delete;

    // A file of a record kept by reference: where its bytes are in the shard.
    struct FileRef {
        std::string name;
        std::int64_t mtime = 0;
        std::uint64_t offset = 0;
        std::uint64_t size = 0;
    };

    // Keeps an encoded record; its index (0, 1, ...). IoError/NoSpace when
    // spilling fails.
    api::Result<std::uint64_t> add(std::string encoded);
    // Keeps a record by reference into `shard` (which stays open as long as
    // the store holds it); its index.
    std::uint64_t addRef(std::shared_ptr<UniqueFd> shard, std::vector<FileRef> files);
    // The whole encoded record, read; NotFound for an unknown index.
    api::Result<std::string> get(std::uint64_t index) const;
    // A region of a file the store reads from (an input shard read in place,
    // or the spill file): its bytes never change while the store lives.
    struct Region {
        std::shared_ptr<UniqueFd> fd;
        std::uint64_t offset = 0;
        std::uint64_t length = 0;
    };
    // The encoded record as pieces, in order, without reading what is on
    // disk: `bytes` gets what is in memory (the headers, records kept in
    // memory) and file regions shorter than `inlineBelow` (read), `region`
    // each longer region. A pull answer sends the regions by sendfile; the
    // target's own shards read them in chunks. NotFound for an unknown index.
    api::Status pieces(std::uint64_t index, std::uint64_t inlineBelow,
                       const std::function<api::Status(std::string_view)>& bytes,
                       const std::function<api::Status(const Region&)>& region) const;
    // Its encoded length; 0 for an unknown index.
    std::uint64_t length(std::uint64_t index) const;
    Stats stats() const;

private:
    struct Slot {
        std::string data;          // in memory (empty when spilled or referenced)
        std::uint64_t offset = 0;  // in the spill file
        std::uint64_t length = 0;  // encoded
        bool spilled = false;
        std::shared_ptr<UniqueFd> shard;  // set: a reference into this input shard
        std::vector<FileRef> files;
    };
    api::Status openSpill();

    std::uint64_t m_budget;
    std::string m_dir;
    mutable std::mutex m_mutex;
    std::deque<Slot> m_slots;
    std::shared_ptr<UniqueFd> m_spill;  // shared with the regions pieces() hands out
    std::uint64_t m_spillEnd = 0;
    Stats m_stats;
};

}  // namespace tessera::daemon::dsort
