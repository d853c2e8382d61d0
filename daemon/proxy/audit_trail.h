#pragma once
// The proxy's audit trail: who changed the cluster's control state, and
// how it went. The HTTP server tells it of every answered request that
// net::isAuditedChange picks (buckets created, destroyed, changed or given
// an action; jobs, ETL and dSort started or aborted; users, grants and
// token keys; cluster actions), refused ones included. Each becomes a line
// in the proxy's log (`audit: "alice" DELETE /v1/buckets/imgs -> 200`) and
// an `event` of kind `audit` on the live feed (severity info, or warning
// for a refusal), so an operator watching the console sees it at once.
//
// Thread safety: record() runs on connections' I/O threads; it only logs
// and hands the event to the feed hub, which queues it.

#include "feed_hub.h"

#include "net/request.h"

#include <memory>
#include <string>

namespace tessera::daemon::proxy {

class AuditTrail {
public:
    // `authOn`: a request without a user is named "(auth off)" then, else
    // "(no user)".
    AuditTrail(std::string nodeId, std::shared_ptr<FeedHub> hub, bool authOn)
        : m_nodeId(std::move(nodeId)), m_hub(std::move(hub)), m_authOn(authOn)
    {
    }
    void record(const net::Request& req, int status) const;
    // The text of the entry: `"USER" METHOD PATH [action=A] -> STATUS`.
    static std::string describe(const net::Request& req, int status, bool authOn);

private:
    std::string m_nodeId;
    std::shared_ptr<FeedHub> m_hub;
    bool m_authOn;
};

}  // namespace tessera::daemon::proxy
