#pragma once
// A node's status and system information as AIStore sends them
// (NVIDIA/aistore 583e772):
//   GET /v1/daemon?what=node_status  stats.NodeStatus (stats/api_wire.go), what
//        `ais show cluster` and the Python SDK's cluster().get_performance()
//        read (through the proxy: /v1/reverse/daemon with ais-node-id)
//   GET /v1/daemon?what=sysinfo      a target's apc.TSysInfo, a proxy's
//        apc.MemCPUInfo (api/apc/sys.go, api/apc/actmsg.go)
//   GET /v1/cluster?what=sysinfo     apc.ClusterSysInfo (api.GetClusterSysInfo)
// Built from Tessera's node statistics (api::NodeStats) and the machine's
// (AisMachine). What Tessera does not know is at AIStore's neutral value:
// build_time "", k8s_pod_name "", a mountpath's label and disks empty, its
// fs name and type "" (FsID is the device's major and minor), cpu_throttled
// 0, no mem/proc details, the BMD uuid "" and the RMD and EtlMD versions 0;
// the config version is 1 (as cluster_config says). cs_err names a
// disabled mountpath.

#include "ais_go_types.h"
#include "node_stats.h"
#include "smap.h"
#include "wire.h"

#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::api {

// AIStore's /v1/reverse/daemon: the id of the node the proxy asks.
inline constexpr std::string_view kHdrNodeId = "ais-node-id";

// sys.LoadAvg (sys/loadavg.go): no json tags, Go's field names.
struct AisLoadAvg {
    double one = 0, five = 0, fifteen = 0;
    bool operator==(const AisLoadAvg&) const = default;
};

// apc.MemCPUInfo.
struct AisMemCpuInfo {
    std::uint64_t memUsed = 0;   // this process's resident memory
    std::uint64_t memAvail = 0;  // the machine's available memory
    double pctMemUsed = 0;       // memUsed of the machine's total, %
    double pctCpuUsed = 0;       // this process's CPU since the previous sample (100 = one core)
    AisLoadAvg loadAvg;
    std::int64_t cpuUtil = 0;       // the machine's CPU utilization since the previous sample, %
    std::int64_t cpuThrottled = 0;  // omitempty
    bool operator==(const AisMemCpuInfo&) const = default;
};

// apc.CapacityInfo.
struct AisCapacityInfo {
    GoIntString used;   // fs_used
    GoIntString total;  // fs_capacity
    double pctUsed = 0;
    bool operator==(const AisCapacityInfo&) const = default;
};

// apc.TSysInfo: MemCPUInfo and CapacityInfo embedded (one flat object).
struct AisTargetSysInfo {
    AisMemCpuInfo memCpu;
    AisCapacityInfo capacity;
    bool operator==(const AisTargetSysInfo&) const = default;
};

// apc.ClusterSysInfo.
struct AisClusterSysInfo {
    std::map<std::string, AisMemCpuInfo> proxy;
    std::map<std::string, AisTargetSysInfo> target;
    bool operator==(const AisClusterSysInfo&) const = default;
};

// fs.CDF (fs/api.go) with cos.FS (no json tags) and fs.Capacity embedded.
struct AisCdf {
    std::string label;
    std::string fs, fsType;
    std::array<std::int32_t, 2> fsId{};
    std::vector<std::string> disks;
    GoIntString used, avail;
    std::int32_t pctUsed = 0;
    bool operator==(const AisCdf&) const = default;
};

// fs.Tcdf.
struct AisTcdf {
    std::map<std::string, AisCdf> mountpaths;  // null when none (a proxy)
    std::string csErr;
    GoIntString totalUsed, totalAvail;
    std::int32_t pctMax = 0, pctAvg = 0, pctMin = 0;
    bool operator==(const AisTcdf&) const = default;
};

// cos.NodeStateInfo (cmn/cos/node_state.go).
struct AisNodeStateInfo {
    std::string primaryPubUrl, primaryCtrlUrl, primaryId;  // smap.Primary (no json tag: "Primary")
    std::string smapUuid;
    std::int64_t smapVersion = 0;
    std::string bmdUuid;
    std::int64_t bmdVersion = 0;
    std::int64_t rmdVersion = 0;
    std::int64_t configVersion = 0;
    std::int64_t etlmdVersion = 0;
    std::uint64_t flags = 0;  // cos.NodeStateFlags
    bool operator==(const AisNodeStateInfo&) const = default;
};

