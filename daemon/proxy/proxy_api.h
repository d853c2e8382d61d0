#pragma once
// The proxy's REST handlers: cluster membership (join, keepalive), buckets
// (create, destroy, list, props), object redirects (307 to the HRW owner),
// merged object listing, cluster information.

#include "api/action_msg.h"
#include "api/node_stats.h"
#include "api/object_list.h"
#include "api/object_list_raw.h"
#include "api/smap.h"
#include "net/request_params.h"
#include "net/router.h"
#include "peer_calls.h"
#include "proxy_state.h"
#include "stats/system_sampler.h"

#include <chrono>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::daemon::proxy {

class ProxyApi {
public:
    // `clusterKey`: the secret a joining target must present.
    // `keepaliveWindow`: a target heard from within it is present
    // (keepalive_interval_ms x keepalive_max_missed).
    ProxyApi(api::Snode self, ProxyState& state, PeerCalls& peers, std::function<nlohmann::json()> nodeInfo,
             std::function<api::NodeStats()> nodeStats, std::string clusterKey,
             std::chrono::milliseconds keepaliveWindow);

    void registerRoutes(net::Router& router);

    // Bucket actions other than create-bck (POST /v1/buckets/B with
    // {"action":NAME,"value":...}), such as "archive", answered by another
    // component. Set before the node serves requests.
    using BucketAction = std::function<net::Response(const std::string& bucket, const api::ActionMsg& msg)>;
    void addBucketAction(const std::string& action, BucketAction handler)
    {
        m_bucketActions[action] = std::move(handler);
    }

    // Told after a bucket's props changed (set-bprops), with the props
    // before and after. Set before the node serves requests.
    using PropsObserver =
        std::function<void(const std::string& bucket, const api::BucketProps& before, const api::BucketProps& after)>;
    void setPropsObserver(PropsObserver o) { m_propsObserver = std::move(o); }

    // Told when decommission-node flagged a present target (or was repeated
    // for one already flagged): the rebalance that moves its objects is due.
    // On the request's thread, under the membership lock. Set before the
    // node serves requests.
    void setMoveRequested(std::function<void(const std::string& target)> f) { m_moveRequested = std::move(f); }
    // A present target joined again (its process restarted within the keepalive window).
    void setRestarted(std::function<void(const std::string& target)> f) { m_restarted = std::move(f); }
    // Auth on: the query parameters that let a target accept the redirected
    // request without the client's Authorization header (method, bucket,
    // object -> "tsig=...&texp=..."). Unset: redirects carry none.
    using RedirectSigner =
        std::function<std::string(std::string_view method, std::string_view bucket, std::string_view object)>;
    void setRedirectSigner(RedirectSigner f) { m_redirectSigner = std::move(f); }
    // Auth on: GET /v1/buckets answers what this leaves of every bucket
    // (the ones the caller may list). Unset: every bucket.
    using BucketFilter = std::function<api::Result<std::vector<api::BucketRef>>(const net::Request& req,
                                                                                std::vector<api::BucketRef> all)>;
    void setBucketFilter(BucketFilter f) { m_bucketFilter = std::move(f); }
    // AIStore's node answers (what=node_status, sysinfo, config, cluster_config).
    // Set before the node serves requests.
    void setAisView(stats::AisNodeView view) { m_ais = std::move(view); }
    // list_timeout_ms: how long a listing waits for each target's page once
    // the target took the call (a first page walks the bucket). Set before
    // the node serves requests; default 60 s.
    void setListTimeout(std::chrono::milliseconds t) { m_listTimeout = t; }
    // GET /v1/cluster?what=... and PUT /v1/cluster actions answered by another
    // component (AIStore's xaction calls): nullopt when it does not take the
    // query or action. Set before the node serves requests.
    using ClusterQuery = std::function<std::optional<net::Response>(const std::string& what, const net::Request& req)>;
    using ClusterAction = std::function<std::optional<net::Response>(const api::ActionMsg& msg)>;
    void setClusterExtension(ClusterQuery query, ClusterAction action)
    {
        m_clusterQuery = std::move(query);
        m_clusterAction = std::move(action);
    }

    // One page of a bucket's listing, as GET /v1/buckets/B answers it (the
    // targets' pages merged; Unavailable when one is missing and not
    // covered by copies), for the proxy's own callers without an HTTP hop.
    // Worker threads only: it waits for the targets.
    api::Result<api::ObjectList> listPage(const std::string& bucket, const api::ListRequest& lr) const;
    // create-bck and destroy-bck of a bucket by name, as their routes do
    // (the S3 front end's calls, in process). Destroy answers the ids of the
    // targets whose data removal failed (empty: none). Worker threads only.
    api::Status createBucketNamed(const std::string& bucket) const;
    api::Result<std::string> destroyBucketNamed(const std::string& bucket) const;

    // A target's answer to its share of a listing page, as it sent it.
    struct TargetPage {
        std::string target;
        api::RawObjectList page;
    };

private:
    // The targets' pages for one page of `bucket`'s listing (listPage's and
    // the route's): Unavailable when one is missing and not covered by copies.
    api::Result<std::vector<TargetPage>> targetPages(const std::string& bucket, const api::ListRequest& lr) const;
    net::Response redirectObject(const net::Request& req);
    std::string redirectSignature(const net::Request& req, const api_util::ObjectRef& ref) const;
    net::Response join(const net::Request& req);
    net::Response keepalive(const net::Request& req);
    net::Response listBuckets(const net::Request& req);
    net::Response createBucket(const net::Request& req);
    net::Response destroyBucket(const net::Request& req);
    net::Response headBucket(const net::Request& req);
    net::Response patchBucket(const net::Request& req);
    net::Response listObjects(const net::Request& req);
    net::Response clusterInfo(const net::Request& req);
    // PUT /v1/cluster: decommission-node, start-maintenance, stop-maintenance.
    net::Response clusterAction(const net::Request& req);
    net::Response decommission(const api::ActionMsg& msg);
    // `fromNode`: the call carried the cluster key (a target draining itself).
    net::Response maintenance(const api::ActionMsg& msg, bool on, bool fromNode);
    // Unauthorized unless the request carries the cluster key.
    std::optional<net::Response> checkClusterKey(const net::Request& req) const;
    net::Response daemonInfo(const net::Request& req);
    // GET /v1/reverse/daemon (header ais-node-id): the node's /v1/daemon answer.
    net::Response reverseDaemon(const net::Request& req);
    // what=sysinfo and what=mountpaths over every target.
    net::Response clusterFanOut(const std::string& what);
    net::Response health(const net::Request& req);

    api::Snode m_self;
    ProxyState& m_state;
    PeerCalls& m_peers;
    std::function<nlohmann::json()> m_nodeInfo;
    std::function<api::NodeStats()> m_nodeStats;
    stats::AisNodeView m_ais;
    PropsObserver m_propsObserver;
    std::function<void(const std::string&)> m_moveRequested;
    std::function<void(const std::string&)> m_restarted;
    RedirectSigner m_redirectSigner;
    BucketFilter m_bucketFilter;
    std::map<std::string, BucketAction> m_bucketActions;
    ClusterQuery m_clusterQuery;
    ClusterAction m_clusterAction;
    std::string m_clusterKey;
    std::chrono::milliseconds m_keepaliveWindow;
    std::chrono::milliseconds m_listTimeout{60000};
};

}  // namespace tessera::daemon::proxy
