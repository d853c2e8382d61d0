#pragma once
// The cluster map (Smap): every node, its URL, and a version that grows with
// each membership change. The proxy owns it; targets hold copies.

#include "result.h"

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::api {

inline constexpr std::string_view kRoleProxy = "proxy";
inline constexpr std::string_view kRoleTarget = "target";

// AIStore's meta.NetInfo (core/meta/snode_wire.go).
struct NetInfo {
    std::string host;  // JSON: node_ip_addr
    int port = 0;      // JSON: daemon_port, a decimal string as AIStore writes it (a number is read too)
    std::string url;   // JSON: direct_url, e.g. "http://127.0.0.1:8081"
    bool operator==(const NetInfo&) const = default;
};

// Snode::flags bits. A target that missed its keepalives is *away*: it
// stays in the map and keeps owning its objects (requests for them answer
// 503 naming it) until it returns or an operator decommissions it. Moving
// ownership to a peer while the owner may come back with acknowledged data
// is what loses writes and undoes deletes.
inline constexpr std::uint64_t kSnodeAway = std::uint64_t{1} << 16;
// A target an operator (or the target itself, draining on SIGTERM) put in
// maintenance: unavailable exactly like an away one, but on purpose, so no
// rebalance is due for it. Set by start-maintenance, cleared by
// stop-maintenance and by the target's next join.
inline constexpr std::uint64_t kSnodeMaintenance = std::uint64_t{1} << 17;
// A present target an operator decommissions (a planned move): leaving for
// good, it serves what it holds but owns nothing. Placement (api::hrwTarget
// and the copy and slice sets) skips it, so the rebalance moves everything
// it holds to the others, and the proxy removes it from the map once that
// rebalance ended without errors. It is not away: reads of what it still
// holds reach it (peers look for a moved object on every target present),
// and it takes part in jobs. Kept across its rejoins.
inline constexpr std::uint64_t kSnodeDecommissioning = std::uint64_t{1} << 18;

// AIStore's own Snode flag bits (core/meta/smap.go): Tessera writes them
// beside its own (maintenance -> SnodeMaint, decommissioning ->
// SnodeDecomm) so AIStore's clients skip such nodes, and drops them when
// reading (its own bits say the same).
inline constexpr std::uint64_t kAisSnodeMaint = 1u << 2;
inline constexpr std::uint64_t kAisSnodeDecomm = 1u << 3;

// AIStore's meta.Snode. JSON as AIStore writes it: public_net,
// intra_control_net and intra_data_net (Tessera has one network: all three
// are the public one), daemon_type, daemon_id, flags, id_digest (AIStore's
// xxhash64 of the id with seed 1103515245; computed, never read).
struct Snode {
    std::string id;           // JSON: daemon_id
    std::string type;         // JSON: daemon_type, "proxy" | "target"
    NetInfo publicNet;        // JSON: public_net
    std::uint64_t flags = 0;  // JSON: flags (absent: 0)
    // Not serving: missed its keepalives or in maintenance. Every "away"
    // path (503 naming it, incomplete listings, waiting rebalance) uses this.
    bool away() const { return (flags & (kSnodeAway | kSnodeMaintenance)) != 0; }
    bool inMaintenance() const { return (flags & kSnodeMaintenance) != 0; }
    bool missedKeepalives() const { return (flags & kSnodeAway) != 0; }
    bool decommissioning() const { return (flags & kSnodeDecommissioning) != 0; }
    // Placement may choose it to own objects or hold copies and slices. An
    // away target still does: it keeps owning its objects until it returns.
    bool placement() const { return !decommissioning(); }
    // The same node at the same address, whatever its flags.
    bool sameIdentity(const Snode& o) const { return id == o.id && type == o.type && publicNet == o.publicNet; }
    bool operator==(const Snode&) const = default;
};

// AIStore's meta.Smap: {"pmap","proxy_si","tmap","uuid","creation_time",
// "version"} with the version a decimal string. Reading also takes the
// older Tessera form ("primary", a numeric version).
struct Smap {
    std::int64_t version = 0;  // JSON: version, a decimal string
    std::string uuid;
    std::string creationTime;           // JSON: creation_time, "2006-01-02 15:04:05" (UTC)
    Snode primary;                      // JSON: proxy_si
    std::map<std::string, Snode> pmap;  // id -> proxy
    std::map<std::string, Snode> tmap;  // id -> target

    const Snode* findTarget(std::string_view id) const;
    // Targets not marked away (nor in maintenance); a decommissioning one counts.
    std::size_t activeTargetCount() const;
    // Targets placement may choose (not decommissioning), away ones included.
    std::size_t placementTargetCount() const;
    std::size_t targetCount() const { return tmap.size(); }
};

void to_json(nlohmann::json& j, const NetInfo& v);
void from_json(const nlohmann::json& j, NetInfo& v);
void to_json(nlohmann::json& j, const Snode& v);
void from_json(const nlohmann::json& j, Snode& v);
void to_json(nlohmann::json& j, const Smap& v);
void from_json(const nlohmann::json& j, Smap& v);

// AIStore's Snode.IDDigest: xxhash64(id, seed 1103515245).
std::uint64_t snodeIdDigest(std::string_view id);

Result<Smap> parseSmap(std::string_view json);
Result<Snode> parseSnode(std::string_view json);

}  // namespace tessera::api
