#include "action_msg.h"

namespace tessera::api {

void to_json(nlohmann::json& j, const ActionMsg& v)
{
    j = nlohmann::json{{"action", v.action}};
    if (!v.name.empty()) j["name"] = v.name;
    if (!v.value.is_null()) j["value"] = v.value;
}

void readFields(FieldReader& r, ActionMsg& v)
{
    r.required("action", v.action).optional("name", v.name).optional("value", v.value);
    if (r.ok() && v.action.empty()) r.fail(r.pointerTo("action"), "must not be empty");
}

Result<ActionMsg> parseActionMsg(std::string_view text) { return parseMessage<ActionMsg>(text, "action message"); }

void to_json(nlohmann::json& j, const RemoveNode& v) { j = nlohmann::json{{"sid", v.daemonId}}; }

void readFields(FieldReader& r, RemoveNode& v)
{
    r.required("sid", v.daemonId);
    // AIStore's flags for decommissioning a live node: Tessera always moves
    // its objects first and never touches its disks.
    for (const char* flag : {"rm_user_data", "skip_rebalance", "no_shutdown", "keep_initial_config"}) {
        bool set = false;
        r.optional(flag, set);
        if (r.ok() && set && std::string_view(flag) != "no_shutdown" &&
            std::string_view(flag) != "keep_initial_config") {
            r.fail(r.pointerTo(flag),
                   "not supported (a present target's objects always move first; no target's disks are touched)");
        }
    }
    if (r.ok() && v.daemonId.empty()) r.fail(r.pointerTo("sid"), "must not be empty");
}

Result<RemoveNode> parseRemoveNode(const nlohmann::json& value)
{
    FieldReader r(value, "/value");
    RemoveNode out;
    readFields(r, out);
    if (auto st = r.finish(); !st) return st.error();
    return out;
}

void to_json(nlohmann::json& j, const NodeMaintenance& v) { j = nlohmann::json{{"sid", v.daemonId}}; }

void readFields(FieldReader& r, NodeMaintenance& v)
{
    r.required("sid", v.daemonId);
    if (r.ok() && v.daemonId.empty()) r.fail(r.pointerTo("sid"), "must not be empty");
}

Result<NodeMaintenance> parseNodeMaintenance(const nlohmann::json& value)
{
    FieldReader r(value, "/value");
    NodeMaintenance out;
    readFields(r, out);
    if (auto st = r.finish(); !st) return st.error();
    return out;
}

void to_json(nlohmann::json& j, const ClusterActionReply& v) { j = nlohmann::json{{"smap_version", v.smapVersion}}; }

void readFields(FieldReader& r, ClusterActionReply& v) { r.required("smap_version", v.smapVersion); }

}  // namespace tessera::api
