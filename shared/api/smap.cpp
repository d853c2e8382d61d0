#include "smap.h"

#include "json_util.h"
#include "json_whole_numbers.h"

#include <charconv>
#include <nlohmann/json.hpp>
#include <xxhash.h>

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

std::uint64_t snodeIdDigest(std::string_view id)
{
    constexpr std::uint64_t kMlcg32 = 1103515245;  // AIStore's cos.MLCG32
    return XXH64(id.data(), id.size(), kMlcg32);
}

namespace {
// "8080" (AIStore) or 8080 (older Tessera) -> 8080; else throws like get<>.
template <typename Int>
Int intOrString(const nlohmann::json& j, const char* what)
{
    if (j.is_number_integer()) return j.get<Int>();
    const auto& s = j.get_ref<const std::string&>();
    Int v{};
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size()) {
        throw nlohmann::json::type_error::create(302, std::string(what) + " must be a decimal string", &j);
    }
    return v;
}
}  // namespace

void to_json(nlohmann::json& j, const NetInfo& v)
{
    j = nlohmann::json{{"node_ip_addr", v.host}, {"daemon_port", std::to_string(v.port)}, {"direct_url", v.url}};
}

void from_json(const nlohmann::json& j, NetInfo& v)
{
    j.at("node_ip_addr").get_to(v.host);
    v.port = intOrString<int>(j.at("daemon_port"), "daemon_port");
    j.at("direct_url").get_to(v.url);
}

void to_json(nlohmann::json& j, const Snode& v)
{
    std::uint64_t flags = v.flags;
    if (v.inMaintenance()) flags |= kAisSnodeMaint;
    if (v.decommissioning()) flags |= kAisSnodeDecomm;
    j = nlohmann::json{{"daemon_id", v.id},
                       {"daemon_type", v.type},
                       {"public_net", v.publicNet},
                       {"intra_control_net", v.publicNet},
                       {"intra_data_net", v.publicNet},
                       {"flags", flags},
                       {"id_digest", snodeIdDigest(v.id)}};
}

void from_json(const nlohmann::json& j, Snode& v)
{
    j.at("daemon_id").get_to(v.id);
    j.at("daemon_type").get_to(v.type);
    j.at("public_net").get_to(v.publicNet);
    v.flags = j.contains("flags") ? j.at("flags").get<std::uint64_t>() & ~(kAisSnodeMaint | kAisSnodeDecomm) : 0;
}

void to_json(nlohmann::json& j, const Smap& v)
{
    j = nlohmann::json{{"version", std::to_string(v.version)},
                       {"uuid", v.uuid},
                       {"creation_time", v.creationTime},
                       {"proxy_si", v.primary},
                       {"pmap", v.pmap},
                       {"tmap", v.tmap}};
}

void from_json(const nlohmann::json& j, Smap& v)
{
    v.version = intOrString<std::int64_t>(j.at("version"), "version");
    j.at("uuid").get_to(v.uuid);
    v.creationTime = j.value("creation_time", std::string());
    j.at(j.contains("proxy_si") ? "proxy_si" : "primary").get_to(v.primary);
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
        if (k != "daemon_id" && k != "daemon_type" && k != "public_net" && k != "flags" && k != "intra_control_net" &&
            k != "intra_data_net" && k != "id_digest") {
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
    // AIStore writes the port as a decimal string; older Tessera nodes a number.
    auto port = net->find("daemon_port");
    std::int64_t portValue = -1;
    if (port != net->end() && port->is_number_integer()) {
        portValue = port->get<std::int64_t>();
    } else if (port != net->end() && port->is_string()) {
        const auto& ps = port->get_ref<const std::string&>();
        auto [p, ec] = std::from_chars(ps.data(), ps.data() + ps.size(), portValue);
        if (ps.empty() || ec != std::errc() || p != ps.data() + ps.size()) portValue = -1;
    }
    if (portValue < 0 || portValue > 65535) {
        return Error::badRequest("node: /public_net/daemon_port must be a port number 0..65535");
    }
    n.publicNet = NetInfo{std::move(host.value()), static_cast<int>(portValue), std::move(url.value())};
    if (auto f = j.find("flags"); f != j.end()) {
        if (!f->is_number_unsigned()) return Error::badRequest("node: /flags must be a non-negative integer");
        n.flags = f->get<std::uint64_t>() & ~(kAisSnodeMaint | kAisSnodeDecomm);
    }
    for (const char* k : {"intra_control_net", "intra_data_net"}) {
        if (auto it = j.find(k); it != j.end() && !it->is_object()) {
            return Error::badRequest(std::string("node: /") + k + " must be an object");
        }
    }
    if (auto d = j.find("id_digest"); d != j.end() && !d->is_number_unsigned()) {
        return Error::badRequest("node: /id_digest must be a non-negative integer");
    }
    return n;
}

}  // namespace tessera::api
