#pragma once
// The `what=` answers of /v1/daemon that every node gives in AIStore's
// shapes (api/ais_node.h, api/ais_config.h):
//   node_status       stats.NodeStatus
//   sysinfo           a target's apc.TSysInfo, a proxy's apc.MemCPUInfo
//   config            cmn.Config (Tessera's own with format=tessera: not here)
//   mountpaths        apc.MountpathList (a target's)
//   software_version  the version text
// and a 501 naming the AIStore `what`s Tessera does not implement.

#include "net/request.h"
#include "net/response.h"
#include "system_sampler.h"

#include "api/node_stats.h"
#include "api/smap.h"

#include <optional>
#include <string_view>

namespace tessera::daemon::stats {

// What a node answers AIStore's `what`; nullopt when `what` is none of
// those above (the caller's own, or unknown).
std::optional<net::Response> aisDaemonAnswer(std::string_view what, const AisNodeView& view, const api::NodeStats& st,
                                             const api::Snode& self, const api::Smap& smap, std::int64_t bmdVersion);

// The AIStore `what`s of /v1/daemon and /v1/cluster that Tessera lacks
// (xactions, logs, votes, certificates, ...): a 501 naming it, nullopt for
// any other value.
std::optional<net::Response> aisNotImplemented(std::string_view what);
// A 501 with AIStore's error body ({"status":501,"message":...}): an AIStore
// call, or a value of one, that Tessera does not implement.
net::Response aisNotImplementedError(const std::string& message);

// `format`: "" or "aistore" (AIStore's shapes) or "tessera"; else a 400.
std::optional<net::Response> checkFormat(const net::Request& req, bool& tessera);

// The configuration with the cluster map's parts (primary URL, uuid) set.
api::AisConfigSource configSource(const AisNodeView& view, const api::Smap& smap);

}  // namespace tessera::daemon::stats
