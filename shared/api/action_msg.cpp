#include "action_msg.h"

namespace tessera::api {

void to_json(nlohmann::json& j, const ActionMsg& v)
{
    j = nlohmann::json{{"action", v.action}};
    if (!v.name.empty()) j["name"] = v.name;
    if (!v.value.is_null()) j["value"] = v.value;
}

Result<ActionMsg> parseActionMsg(std::string_view text)
{
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        return Error::badRequest("body must be a JSON object {\"action\":...,\"value\":...}");
    }
    ActionMsg m;
    for (const auto& [k, v] : j.items()) {
        if (k == "action") {
            if (!v.is_string()) return Error::badRequest("/action must be a string");
            m.action = v.get<std::string>();
        } else if (k == "name") {
            if (!v.is_string()) return Error::badRequest("/name must be a string");
            m.name = v.get<std::string>();
        } else if (k == "value") {
            m.value = v;
        } else {
            return Error::badRequest("/" + k + ": unknown field of an action message (action, name, value)");
        }
    }
    if (m.action.empty()) return Error::badRequest("/action is required");
    return m;
}

void to_json(nlohmann::json& j, const RemoveNode& v) { j = nlohmann::json{{"sid", v.daemonId}}; }

Result<RemoveNode> parseRemoveNode(const nlohmann::json& j)
{
    if (!j.is_object()) return Error::badRequest("/value must be an object {\"sid\":\"<target id>\"}");
    RemoveNode r;
    for (const auto& [k, v] : j.items()) {
        if (k == "sid") {
            if (!v.is_string()) return Error::badRequest("/value/sid must be a string");
            r.daemonId = v.get<std::string>();
        } else if (k == "rm_user_data" || k == "skip_rebalance" || k == "no_shutdown" || k == "keep_initial_config") {
            if (!v.is_boolean()) return Error::badRequest("/value/" + k + " must be a boolean");
            if (v.get<bool>() && k != "no_shutdown" && k != "keep_initial_config") {
                return Error::badRequest("/value/" + k + ": not supported (an away target is removed from the map; "
                                         "its disks are not touched)");
            }
        } else {
            return Error::badRequest("/value/" + k + ": unknown field (sid, rm_user_data, skip_rebalance, "
                                     "no_shutdown, keep_initial_config)");
        }
    }
    if (r.daemonId.empty()) return Error::badRequest("/value/sid is required");
    return r;
}

}  // namespace tessera::api
