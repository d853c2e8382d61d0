#pragma once
// The control messages between targets and the proxy: joining, keepalives,
// metadata pushes and health. Each is read with parseMessage (wire.h).
//
//   POST /v1/cluster/join       body Snode            answer JoinReply
//   POST /v1/cluster/keepalive  body Keepalive        answer MetaVersions
//   PUT  /v1/metasync           body Metasync         answer MetaVersions
//   GET  /v1/health                                   answer Health

#include "auth_msg.h"
#include "bmd.h"
#include "etl_msg.h"
#include "smap.h"
#include "wire.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::api {

// A target's heartbeat, with the metadata versions it holds.
struct Keepalive {
    std::string daemonId;  // JSON: daemon_id
    std::int64_t smapVersion = 0;
    std::int64_t bmdVersion = 0;
    std::int64_t etlVersion = 0;
    bool operator==(const Keepalive&) const = default;
};

// The versions a node holds: the proxy's answer to a keepalive (a target
// behind pulls the maps), a target's answer to a metasync.
struct MetaVersions {
    std::int64_t smapVersion = 0;
    std::int64_t bmdVersion = 0;
    std::int64_t etlVersion = 0;  // the ETL registry's
    bool operator==(const MetaVersions&) const = default;
};

// New cluster metadata pushed by the proxy; any part may be absent. With
// auth on, every push carries the proxy's whole revoked-token list and its
// token-key ring (a revocation or a key change pushes them alone), so a
// target that missed one push has them again with the next; targets merge
// the list into theirs and take a newer ring.
struct Metasync {
    std::optional<Smap> smap;
    std::optional<Bmd> bmd;
    std::optional<EtlMd> etl;
    std::optional<RevokedTokens> revoked;
    std::optional<TokenKeyRing> tokenKeys;  // JSON: token_keys
};

// What a joining target receives: the maps it needs before serving.
// With auth on it carries the revoked-token list and the token-key ring too.
struct JoinReply {
    Smap smap;
    Bmd bmd;
    EtlMd etl;
    std::optional<RevokedTokens> revoked;
    std::optional<TokenKeyRing> tokenKeys;  // JSON: token_keys
};

// GET /v1/health answers like AIStore's: 200 (a target: 503 until it is in
// the cluster map) and no body. With ?detail=true (Tessera's own) the body
// is this document: a target's status "joining" until it is in the cluster
// map; the proxy adds how many targets the map has.
inline bool wantsHealthDetail(std::string_view detail) { return detail == "true" || detail == "1"; }
struct Health {
    std::string status;  // "ok" | "joining"
    std::string role;    // "proxy" | "target"
    std::string daemonId;
    std::int64_t smapVersion = 0;
    std::optional<std::uint64_t> targets;  // proxies only
    bool operator==(const Health&) const = default;
};

void to_json(nlohmann::json& j, const Keepalive& v);
void readFields(FieldReader& r, Keepalive& v);
void to_json(nlohmann::json& j, const MetaVersions& v);
void readFields(FieldReader& r, MetaVersions& v);
void to_json(nlohmann::json& j, const Metasync& v);
void readFields(FieldReader& r, Metasync& v);
void to_json(nlohmann::json& j, const JoinReply& v);
void readFields(FieldReader& r, JoinReply& v);
void to_json(nlohmann::json& j, const Health& v);
void readFields(FieldReader& r, Health& v);

}  // namespace tessera::api
