#pragma once
// AIStore's calls that set the configuration at run time, answered with a
// 501 that names every key: Tessera's configuration is read when a node
// starts (docs/api.md, Node configuration), and nothing in it can be
// changed while the node runs. Where Tessera has an equivalent start-time
// setting the message names it.
//   PUT /v1/cluster/setconfig?KEY=VALUE&...           api.SetClusterConfig, `ais config cluster K=V`
//   PUT /v1/reverse/daemon/setconfig?KEY=VALUE&...    api.SetDaemonConfig, `ais config node ID K=V`
//   PUT /v1/cluster {"action":"set-config","value":cmn.ConfigToSet}  api.SetClusterConfigUsingMsg
//   PUT /v1/cluster {"action":"reset-config"}, PUT /v1/reverse/daemon {"action":...}
// A call that names no key is a 400. Nothing is changed either way.

#include "api/action_msg.h"
#include "net/request.h"
#include "net/response.h"

#include <optional>
#include <string>
#include <vector>

namespace tessera::daemon::proxy {

// The answer to a setconfig call: its query's keys (AIStore's `transient`
// flag aside).
net::Response aisSetConfigByQuery(const net::Request& req);
// The answer to a set-config or reset-config action message; nullopt for
// any other action.
std::optional<net::Response> aisSetConfigByAction(const api::ActionMsg& msg);
// PUT /v1/reverse/daemon with an action message (api.ResetDaemonConfig,
// RotateLogs, ...): reset-config as above; Tessera has no other node action
// through the proxy (501 naming it); a body that is not an action is a 400.
net::Response aisNodeAction(const net::Request& req);
// The 501 naming `keys` (dotted AIStore names), each with Tessera's
// start-time equivalent when there is one.
net::Response aisConfigNotSettable(const std::vector<std::string>& keys);

}  // namespace tessera::daemon::proxy
