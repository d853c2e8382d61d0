#pragma once
// One target's part of a dSort job (kind "dsort"), in three phases:
//   extract  read this target's input shards (extract_concurrency_max_limit
//            at a time), keep each record's bytes in a RecordStore (memory
//            up to max_mem_usage, then spill files) and send the records'
//            metadata to the job's designated sorting target;
//   sort     (the sorter) wait for every target's metadata, check duplicates,
//            order and cut with spec::orderRecords / cutShards / placeByEkm,
//            and send each target the output shards it owns (HRW of
//            output_bck/name over the job's targets); every target waits for
//            its assignment;
//   create   build each assigned shard (create_concurrency_max_limit at a
//            time): records pulled from their owners in batches, written
//            through archive::ArchiveWriter into an ObjectStore PutWriter
//            (work file + rename: nothing partial under an output name);
//            then tell every peer "done" and wait for all (a target keeps
//            its records until nobody needs them).
// A failure anywhere is sent to every peer, which stops too; an abort (from
// the proxy) stops every target. Either way the shards this target already
// committed for the job are removed, and the input is never touched.
// A peer that stops answering health checks while this target waits for it
// fails the job naming it.
//
// Args (from the proxy's DsortProxyApi):
//   {"spec":{...canonical spec...}, "peers":[[id,url],...], "self":i, "sorter":k,
//    "inputs":[[position, object name], ...], "ekm":"<external key map JSON or empty>"}

#include "dsort_peer_link.h"
#include "dsort_registry.h"
#include "dsort_session.h"

#include "archive/archive_limits.h"
#include "jobs/job_runner.h"
#include "spec/dsort_spec.h"
#include "target/object_store.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tessera::daemon::dsort {

inline constexpr const char* kKindDsort = "dsort";

class DsortJob : public jobs::JobWork {
public:
    struct Options {
        std::chrono::milliseconds peerTimeout{5000};
        std::string clusterKey;  // presented to the peers (auth on)
        archive::ArchiveLimits limits;
        std::uint64_t physicalMemory = 0;  // bytes; max_mem_usage percentages are of it
        int missedHealthChecks = 3;        // a peer failing this many checks in a row is dead
        std::chrono::milliseconds healthInterval{1000};
    };
    static constexpr std::size_t kRecordsPerChunk = 100'000;                 // metadata per POST to the sorter
    static constexpr std::size_t kMaxPullBatch = 1024;                       // records per pull
    static constexpr std::uint64_t kMaxPullBytes = std::uint64_t{32} << 20;  // bytes per pull (estimated)
    static constexpr std::size_t kMaxContentKeyBytes = 1024;
    // The target's own records go into its shards read in pieces of this size.
    static constexpr std::size_t kLocalChunk = 256 * 1024;
    // Plain .tar input shards read in place hold a descriptor each until the
    // job ends; past this many on one target, further shards are copied
    // into the store like compressed ones.
    static constexpr std::uint64_t kMaxInPlaceShards = 1024;

    // BadRequest for bad args. The job's session is registered when it
    // runs (peers calling before then are answered 404 and retry).
    // A target killed during a dSort job keeps the output shards it had
    // finished, where no abort can reach them. Each job journals the shards
    // it commits (<mountpath 0>/.tessera/dsort-out/<job id>) and drops the
    // journal when it ends (after removing its output if it failed). A
    // journal found at start belongs to a job this target died in: its
    // shards written since the job started here are removed. Called before
    // the target serves; returns how many shards went.
    static std::size_t removeOrphanedOutputs(const target::ObjectStore& store);

    static api::Result<std::unique_ptr<jobs::JobWork>> create(const target::ObjectStore& store, DsortRegistry& registry,
                                                              const Options& options, const nlohmann::json& args);
    ~DsortJob() override;
    api::Status run(jobs::JobContext& ctx) override;

private:
    DsortJob(const target::ObjectStore& store, DsortRegistry& registry, Options options, spec::DsortSpec spec,
             std::vector<DsortPeer> peers, std::uint32_t self, std::uint32_t sorter,
             std::vector<std::pair<std::uint64_t, std::string>> inputs, std::string ekm);

    bool stopped(const jobs::JobContext& ctx) const;
    api::Status phases(jobs::JobContext& ctx);
    api::Status extract(jobs::JobContext& ctx, std::vector<spec::DsortRecord>& out);
    api::Status extractShard(jobs::JobContext& ctx, std::uint64_t position, const std::string& name, RecordStore& store,
                             std::vector<spec::DsortRecord>& out);
    api::Status sendRecords(jobs::JobContext& ctx, std::vector<spec::DsortRecord> records, PeerLink& link);
    api::Status sortAndAssign(jobs::JobContext& ctx, PeerLink& link);
    api::Status create(jobs::JobContext& ctx, const std::vector<DsortAssignment>& shards);
    api::Status createShard(jobs::JobContext& ctx, const DsortAssignment& shard, PeerLink& link);
    // Waits until `ready`, an abort or a failure; peers in `watched()` that
    // stop answering fail it.
    api::Status waitFor(jobs::JobContext& ctx, const std::function<bool()>& ready,
                        const std::function<std::vector<std::uint32_t>()>& watched, PeerLink& link);
    void broadcast(const std::string& what, const std::string& body, PeerLink& link);
    void cleanup();
    void openJournal(const std::string& id);
    void journal(const std::string& line);
    void closeJournal();
    static void runParallel(unsigned threads, std::size_t items, const std::function<void(std::size_t)>& fn);

    const target::ObjectStore& m_store;
    DsortRegistry& m_registry;
    Options m_options;
    spec::DsortSpec m_spec;
    std::vector<DsortPeer> m_peers;
    std::uint32_t m_self;
    std::uint32_t m_sorter;
    std::shared_ptr<DsortSession> m_session;  // from run() on
    std::vector<std::pair<std::uint64_t, std::string>> m_inputs;
    std::string m_ekm;
    std::string m_spillDir;
    std::mutex m_mutex;
    std::vector<std::string> m_committed;  // output shards written here, removed on failure or abort
    std::string m_journalPath;             // see removeOrphanedOutputs
    int m_journalFd = -1;
    std::atomic<std::uint64_t> m_inPlaceShards{0};
    std::string m_firstError;  // of the parallel workers
    // The create phase's byte total: the shards' estimated .tar sizes, each
    // replaced by its real size once written (a compressed shard is
    // smaller), so done and total agree at the end.
    std::int64_t m_createShards = 0;
    std::int64_t m_createBytesTotal = 0;
};

}  // namespace tessera::daemon::dsort
