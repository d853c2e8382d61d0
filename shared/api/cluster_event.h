#pragma once
// A warning or notice about the cluster, as the proxy publishes it on the
// live feed (`event` messages) and keeps the most recent of for snapshots.

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace tessera::api {

// Kinds, as they appear on the wire.
namespace event_kind {
inline constexpr const char* kNodeJoined = "node_joined";
inline constexpr const char* kNodeLeft = "node_left";
inline constexpr const char* kNodeAway = "node_away";  // missed its keepalives or in maintenance; owns its objects
inline constexpr const char* kNodeBack = "node_back";  // an away target returned
inline constexpr const char* kNodeLeaving = "node_leaving";      // decommissioning: its objects move to the others
inline constexpr const char* kNodeStale = "node_stale";          // stopped reporting for 3 intervals
inline constexpr const char* kNodeRecovered = "node_recovered";  // reports again after being stale
inline constexpr const char* kMountpathNearlyFull = "mountpath_nearly_full";  // >= 85 % used
inline constexpr const char* kMountpathFull = "mountpath_full";               // >= 95 % used
inline constexpr const char* kMountpathError = "mountpath_error";
inline constexpr const char* kMountpathOk = "mountpath_ok";  // back under 85 % / readable again
inline constexpr const char* kChecksumError = "checksum_error";
inline constexpr const char* kErrorBurst = "error_burst";
inline constexpr const char* kAudit = "audit";  // a person changed control state (daemon/proxy/audit_trail.h)
}  // namespace event_kind

struct ClusterEvent {
    std::int64_t tsMs = 0;  // wall clock, Unix epoch ms
    std::string severity;   // "info" | "warning" | "error"
    std::string kind;       // one of event_kind
    std::string node;       // daemon id, when the event is about one node
    std::string mountpath;  // when about one mountpath
    std::string message;    // for people
};

void to_json(nlohmann::json& j, const ClusterEvent& v);
void from_json(const nlohmann::json& j, ClusterEvent& v);

}  // namespace tessera::api
