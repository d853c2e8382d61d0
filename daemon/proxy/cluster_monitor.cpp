#include "cluster_monitor.h"

#include "api/paths.h"

#include "common/log.h"
#include "peer_calls.h"

namespace tessera::daemon::proxy {

using Steady = std::chrono::steady_clock;

namespace {

std::int64_t wallMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace

ClusterMonitor::ClusterMonitor(Options options, ProxyState& state, std::function<api::NodeStats()> selfStats)
    : m_options(options), m_state(state), m_selfStats(std::move(selfStats)), m_detector(options.errorBurstPerSec)
{
    m_smapVersionSeen = m_state.smap()->version;
    m_bmdVersionSeen = m_state.bmd()->version;
}

ClusterMonitor::~ClusterMonitor() { stop(); }

void ClusterMonitor::start()
{
    m_thread = std::thread([this] { run(); });
}

void ClusterMonitor::stop()
{
    {
        std::lock_guard lock(m_runMutex);
        m_stop = true;
    }
    m_cv.notify_all();
    if (m_thread.joinable()) m_thread.join();
}

void ClusterMonitor::run()
{
    auto next = Steady::now();
    std::unique_lock lock(m_runMutex);
    while (!m_stop) {
        const auto interval = m_hub ? m_hub->wantedInterval() : std::chrono::milliseconds(1000);
        lock.unlock();
        try {
            collect(interval);
        } catch (const std::exception& e) {
            logError("cluster monitor: ", e.what());
        }
        lock.lock();
        // Fixed cadence; after a slow round (a hung target) start the next at once.
        next += interval;
        const auto now = Steady::now();
        if (next < now) next = now;
        m_cv.wait_until(lock, next, [this] { return m_stop; });
    }
}

void ClusterMonitor::collect(std::chrono::milliseconds interval)
{
    const auto smap = m_state.smap();
    const auto bmd = m_state.bmd();
    PeerCalls peers(std::min(interval, m_options.peerTimeout), m_options.clusterKey);
    auto results = peers.fanOut(*smap, client::Method::Get, api::path::daemonWhat("node_stats"));
    auto self = m_selfStats();
    const auto now = Steady::now();

    std::vector<api::ClusterEvent> events;
    api::MetricsUpdate data;
    std::optional<api::BucketsUpdate> usage;
    {
        std::lock_guard lock(m_mutex);
        auto accept = [&](const std::string& id, const std::string& role, std::optional<api::NodeStats> stats) {
            auto [it, inserted] = m_nodes.try_emplace(id);
            auto& rec = it->second;
            rec.role = role;
            if (inserted) rec.lastReport = now;
            if (stats) {
                rec.prev = std::move(rec.cur);
                rec.cur = std::move(stats);
                rec.lastReport = now;
                rec.missed = 0;
            } else {
                ++rec.missed;
            }
        };
        accept(self.id, self.role, self);
        for (const auto& [id, node] : smap->tmap) {
            std::optional<api::NodeStats> stats;
            auto rit = results.find(id);
            if (rit != results.end() && rit->second && rit->second->isSuccess()) {
                auto parsed = api::parseNodeStats(rit->second->body);
                if (parsed) stats = std::move(parsed.value());
                else logWarn("cluster monitor: unreadable stats from ", id, ": ", parsed.error().message);
            }
            accept(id, std::string(api::kRoleTarget), std::move(stats));
        }
        for (auto it = m_nodes.begin(); it != m_nodes.end();) {
            if (it->first != self.id && !smap->tmap.count(it->first)) it = m_nodes.erase(it);
            else ++it;
        }

        std::vector<api::NodeMetrics> nodes;
        for (const auto& [id, rec] : m_nodes) {
            api::NodeMetrics m;
            if (rec.cur) {
                m = api::deriveMetrics(rec.prev, *rec.cur);
            } else {
                m.id = id;
                m.role = rec.role;
            }
            m.ageMs = std::chrono::duration_cast<std::chrono::milliseconds>(now - rec.lastReport).count();
            // Counted in rounds, not time: a node is stale at the third round
            // it misses, i.e. within 3 intervals of its last reading.
            m.stale = rec.missed >= m_options.staleIntervals;
            if (m.stale) {
                // Old figures: keep the totals, not the rates.
                for (auto& r : m.ops) {
                    r.opsPerSec = r.bytesPerSec = r.errorsPerSec = r.abortsPerSec = 0;
                    r.interval = {};
                }
                m.cpuPercent = 0;
            }
            nodes.push_back(std::move(m));
        }
        events = m_detector.observe(nodes, wallMs());
        addEvents(events);
        data.intervalMs = static_cast<int>(interval.count());
        data.cluster = api::clusterTotals(nodes);
        data.nodes = nodes;
        m_latest = std::move(nodes);
        m_latestMetrics = data;

        // New usage figures (a target finished a scan): tell the feed, so that
        // bucket counts stay current between bucket changes.
        auto buckets = bucketSummaries(*bmd, *smap);
        decltype(m_usagePublished) figures;
        for (const auto& b : buckets) {
            if (b.objects && b.bytes) figures.emplace_back(b.name, *b.objects, *b.bytes, b.usageScannedNs);
        }
        if (!figures.empty() && figures != m_usagePublished) {
            m_usagePublished = std::move(figures);
            usage = api::BucketsUpdate{std::move(buckets)};
        }
    }
    if (!m_hub) return;
    m_hub->publishMetrics(data);
    if (usage) m_hub->publish(Topic::Bmd, api::feed_type::kBuckets, *usage);
    for (const auto& e : events) m_hub->publish(Topic::Event, api::feed_type::kEvent, e);
}

void ClusterMonitor::addEvents(const std::vector<api::ClusterEvent>& events)
{
    for (const auto& e : events) {
        logInfo("event ", e.kind, ": ", e.message);
        m_events.push_back(e);
        if (m_events.size() > m_options.eventHistory) m_events.pop_front();
    }
}

std::vector<api::BucketSummary> ClusterMonitor::bucketSummaries(const api::Bmd& bmd, const api::Smap& smap) const
{
    std::map<std::string, api::BucketUsage> sums;
    std::int64_t oldest = 0;
    bool known = !smap.tmap.empty();
    for (const auto& [id, node] : smap.tmap) {
        auto it = m_nodes.find(id);
        if (it == m_nodes.end() || !it->second.cur || it->second.cur->usageScannedNs == 0) {
            known = false;
            break;
        }
        const auto& st = *it->second.cur;
        if (oldest == 0 || st.usageScannedNs < oldest) oldest = st.usageScannedNs;
        for (const auto& [name, u] : st.buckets) {
            sums[name].objects += u.objects;
            sums[name].bytes += u.bytes;
        }
    }
    std::vector<api::BucketSummary> out;
    for (const auto& [name, props] : bmd.buckets) {
        api::BucketSummary b{name, props.provider, props, std::nullopt, std::nullopt, 0};
        if (known) {
            const auto u = sums.count(name) ? sums[name] : api::BucketUsage{};
            b.objects = u.objects;
            b.bytes = u.bytes;
            b.usageScannedNs = oldest;
        }
        out.push_back(std::move(b));
    }
    return out;
}

void ClusterMonitor::onSmapPublished(const api::Smap& before, const api::Smap& after)
{
    std::vector<api::ClusterEvent> events;
    {
        std::lock_guard lock(m_mutex);
        if (after.version <= m_smapVersionSeen) return;
        m_smapVersionSeen = after.version;
        events = m_detector.smapChanged(before, after, wallMs());
        addEvents(events);
    }
    if (!m_hub) return;
    m_hub->publish(Topic::Smap, api::feed_type::kSmap, after);
    for (const auto& e : events) m_hub->publish(Topic::Event, api::feed_type::kEvent, e);
}

void ClusterMonitor::onBmdChanged(const api::Bmd& bmd)
{
    {
        std::lock_guard lock(m_mutex);
        if (bmd.version <= m_bmdVersionSeen) return;
        m_bmdVersionSeen = bmd.version;
    }
    if (!m_hub) return;
    api::BmdUpdate update{bmd.version, {}};
    {
        std::lock_guard lock(m_mutex);
        update.buckets = bucketSummaries(bmd, *m_state.smap());
    }
    m_hub->publish(Topic::Bmd, api::feed_type::kBmd, update);
}

api::FeedSnapshot ClusterMonitor::snapshot() const
{
    const auto smap = m_state.smap();
    const auto bmd = m_state.bmd();
    api::FeedSnapshot out;
    out.smap = *smap;
    out.bmdVersion = bmd->version;
    if (m_jobs) out.jobs = m_jobs();
    std::lock_guard lock(m_mutex);
    out.buckets = bucketSummaries(*bmd, *smap);
    out.metrics = m_latestMetrics;
    out.events.assign(m_events.begin(), m_events.end());
    return out;
}

std::vector<api::NodeMetrics> ClusterMonitor::latest() const
{
    std::lock_guard lock(m_mutex);
    return m_latest;
}

}  // namespace tessera::daemon::proxy
