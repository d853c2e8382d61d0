#include "cluster_event.h"

#include <nlohmann/json.hpp>

namespace tessera::api {

void to_json(nlohmann::json& j, const ClusterEvent& v)
{
    j = {{"ts", v.tsMs}, {"severity", v.severity}, {"kind", v.kind}, {"message", v.message}};
    if (!v.node.empty()) j["node"] = v.node;
    if (!v.mountpath.empty()) j["mountpath"] = v.mountpath;
}

void from_json(const nlohmann::json& j, ClusterEvent& v)
{
    v.tsMs = j.at("ts").get<std::int64_t>();
    j.at("severity").get_to(v.severity);
    j.at("kind").get_to(v.kind);
    v.message = j.value("message", std::string());
    v.node = j.value("node", std::string());
    v.mountpath = j.value("mountpath", std::string());
}

}  // namespace tessera::api
