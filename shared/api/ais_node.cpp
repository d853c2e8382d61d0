#include "ais_node.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace tessera::api {

namespace {

// Go's `,string` on a uint64 byte count.
GoIntString bytesString(std::uint64_t v) { return {static_cast<std::int64_t>(std::min<std::uint64_t>(v, INT64_MAX))}; }

double percent(std::uint64_t part, std::uint64_t whole)
{
    return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

// {"v": "123"} (stats.copyValue).
struct TrackerValue {
    GoIntString v;
};
void readFields(FieldReader& r, TrackerValue& t) { r.required("v", t.v); }

void writeMemCpu(nlohmann::json& j, const AisMemCpuInfo& v)
{
    j["mem_used"] = v.memUsed;
    j["mem_avail"] = v.memAvail;
    j["pct_mem_used"] = v.pctMemUsed;
    j["pct_cpu_used"] = v.pctCpuUsed;
    j["load_avg"] = v.loadAvg;
    j["cpu_util"] = v.cpuUtil;
    if (v.cpuThrottled != 0) j["cpu_throttled"] = v.cpuThrottled;
}

void readMemCpu(FieldReader& r, AisMemCpuInfo& v)
{
    r.required("mem_used", v.memUsed)
        .required("mem_avail", v.memAvail)
        .required("pct_mem_used", v.pctMemUsed)
        .required("pct_cpu_used", v.pctCpuUsed)
        .required("load_avg", v.loadAvg)
        .required("cpu_util", v.cpuUtil)
        .optional("cpu_throttled", v.cpuThrottled)
        .ignore("mem")    // *sys.MemStat, omitempty: Tessera sends none
        .ignore("proc");  // *sys.ProcStats, ditto
}

// Embedded structs without json tags: Go writes their fields by name.
struct PrimaryWire {
    std::string pubUrl, ctrlUrl, id;
};
void readFields(FieldReader& r, PrimaryWire& v)
{
    r.required("pub_url", v.pubUrl).required("control_url", v.ctrlUrl).required("id", v.id);
}
struct SmapStateWire {
    PrimaryWire primary;
    std::string uuid;
    GoIntString version;
};
void readFields(FieldReader& r, SmapStateWire& v)
{
    r.required("Primary", v.primary).required("uuid", v.uuid).required("version", v.version);
}
struct BmdStateWire {
    std::string uuid;
    GoIntString version;
};
void readFields(FieldReader& r, BmdStateWire& v) { r.required("uuid", v.uuid).required("version", v.version); }
struct VersionWire {
    GoIntString version;
};
void readFields(FieldReader& r, VersionWire& v) { r.required("version", v.version); }

struct FsWire {
    std::string fs, fsType;
    std::array<std::int32_t, 2> fsId{};
};
// cos.FsID marshals as "a,b".
std::string fsIdText(const std::array<std::int32_t, 2>& id)
{
    return std::to_string(id[0]) + "," + std::to_string(id[1]);
}

void readFields(FieldReader& r, FsWire& v)
{
    std::string id;
    r.required("Fs", v.fs).required("FsType", v.fsType).required("FsID", id);
    int a = 0, b = 0, used = 0;
    if (r.ok() && (std::sscanf(id.c_str(), "%d,%d%n", &a, &b, &used) != 2 || used != static_cast<int>(id.size()))) {
        r.fail(r.pointerTo("FsID"), "must be two integers separated by a comma");
    }
    v.fsId = {a, b};
}

}  // namespace

void to_json(nlohmann::json& j, const AisMountpathList& v)
{
    j = {{"available", v.available}, {"waiting_dd", v.waitingDd}, {"disabled", v.disabled}};
}

void readFields(FieldReader& r, AisMountpathList& v)
{
    r.optional("available", v.available).optional("waiting_dd", v.waitingDd).optional("disabled", v.disabled);
}

void to_json(nlohmann::json& j, const AisRemAisVec& v) { j = {{"a", v.a}, {"ver", v.ver}}; }

void readFields(FieldReader& r, AisRemAisVec& v) { r.optional("a", v.a).required("ver", v.ver); }

AisMountpathList aisMountpathList(const NodeStats& st)
{
    AisMountpathList out;
    for (const auto& mp : st.mountpaths) {
        const bool disabled = mp.state == MountpathState::Error && mp.error.starts_with("disabled");
        (disabled ? out.disabled : out.available).push_back(mp.path);
    }
    return out;
}

void to_json(nlohmann::json& j, const AisLoadAvg& v) { j = {{"One", v.one}, {"Five", v.five}, {"Fifteen", v.fifteen}}; }

void readFields(FieldReader& r, AisLoadAvg& v)
{
    r.required("One", v.one).required("Five", v.five).required("Fifteen", v.fifteen);
}

void to_json(nlohmann::json& j, const AisMemCpuInfo& v)
{
    j = nlohmann::json::object();
    writeMemCpu(j, v);
}

void readFields(FieldReader& r, AisMemCpuInfo& v) { readMemCpu(r, v); }

void to_json(nlohmann::json& j, const AisTargetSysInfo& v)
{
    j = nlohmann::json::object();
    writeMemCpu(j, v.memCpu);
    j["fs_used"] = v.capacity.used;
    j["fs_capacity"] = v.capacity.total;
    j["pct_fs_used"] = v.capacity.pctUsed;
}

void readFields(FieldReader& r, AisTargetSysInfo& v)
{
    readMemCpu(r, v.memCpu);
    r.required("fs_used", v.capacity.used)
        .required("fs_capacity", v.capacity.total)
        .required("pct_fs_used", v.capacity.pctUsed);
}

void to_json(nlohmann::json& j, const AisClusterSysInfo& v) { j = {{"proxy", v.proxy}, {"target", v.target}}; }

void readFields(FieldReader& r, AisClusterSysInfo& v) { r.required("proxy", v.proxy).required("target", v.target); }

void to_json(nlohmann::json& j, const AisCdf& v)
{
    j = {{"mountpath_label", v.label}, {"fs", {{"Fs", v.fs}, {"FsType", v.fsType}, {"FsID", fsIdText(v.fsId)}}},
         {"disks", v.disks},           {"used", v.used},
         {"avail", v.avail},           {"pct_used", v.pctUsed}};
}

void readFields(FieldReader& r, AisCdf& v)
{
    FsWire fs;
    r.required("mountpath_label", v.label)
        .required("fs", fs)
        .optional("disks", v.disks)  // a nil slice is null
        .required("used", v.used)
        .required("avail", v.avail)
        .required("pct_used", v.pctUsed);
    v.fs = fs.fs;
    v.fsType = fs.fsType;
    v.fsId = fs.fsId;
}

void to_json(nlohmann::json& j, const AisTcdf& v)
{
    j = {{"mountpaths", v.mountpaths.empty() ? nlohmann::json() : nlohmann::json(v.mountpaths)},
         {"cs_err", v.csErr},
         {"total_used", v.totalUsed},
         {"total_avail", v.totalAvail},
         {"pct_max", v.pctMax},
         {"pct_avg", v.pctAvg},
         {"pct_min", v.pctMin}};
}

void readFields(FieldReader& r, AisTcdf& v)
{
    r.optional("mountpaths", v.mountpaths)  // a nil map is null
        .required("cs_err", v.csErr)
        .required("total_used", v.totalUsed)
        .required("total_avail", v.totalAvail)
        .required("pct_max", v.pctMax)
        .required("pct_avg", v.pctAvg)
        .required("pct_min", v.pctMin);
}

void to_json(nlohmann::json& j, const AisNodeStateInfo& v)
{
    j = {{"smap",
          {{"Primary", {{"pub_url", v.primaryPubUrl}, {"control_url", v.primaryCtrlUrl}, {"id", v.primaryId}}},
           {"uuid", v.smapUuid},
           {"version", std::to_string(v.smapVersion)}}},
         {"bmd", {{"uuid", v.bmdUuid}, {"version", std::to_string(v.bmdVersion)}}},
         {"rmd", {{"version", std::to_string(v.rmdVersion)}}},
         {"config", {{"version", std::to_string(v.configVersion)}}},
         {"etlmd", {{"version", std::to_string(v.etlmdVersion)}}},
         {"flags", v.flags}};
}

void readFields(FieldReader& r, AisNodeStateInfo& v)
{
    SmapStateWire smap;
    BmdStateWire bmd;
    VersionWire rmd, config, etlmd;
    r.required("smap", smap)
        .required("bmd", bmd)
        .required("rmd", rmd)
        .required("config", config)
        .required("etlmd", etlmd)
        .required("flags", v.flags);
    v.primaryPubUrl = smap.primary.pubUrl;
    v.primaryCtrlUrl = smap.primary.ctrlUrl;
    v.primaryId = smap.primary.id;
    v.smapUuid = smap.uuid;
    v.smapVersion = smap.version.value;
    v.bmdUuid = bmd.uuid;
    v.bmdVersion = bmd.version.value;
    v.rmdVersion = rmd.version.value;
    v.configVersion = config.version.value;
    v.etlmdVersion = etlmd.version.value;
}

void to_json(nlohmann::json& j, const AisNodeStatus& v)
{
    nlohmann::json tracker = nlohmann::json::object();
    for (const auto& [k, n] : v.tracker) tracker[k] = {{"v", std::to_string(n)}};
    j = {{"status", v.status},
         {"deployment", v.deployment},
         {"ais_version", v.version},
         {"build_time", v.buildTime},
         {"k8s_pod_name", v.k8sPodName},
         {"snode", v.snode},
         {"tracker", std::move(tracker)},
         {"capacity", v.capacity},
         {"cluster", v.cluster},
         {"sys_info", v.sysInfo},
         {"smap_version", std::to_string(v.smapVersion)}};
}

void readFields(FieldReader& r, AisNodeStatus& v)
{
    std::map<std::string, TrackerValue> tracker;
    GoIntString smapVersion;
    r.ignore("rebalance_snap")  // *core.Snap, omitempty: Tessera sends none
        .required("status", v.status)
        .required("deployment", v.deployment)
        .required("ais_version", v.version)
        .required("build_time", v.buildTime)
        .required("k8s_pod_name", v.k8sPodName)
        .required("snode", v.snode)
        .required("tracker", tracker)
        .required("capacity", v.capacity)
        .required("cluster", v.cluster)
        .required("sys_info", v.sysInfo)
        .required("smap_version", smapVersion);
    v.tracker.clear();
    for (const auto& [k, t] : tracker) v.tracker[k] = t.v.value;
    v.smapVersion = smapVersion.value;
}

AisMemCpuInfo aisMemCpuInfo(const NodeStats& st, const AisMachine& m)
{
    AisMemCpuInfo out;
    out.memUsed = st.rssBytes;
    out.memAvail = m.memAvailable;
    out.pctMemUsed = percent(st.rssBytes, m.memTotal);
    out.pctCpuUsed = m.processCpuPercent;
    out.loadAvg = m.loadAvg;
    out.cpuUtil = static_cast<std::int64_t>(m.machineCpuPercent + 0.5);
    return out;
}

AisCapacityInfo aisCapacityInfo(const NodeStats& st)
{
    std::set<std::string> seen;
    std::uint64_t used = 0, total = 0;
    for (const auto& mp : st.mountpaths) {
        if (!mp.fs.empty() && !seen.insert(mp.fs).second) continue;
        used += mp.used;
        total += mp.total;
    }
    return {bytesString(used), bytesString(total), percent(used, total)};
}

AisTcdf aisTcdf(const NodeStats& st)
{
    AisTcdf out;
    std::set<std::string> seen;
    std::uint64_t used = 0, avail = 0;
    std::int32_t pmin = 100, pmax = 0;
    std::int64_t psum = 0;
    for (const auto& mp : st.mountpaths) {
        AisCdf c;
        unsigned major = 0, minor = 0;
        if (std::sscanf(mp.fs.c_str(), "%u:%u", &major, &minor) == 2) {
            c.fsId = {static_cast<std::int32_t>(major), static_cast<std::int32_t>(minor)};
        }
        c.used = bytesString(mp.used);
        c.avail = bytesString(mp.available);
        c.pctUsed = static_cast<std::int32_t>(mp.usedPercent());
        pmin = std::min(pmin, c.pctUsed);
        pmax = std::max(pmax, c.pctUsed);
        psum += c.pctUsed;
        if (mp.fs.empty() || seen.insert(mp.fs).second) {
            used += mp.used;
            avail += mp.available;
        }
        if (mp.state == MountpathState::Error && out.csErr.empty()) out.csErr = mp.path + ": " + mp.error;
        out.mountpaths.emplace(mp.path, std::move(c));
    }
    out.totalUsed = bytesString(used);
    out.totalAvail = bytesString(avail);
    if (!st.mountpaths.empty()) {
        out.pctMax = pmax;
        out.pctMin = pmin;
        out.pctAvg = static_cast<std::int32_t>(psum / static_cast<std::int64_t>(st.mountpaths.size()));
    }
    return out;
}

std::map<std::string, std::int64_t> aisTracker(const NodeStats& st, std::uint64_t flags)
{
    std::map<std::string, std::int64_t> t;
    const auto n = [](std::uint64_t v) { return static_cast<std::int64_t>(std::min<std::uint64_t>(v, INT64_MAX)); };
    const std::pair<OpKind, const char*> kinds[] = {{OpKind::Get, "get"},
                                                    {OpKind::Put, "put"},
                                                    {OpKind::Head, "head"},
                                                    {OpKind::Delete, "del"},
                                                    {OpKind::List, "lst"}};
    for (const auto& [kind, name] : kinds) {
        const auto& op = st.op(kind);
        t[std::string(name) + ".n"] = n(op.n);
        t["err." + std::string(name) + ".n"] = n(op.errors);
    }
    t["get.size"] = n(st.op(OpKind::Get).bytes);
    t["put.size"] = n(st.op(OpKind::Put).bytes);
    t["get.bps"] = n(st.op(OpKind::Get).bytes);
    t["put.bps"] = n(st.op(OpKind::Put).bytes);
    t["get.ns.total"] = n(st.op(OpKind::Get).ns);
    t["put.ns.total"] = n(st.op(OpKind::Put).ns);
    t["head.ns.total"] = n(st.op(OpKind::Head).ns);
    t["up.ns.time"] = std::max<std::int64_t>(st.uptimeNs, 0);
    t["state.flags"] = n(flags);
    return t;
}

AisNodeStatus aisNodeStatus(const NodeStats& st, const Snode& self, const Smap& smap, std::int64_t bmdVersion,
                            const AisMachine& m, std::string version)
{
    AisNodeStatus out;
    Snode me = self;
    if (auto it = smap.tmap.find(self.id); it != smap.tmap.end()) me = it->second;
    else if (auto p = smap.pmap.find(self.id); p != smap.pmap.end()) me = p->second;
    if (me.inMaintenance()) out.status = "maintenance";
    else if (me.decommissioning()) out.status = "decommission";
    out.version = std::move(version);
    out.snode = me;
    out.capacity = aisTcdf(st);
    out.sysInfo = aisMemCpuInfo(st, m);
    out.smapVersion = smap.version;

    auto& c = out.cluster;
    c.primaryPubUrl = smap.primary.publicNet.url;
    c.primaryCtrlUrl = smap.primary.publicNet.url;  // one network
    c.primaryId = smap.primary.id;
    c.smapUuid = smap.uuid;
    c.smapVersion = smap.version;
    c.bmdVersion = bmdVersion;
    c.configVersion = 1;  // as cluster_config's config_version: Tessera's configuration is not versioned
    std::uint64_t flags = kAisNodeStarted;
    if (!smap.tmap.empty() || self.type == kRoleProxy) flags |= kAisClusterStarted;
    if (me.inMaintenance()) flags |= kAisMaintenanceMode;
    for (const auto& mp : st.mountpaths) {
        if (mp.state == MountpathState::NearlyFull) flags |= kAisLowCapacity;
        if (mp.state == MountpathState::Full) flags |= kAisDiskOOS;
        if (mp.state == MountpathState::Error) flags |= kAisDiskFault;
    }
    c.flags = flags;
    out.tracker = aisTracker(st, flags);
    return out;
}

}  // namespace tessera::api
