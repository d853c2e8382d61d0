#pragma once
// The proxy's view of the cluster's health and load: every interval it pulls
// `node_stats` from every target (in parallel, bounded by the interval), adds
// its own, derives rates, marks nodes that have not reported for 3
// intervals as stale, detects events, and publishes `metrics` and `event`
// messages on the feed, and a `buckets` message when the buckets' usage
// figures (summed over the targets' usage scans) change. It also turns
// cluster map and bucket changes into `smap` / `bmd` messages and node
// joined/left events, and builds the snapshot a new feed session starts with.
//
// Thread safety: public members may be called from any thread. Runs its
// collection loop on its own thread between start() and stop().

#include "api/cluster_event.h"
#include "api/feed.h"
#include "api/node_stats.h"
#include "event_detector.h"
#include "feed_hub.h"
#include "proxy_state.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <tuple>
#include <vector>

namespace tessera::daemon::proxy {

class ClusterMonitor {
public:
    struct Options {
        std::chrono::milliseconds peerTimeout{5000};  // upper bound of one pull; the interval bounds it too
        std::string clusterKey;                       // presented to the targets (auth on)
        double errorBurstPerSec = 10;
        std::size_t eventHistory = 100;  // events kept for snapshots
        int staleIntervals = 3;
    };

    ClusterMonitor(Options options, ProxyState& state, std::function<api::NodeStats()> selfStats);
    ~ClusterMonitor();
    ClusterMonitor(const ClusterMonitor&) = delete;
    ClusterMonitor& operator=(const ClusterMonitor&) = delete;

    // Where messages go; set before start().
    void attach(std::shared_ptr<FeedHub> hub) { m_hub = std::move(hub); }
    // Running jobs for the snapshot; set before start().
    void setJobsSource(std::function<std::vector<api::JobStatus>()> jobs) { m_jobs = std::move(jobs); }
    void start();
    void stop();

    void onSmapPublished(const api::Smap& before, const api::Smap& after);
    void onBmdChanged(const api::Bmd& bmd);

    // The data of a feed session's first message.
    api::FeedSnapshot snapshot() const;
    // The latest metrics of every node (empty before the first round).
    std::vector<api::NodeMetrics> latest() const;

private:
    void run();
    void collect(std::chrono::milliseconds interval);
    void addEvents(const std::vector<api::ClusterEvent>& events);  // m_mutex held
    // Buckets with their object count and bytes summed over the targets,
    // when every target of `smap` has reported a usage scan. m_mutex held.
    std::vector<api::BucketSummary> bucketSummaries(const api::Bmd& bmd, const api::Smap& smap) const;

    struct NodeRecord {
        std::string role;
        std::optional<api::NodeStats> prev;
        std::optional<api::NodeStats> cur;
        std::chrono::steady_clock::time_point lastReport;  // or when first listed, until it reports
        int missed = 0;                                    // consecutive rounds without a reading
    };

    Options m_options;
    ProxyState& m_state;
    std::function<api::NodeStats()> m_selfStats;
    std::shared_ptr<FeedHub> m_hub;
    std::function<std::vector<api::JobStatus>()> m_jobs;

    mutable std::mutex m_mutex;
    std::map<std::string, NodeRecord> m_nodes;
    std::vector<api::NodeMetrics> m_latest;
    std::optional<api::MetricsUpdate> m_latestMetrics;  // the last metrics message
    std::deque<api::ClusterEvent> m_events;
    EventDetector m_detector;
    std::int64_t m_smapVersionSeen = 0;
    std::int64_t m_bmdVersionSeen = 0;
    // The usage figures of the last `buckets` message (name, objects, bytes, scan).
    std::vector<std::tuple<std::string, std::uint64_t, std::uint64_t, std::int64_t>> m_usagePublished;

    std::mutex m_runMutex;
    std::condition_variable m_cv;
    bool m_stop = false;
    std::thread m_thread;
};

}  // namespace tessera::daemon::proxy
