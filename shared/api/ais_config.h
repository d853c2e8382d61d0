#pragma once
// A node's configuration as AIStore sends it (cmn/config.go, NVIDIA/aistore
// 583e772):
//   GET /v1/cluster?what=cluster_config  cmn.ClusterConfig (api.GetClusterConfig,
//        `ais show config cluster`)
//   GET /v1/daemon?what=config           cmn.Config: LocalConfig and ClusterConfig
//        inline (api.GetDaemonConfig via /v1/reverse/daemon, `ais show config NODE`)
// Every section Go always writes is there (the optional ones, absent when
// AIStore's defaults hold, are left out). Filled from Tessera's own
// configuration: proxy.primary_url, net.http (TLS files, use_https),
// timeout.cplane_operation (peer_timeout_ms), timeout.max_keepalive
// (keepalive interval x missed), timeout.send_file_time (io_timeout_ms),
// auth.client_auth_required (auth.enabled), versioning.enabled (Tessera
// versions every object), uuid (the cluster map's), and the local part
// (host, port, mountpaths, data directory). The rest is at its neutral
// value: durations "0s", sizes "0B", counts 0, flags false, strings "",
// features "0", config_version "1" (Tessera's configuration is not
// versioned), resilver.enabled false (a mountpath change needs a rebalance
// started by hand).

#include "ais_go_types.h"
#include "wire.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tessera::api {

// What a node knows of its configuration (daemon/app fills it in).
struct AisConfigSource {
    std::string host;
    int port = 0;
    std::vector<std::string> mountpaths;  // targets
    std::string dataDir;
    std::string tlsCertFile, tlsKeyFile, tlsCaFile;
    bool authEnabled = false;
    std::int64_t peerTimeoutMs = 0;
    std::int64_t keepaliveMaxMs = 0;  // keepalive interval x missed
    std::int64_t ioTimeoutMs = 0;
    std::string primaryUrl;
    std::string clusterUuid;
};

struct AisProxyConf {
    std::string primaryUrl, originalUrl, discoveryUrl;
    bool nonElectable = false;
    bool operator==(const AisProxyConf&) const = default;
};

struct AisHttpConf {
    std::string serverCrt, serverKey, clientCa;
    std::int64_t clientAuthTls = 0;
    std::string domainTls;
    std::string idleConnTime = "0s", backendIdleConnTime = "0s";  // cos.Duration
    std::int64_t idleConnsPerHost = 0, idleConns = 0, writeBufferSize = 0, readBufferSize = 0;
    bool useHttps = false, skipVerify = false, chunked = false;
    bool operator==(const AisHttpConf&) const = default;
};

struct AisNetConf {
    std::string l4Proto = "tcp";
    std::int64_t sndRcvBufSize = 0;
    AisHttpConf http;
    bool useIpv6 = false;
    bool operator==(const AisNetConf&) const = default;
};

struct AisTimeoutConf {
    std::string cplaneOperation = "0s", maxKeepalive = "0s", maxHostBusy = "0s", startup = "0s", joinAtStartup = "0s",
                sendFile = "0s";
    bool operator==(const AisTimeoutConf&) const = default;
};

struct AisMemsysConf {
    std::string minFree = "0B", defaultBuf = "0B", toGc = "0B", hkTime = "0s";
    std::int64_t minPctTotal = 0, minPctFree = 0;
    bool operator==(const AisMemsysConf&) const = default;
};

// cmn.ClusterConfig: its always-written sections.
struct AisClusterConfig {
    bool clientAuthRequired = false;  // auth
    std::string uuid;
    std::string lastUpdated;  // lastupdate_time
    AisProxyConf proxy;
    AisNetConf net;
    AisTimeoutConf timeout;
    AisMemsysConf memsys;
    GoIntString features;
    GoIntString version{1};  // config_version
    bool versioningEnabled = true, versioningValidateWarmGet = false, versioningSync = false;
    bool resilverEnabled = false;
    bool operator==(const AisClusterConfig&) const = default;
};

// cmn.Config: LocalConfig and ClusterConfig in one object.
struct AisConfig {
    std::map<std::string, std::string> fspaths;  // mountpath -> label
    std::string confDir, logDir;
    std::string testFspRoot;
    std::int64_t testFspCount = 0, testFspInstance = 0;
    std::string hostname, hostnameIntraControl, hostnameIntraData;
    GoIntString port, portIntraControl, portIntraData;
    AisClusterConfig cluster;
    bool operator==(const AisConfig&) const = default;
};

void readFields(FieldReader& r, AisProxyConf& v);
void readFields(FieldReader& r, AisHttpConf& v);
void readFields(FieldReader& r, AisNetConf& v);
void readFields(FieldReader& r, AisTimeoutConf& v);
void readFields(FieldReader& r, AisMemsysConf& v);
void to_json(nlohmann::json& j, const AisClusterConfig& v);
void readFields(FieldReader& r, AisClusterConfig& v);
void to_json(nlohmann::json& j, const AisConfig& v);
void readFields(FieldReader& r, AisConfig& v);

AisClusterConfig aisClusterConfig(const AisConfigSource& s);
AisConfig aisConfig(const AisConfigSource& s);

}  // namespace tessera::api
