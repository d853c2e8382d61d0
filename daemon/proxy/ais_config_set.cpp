#include "ais_config_set.h"

#include "stats/ais_answers.h"

#include <array>
#include <string_view>
#include <utility>

namespace tessera::daemon::proxy {

namespace {

// AIStore's configuration keys (cmn/config.go) that have a Tessera setting,
// read at start, or a call with the same effect.
constexpr std::array<std::pair<std::string_view, std::string_view>, 12> kEquivalents = {{
    {"log.level", "log_level"},
    {"rebalance.enabled", "rebalance_auto"},
    {"timeout.cplane_operation", "peer_timeout_ms"},
    {"timeout.max_keepalive", "peer_timeout_ms"},
    {"keepalivetracker.proxy.interval", "keepalive_interval_ms"},
    {"keepalivetracker.target.interval", "keepalive_interval_ms"},
    {"keepalivetracker.target.factor", "keepalive_max_missed"},
    {"auth.enabled", "auth.enabled"},
    {"net.http.use_https", "tls.cert_file and tls.key_file"},
    {"net.http.server_crt", "tls.cert_file"},
    {"net.http.server_key", "tls.key_file"},
    {"mirror.enabled", "the bucket property mirror.enabled (PATCH /v1/buckets/<b>)"},
}};

constexpr std::size_t kMaxNamed = 32;  // keys named in one message

std::string describe(const std::string& key)
{
    for (const auto& [ais, tessera] : kEquivalents) {
        if (ais == key) return key + " (Tessera: " + std::string(tessera) + ", at start)";
    }
    return key + " (no Tessera equivalent)";
}

// The dotted names of `j`'s leaves, at most kMaxDepth sections deep (AIStore's
// deepest is 3: keepalivetracker.target.interval).
constexpr int kMaxDepth = 4;
void collectKeys(const nlohmann::json& j, const std::string& prefix, int depth, std::vector<std::string>& out)
{
    for (const auto& [k, v] : j.items()) {
        const auto name = prefix.empty() ? k.substr(0, 256) : prefix + "." + k.substr(0, 256);
        if (v.is_object() && !v.empty() && depth + 1 < kMaxDepth) collectKeys(v, name, depth + 1, out);
        else out.push_back(name);
        if (out.size() > 1024) return;  // named: kMaxNamed of them
    }
}

}  // namespace

net::Response aisConfigNotSettable(const std::vector<std::string>& keys)
{
    std::string named;
    for (std::size_t i = 0; i < keys.size() && i < kMaxNamed; ++i) named += (i ? ", " : "") + describe(keys[i]);
    if (keys.size() > kMaxNamed) named += ", and " + std::to_string(keys.size() - kMaxNamed) + " more";
    return stats::aisNotImplementedError(
        "setting the configuration at run time is not supported: " + named +
        ". Tessera reads its configuration when a node starts (docs/api.md, Node configuration); nothing was changed");
}

net::Response aisSetConfigByQuery(const net::Request& req)
{
    std::vector<std::string> keys;
    for (const auto& [k, v] : req.query) {
        if (k != "transient") keys.push_back(k.substr(0, 256));
    }
    if (keys.empty()) {
        return net::Response::error(api::Error::badRequest("setconfig: give the keys to set as KEY=VALUE queries"));
    }
    return aisConfigNotSettable(keys);
}

std::optional<net::Response> aisSetConfigByAction(const api::ActionMsg& msg)
{
    if (msg.action == "reset-config") {
        return stats::aisNotImplementedError(
            "reset-config: Tessera's configuration is read when a node starts and is never changed at run time, so "
            "there is nothing to reset; nothing was changed");
    }
    if (msg.action != "set-config") return std::nullopt;
    // cmn.ConfigToSet: nested sections of optional fields; each leaf is
    // named as AIStore names it on the command line (net.http.use_https).
    if (!msg.value.is_object() || msg.value.empty()) {
        return net::Response::error(
            api::Error::badRequest("set-config: value must be a JSON object of the settings to change"));
    }
    std::vector<std::string> keys;
    collectKeys(msg.value, "", 0, keys);
    return aisConfigNotSettable(keys);
}

net::Response aisNodeAction(const net::Request& req)
{
    auto msg = api::parseActionMsg(req.body);
    if (!msg) return net::Response::error(msg.error());
    if (auto r = aisSetConfigByAction(*msg)) return std::move(*r);
    return stats::aisNotImplementedError("node action \"" + msg->action +
                                         "\": Tessera has no node actions through the proxy; nothing was changed");
}

}  // namespace tessera::daemon::proxy
