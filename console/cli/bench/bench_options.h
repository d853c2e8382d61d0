#pragma once
// The options of `tessera bench`, parsed and checked: every limit is
// explicit, and anything malformed or contradictory is a BadRequest whose
// message names the option (the command turns it into a usage error, exit 2).

#include "api/object_list.h"
#include "api/result.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace tessera::cli::bench {

// ShardRead, LooseRead and ShardScan measure samples/s: WebDataset shards
// read whole over HTTP and parsed (shard-read), the same samples as loose
// objects, one GET each (loose-read), and the shards parsed from memory with
// no transfer at all (shard-scan, the reference).
// FilePut is the local reference for PUT: files written under --dir the way
// a target commits an object (work file, bytes, fdatasync, metadata
// attribute, rename, directory fsync), no HTTP at all.
enum class BenchMode { Put, Get, Mixed, List, UrlGet, UrlPut, ShardRead, LooseRead, ShardScan, FilePut };
const char* benchModeName(BenchMode mode);

struct BenchOptions {
    BenchMode mode = BenchMode::Get;
    unsigned workers = 16;  // concurrent requests, each on its own connection(s)
    unsigned threads = 0;   // I/O threads; 0 = min(workers, hardware threads)
    // Stop after `count` operations, else after `duration`.
    std::uint64_t count = 0;
    std::chrono::milliseconds duration{10000};
    std::chrono::milliseconds interval{1000};  // one row per interval
    std::uint64_t minSize = 1024;              // object size, uniform in [minSize, maxSize]
    std::uint64_t maxSize = 1024;
    std::string bucket;
    std::string prefix;  // object names (put, get, mixed) or listing prefix (list)
    // get/mixed: PUT this many objects first (prefix + "obj-%08u"), then read
    // them; 0 = read the objects that already exist under --prefix.
    // url-get: "{i}" in the URL takes the values 00000000..N-1.
    std::uint64_t countObjects = 0;
    unsigned pctPut = 50;                      // mixed: share of PUTs, 0..100
    std::uint32_t pageSize = 0;                // list: names per page; 0 = the server's default
    std::uint32_t listProps = api::kPropName;  // list: the properties asked for (--props name,size)
    bool direct = false;                       // compute HRW from the cluster map and go to the target
    bool verify = false;                       // GET: xxhash64 of the body vs ais-checksum-value
    bool keepalive = true;                     // off: a new connection per request
    std::string url;                           // url-get / url-put
    std::string dir;                           // shard-scan: the folder of shard files; file-put: where files go
    bool fsync = true;                         // file-put: fdatasync each file and fsync its directory
    unsigned dirs = 1;                         // file-put: files dealt over DIR/d0 .. d<dirs-1>
    std::chrono::milliseconds timeout{30000};  // per request (connect and each read/write)
    // Sent as Authorization on every request to the cluster's endpoints
    // (the proxy, or the targets with --direct), not on redirects, which
    // carry the proxy's signature (`tessera login`'s token; not an option).
    std::string authorization;
    // https:// endpoints (the cluster's or --url-get/--url-put's): every
    // connection speaks TLS, verified with `caFile` (empty: the system's
    // store) unless `insecure` (the CLI's --ca-file and --insecure).
    struct Tls {
        bool enabled = false;
        std::string caFile;
        bool insecure = false;
    } tls;

    bool fixedSize() const { return minSize == maxSize; }
    // Modes that count samples (items) per operation.
    bool countsSamples() const
    {
        return mode == BenchMode::ShardRead || mode == BenchMode::LooseRead || mode == BenchMode::ShardScan;
    }
    // Modes with no cluster (a local reference).
    bool local() const { return mode == BenchMode::ShardScan || mode == BenchMode::FilePut; }
};

// `args` are the words after "bench": MODE then options. --json is a global
// option and never reaches here.
api::Result<BenchOptions> parseBenchOptions(const std::vector<std::string>& args);

// Limits.
constexpr unsigned kMaxWorkers = 4096;
constexpr unsigned kMaxThreads = 256;
constexpr std::uint64_t kMaxObjectSize = std::uint64_t{4} << 30;  // one buffer in memory holds the payload
constexpr std::uint64_t kMaxCountObjects = 10'000'000;
constexpr std::chrono::milliseconds kMinInterval{100};
constexpr std::uint64_t kMaxScanBytes = std::uint64_t{8} << 30;  // shard-scan: shards held in memory
constexpr std::chrono::hours kMaxDuration{24};
constexpr unsigned kMaxFileDirs = 256;  // file-put: --dirs

}  // namespace tessera::cli::bench
