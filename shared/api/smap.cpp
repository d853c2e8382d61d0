#include "smap.h"

#include "json_util.h"
#include "json_whole_numbers.h"

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

std::size_t Smap::placementTargetCount() const
{
    std::size_t n = 0;
    for (const auto& [id, node] : tmap) n += node.placement() ? 1 : 0;
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
    j = nlohmann::json{
        {"version", v.version}, {"uuid", v.uuid}, {"primary", v.primary}, {"pmap", v.pmap}, {"tmap", v.tmap}};
}

void from_json(const nlohmann::json& j, Smap& v)
{
    j.at("version").get_to(v.version);
    j.at("uuid").get_to(v.uuid);
    j.at("primary").get_to(v.primary);
    j.at("pmap").get_to(v.pmap);
    j.at("tmap").get_to(v.tmap);
}

Result<Smap> parseSmap(std::string_view json) { return parseWholeNumberJsonAs<Smap>(json, "cluster map"); }
Result<Snode> parseSnode(std::string_view json)
{
    // A join names its field in the error, never the JSON library's text.
    auto j = nlohmann::json::parse(json, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return Error::badRequest("node: body must be a JSON object");
    if (hasFloat(j)) return Error::badRequest("node: a number that is not a whole number");
    const auto str = [&](const nlohmann::json& o, const char* key, const std::string& path) -> Result<std::string> {
        auto it = o.find(key);
        if (it == o.end() || !it->is_string()) return Error::badRequest("node: " + path + " must be a string");
        return it->get<std::string>();
    };
    Snode n;
    for (const auto& [k, v] : j.items()) {
        if (k != "daemon_id" && k != "daemon_type" && k != "public_net" && k != "flags") {
            return Error::badRequest("node: /" + k + " is not a field of a node");
        }
    }
    auto id = str(j, "daemon_id", "/daemon_id");
    if (!id) return id.error();
    auto type = str(j, "daemon_type", "/daemon_type");
    if (!type) return type.error();
    n.id = std::move(id.value());
    n.type = std::move(type.value());
    auto net = j.find("public_net");
    if (net == j.end() || !net->is_object()) return Error::badRequest("node: /public_net must be an object");
    auto host = str(*net, "node_ip_addr", "/public_net/node_ip_addr");
    if (!host) return host.error();
    auto url = str(*net, "direct_url", "/public_net/direct_url");
    if (!url) return url.error();
    auto port = net->find("daemon_port");
    if (port == net->end() || !port->is_number_integer() || port->get<std::int64_t>() < 0 ||
        port->get<std::int64_t>() > 65535) {
        return Error::badRequest("node: /public_net/daemon_port must be an integer 0..65535");
    }
    n.publicNet = NetInfo{std::move(host.value()), port->get<int>(), std::move(url.value())};
    if (auto f = j.find("flags"); f != j.end()) {
        if (!f->is_number_unsigned()) return Error::badRequest("node: /flags must be a non-negative integer");
        n.flags = f->get<std::uint64_t>();
    }
    return n;
}

}  // namespace tessera::api