// cos.NodeStateFlags bits Tessera sets.
inline constexpr std::uint64_t kAisClusterStarted = 1u << 1;
inline constexpr std::uint64_t kAisNodeStarted = 1u << 2;
inline constexpr std::uint64_t kAisMaintenanceMode = 1u << 10;
inline constexpr std::uint64_t kAisLowCapacity = 1u << 11;
inline constexpr std::uint64_t kAisDiskFault = 1u << 13;
inline constexpr std::uint64_t kAisDiskOOS = 1u << 22;

// stats.NodeStatus: stats.Node (snode, tracker, capacity) flattened in.
struct AisNodeStatus {
    std::string status;  // "", "maintenance", "decommission"
    std::string deployment = "linux";
    std::string version;  // ais_version
    std::string buildTime;
    std::string k8sPodName;
    Snode snode;
    std::map<std::string, std::int64_t> tracker;  // metric name -> {"v": "<n>"}
    AisTcdf capacity;
    AisNodeStateInfo cluster;
    AisMemCpuInfo sysInfo;
    std::int64_t smapVersion = 0;
    bool operator==(const AisNodeStatus&) const = default;
};

// apc.MountpathList (GET /v1/daemon?what=mountpaths on a target; the
// cluster form maps target ids to it). Tessera never waits for a detach.
struct AisMountpathList {
    std::vector<std::string> available;
    std::vector<std::string> waitingDd;  // waiting_dd
    std::vector<std::string> disabled;
    bool operator==(const AisMountpathList&) const = default;
};

// meta.RemAisVec (GET /v1/cluster?what=remote): Tessera attaches no remote
// clusters, so always empty.
struct AisRemAisVec {
    std::vector<nlohmann::json> a;  // meta.RemAis: never filled
    std::int64_t ver = 0;
    bool operator==(const AisRemAisVec&) const = default;
};

void to_json(nlohmann::json& j, const AisMountpathList& v);
void readFields(FieldReader& r, AisMountpathList& v);
void to_json(nlohmann::json& j, const AisRemAisVec& v);
void readFields(FieldReader& r, AisRemAisVec& v);
void to_json(nlohmann::json& j, const AisLoadAvg& v);
void readFields(FieldReader& r, AisLoadAvg& v);
void to_json(nlohmann::json& j, const AisMemCpuInfo& v);
void readFields(FieldReader& r, AisMemCpuInfo& v);
void to_json(nlohmann::json& j, const AisTargetSysInfo& v);
void readFields(FieldReader& r, AisTargetSysInfo& v);
void to_json(nlohmann::json& j, const AisClusterSysInfo& v);
void readFields(FieldReader& r, AisClusterSysInfo& v);
void to_json(nlohmann::json& j, const AisCdf& v);
void readFields(FieldReader& r, AisCdf& v);
void to_json(nlohmann::json& j, const AisTcdf& v);
void readFields(FieldReader& r, AisTcdf& v);
void to_json(nlohmann::json& j, const AisNodeStateInfo& v);
void readFields(FieldReader& r, AisNodeStateInfo& v);
void to_json(nlohmann::json& j, const AisNodeStatus& v);
void readFields(FieldReader& r, AisNodeStatus& v);

// The machine as a node samples it (daemon/stats/system_usage.h).
struct AisMachine {
    std::uint64_t memTotal = 0;
    std::uint64_t memAvailable = 0;
    AisLoadAvg loadAvg;
    double processCpuPercent = 0;  // since the previous sample
    double machineCpuPercent = 0;  // ditto
};

AisMemCpuInfo aisMemCpuInfo(const NodeStats& st, const AisMachine& m);
AisMountpathList aisMountpathList(const NodeStats& st);
// The mountpaths' capacity, each filesystem counted once (mountpaths on one
// filesystem share its space).
AisCapacityInfo aisCapacityInfo(const NodeStats& st);
AisTcdf aisTcdf(const NodeStats& st);
// The counters under AIStore's metric names: get.n, put.n, head.n, del.n,
// lst.n and their err.*.n, get.size, put.size, get.bps/put.bps (cumulative
// bytes, as AIStore's tracker carries them), get/put/head.ns.total,
// up.ns.time, state.flags.
std::map<std::string, std::int64_t> aisTracker(const NodeStats& st, std::uint64_t flags);
// `self` as it is in `smap` (its flags); `version`: Tessera's.
AisNodeStatus aisNodeStatus(const NodeStats& st, const Snode& self, const Smap& smap, std::int64_t bmdVersion,
                            const AisMachine& m, std::string version);

}  // namespace tessera::api
