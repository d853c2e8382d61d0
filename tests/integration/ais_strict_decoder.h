#pragma once
// A strict decoder of AIStore's answers, written from AIStore's own Go
// struct tags (NVIDIA/aistore 583e772; the file of each type is named
// beside it): a field without `omitempty` is one Go's encoder always
// writes, so it is required; a field AIStore does not have is an error;
// `,string` numbers must be decimal strings; msgpack types use msgp's short
// keys. It checks shapes only: what the values must be is up to the test.

#include <cstdint>
#include <nlohmann/json.hpp>
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
    Any,  // Go any / raw: not checked
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

}  // namespace tessera::tests::ais
