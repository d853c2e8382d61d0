#pragma once
// What each benchmark operation is: its kind, method, endpoint, request
// target and body size. Built once before the run from the options, the
// endpoint, the cluster map (--direct) and the objects to read; shared
// read-only by every worker, apart from an atomic sequence for PUT names.
// Request targets of the objects to read are computed up front, so picking
// an operation costs a random number and (for new PUT names) one string.

#include "api/smap.h"
#include "bench_options.h"
#include "bench_stats.h"
#include "shard_tally.h"

#include <atomic>
#include <boost/beast/http/verb.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tessera::cli::bench {

struct HostPort {
    std::string host;
    std::string port;
};

// One worker's own state, mutated only by that worker.
struct WorkerState {
    unsigned index = 0;
    std::uint64_t rng = 0;
    std::string listToken;         // list: continuation token of the page to ask next
    std::uint64_t listPasses = 0;  // list: complete listings done
};

struct PlannedOp {
    OpKind kind = OpKind::Get;
    boost::beast::http::verb verb = boost::beast::http::verb::get;
    std::uint32_t endpoint = 0;                                   // index into BenchWorkload::endpoints()
    std::string target;                                           // reused between operations; file-put: the file name
    std::uint64_t size = 0;                                       // PUT body bytes
    bool mayRedirect = false;                                     // through the proxy: a 307 is expected
    archive::ArchiveFormat format = archive::ArchiveFormat::Tar;  // shard-read: how to parse the body
    std::size_t shard = 0;                                        // shard-scan: index into BenchWorkload::shards()
};

class BenchWorkload {
public:
    // Tessera modes. `endpoint` is the proxy; `smap` (for --direct) must
    // list at least one target; `pool` are the object names get and mixed
    // read (and mixed overwrites).
    BenchWorkload(const BenchOptions& options, const HostPort& endpoint, const api::Smap* smap,
                  std::vector<std::string> pool);
    // --url-get / --url-put: options.url; file-put: options.dir.
    explicit BenchWorkload(const BenchOptions& options);
    // shard-scan: shards in memory; at least one.
    BenchWorkload(const BenchOptions& options, std::vector<LoadedShard> shards);

    void next(WorkerState& worker, PlannedOp& op) const;
    // list: a page arrived with this continuation token ("" = listing done).
    void pageDone(WorkerState& worker, const std::string& continuationToken) const;

    const std::vector<HostPort>& endpoints() const { return m_endpoints; }
    // PUT bodies are slices of this buffer (random bytes, maxSize long).
    const std::string& payload() const { return *m_payload; }
    std::size_t poolSize() const { return m_poolTargets.size(); }
    const std::vector<LoadedShard>& shards() const { return m_shards; }

    // Names PUT writes and --count-objects reads: prefix + "obj-%08u".
    static std::string indexedName(const std::string& prefix, std::uint64_t i);
    // file-put: the folders under --dir that files are dealt over, "d0".."d<dirs-1>",
    // each with its work folder ".work" (as a mountpath has its own).
    static std::string fileDir(std::uint64_t i);
    // The request target of an object (exposed for the tests).
    static std::string objectTarget(const std::string& bucket, const std::string& name, std::int64_t smapVersion);

private:
    struct Target {
        std::uint32_t endpoint = 0;
        std::string target;
        archive::ArchiveFormat format = archive::ArchiveFormat::Tar;  // shard-read
    };
    Target placeObject(const std::string& name) const;
    std::uint64_t pickSize(WorkerState& worker) const;

    BenchOptions m_options;
    std::vector<HostPort> m_endpoints;     // [0] the proxy or the URL's server, then targets
    std::unique_ptr<api::Smap> m_smap;     // --direct only
    std::vector<std::string> m_targetIds;  // the targets, in endpoint order from 1
    std::vector<std::string> m_pool;
    std::vector<Target> m_poolTargets;
    std::shared_ptr<std::string> m_payload;
    std::vector<LoadedShard> m_shards;  // shard-scan
    mutable std::atomic<std::uint64_t> m_putSeq{0};
    std::string m_urlBefore, m_urlAfter;  // url-get: the URL's target around "{i}"
    bool m_urlIndexed = false;
};

// xorshift64*: the workers' random numbers (cheap, and no shared state).
std::uint64_t nextRandom(std::uint64_t& state);

}  // namespace tessera::cli::bench
