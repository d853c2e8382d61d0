#pragma once
// The action message of AIStore's API: {"action": NAME, "name": ...,
// "value": ...}, the body of control calls such as `PUT /v1/cluster`
// (decommission-node) and `POST /v1/buckets/B` (create-bck, archive). The
// value's shape depends on the action; each has its own type below.

#include "result.h"
#include "wire.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace tessera::api {

// The actions Tessera knows (AIStore's names).
namespace act {
inline constexpr const char* kCreateBck = "create-bck";
inline constexpr const char* kDestroyBck = "destroy-bck";
inline constexpr const char* kSetBprops = "set-bprops";
inline constexpr const char* kArchive = "archive";
inline constexpr const char* kList = "list";
inline constexpr const char* kDecommissionNode = "decommission-node";
inline constexpr const char* kStartMaintenance = "start-maintenance";
inline constexpr const char* kStopMaintenance = "stop-maintenance";
}  // namespace act

struct ActionMsg {
    std::string action;
    std::string name;      // optional
    nlohmann::json value;  // optional; null when absent
    bool operator==(const ActionMsg&) const = default;
};

void to_json(nlohmann::json& j, const ActionMsg& v);
void readFields(FieldReader& r, ActionMsg& v);
// A missing or non-string action, a wrongly typed name, or any other field
// is a BadRequest naming the field.
Result<ActionMsg> parseActionMsg(std::string_view json);

// The value of "decommission-node" (AIStore's ActValRmNode; its `sid` names
// the target). An away target is removed at once; a present one moves its
// objects to the others first (a rebalance), then leaves. Tessera never
// skips that rebalance nor touches the target's disks, so `skip_rebalance`
// and `rm_user_data` are accepted only false/absent; `no_shutdown` and
// `keep_initial_config` are read and ignored (a decommissioned target stops).
struct RemoveNode {
    std::string daemonId;  // JSON: sid
    bool operator==(const RemoveNode&) const = default;
};

void to_json(nlohmann::json& j, const RemoveNode& v);
void readFields(FieldReader& r, RemoveNode& v);
Result<RemoveNode> parseRemoveNode(const nlohmann::json& value);

// The value of "start-maintenance" and "stop-maintenance" (AIStore's
// ActValRmNode, of which Tessera reads only `sid`): the target to put in or
// take out of maintenance. Any other field is a BadRequest.
struct NodeMaintenance {
    std::string daemonId;  // JSON: sid
    bool operator==(const NodeMaintenance&) const = default;
};

void to_json(nlohmann::json& j, const NodeMaintenance& v);
void readFields(FieldReader& r, NodeMaintenance& v);
Result<NodeMaintenance> parseNodeMaintenance(const nlohmann::json& value);

// The answer to a cluster action that changed (or would have changed) the
// cluster map: the version that holds the change.
struct ClusterActionReply {
    std::int64_t smapVersion = 0;  // JSON: smap_version
    bool operator==(const ClusterActionReply&) const = default;
};

void to_json(nlohmann::json& j, const ClusterActionReply& v);
void readFields(FieldReader& r, ClusterActionReply& v);

}  // namespace tessera::api
