#include "ais_answers.h"

#include "api/ais_config.h"
#include "api/ais_node.h"

#include <array>

namespace tessera::daemon::stats {

namespace {

// apc's QparamWhat values (api/apc/query.go) Tessera has no counterpart for.
// (The xaction queries status, status_all, qryxstats and running_all are
// the proxy's XactionApi's.)
constexpr std::array<std::string_view, 10> kAbsent = {
    "log",       "metrics",   "smapvote",     "disk", "tls_certificate",
    "ic_bundle", "getxstats", "backend_info", "rmd",  "node_stats_ext"};

}  // namespace

std::optional<net::Response> aisNotImplemented(std::string_view what)
{
    for (auto w : kAbsent) {
        if (w == what) {
            return aisNotImplementedError("what=" + std::string(what) +
                                          " is an AIStore query Tessera does not implement (see docs/api.md, "
                                          "AIStore compatibility)");
        }
    }
    return std::nullopt;
}

net::Response aisNotImplementedError(const std::string& message)
{
    return net::Response::json(nlohmann::json{{"status", 501}, {"message", message}}, 501);
}

std::optional<net::Response> checkFormat(const net::Request& req, bool& tessera)
{
    const auto f = req.queryValue("format");
    tessera = f == "tessera";
    if (!f.empty() && f != "tessera" && f != "aistore") {
        return net::Response::error(api::Error::badRequest("format must be tessera or aistore"));
    }
    return std::nullopt;
}

api::AisConfigSource configSource(const AisNodeView& view, const api::Smap& smap)
{
    auto src = view.config ? view.config() : api::AisConfigSource{};
    src.primaryUrl = smap.primary.publicNet.url;
    src.clusterUuid = smap.uuid;
    return src;
}

std::optional<net::Response> aisDaemonAnswer(std::string_view what, const AisNodeView& view, const api::NodeStats& st,
                                             const api::Snode& self, const api::Smap& smap, std::int64_t bmdVersion)
{
    const bool target = self.type == api::kRoleTarget;
    const auto machine = [&] { return view.sampler ? view.sampler->sample(st.cpuNs, st.uptimeNs) : api::AisMachine{}; };
    if (what == "node_status") {
        return net::Response::json(api::aisNodeStatus(st, self, smap, bmdVersion, machine(), view.version));
    }
    if (what == "sysinfo") {
        const auto memCpu = api::aisMemCpuInfo(st, machine());
        if (!target) return net::Response::json(memCpu);
        return net::Response::json(api::AisTargetSysInfo{memCpu, api::aisCapacityInfo(st)});
    }
    if (what == "config") return net::Response::json(api::aisConfig(configSource(view, smap)));
    if (what == "mountpaths" && target) return net::Response::json(api::aisMountpathList(st));
    if (what == "software_version") {
        net::Response r;  // plain text, as AIStore writes it (writeXid)
        r.body = view.version;
        r.header("Content-Type", "text/plain");
        return r;
    }
    return aisNotImplemented(what);
}

}  // namespace tessera::daemon::stats
