#pragma once
// Node configuration: defaults, then a JSON file (--config), then command-line
// flags, in that order of precedence (later wins). See docs/api.md for the
// field list.

#include "api/result.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace tessera::daemon {

struct Config {
    std::string role;                     // "proxy" | "target"
    std::string host = "127.0.0.1";       // listen and advertise address
    int port = -1;                        // -1: role default (proxy 8080, target 8081); 0: pick a free port
    std::string proxyUrl;                 // targets: where to join
    std::string dataDir;                  // node state: id, database
    std::vector<std::string> mountpaths;  // targets: object storage directories
    std::string portFile;                 // when set, the bound port is written here (atomically)
    // Proxy: the S3 front end also on a port of its own, at the root (for
    // clients that cannot take the /s3 path prefix: s3cmd). -1: off.
    int s3Port = -1;
    // Proxy: S3 access keys in a file (docs/s3.md). Set: S3 signatures are
    // verified with them (and, auth on, map to users). Auth on, the keys in
    // users.db are verified too; a key id in both: the file's wins.
    std::string s3KeysFile;
    // Proxy: virtual-host style S3 (docs/s3.md): a Host of "<bucket>.<this>"
    // addresses the bucket, on the S3 port and the proxy's own. Empty: off.
    std::string s3VirtualHost;
    std::string logLevel = "info";

    bool fsync = true;  // fsync objects (and their directory) before acknowledging a PUT
    // With fsync: small objects are made durable through the mountpaths'
    // commit logs (daemon/target/commit_log.h), many PUTs per sync.
    bool commitLog = true;
    std::int64_t commitLogCheckpointMs = 2000;  // the longest a record waits for its checkpoint
    std::int64_t keepaliveIntervalMs = 2000;
    int keepaliveMaxMissed = 3;  // proxy drops a target after this many missed keepalives
    unsigned ioThreads = 0;      // 0: number of cores
    unsigned workerThreads = 0;  // 0: max(4, 2 x cores)
    std::size_t maxConnections = 1024;
    std::size_t maxConnectionsPerAddress = 0;  // one client address's share of the slots; 0: half of max_connections
    std::int64_t headerTimeoutMs = 10000;      // with half the slots taken: the longest wait for a whole request head
    std::int64_t idleTimeoutMs = 60000;
    std::int64_t ioTimeoutMs = 60000;
    std::int64_t peerTimeoutMs = 5000;  // node-to-node control calls
    // Proxy: the longest wait for a target's page of a listing once it took
    // the call (connecting is bounded by peerTimeoutMs). A target's first page
    // of a bucket walks all its names: seconds for millions.
    std::int64_t listTimeoutMs = 60000;
    std::uint64_t maxObjectSize = std::uint64_t{1} << 40;  // 1 TiB

    // Nodes of one cluster share a secret key: a join, a keepalive and a
    // metadata push carry it, so no other HTTP server can join as a target
    // or re-point a live one. The proxy creates <data_dir>/cluster.key at
    // its first start when no file is named; targets must name one.
    std::string clusterKeyFile;
    // Targets: how long the record of a deleted object (a tombstone) is
    // kept, so that an older copy arriving from a peer (a rebalance in
    // flight, a decommissioned target returning) cannot bring it back.
    std::int64_t tombstoneTtlMs = 24LL * 3600 * 1000;
    // Targets: on SIGTERM/SIGINT, the longest wait for requests already
    // read to be answered (after going into maintenance and closing the
    // listening socket); what is still running then is cut off.
    std::int64_t drainTimeoutMs = 30000;

    // Count every data-path operation (node_stats, /metrics, the feed). Off
    // only to measure what counting costs (tests/bench/stats_overhead.sh).
    bool opStats = true;
    // Targets: how often the object count and bytes per bucket and mountpath
    // are recounted by walking the mountpaths; 0: only at start.
    std::int64_t usageScanIntervalMs = 60000;

    // Proxy: a rebalance starts by itself once the targets of the cluster
    // map changed and then stayed the same for rebalance_delay_ms.
    bool rebalanceAuto = true;
    std::int64_t rebalanceDelayMs = 2000;
    // Proxy: a scrub of every bucket starts this often (0: never; 1 min..30 days).
    std::int64_t scrubIntervalMs = 0;

