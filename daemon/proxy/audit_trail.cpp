#include "audit_trail.h"

#include "common/log.h"

#include "api/action_msg.h"
#include "api/cluster_event.h"
#include "api/feed.h"
#include "api/wire.h"

#include <boost/beast/http/verb.hpp>
#include <chrono>

namespace tessera::daemon::proxy {

namespace {
// Bodies this small are read for their action name; larger ones (specs,
// uploads) are not worth parsing on an I/O thread.
constexpr std::size_t kMaxActionBody = 4096;
}  // namespace

std::string AuditTrail::describe(const net::Request& req, int status, bool authOn)
{
    const std::string who = !req.user.empty() ? req.user : authOn ? "(no user)" : "(auth off)";
    std::string text = "\"" + who + "\" " + std::string(boost::beast::http::to_string(req.method)) + " " + req.path;
    if (!req.body.empty() && req.body.size() <= kMaxActionBody) {
        if (auto msg = api::parseMessage<api::ActionMsg>(req.body, "action")) text += " action=" + msg->action;
    }
    return text + " -> " + std::to_string(status);
}

void AuditTrail::record(const net::Request& req, int status) const
{
    api::ClusterEvent e;
    e.tsMs = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
                 .count();
    e.severity = status < 400 ? "info" : "warning";
    e.kind = api::event_kind::kAudit;
    e.node = m_nodeId;
    e.message = describe(req, status, m_authOn);
    logInfo("audit: ", e.message);
    if (m_hub) m_hub->publish(Topic::Event, api::feed_type::kEvent, nlohmann::json(e));
}

}  // namespace tessera::daemon::proxy
