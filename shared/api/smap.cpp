#include "smap.h"

#include "json_util.h"

#include <nlohmann/json.hpp>

namespace tessera::api {

const Snode* Smap::findTarget(std::string_view id) const
{
    auto it = tmap.find(std::string(id));
    return it == tmap.end() ? nullptr : &it->second;
}

std::size_t Smap::activeTargetCount() const
{
    std::size_t n = 0;
    for (const auto& [id, node] : tmap) n += node.away() ? 0 : 1;
    return n;
}

void to_json(nlohmann::json& j, const NetInfo& v)
{
    j = nlohmann::json{{"node_ip_addr", v.host}, {"daemon_port", v.port}, {"direct_url", v.url}};
}

void from_json(const nlohmann::json& j, NetInfo& v)
{
    j.at("node_ip_addr").get_to(v.host);
    j.at("daemon_port").get_to(v.port);
    j.at("direct_url").get_to(v.url);
}

void to_json(nlohmann::json& j, const Snode& v)
{
    j = nlohmann::json{{"daemon_id", v.id}, {"daemon_type", v.type}, {"public_net", v.publicNet}, {"flags", v.flags}};
}

void from_json(const nlohmann::json& j, Snode& v)
{
    j.at("daemon_id").get_to(v.id);
    j.at("daemon_type").get_to(v.type);
    j.at("public_net").get_to(v.publicNet);
    v.flags = j.contains("flags") ? j.at("flags").get<std::uint64_t>() : 0;
}

void to_json(nlohmann::json& j, const Smap& v)
{
    j = nlohmann::json{{"version", v.version}, {"uuid", v.uuid}, {"primary", v.primary},
                       {"pmap", v.pmap},       {"tmap", v.tmap}};
}

void from_json(const nlohmann::json& j, Smap& v)
{
    j.at("version").get_to(v.version);
    j.at("uuid").get_to(v.uuid);
    j.at("primary").get_to(v.primary);
    j.at("pmap").get_to(v.pmap);
    j.at("tmap").get_to(v.tmap);
}

Result<Smap> parseSmap(std::string_view json) { return parseJsonAs<Smap>(json, "cluster map"); }
Result<Snode> parseSnode(std::string_view json) { return parseJsonAs<Snode>(json, "node"); }

}  // namespace tessera::api
