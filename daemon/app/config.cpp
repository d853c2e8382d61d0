#include "config.h"

#include "s3/virtual_host.h"

#include "net/outbound_fetch.h"

#include <boost/program_options.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

namespace tessera::daemon {

namespace po = boost::program_options;

int Config::effectivePort() const
{
    if (port >= 0) return port;
    return role == "proxy" ? 8080 : 8081;
}

std::vector<std::string> Config::effectiveEtlBinDirs() const
{
    if (!etlBinDirs.empty()) return etlBinDirs;
    std::vector<std::string> out;
#ifdef TESSERA_ETL_SAMPLES_DIR
    out.emplace_back(TESSERA_ETL_SAMPLES_DIR);
#endif
#ifdef TESSERA_ETL_INSTALL_DIR
    out.emplace_back(TESSERA_ETL_INSTALL_DIR);
#endif
    if (!dataDir.empty()) out.push_back(dataDir + "/etl-bin");
    return out;
}

void to_json(nlohmann::json& j, const Config& c)
{
    j = nlohmann::json{{"role", c.role},
                       {"host", c.host},
                       {"port", c.effectivePort()},
                       {"s3_port", c.s3Port},
                       {"s3_keys_file", c.s3KeysFile},
                       {"s3_virtual_host", c.s3VirtualHost},
                       {"proxy_url", c.proxyUrl},
                       {"data_dir", c.dataDir},
                       {"mountpaths", c.mountpaths},
                       {"log_level", c.logLevel},
                       {"fsync", c.fsync},
                       {"commit_log", c.commitLog},
                       {"commit_log_checkpoint_ms", c.commitLogCheckpointMs},
                       {"keepalive_interval_ms", c.keepaliveIntervalMs},
                       {"keepalive_max_missed", c.keepaliveMaxMissed},
                       {"io_threads", c.ioThreads},
                       {"worker_threads", c.workerThreads},
                       {"max_connections", c.maxConnections},
                       {"max_connections_per_address", c.maxConnectionsPerAddress},
                       {"header_timeout_ms", c.headerTimeoutMs},
                       {"idle_timeout_ms", c.idleTimeoutMs},
                       {"io_timeout_ms", c.ioTimeoutMs},
                       {"peer_timeout_ms", c.peerTimeoutMs},
                       {"list_timeout_ms", c.listTimeoutMs},
                       {"max_object_size", c.maxObjectSize},
                       {"op_stats", c.opStats},
                       {"cluster_key_file", c.clusterKeyFile},
                       {"tombstone_ttl_ms", c.tombstoneTtlMs},
                       {"drain_timeout_ms", c.drainTimeoutMs},
                       {"rebalance_auto", c.rebalanceAuto},
                       {"rebalance_delay_ms", c.rebalanceDelayMs},
                       {"scrub_interval_ms", c.scrubIntervalMs},
                       {"usage_scan_interval_ms", c.usageScanIntervalMs},
                       {"stats_interval_ms", c.statsIntervalMs},
                       {"ws_max_sessions", c.wsMaxSessions},
                       {"ws_queue_max", c.wsQueueMax},
                       {"ws_write_timeout_ms", c.wsWriteTimeoutMs},
                       {"ws_send_buffer", c.wsSendBuffer},
                       {"ws_allowed_origins", c.wsAllowedOrigins},
                       {"fetch_allow_networks", c.fetchAllowNetworks},
                       {"console_dir", c.consoleDir},
                       {"etl_bin_dirs", c.effectiveEtlBinDirs()},
                       {"error_burst_per_sec", c.errorBurstPerSec},
                       {"archive_max_members", c.archiveMaxMembers},
                       {"archive_max_member_size", c.archiveMaxMemberSize},
                       {"archive_max_total_size", c.archiveMaxTotalSize},
                       {"archive_max_compression_ratio", c.archiveMaxCompressionRatio},
                       {"archive_index_cache_bytes", c.archiveIndexCacheBytes},
                       {"archive_index", c.archiveIndex},
                       {"open_object_cache", c.openObjectCache},
                       {"open_object_cache_ttl_ms", c.openObjectCacheTtlMs},
                       {"auth", {{"enabled", c.authEnabled}}},
                       {"tls", {{"cert_file", c.tlsCertFile}, {"key_file", c.tlsKeyFile}, {"ca_file", c.tlsCaFile}}}};
}

namespace {
api::Status applyFile(const std::string& path, Config& c)
{
    std::ifstream in(path);
    if (!in) return api::Error::badRequest("cannot read config file " + path);
    std::stringstream ss;
    ss << in.rdbuf();
    auto j = nlohmann::json::parse(ss.str(), nullptr, false);
    if (j.is_discarded() || !j.is_object()) return api::Error::badRequest("config file is not a JSON object: " + path);
    try {
        for (const auto& [k, v] : j.items()) {
            if (k == "role") v.get_to(c.role);
            else if (k == "host") v.get_to(c.host);
            else if (k == "port") v.get_to(c.port);
            else if (k == "s3_port") v.get_to(c.s3Port);
            else if (k == "s3_keys_file") v.get_to(c.s3KeysFile);
            else if (k == "s3_virtual_host") v.get_to(c.s3VirtualHost);
            else if (k == "proxy_url") v.get_to(c.proxyUrl);
            else if (k == "data_dir") v.get_to(c.dataDir);
            else if (k == "mountpaths") v.get_to(c.mountpaths);
            else if (k == "port_file") v.get_to(c.portFile);
            else if (k == "log_level") v.get_to(c.logLevel);
            else if (k == "fsync") v.get_to(c.fsync);
            else if (k == "commit_log") v.get_to(c.commitLog);
            else if (k == "commit_log_checkpoint_ms") v.get_to(c.commitLogCheckpointMs);
            else if (k == "keepalive_interval_ms") v.get_to(c.keepaliveIntervalMs);
            else if (k == "keepalive_max_missed") v.get_to(c.keepaliveMaxMissed);
            else if (k == "io_threads") v.get_to(c.ioThreads);
            else if (k == "worker_threads") v.get_to(c.workerThreads);
            else if (k == "max_connections") v.get_to(c.maxConnections);
            else if (k == "max_connections_per_address") v.get_to(c.maxConnectionsPerAddress);
            else if (k == "header_timeout_ms") v.get_to(c.headerTimeoutMs);
            else if (k == "idle_timeout_ms") v.get_to(c.idleTimeoutMs);
            else if (k == "io_timeout_ms") v.get_to(c.ioTimeoutMs);
            else if (k == "peer_timeout_ms") v.get_to(c.peerTimeoutMs);
            else if (k == "list_timeout_ms") v.get_to(c.listTimeoutMs);
            else if (k == "max_object_size") v.get_to(c.maxObjectSize);
            else if (k == "op_stats") v.get_to(c.opStats);
            else if (k == "cluster_key_file") v.get_to(c.clusterKeyFile);
            else if (k == "tombstone_ttl_ms") v.get_to(c.tombstoneTtlMs);
            else if (k == "drain_timeout_ms") v.get_to(c.drainTimeoutMs);
            else if (k == "rebalance_auto") v.get_to(c.rebalanceAuto);
            else if (k == "rebalance_delay_ms") v.get_to(c.rebalanceDelayMs);
            else if (k == "scrub_interval_ms") v.get_to(c.scrubIntervalMs);
            else if (k == "usage_scan_interval_ms") v.get_to(c.usageScanIntervalMs);
            else if (k == "stats_interval_ms") v.get_to(c.statsIntervalMs);
            else if (k == "ws_max_sessions") v.get_to(c.wsMaxSessions);
            else if (k == "ws_queue_max") v.get_to(c.wsQueueMax);
            else if (k == "ws_write_timeout_ms") v.get_to(c.wsWriteTimeoutMs);
            else if (k == "ws_send_buffer") v.get_to(c.wsSendBuffer);
            else if (k == "ws_allowed_origins") v.get_to(c.wsAllowedOrigins);
            else if (k == "fetch_allow_networks") v.get_to(c.fetchAllowNetworks);
            else if (k == "console_dir") v.get_to(c.consoleDir);
            else if (k == "etl_bin_dirs") v.get_to(c.etlBinDirs);
            else if (k == "error_burst_per_sec") v.get_to(c.errorBurstPerSec);
            else if (k == "archive_max_members") v.get_to(c.archiveMaxMembers);
            else if (k == "archive_max_member_size") v.get_to(c.archiveMaxMemberSize);
            else if (k == "archive_max_total_size") v.get_to(c.archiveMaxTotalSize);
            else if (k == "archive_max_compression_ratio") v.get_to(c.archiveMaxCompressionRatio);
            else if (k == "archive_index_cache_bytes") v.get_to(c.archiveIndexCacheBytes);
            else if (k == "archive_index") v.get_to(c.archiveIndex);
            else if (k == "open_object_cache") v.get_to(c.openObjectCache);
            else if (k == "open_object_cache_ttl_ms") v.get_to(c.openObjectCacheTtlMs);
            else if (k == "auth") {
                if (!v.is_object()) return api::Error::badRequest("config field \"auth\" is not an object in " + path);
                for (const auto& [ak, av] : v.items()) {
                    if (ak == "enabled") av.get_to(c.authEnabled);
                    else return api::Error::badRequest("unknown config field \"auth." + ak + "\" in " + path);
                }
            } else if (k == "tls") {
                if (!v.is_object()) return api::Error::badRequest("config field \"tls\" is not an object in " + path);
                for (const auto& [tk, tv] : v.items()) {
                    if (tk == "cert_file") tv.get_to(c.tlsCertFile);
                    else if (tk == "key_file") tv.get_to(c.tlsKeyFile);
                    else if (tk == "ca_file") tv.get_to(c.tlsCaFile);
                    else return api::Error::badRequest("unknown config field \"tls." + tk + "\" in " + path);
                }
            } else return api::Error::badRequest("unknown config field \"" + k + "\" in " + path);
        }
    } catch (const nlohmann::json::exception& e) {
        return api::Error::badRequest("config file " + path + ": " + e.what());
    }
    return {};
}
}  // namespace

api::Result<Config> parseConfig(int argc, char** argv, std::string& helpText)
{
    Config c;
    po::options_description desc("tessera-node options");
    // clang-format off
    desc.add_options()
        ("help,h", "show this help")
        ("config", po::value<std::string>(), "JSON config file (flags override it)")
        ("role", po::value<std::string>(), "proxy | target")
        ("host", po::value<std::string>(), "listen and advertised address (default 127.0.0.1)")
        ("port", po::value<int>(), "listen port; 0 picks a free one (default: proxy 8080, target 8081)")
        ("port-file", po::value<std::string>(), "write the bound port to this file")
        ("s3-port", po::value<int>(), "proxy: also serve S3 at the root of this port (default off; docs/s3.md)")
        ("s3-keys-file", po::value<std::string>(), "proxy: S3 access keys (JSON; docs/s3.md)")
        ("s3-virtual-host", po::value<std::string>(),
         "proxy: S3 virtual-host style: a Host of BUCKET.<this name> addresses the bucket (docs/s3.md)")
        ("proxy-url", po::value<std::string>(), "target: the proxy to join, e.g. http://127.0.0.1:8080")
        ("data-dir", po::value<std::string>(), "node state directory (id, database)")
        ("mountpath", po::value<std::vector<std::string>>(), "target: object storage directory (repeatable)")
        ("fsync", po::value<bool>(), "fsync objects before acknowledging PUT (default true)")
        ("commit-log", po::value<bool>(),
         "target, with fsync: small objects (<= 64 KiB) are made durable through a commit log, one fdatasync per "
         "group of PUTs (default true; docs/reliability.md)")
        ("commit-log-checkpoint-ms", po::value<std::int64_t>(),
         "target: the longest a commit log's records wait for their checkpoint, 10..3600000 (default 2000)")
        ("keepalive-interval-ms", po::value<std::int64_t>(), "keepalive period (default 2000)")
        ("keepalive-max-missed", po::value<int>(), "missed keepalives before a target is dropped (default 3)")
        ("io-threads", po::value<unsigned>(), "I/O threads (default: cores)")
        ("worker-threads", po::value<unsigned>(), "worker threads (default: max(4, 2 x cores))")
        ("max-connections", po::value<std::size_t>(), "connection cap (default 1024)")
        ("max-connections-per-address", po::value<std::size_t>(), "one client address's share of the connections, 0 = half of max-connections (default 0)")
        ("header-timeout-ms", po::value<std::int64_t>(), "with half the connections taken, the longest wait for a whole request head, 100..600000 (default 10000)")
        ("peer-timeout-ms", po::value<std::int64_t>(), "node-to-node call timeout (default 5000)")
        ("list-timeout-ms", po::value<std::int64_t>(), "proxy: the longest wait for a target's listing page, 100..600000 (default 60000)")
        ("max-object-size", po::value<std::uint64_t>(), "largest accepted object in bytes (default 1 TiB)")
        ("rebalance-auto", po::value<bool>(), "proxy: rebalance by itself after targets join or leave (default true)")
        ("rebalance-delay-ms", po::value<std::int64_t>(), "proxy: ... once the targets stayed the same this long (default 2000)")
        ("scrub-interval-ms", po::value<std::int64_t>(), "proxy: scrub every bucket this often (default 0: never)")
        ("op-stats", po::value<bool>(), "count data-path operations (default true; off only to measure the cost)")
        ("cluster-key-file", po::value<std::string>(), "file holding the cluster's secret key (proxy default: <data-dir>/cluster.key, created at first start; targets: required)")
        ("tombstone-ttl-ms", po::value<std::int64_t>(), "target: how long a deleted object's tombstone is kept, 60000..31536000000 (default 86400000)")
        ("drain-timeout-ms", po::value<std::int64_t>(), "target: on SIGTERM, the longest wait for requests in flight, 0..600000 (default 30000)")
        ("usage-scan-interval-ms", po::value<std::int64_t>(), "target: recount objects per bucket this often, 0 = at start only (default 60000)")
        ("stats-interval-ms", po::value<std::int64_t>(), "proxy: metrics cadence, 250..10000 (default 1000)")
        ("ws-max-sessions", po::value<std::size_t>(), "proxy: feed sessions at once (default 64)")
        ("ws-queue-max", po::value<std::size_t>(), "proxy: unsent feed messages per session (default 256)")
        ("ws-write-timeout-ms", po::value<std::int64_t>(), "proxy: a stalled feed write drops the session (default 10000)")
        ("ws-send-buffer", po::value<int>(), "proxy: SO_SNDBUF of feed sockets, 0 = kernel default")
        ("ws-allowed-origin", po::value<std::vector<std::string>>(), "proxy: browser Origin allowed on the feed (repeatable)")
        ("fetch-allow-network", po::value<std::vector<std::string>>(),
         "proxy: a loopback/link-local/private network (CIDR) a fetch of a user's URL may reach (repeatable)")
        ("console-dir", po::value<std::string>(), "proxy: the web console's built files, served at /console/ (default: beside the executable)")
        ("error-burst-per-sec", po::value<double>(), "proxy: errors/s on a node that raise an event (default 10, 0 = off)")
        ("archive-max-members", po::value<std::uint64_t>(), "target: members in one shard, 1..100000000 (default 1000000)")
        ("archive-max-member-size", po::value<std::uint64_t>(), "target: bytes of one shard member (default 4 GiB)")
        ("archive-max-total-size", po::value<std::uint64_t>(), "target: bytes of all members of one shard (default 64 GiB)")
        ("archive-max-compression-ratio", po::value<std::uint64_t>(), "target: expanded/compressed bytes of a shard, 1..100000 (default 200)")
        ("archive-index-cache-bytes", po::value<std::uint64_t>(), "target: memory for .tar offset indexes (default 64 MiB)")
        ("archive-index", po::value<bool>(), "target: use .tar offset indexes (default true; off only to measure them)")
        ("open-object-cache", po::value<std::uint64_t>(), "target: objects kept open for the next read, 0..1000000 (default 4096; 0: off)")
        ("open-object-cache-ttl-ms", po::value<std::uint64_t>(), "target: longest an object stays open unused by a change, 1..3600000 ms (default 5000)")
        ("etl-bin-dir", po::value<std::vector<std::string>>(), "target: a directory ETL transformers may run from (repeatable; default: the sample transformers and <data-dir>/etl-bin)")
        ("auth-enabled", po::value<bool>(), "require tokens and permissions (default false: the node is open to anyone)")
        ("tls-cert-file", po::value<std::string>(), "serve HTTPS with this PEM certificate chain (with --tls-key-file; re-read at SIGHUP)")
        ("tls-key-file", po::value<std::string>(), "the PEM private key of --tls-cert-file")
        ("tls-ca-file", po::value<std::string>(), "PEM CAs trusted when calling other nodes over HTTPS (default: the system's)")
        ("log-level", po::value<std::string>(), "debug | info | warn | error");
    // clang-format on
    po::variables_map vm;
    try {
        po::store(po::parse_command_line(argc, argv, desc), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        std::ostringstream os;
        os << e.what() << "\n" << desc;
        return api::Error::badRequest(os.str());
    }
    if (vm.count("help")) {
        std::ostringstream os;
        os << desc;
        helpText = os.str();
        return api::Error::notFound("help");
    }
    if (vm.count("config")) {
        auto st = applyFile(vm["config"].as<std::string>(), c);
        if (!st) return st.error();
    }
    if (vm.count("role")) c.role = vm["role"].as<std::string>();
    if (vm.count("host")) c.host = vm["host"].as<std::string>();
    if (vm.count("port")) c.port = vm["port"].as<int>();
    if (vm.count("port-file")) c.portFile = vm["port-file"].as<std::string>();
    if (vm.count("s3-port")) c.s3Port = vm["s3-port"].as<int>();
    if (vm.count("s3-keys-file")) c.s3KeysFile = vm["s3-keys-file"].as<std::string>();
    if (vm.count("s3-virtual-host")) c.s3VirtualHost = vm["s3-virtual-host"].as<std::string>();
    if (vm.count("proxy-url")) c.proxyUrl = vm["proxy-url"].as<std::string>();
    if (vm.count("data-dir")) c.dataDir = vm["data-dir"].as<std::string>();
    if (vm.count("mountpath")) c.mountpaths = vm["mountpath"].as<std::vector<std::string>>();
    if (vm.count("fsync")) c.fsync = vm["fsync"].as<bool>();
    if (vm.count("commit-log")) c.commitLog = vm["commit-log"].as<bool>();
    if (vm.count("commit-log-checkpoint-ms"))
        c.commitLogCheckpointMs = vm["commit-log-checkpoint-ms"].as<std::int64_t>();
    if (vm.count("keepalive-interval-ms")) c.keepaliveIntervalMs = vm["keepalive-interval-ms"].as<std::int64_t>();
    if (vm.count("keepalive-max-missed")) c.keepaliveMaxMissed = vm["keepalive-max-missed"].as<int>();
    if (vm.count("io-threads")) c.ioThreads = vm["io-threads"].as<unsigned>();
    if (vm.count("worker-threads")) c.workerThreads = vm["worker-threads"].as<unsigned>();
    if (vm.count("max-connections")) c.maxConnections = vm["max-connections"].as<std::size_t>();
    if (vm.count("max-connections-per-address")) {
        c.maxConnectionsPerAddress = vm["max-connections-per-address"].as<std::size_t>();
    }
    if (vm.count("header-timeout-ms")) c.headerTimeoutMs = vm["header-timeout-ms"].as<std::int64_t>();
    if (vm.count("peer-timeout-ms")) c.peerTimeoutMs = vm["peer-timeout-ms"].as<std::int64_t>();
    if (vm.count("list-timeout-ms")) c.listTimeoutMs = vm["list-timeout-ms"].as<std::int64_t>();
    if (vm.count("max-object-size")) c.maxObjectSize = vm["max-object-size"].as<std::uint64_t>();
    if (vm.count("log-level")) c.logLevel = vm["log-level"].as<std::string>();
    if (vm.count("auth-enabled")) c.authEnabled = vm["auth-enabled"].as<bool>();
    if (vm.count("tls-cert-file")) c.tlsCertFile = vm["tls-cert-file"].as<std::string>();
    if (vm.count("tls-key-file")) c.tlsKeyFile = vm["tls-key-file"].as<std::string>();
    if (vm.count("tls-ca-file")) c.tlsCaFile = vm["tls-ca-file"].as<std::string>();
    if (vm.count("op-stats")) c.opStats = vm["op-stats"].as<bool>();
    if (vm.count("cluster-key-file")) c.clusterKeyFile = vm["cluster-key-file"].as<std::string>();
    if (vm.count("tombstone-ttl-ms")) c.tombstoneTtlMs = vm["tombstone-ttl-ms"].as<std::int64_t>();
    if (vm.count("drain-timeout-ms")) c.drainTimeoutMs = vm["drain-timeout-ms"].as<std::int64_t>();
    if (vm.count("rebalance-auto")) c.rebalanceAuto = vm["rebalance-auto"].as<bool>();
    if (vm.count("rebalance-delay-ms")) c.rebalanceDelayMs = vm["rebalance-delay-ms"].as<std::int64_t>();
    if (vm.count("scrub-interval-ms")) c.scrubIntervalMs = vm["scrub-interval-ms"].as<std::int64_t>();
    if (vm.count("usage-scan-interval-ms")) c.usageScanIntervalMs = vm["usage-scan-interval-ms"].as<std::int64_t>();
    if (vm.count("stats-interval-ms")) c.statsIntervalMs = vm["stats-interval-ms"].as<std::int64_t>();
    if (vm.count("ws-max-sessions")) c.wsMaxSessions = vm["ws-max-sessions"].as<std::size_t>();
    if (vm.count("ws-queue-max")) c.wsQueueMax = vm["ws-queue-max"].as<std::size_t>();
    if (vm.count("ws-write-timeout-ms")) c.wsWriteTimeoutMs = vm["ws-write-timeout-ms"].as<std::int64_t>();
    if (vm.count("ws-send-buffer")) c.wsSendBuffer = vm["ws-send-buffer"].as<int>();
    if (vm.count("etl-bin-dir")) c.etlBinDirs = vm["etl-bin-dir"].as<std::vector<std::string>>();
    if (vm.count("ws-allowed-origin")) c.wsAllowedOrigins = vm["ws-allowed-origin"].as<std::vector<std::string>>();
    if (vm.count("fetch-allow-network")) {
        c.fetchAllowNetworks = vm["fetch-allow-network"].as<std::vector<std::string>>();
    }
    if (vm.count("console-dir")) c.consoleDir = vm["console-dir"].as<std::string>();
    if (vm.count("error-burst-per-sec")) c.errorBurstPerSec = vm["error-burst-per-sec"].as<double>();
    if (vm.count("archive-max-members")) c.archiveMaxMembers = vm["archive-max-members"].as<std::uint64_t>();
    if (vm.count("archive-max-member-size")) c.archiveMaxMemberSize = vm["archive-max-member-size"].as<std::uint64_t>();
    if (vm.count("archive-max-total-size")) c.archiveMaxTotalSize = vm["archive-max-total-size"].as<std::uint64_t>();
    if (vm.count("archive-max-compression-ratio")) {
        c.archiveMaxCompressionRatio = vm["archive-max-compression-ratio"].as<std::uint64_t>();
    }
    if (vm.count("archive-index-cache-bytes")) {
        c.archiveIndexCacheBytes = vm["archive-index-cache-bytes"].as<std::uint64_t>();
    }
    if (vm.count("archive-index")) c.archiveIndex = vm["archive-index"].as<bool>();
    if (vm.count("open-object-cache")) c.openObjectCache = vm["open-object-cache"].as<std::uint64_t>();
    if (vm.count("open-object-cache-ttl-ms"))
        c.openObjectCacheTtlMs = vm["open-object-cache-ttl-ms"].as<std::uint64_t>();

    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    if (c.ioThreads == 0) c.ioThreads = cores;
    if (c.workerThreads == 0) c.workerThreads = std::max(4u, 2 * cores);
    auto st = validateConfig(c);
    if (!st) return st.error();
    return c;
}

api::Status validateConfig(const Config& c)
{
    if (c.role != "proxy" && c.role != "target") return api::Error::badRequest("--role must be proxy or target");
    if (c.port < -1 || c.port > 65535) return api::Error::badRequest("--port must be 0..65535");
    if (c.dataDir.empty()) return api::Error::badRequest("--data-dir is required");
    if (c.role == "target") {
        if (c.mountpaths.empty()) return api::Error::badRequest("a target needs at least one --mountpath");
        if (c.proxyUrl.empty()) return api::Error::badRequest("a target needs --proxy-url");
        if (c.clusterKeyFile.empty()) {
            return api::Error::badRequest(
                "a target needs --cluster-key-file (the proxy writes its key to "
                "<proxy data dir>/cluster.key at first start)");
        }
    }
    for (const auto& n : c.fetchAllowNetworks) {
        if (auto parsed = net::IpNetwork::parse(n); !parsed) {
            return api::Error::badRequest("fetch_allow_networks: " + parsed.error().message);
        }
    }
    if (c.tlsCertFile.empty() != c.tlsKeyFile.empty()) {
        return api::Error::badRequest(
            "TLS needs both --tls-cert-file and --tls-key-file (tls.cert_file, tls.key_file)");
    }
    if (c.role == "target" && !c.proxyUrl.empty() && c.tlsEnabled() && c.proxyUrl.rfind("https://", 0) != 0) {
        return api::Error::badRequest(
            "a target serving TLS joins its proxy over TLS too: --proxy-url must be https://");
    }
    if (c.tombstoneTtlMs < 60000 || c.tombstoneTtlMs > 31'536'000'000LL) {
        return api::Error::badRequest("tombstone TTL must be 60000..31536000000 ms");
    }
    if (c.drainTimeoutMs < 0 || c.drainTimeoutMs > 600000) {
        return api::Error::badRequest("drain timeout must be 0..600000 ms");
    }
    if (c.keepaliveIntervalMs < 50 || c.keepaliveIntervalMs > 600000) {
        return api::Error::badRequest("keepalive interval must be 50..600000 ms");
    }
    if (c.keepaliveMaxMissed < 1 || c.keepaliveMaxMissed > 100) {
        return api::Error::badRequest("keepalive max missed must be 1..100");
    }
    if (c.s3Port < -1 || c.s3Port > 65535) return api::Error::badRequest("s3 port must be -1 (off) or 1..65535");
    if (!c.s3VirtualHost.empty()) {
        if (auto bad = s3::checkVirtualHostSuffix(c.s3VirtualHost)) return api::Error::badRequest(*bad);
    }
    if (c.peerTimeoutMs < 100 || c.peerTimeoutMs > 600000) {
        return api::Error::badRequest("peer timeout must be 100..600000 ms");
    }
    if (c.commitLogCheckpointMs < 10 || c.commitLogCheckpointMs > 3600000) {
        return api::Error::badRequest("commit log checkpoint must be 10..3600000 ms");
    }
    if (c.listTimeoutMs < 100 || c.listTimeoutMs > 600000) {
        return api::Error::badRequest("list timeout must be 100..600000 ms");
    }
    if (c.maxConnections < 1) return api::Error::badRequest("max connections must be at least 1");
    if (c.maxConnectionsPerAddress > c.maxConnections) {
        return api::Error::badRequest("max connections per address must be 0..max connections");
    }
    if (c.headerTimeoutMs < 100 || c.headerTimeoutMs > 600000) {
        return api::Error::badRequest("header timeout must be 100..600000 ms");
    }
    // Thread counts are checked after the 0 -> default substitution.
    if (c.ioThreads > 256) return api::Error::badRequest("io threads must be 0..256");
    if (c.workerThreads > 1024) return api::Error::badRequest("worker threads must be 0..1024");
    if (c.idleTimeoutMs < 100 || c.idleTimeoutMs > 86400000) {
        return api::Error::badRequest("idle timeout must be 100..86400000 ms");
    }
    if (c.ioTimeoutMs < 100 || c.ioTimeoutMs > 86400000) {
        return api::Error::badRequest("io timeout must be 100..86400000 ms");
    }
    if (c.scrubIntervalMs != 0 && (c.scrubIntervalMs < 60000 || c.scrubIntervalMs > 30LL * 24 * 3600 * 1000)) {
        return api::Error::badRequest("scrub interval must be 0 (never) or 60000..2592000000 ms");
    }
    if (c.rebalanceDelayMs < 0 || c.rebalanceDelayMs > 600000) {
        return api::Error::badRequest("rebalance delay must be 0..600000 ms");
    }
    if (c.usageScanIntervalMs != 0 && (c.usageScanIntervalMs < 1000 || c.usageScanIntervalMs > 86400000)) {
        return api::Error::badRequest("usage scan interval must be 0 or 1000..86400000 ms");
    }
    if (c.statsIntervalMs < 250 || c.statsIntervalMs > 10000) {
        return api::Error::badRequest("stats interval must be 250..10000 ms");
    }
    if (c.wsMaxSessions < 1 || c.wsMaxSessions > 10000)
        return api::Error::badRequest("ws max sessions must be 1..10000");
    if (c.wsQueueMax < 8 || c.wsQueueMax > 100000) return api::Error::badRequest("ws queue max must be 8..100000");
    if (c.wsWriteTimeoutMs < 100 || c.wsWriteTimeoutMs > 600000) {
        return api::Error::badRequest("ws write timeout must be 100..600000 ms");
    }
    if (c.wsSendBuffer != 0 && (c.wsSendBuffer < 4096 || c.wsSendBuffer > (64 << 20))) {
        return api::Error::badRequest("ws send buffer must be 0 or 4096..67108864 bytes");
    }
    if (!(c.errorBurstPerSec >= 0 && c.errorBurstPerSec <= 1e9)) {
        return api::Error::badRequest("error burst threshold must be 0..1e9 per second");
    }
    if (c.archiveMaxMembers < 1 || c.archiveMaxMembers > 100'000'000) {
        return api::Error::badRequest("archive max members must be 1..100000000");
    }
    // Not checked against max_object_size: a shard member can never be
    // bigger than its shard, which that limit bounds anyway.
    if (c.archiveMaxMemberSize < 1) return api::Error::badRequest("archive max member size must be at least 1 byte");
    if (c.archiveMaxTotalSize < c.archiveMaxMemberSize) {
        return api::Error::badRequest("archive max total size must be at least the archive max member size");
    }
    if (c.archiveMaxCompressionRatio < 1 || c.archiveMaxCompressionRatio > 100'000) {
        return api::Error::badRequest("archive max compression ratio must be 1..100000");
    }
    if (c.openObjectCache > 1'000'000) {
        return api::Error::badRequest("open object cache must be 0..1000000 objects (0: off)");
    }
    if (c.openObjectCacheTtlMs < 1 || c.openObjectCacheTtlMs > 3'600'000) {
        return api::Error::badRequest("open object cache TTL must be 1..3600000 ms");
    }
    if (c.archiveIndexCacheBytes > (std::uint64_t{64} << 30)) {
        return api::Error::badRequest("archive index cache must be 0..68719476736 bytes (0: no cache)");
    }
    if (c.logLevel != "debug" && c.logLevel != "info" && c.logLevel != "warn" && c.logLevel != "error") {
        return api::Error::badRequest("--log-level must be debug, info, warn or error");
    }
    return {};
}

}  // namespace tessera::daemon