    // Proxy: statistics pulls and the live feed (/v1/ws).
    std::int64_t statsIntervalMs = 1000;  // default metrics cadence; sessions may ask 250..10000
    std::size_t wsMaxSessions = 64;
    std::size_t wsQueueMax = 256;           // unsent messages before a session counts as too slow
    std::int64_t wsWriteTimeoutMs = 10000;  // a feed write making no progress this long drops the session
    int wsSendBuffer = 0;                   // SO_SNDBUF of feed sockets; 0: kernel default
    // Proxy: the web console's built files (index.html, assets/), served at
    // /console/. Empty: found beside the executable (proxy/console_assets.h).
    std::string consoleDir;
    std::vector<std::string> wsAllowedOrigins;  // browser origins allowed besides the proxy's own
    // Networks (CIDR) a fetch of a user-given URL (a dSort ekm_file URL) may
    // reach although they are loopback, link-local or private; none by default.
    std::vector<std::string> fetchAllowNetworks;
    double errorBurstPerSec = 10;  // request errors/s on one node that raise an event; 0: off

    // Targets: what reading one shard may cost (archpath, archregx, listing
    // with the archive flag, append). A shard breaking a limit is refused
    // with 422; see archive::ArchiveLimits.
    std::uint64_t archiveMaxMembers = 1'000'000;
    std::uint64_t archiveMaxMemberSize = std::uint64_t{4} << 30;  // 4 GiB
    std::uint64_t archiveMaxTotalSize = std::uint64_t{64} << 30;  // 64 GiB
    std::uint64_t archiveMaxCompressionRatio = 200;
    // Targets: offset indexes of .tar shards kept in memory (the files
    // beside the objects stay); false: every archpath read scans the shard
    // (only to measure what the index saves, tests/bench/archpath.sh).
    std::uint64_t archiveIndexCacheBytes = std::uint64_t{64} << 20;  // 64 MiB
    bool archiveIndex = true;
    // Targets: objects kept open after a read for the next one (descriptor
    // and metadata); 0 turns it off. Changes made through the node drop an
    // entry at once; changes behind its back show within the TTL.
    std::uint64_t openObjectCache = 4096;
    std::uint64_t openObjectCacheTtlMs = 5000;

    // Targets: the directories ETL transformers may be run from (each
    // command[0] must resolve inside one of them). Empty: the sample
    // transformers shipped with Tessera and <data_dir>/etl-bin.
    std::vector<std::string> etlBinDirs;

    // Config file {"auth": {"enabled": true}}, flag --auth-enabled. Off
    // (the default): anyone who reaches a port may do anything, as before,
    // and the node says so loudly at start. On: the proxy keeps users in
    // <data_dir>/users.db and issues tokens; every route needs the Access
    // it names (net/router.h); redirects carry a signature targets check.
    bool authEnabled = false;

    // Config file {"tls": {"cert_file", "key_file", "ca_file"}}, flags
    // --tls-cert-file, --tls-key-file, --tls-ca-file. With a certificate and
    // its key the node serves HTTPS only (its URL in the cluster map is
    // https://), and re-reads both files at SIGHUP. ca_file: the CAs this
    // node trusts when it calls other nodes (empty: the system's store).
    std::string tlsCertFile;
    std::string tlsKeyFile;
    std::string tlsCaFile;
    bool tlsEnabled() const { return !tlsCertFile.empty(); }
    // "https" or "http".
    std::string scheme() const { return tlsEnabled() ? "https" : "http"; }

    int effectivePort() const;
    // etl_bin_dirs, or the defaults when it is empty.
    std::vector<std::string> effectiveEtlBinDirs() const;
};

void to_json(nlohmann::json& j, const Config& c);

// Parses argv (and the --config file it names). Returns BadRequest with a
// usage message on bad input; `helpText` is set and the result is an error of
// kind NotFound when --help was asked for.
api::Result<Config> parseConfig(int argc, char** argv, std::string& helpText);

api::Status validateConfig(const Config& c);

}  // namespace tessera::daemon
