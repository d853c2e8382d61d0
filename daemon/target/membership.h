#pragma once
// The target's side of cluster membership: joins the proxy at start (and
// again whenever the proxy forgets it), sends keepalives, and pulls the
// cluster map and bucket metadata when the proxy reports newer versions.
// Runs on its own thread. A decommissioned target that the proxy removed
// from the map stops joining (see smapChanged).

#include "api/result.h"
#include "api/smap.h"
#include "meta_cache.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace tessera::daemon::target {

class Membership {
public:
    // `clusterKey` goes with every join and keepalive.
    Membership(api::Snode self, std::string proxyUrl, MetaCache& cache, std::chrono::milliseconds interval,
               std::chrono::milliseconds peerTimeout, std::string clusterKey);
    ~Membership();

    void start();
    void stop();
    bool joined() const { return m_joined.load(); }
    // Asks for an immediate refresh from the proxy (a client named a newer
    // Smap version than ours).
    void requestRefresh();
    // Asks the proxy to put this target in maintenance (start-maintenance,
    // with the cluster key), bounded by the peer timeout: the first step of
    // a drain. The proxy answers once every target has the new map and it
    // redirects nothing here any more. Any thread.
    api::Status startMaintenance();

    // A map newer than the one this target had (MetaCache's smap listener,
    // any thread). When this target was decommissioning in `before` and
    // `after` no longer names it, its move is over and it has left the
    // cluster for good: it never joins again by itself (today's "unknown
    // node; join first" would bring it back as a member with nothing), and
    // `onRemoved` is told, once.
    void smapChanged(const api::Smap& before, const api::Smap& after);
    // Set before start(); called on the thread that applied the map.
    void setOnRemoved(std::function<void()> f) { m_onRemoved = std::move(f); }
    // Left the cluster after a decommission (see smapChanged).
    bool removed() const { return m_removed.load(); }

private:
    void run();
    bool tryJoin();
    void keepalive();
    void pullMeta(bool smap, bool bmd);

    api::Snode m_self;
    std::string m_proxyUrl;
    MetaCache& m_cache;
    std::chrono::milliseconds m_interval;
    std::chrono::milliseconds m_peerTimeout;
    std::string m_clusterKey;
    std::atomic<bool> m_joined{false};
    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_removed{false};
    std::function<void()> m_onRemoved;
    bool m_refresh = false;
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::thread m_thread;
};

}  // namespace tessera::daemon::target
