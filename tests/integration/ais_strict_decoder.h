#pragma once
// A strict decoder of AIStore's answers, written from AIStore's own Go
// struct tags (NVIDIA/aistore 583e772; the file of each type is named
// beside it): a field without `omitempty` is one Go's encoder always
// writes, so it is required; a field AIStore does not have is an error;
// `,string` numbers must be decimal strings; msgpack types use msgp's short
// keys. It checks shapes only: what the values must be is up to the test.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

namespace tessera::tests::ais {

enum class Kind {
    String,     // Go string
    IntString,  // Go int64 with `,string`: a decimal string
    Int,        // Go int*: a JSON integer
    Uint,       // Go uint*: a JSON integer >= 0
    Bool,
    Object,   // a nested struct: `sub`
    MapOf,    // Go map[string]*T: an object whose values are `sub`
    ArrayOf,  // Go []*T (null allowed, as Go writes a nil slice): `sub`
    StringArray,
    Any,       // Go any / raw: not checked
    Number,    // Go float64
    Time,      // Go time.Time: an RFC 3339 string
    Duration,  // cos.Duration: Go's duration text ("0s", "1m30s")
    Size,      // cos.SizeIEC: a size text ("0B", "10MiB")
};

struct Schema;
struct Field {
    std::string name;
    Kind kind;
    bool required;  // no `omitempty` in the Go tag
    const Schema* sub = nullptr;
    bool nullable = false;  // a Go pointer or slice: null allowed
};
struct Schema {
    std::string goType;  // e.g. "cmn.LsoRes (cmn/objlist.go)"
    std::vector<Field> fields;
};

// Every deviation, with its JSON pointer; empty when `v` is a `schema`.
inline void check(const nlohmann::json& v, const Schema& schema, const std::string& at, std::vector<std::string>& out)
{
    if (!v.is_object()) {
        out.push_back(at + ": " + schema.goType + " must be an object");
        return;
    }
    for (const auto& [k, x] : v.items()) {
        bool known = false;
        for (const auto& f : schema.fields) known = known || f.name == k;
        if (!known) out.push_back(at + "/" + k + ": not a field of " + schema.goType);
    }
    for (const auto& f : schema.fields) {
        const auto p = at + "/" + f.name;
        auto it = v.find(f.name);
        if (it == v.end()) {
            if (f.required) out.push_back(p + ": missing (required in " + schema.goType + ")");
            continue;
        }
        const auto& x = *it;
        if (x.is_null() && (f.nullable || f.kind == Kind::Any)) continue;
        switch (f.kind) {
        case Kind::String:
            if (!x.is_string()) out.push_back(p + ": must be a string");
            break;
        case Kind::IntString: {
            const bool ok = x.is_string() && !x.get_ref<const std::string&>().empty() &&
                            x.get_ref<const std::string&>().find_first_not_of("-0123456789") == std::string::npos;
            if (!ok) out.push_back(p + ": must be a decimal string (`,string` in " + schema.goType + ")");
            break;
        }
        case Kind::Int:
            if (!x.is_number_integer()) out.push_back(p + ": must be an integer");
            break;
        case Kind::Uint:
            if (!x.is_number_unsigned()) out.push_back(p + ": must be a non-negative integer");
            break;
        case Kind::Bool:
            if (!x.is_boolean()) out.push_back(p + ": must be true or false");
            break;
        case Kind::Object: check(x, *f.sub, p, out); break;
        case Kind::MapOf:
            if (!x.is_object()) out.push_back(p + ": must be an object");
            else
                for (const auto& [k, e] : x.items()) check(e, *f.sub, p + "/" + k, out);
            break;
        case Kind::ArrayOf:
            if (!x.is_array()) out.push_back(p + ": must be an array");
            else
                for (std::size_t i = 0; i < x.size(); ++i) check(x[i], *f.sub, p + "/" + std::to_string(i), out);
            break;
        case Kind::StringArray:
            if (!x.is_array()) out.push_back(p + ": must be an array of strings");
            else
                for (const auto& e : x)
                    if (!e.is_string()) out.push_back(p + ": must be an array of strings");
            break;
        case Kind::Any: break;
        case Kind::Number:
            if (!x.is_number()) out.push_back(p + ": must be a number");
            break;
        case Kind::Time: {
            static const std::regex re(R"(^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$)");
            if (!x.is_string() || !std::regex_match(x.get<std::string>(), re))
                out.push_back(p + ": must be an RFC 3339 time (Go time.Time)");
            break;
        }
        case Kind::Duration: {
            static const std::regex re(R"(^-?((\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+|0)$)");
            if (!x.is_string() || !std::regex_match(x.get<std::string>(), re))
                out.push_back(p + ": must be a Go duration (cos.Duration)");
            break;
        }
        case Kind::Size: {
            static const std::regex re(R"(^\d+(\.\d+)?([KMGTP]i?)?B?$)");
            if (!x.is_string() || !std::regex_match(x.get<std::string>(), re))
                out.push_back(p + ": must be a size (cos.SizeIEC)");
            break;
        }
        }
    }
}

inline std::vector<std::string> check(const nlohmann::json& v, const Schema& schema)
{
    std::vector<std::string> out;
    check(v, schema, "", out);
    return out;
}

// --- cmn/objlist.go --------------------------------------------------------
inline const Schema kLsoEnt{"cmn.LsoEnt (cmn/objlist.go)",
                            {{"name", Kind::String, true},
                             {"checksum", Kind::String, false},
                             {"atime", Kind::String, false},
                             {"version", Kind::String, false},
                             {"location", Kind::String, false},
                             {"custom-md", Kind::String, false},
                             {"size", Kind::IntString, false},
                             {"copies", Kind::Int, false},
                             {"flags", Kind::Uint, false}}};
inline const Schema kLsoRes{"cmn.LsoRes (cmn/objlist.go)",
                            {{"uuid", Kind::String, true},
                             {"continuation_token", Kind::String, true},
                             {"entries", Kind::ArrayOf, true, &kLsoEnt, true},
                             {"flags", Kind::Uint, true}}};
// The msgpack form (cmn/objlist_gen.go): LsoEnt's `msg:` short keys, the
// size an integer; LsoRes without msg tags, so its Go field names.
inline const Schema kLsoEntMsgp{"cmn.LsoEnt msgpack (cmn/objlist_gen.go)",
                                {{"n", Kind::String, true},
                                 {"cs", Kind::String, false},
                                 {"a", Kind::String, false},
                                 {"v", Kind::String, false},
                                 {"t", Kind::String, false},
                                 {"m", Kind::String, false},
                                 {"s", Kind::Int, false},
                                 {"c", Kind::Int, false},
                                 {"f", Kind::Uint, false}}};
inline const Schema kLsoResMsgp{"cmn.LsoRes msgpack (cmn/objlist_gen.go)",
                                {{"UUID", Kind::String, true},
                                 {"ContinuationToken", Kind::String, true},
                                 {"Entries", Kind::ArrayOf, true, &kLsoEntMsgp, true},
                                 {"Flags", Kind::Uint, true}}};

// --- core/meta/snode_wire.go, core/meta/smap.go -----------------------------
inline const Schema kNetInfo{
    "meta.NetInfo (core/meta/snode_wire.go)",
    {{"node_ip_addr", Kind::String, true}, {"daemon_port", Kind::String, true}, {"direct_url", Kind::String, true}}};
inline const Schema kSnode{"meta.Snode (core/meta/snode_wire.go)",
                           {{"public_net", Kind::Object, true, &kNetInfo},
                            {"intra_data_net", Kind::Object, true, &kNetInfo},
                            {"intra_control_net", Kind::Object, true, &kNetInfo},
                            {"daemon_type", Kind::String, true},
                            {"daemon_id", Kind::String, true},
                            {"pub_extra", Kind::ArrayOf, false, &kNetInfo, true},
                            {"flags", Kind::Uint, true},
                            {"id_digest", Kind::Uint, true},
                            {"verifying_key", Kind::String, false}}};
inline const Schema kSmap{"meta.Smap (core/meta/smap.go)",
                          {{"ext", Kind::Any, false},
                           {"pmap", Kind::MapOf, true, &kSnode},
                           {"proxy_si", Kind::Object, true, &kSnode},
                           {"tmap", Kind::MapOf, true, &kSnode},
                           {"uuid", Kind::String, true},
                           {"creation_time", Kind::String, true},
                           {"version", Kind::IntString, true}}};

// --- cmn/bck_wire.go ------------------------------------------------------------
inline const Schema kNs{"cmn.Ns (cmn/bck_wire.go)", {{"uuid", Kind::String, true}, {"name", Kind::String, true}}};
inline const Schema kBck{
    "cmn.Bck (cmn/bck_wire.go)",
    {{"name", Kind::String, true}, {"provider", Kind::String, true}, {"namespace", Kind::Object, true, &kNs}}};

// --- cmn/api.go Bprops, its parts in cmn/config.go ------------------------------
inline const Schema kWritePolicy{"cmn.WritePolicyConf (cmn/config.go)",
                                 {{"data", Kind::String, true}, {"md", Kind::String, true}}};
inline const Schema kCksumConf{"cmn.CksumConf (cmn/config.go)",
                               {{"type", Kind::String, true},
                                {"validate_cold_get", Kind::Bool, true},
                                {"validate_warm_get", Kind::Bool, true},
                                {"validate_obj_move", Kind::Bool, true},
                                {"enable_read_range", Kind::Bool, true}}};
inline const Schema kAdaptive{"cmn.Adaptive (cmn/config.go)",
                              {{"per_op_max_tokens", Kind::String, false},
                               {"interval", Kind::String, true},
                               {"max_tokens", Kind::Int, true},
                               {"enabled", Kind::Bool, true},
                               {"num_retries", Kind::Int, true}}};
inline const Schema kBursty{"cmn.Bursty (cmn/config.go)",
                            {{"per_op_max_tokens", Kind::String, false},
                             {"interval", Kind::String, true},
                             {"max_tokens", Kind::Int, true},
                             {"enabled", Kind::Bool, true},
                             {"burst_size", Kind::Int, true}}};
inline const Schema kRateLimit{
    "cmn.RateLimitConf (cmn/config.go)",
    {{"backend", Kind::Object, true, &kAdaptive}, {"frontend", Kind::Object, true, &kBursty}}};
inline const Schema kEcConf{"cmn.ECConf (cmn/config.go, XactConf embedded)",
                            {{"compression", Kind::String, true},
                             {"bundle_multiplier", Kind::Int, true},
                             {"burst_buffer", Kind::Int, true},
                             {"objsize_limit", Kind::Int, true},
                             {"data_slices", Kind::Int, true},
                             {"parity_slices", Kind::Int, true},
                             {"enabled", Kind::Bool, true},
                             {"disk_only", Kind::Bool, true}}};
inline const Schema kChunksConf{"cmn.ChunksConf (cmn/config.go)",
                                {{"objsize_limit", Kind::String, true},
                                 {"max_monolithic_size", Kind::String, false},
                                 {"chunk_size", Kind::String, false},
                                 {"checkpoint_every", Kind::Int, false},
                                 {"flags", Kind::Uint, false}}};
inline const Schema kMirrorConf{
    "cmn.MirrorConf (cmn/config.go)",
    {{"copies", Kind::Int, true}, {"burst_buffer", Kind::Int, true}, {"enabled", Kind::Bool, true}}};
inline const Schema kLruConf{"cmn.LRUConf (cmn/config.go)",
                             {{"dont_evict_time", Kind::String, true},
                              {"capacity_upd_time", Kind::String, true},
                              {"batch_size", Kind::Int, false},
                              {"enabled", Kind::Bool, true}}};
inline const Schema kVersionConf{
    "cmn.VersionConf (cmn/config.go)",
    {{"enabled", Kind::Bool, true}, {"validate_warm_get", Kind::Bool, true}, {"synchronize", Kind::Bool, true}}};
inline const Schema kBprops{"cmn.Bprops (cmn/api.go)",
                            {{"backend_bck", Kind::Object, false, &kBck},
                             {"write_policy", Kind::Object, true, &kWritePolicy},
                             {"provider", Kind::String, true},
                             {"Renamed", Kind::String, true},  // no json tag: Go's field name
                             {"checksum", Kind::Object, true, &kCksumConf},
                             {"extra", Kind::Any, false},
                             {"rate_limit", Kind::Object, true, &kRateLimit},
                             {"ec", Kind::Object, true, &kEcConf},
                             {"chunks", Kind::Object, true, &kChunksConf},
                             {"mirror", Kind::Object, true, &kMirrorConf},
                             {"lru", Kind::Object, true, &kLruConf},
                             {"access", Kind::IntString, true},
                             {"features", Kind::IntString, true},
                             {"bid", Kind::IntString, true},
                             {"created", Kind::IntString, true},
                             {"versioning", Kind::Object, true, &kVersionConf}}};

// A schema's fields: an embedded Go struct's, then its own.
inline std::vector<Field> fieldsOf(std::vector<Field> embedded, const std::vector<Field>& own)
{
    embedded.insert(embedded.end(), own.begin(), own.end());
    return embedded;
}

// --- ext/dsort/api_metrics.go --------------------------------------------------
inline const Schema kTimeStats{"dsort.TimeStats (ext/dsort/api_metrics.go)",
                               {{"total_ms", Kind::IntString, true},
                                {"count", Kind::IntString, true},
                                {"min_ms", Kind::IntString, true},
                                {"max_ms", Kind::IntString, true},
                                {"avg_ms", Kind::IntString, true}}};
// phaseBase's fields, embedded in each phase.
inline const std::vector<Field> kPhaseBaseFields{{"started_time", Kind::Time, true},
                                                 {"end_time", Kind::Time, true},
                                                 {"elapsed", Kind::Int, true},
                                                 {"running", Kind::Bool, true},
                                                 {"finished", Kind::Bool, true}};
inline const std::vector<Field> kLocalExtractionOwn{{"total_count", Kind::IntString, true},
                                                    {"extracted_count", Kind::IntString, true},
                                                    {"extracted_size", Kind::IntString, true},
                                                    {"extracted_record_count", Kind::IntString, true},
                                                    {"extracted_to_disk_count", Kind::IntString, true},
                                                    {"extracted_to_disk_size", Kind::IntString, true}};
inline const Schema kLocalExtraction{"dsort.LocalExtraction (ext/dsort/api_metrics.go)",
                                     fieldsOf(kPhaseBaseFields, kLocalExtractionOwn)};
inline const std::vector<Field> kMetaSortingOwn{{"sent_stats", Kind::Object, false, &kTimeStats, true},
                                                {"recv_stats", Kind::Object, false, &kTimeStats, true}};
inline const Schema kMetaSorting{"dsort.MetaSorting (ext/dsort/api_metrics.go)",
                                 fieldsOf(kPhaseBaseFields, kMetaSortingOwn)};
inline const std::vector<Field> kShardCreationOwn{{"to_create", Kind::IntString, true},
                                                  {"created_count", Kind::IntString, true},
                                                  {"moved_shard_count", Kind::IntString, true},
                                                  {"req_stats", Kind::Object, false, &kTimeStats, true},
                                                  {"resp_stats", Kind::Object, false, &kTimeStats, true}};
inline const Schema kShardCreation{"dsort.ShardCreation (ext/dsort/api_metrics.go)",
                                   fieldsOf(kPhaseBaseFields, kShardCreationOwn)};
// The Python SDK (python/aistore/sdk/dsort/types.py DsortMetrics) requires
// the three phases; Go's omitempty pointers are never nil in AIStore.
inline const Schema kDsortMetrics{"dsort.Metrics (ext/dsort/api_metrics.go)",
                                  {{"local_extraction", Kind::Object, true, &kLocalExtraction},
                                   {"meta_sorting", Kind::Object, true, &kMetaSorting},
                                   {"shard_creation", Kind::Object, true, &kShardCreation},
                                   {"description", Kind::String, false},
                                   {"warnings", Kind::StringArray, false, nullptr, true},
                                   {"errors", Kind::StringArray, false, nullptr, true},
                                   {"aborted", Kind::Bool, true},  // cmn/atomic.Bool: a struct, always written
                                   {"archived", Kind::Bool, true}}};
inline const Schema kDsortJobInfo{"dsort.JobInfo (ext/dsort/api_metrics.go)",
                                  {{"id", Kind::String, true},
                                   {"src-bck", Kind::Object, true, &kBck},
                                   {"dst-bck", Kind::Object, true, &kBck},
                                   {"started_time", Kind::Time, true},  // time.Time: omitempty never omits
                                   {"finish_time", Kind::Time, true},
                                   {"started_meta_sorting", Kind::Int, false},
                                   {"started_shard_creation", Kind::Int, false},
                                   {"finished_shard_creation", Kind::Int, false},
                                   {"loc-objs", Kind::IntString, true},
                                   {"loc-bytes", Kind::IntString, true},
                                   {"Metrics", Kind::Object, true, &kDsortMetrics, true},  // no json tag
                                   {"aborted", Kind::Bool, true},
                                   {"archived", Kind::Bool, true}}};

// --- api/apc/sys.go, api/apc/actmsg.go, sys/loadavg.go -----------------------------
inline const Schema kLoadAvg{
    "sys.LoadAvg (sys/loadavg.go, no json tags)",
    {{"One", Kind::Number, true}, {"Five", Kind::Number, true}, {"Fifteen", Kind::Number, true}}};
inline const std::vector<Field> kMemCpuFields{{"mem_used", Kind::Uint, true},
                                              {"mem_avail", Kind::Uint, true},
                                              {"pct_mem_used", Kind::Number, true},
                                              {"pct_cpu_used", Kind::Number, true},
                                              {"load_avg", Kind::Object, true, &kLoadAvg},
                                              {"cpu_util", Kind::Int, true},
                                              {"cpu_throttled", Kind::Int, false},
                                              {"mem", Kind::Any, false},
                                              {"proc", Kind::Any, false}};
inline const Schema kMemCpuInfo{"apc.MemCPUInfo (api/apc/sys.go)", kMemCpuFields};
inline const std::vector<Field> kTSysInfoOwn{
    {"fs_used", Kind::IntString, true}, {"fs_capacity", Kind::IntString, true}, {"pct_fs_used", Kind::Number, true}};
inline const Schema kTSysInfo{"apc.TSysInfo (api/apc/actmsg.go: MemCPUInfo + CapacityInfo embedded)",
                              fieldsOf(kMemCpuFields, kTSysInfoOwn)};
inline const Schema kClusterSysInfo{
    "apc.ClusterSysInfo (api/apc/actmsg.go)",
    {{"proxy", Kind::MapOf, true, &kMemCpuInfo}, {"target", Kind::MapOf, true, &kTSysInfo}}};
inline const Schema kMountpathList{"apc.MountpathList (api/apc/actmsg.go)",
                                   {{"available", Kind::StringArray, true, nullptr, true},
                                    {"waiting_dd", Kind::StringArray, true, nullptr, true},
                                    {"disabled", Kind::StringArray, true, nullptr, true}}};
inline const Schema kRemAis{"meta.RemAis (core/meta/remais.go)", {}};
inline const Schema kRemAisVec{"meta.RemAisVec (core/meta/remais.go)",
                               {{"a", Kind::ArrayOf, true, &kRemAis, true}, {"ver", Kind::Int, true}}};

// --- stats/api_wire.go, fs/api.go, cmn/cos/node_state.go, cmn/cos/fs_unix.go -----
inline const Schema kCopyValue{"stats.copyValue (stats/common.go)", {{"v", Kind::IntString, true}}};
inline const Schema kCosFs{"cos.FS (cmn/cos/fs_unix.go, no json tags; FsID as \"a,b\")",
                           {{"Fs", Kind::String, true}, {"FsType", Kind::String, true}, {"FsID", Kind::String, true}}};
inline const Schema kCdf{"fs.CDF (fs/api.go, Capacity embedded)",
                         {{"mountpath_label", Kind::String, true},
                          {"fs", Kind::Object, true, &kCosFs},
                          {"disks", Kind::StringArray, true, nullptr, true},
                          {"used", Kind::IntString, true},
                          {"avail", Kind::IntString, true},
                          {"pct_used", Kind::Int, true}}};
inline const Schema kTcdf{"fs.Tcdf (fs/api.go)",
                          {{"mountpaths", Kind::MapOf, true, &kCdf, true},
                           {"cs_err", Kind::String, true},
                           {"total_used", Kind::IntString, true},
                           {"total_avail", Kind::IntString, true},
                           {"pct_max", Kind::Int, true},
                           {"pct_avg", Kind::Int, true},
                           {"pct_min", Kind::Int, true}}};
inline const Schema kPrimaryState{
    "NodeStateInfo.Smap.Primary (cmn/cos/node_state.go)",
    {{"pub_url", Kind::String, true}, {"control_url", Kind::String, true}, {"id", Kind::String, true}}};
inline const Schema kSmapState{"NodeStateInfo.Smap (cmn/cos/node_state.go)",
                               {{"Primary", Kind::Object, true, &kPrimaryState},
                                {"uuid", Kind::String, true},
                                {"version", Kind::IntString, true}}};
inline const Schema kUuidVersion{"NodeStateInfo.BMD (cmn/cos/node_state.go)",
                                 {{"uuid", Kind::String, true}, {"version", Kind::IntString, true}}};
inline const Schema kVersionOnly{"NodeStateInfo.RMD/Config/EtlMD (cmn/cos/node_state.go)",
                                 {{"version", Kind::IntString, true}}};
inline const Schema kNodeStateInfo{"cos.NodeStateInfo (cmn/cos/node_state.go)",
                                   {{"smap", Kind::Object, true, &kSmapState},
                                    {"bmd", Kind::Object, true, &kUuidVersion},
                                    {"rmd", Kind::Object, true, &kVersionOnly},
                                    {"config", Kind::Object, true, &kVersionOnly},
                                    {"etlmd", Kind::Object, true, &kVersionOnly},
                                    {"flags", Kind::Uint, true}}};
inline const Schema kNodeStatus{"stats.NodeStatus (stats/api_wire.go, stats.Node flattened)",
                                {{"rebalance_snap", Kind::Any, false},
                                 {"status", Kind::String, true},
                                 {"deployment", Kind::String, true},
                                 {"ais_version", Kind::String, true},
                                 {"build_time", Kind::String, true},
                                 {"k8s_pod_name", Kind::String, true},
                                 {"reserved1", Kind::String, false},
                                 {"reserved2", Kind::String, false},
                                 {"snode", Kind::Object, true, &kSnode, true},
                                 {"tracker", Kind::MapOf, true, &kCopyValue},
                                 {"capacity", Kind::Object, true, &kTcdf},
                                 {"cluster", Kind::Object, true, &kNodeStateInfo},
                                 {"sys_info", Kind::Object, true, &kMemCpuInfo},
                                 {"smap_version", Kind::IntString, true},
                                 {"reserved3", Kind::Int, false},
                                 {"reserved4", Kind::Int, false}}};

// --- cmn/config.go ------------------------------------------------------------------
inline const Schema kAuthConf{"cmn.AuthConf (cmn/config.go)",
                              {{"signature", Kind::Any, false},
                               {"required_claims", Kind::Any, false},
                               {"oidc", Kind::Any, false},
                               {"intra_cluster", Kind::Any, false},
                               {"client_auth_required", Kind::Bool, true}}};
inline const Schema kProxyConf{"cmn.ProxyConf (cmn/config.go)",
                               {{"primary_url", Kind::String, true},
                                {"original_url", Kind::String, true},
                                {"discovery_url", Kind::String, true},
                                {"non_electable", Kind::Bool, true}}};
inline const Schema kL4Conf{"cmn.L4Conf (cmn/config.go)",
                            {{"proto", Kind::String, true}, {"sndrcv_buf_size", Kind::Int, true}}};
inline const Schema kHttpConf{"cmn.HTTPConf (cmn/config.go, TLSConf inline)",
                              {{"server_crt", Kind::String, true},
                               {"server_key", Kind::String, true},
                               {"client_ca_tls", Kind::String, true},
                               {"client_auth_tls", Kind::Int, true},
                               {"domain_tls", Kind::String, true},
                               {"idle_conn_time", Kind::Duration, true},
                               {"backend_idle_conn_time", Kind::Duration, true},
                               {"idle_conns_per_host", Kind::Int, true},
                               {"idle_conns", Kind::Int, true},
                               {"write_buffer_size", Kind::Int, true},
                               {"read_buffer_size", Kind::Int, true},
                               {"use_https", Kind::Bool, true},
                               {"skip_verify", Kind::Bool, true},
                               {"chunked_transfer", Kind::Bool, true},
                               {"pub", Kind::Any, false}}};
inline const Schema kNetConf{
    "cmn.NetConf (cmn/config.go)",
    {{"l4", Kind::Object, true, &kL4Conf}, {"http", Kind::Object, true, &kHttpConf}, {"use_ipv6", Kind::Bool, true}}};
inline const Schema kTimeoutConf{"cmn.TimeoutConf (cmn/config.go)",
                                 {{"cplane_operation", Kind::Duration, true},
                                  {"max_keepalive", Kind::Duration, true},
                                  {"max_host_busy", Kind::Duration, true},
                                  {"startup_time", Kind::Duration, true},
                                  {"join_startup_time", Kind::Duration, true},
                                  {"send_file_time", Kind::Duration, true},
                                  {"ec_streams_time", Kind::Duration, false},
                                  {"object_md", Kind::Duration, false},
                                  {"cold_get_conflict", Kind::Duration, false}}};
inline const Schema kMemsysConf{"cmn.MemsysConf (cmn/config.go)",
                                {{"min_free", Kind::Size, true},
                                 {"default_buf", Kind::Size, true},
                                 {"to_gc", Kind::Size, true},
                                 {"hk_time", Kind::Duration, true},
                                 {"min_pct_total", Kind::Int, true},
                                 {"min_pct_free", Kind::Int, true}}};
inline const Schema kResilverConf{"cmn.ResilverConf (cmn/config.go)", {{"enabled", Kind::Bool, true}}};
// The always-written sections and the optional ones (omitempty pointers,
// not checked further: Tessera sends none).
inline const std::vector<Field> kClusterConfigFields{{"ext", Kind::Any, false},
                                                     {"tracing", Kind::Any, false},
                                                     {"distributed_sort", Kind::Any, false},
                                                     {"write_policy", Kind::Any, false},
                                                     {"checksum", Kind::Any, false},
                                                     {"tcb", Kind::Any, false},
                                                     {"tco", Kind::Any, false},
                                                     {"arch", Kind::Any, false},
                                                     {"lso", Kind::Any, false},
                                                     {"rate_limit", Kind::Any, false},
                                                     {"keepalivetracker", Kind::Any, false},
                                                     {"rebalance", Kind::Any, false},
                                                     {"log", Kind::Any, false},
                                                     {"ec", Kind::Any, false},
                                                     {"get_batch", Kind::Any, false},
                                                     {"space", Kind::Any, false},
                                                     {"transport", Kind::Any, false},
                                                     {"disk", Kind::Any, false},
                                                     {"fshc", Kind::Any, false},
                                                     {"chunks", Kind::Any, false},
                                                     {"lru", Kind::Any, false},
                                                     {"mirror", Kind::Any, false},
                                                     {"periodic", Kind::Any, false},
                                                     {"client", Kind::Any, false},
                                                     {"downloader", Kind::Any, false},
                                                     {"auth", Kind::Object, true, &kAuthConf},
                                                     {"backend", Kind::Any, true},
                                                     {"uuid", Kind::String, true},
                                                     {"lastupdate_time", Kind::String, true},
                                                     {"proxy", Kind::Object, true, &kProxyConf},
                                                     {"net", Kind::Object, true, &kNetConf},
                                                     {"timeout", Kind::Object, true, &kTimeoutConf},
                                                     {"memsys", Kind::Object, true, &kMemsysConf},
                                                     {"features", Kind::IntString, true},
                                                     {"config_version", Kind::IntString, true},
                                                     {"versioning", Kind::Object, true, &kVersionConf},
                                                     {"resilver", Kind::Object, true, &kResilverConf}};
inline const Schema kClusterConfig{"cmn.ClusterConfig (cmn/config.go)", kClusterConfigFields};
inline const Schema kFspConf{"cmn.FSPConf (cmn/config.go)", {{"paths", Kind::Any, false}}};
inline const Schema kTestFspConf{
    "cmn.TestFSPConf (cmn/config.go)",
    {{"root", Kind::String, true}, {"count", Kind::Int, true}, {"instance", Kind::Int, true}}};
inline const Schema kLocalNetConfig{"cmn.LocalNetConfig (cmn/config.go)",
                                    {{"hostname", Kind::String, true},
                                     {"hostname_intra_control", Kind::String, true},
                                     {"hostname_intra_data", Kind::String, true},
                                     {"port", Kind::IntString, true},
                                     {"port_intra_control", Kind::IntString, true},
                                     {"port_intra_data", Kind::IntString, true}}};
inline const std::vector<Field> kConfigOwn{{"fspaths", Kind::Object, true, &kFspConf},
                                           {"confdir", Kind::String, true},
                                           {"log_dir", Kind::String, true},
                                           {"test_fspaths", Kind::Object, true, &kTestFspConf},
                                           {"host_net", Kind::Object, true, &kLocalNetConfig}};
inline const Schema kConfig{"cmn.Config (cmn/config.go: LocalConfig and ClusterConfig inline)",
                            fieldsOf(kClusterConfigFields, kConfigOwn)};

// --- core/xaction_wire.go, nl/listener.go: xactions ---------------------------------
inline const Schema kXactStats{"core.Stats (core/xaction_wire.go)",
                               {{"loc-objs", Kind::IntString, true},
                                {"loc-bytes", Kind::IntString, true},
                                {"out-objs", Kind::IntString, true},
                                {"out-bytes", Kind::IntString, true},
                                {"in-objs", Kind::IntString, true},
                                {"in-bytes", Kind::IntString, true}}};
inline const Schema kXactSnap{"core.Snap (core/xaction_wire.go)",
                              {{"ext", Kind::Any, true},  // deprecated; Go still writes it (null)
                               {"start-time", Kind::Time, true},
                               {"end-time", Kind::Time, true},
                               {"bck", Kind::Object, true, &kBck},
                               {"src-bck", Kind::Object, true, &kBck},
                               {"dst-bck", Kind::Object, true, &kBck},
                               {"id", Kind::String, true},
                               {"kind", Kind::String, true},
                               {"ctlmsg", Kind::String, false},
                               {"abort-err", Kind::String, true},
                               {"err", Kind::String, true},
                               {"glob.id", Kind::IntString, true},
                               {"stats", Kind::Object, true, &kXactStats},
                               {"aborted", Kind::Bool, true},
                               {"is_idle", Kind::Bool, true}}};
inline const Schema kXactStatus{"nl.Status (nl/listener.go)",
                                {{"kind", Kind::String, true},
                                 {"uuid", Kind::String, true},
                                 {"err", Kind::String, true},
                                 {"end_time", Kind::Int, true},
                                 {"aborted", Kind::Bool, true},
                                 {"is_idle", Kind::Bool, false}}};

}  // namespace tessera::tests::ais
