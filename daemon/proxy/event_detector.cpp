#include "event_detector.h"

#include <cstdio>

namespace tessera::daemon::proxy {

namespace ek = api::event_kind;

namespace {

api::ClusterEvent makeEvent(std::int64_t ts, const char* severity, const char* kind, std::string node,
                            std::string message)
{
    api::ClusterEvent e;
    e.tsMs = ts;
    e.severity = severity;
    e.kind = kind;
    e.node = std::move(node);
    e.message = std::move(message);
    return e;
}

std::string percent(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %%", v);
    return buf;
}

}  // namespace

EventDetector::EventDetector(double errorBurstPerSec, std::int64_t burstQuietMs)
    : m_errorBurstPerSec(errorBurstPerSec), m_burstQuietMs(burstQuietMs)
{
}

std::vector<api::ClusterEvent> EventDetector::smapChanged(const api::Smap& before, const api::Smap& after,
                                                          std::int64_t nowMs)
{
    std::vector<api::ClusterEvent> out;
    for (const auto& [id, node] : after.tmap) {
        auto was = before.tmap.find(id);
        if (was == before.tmap.end()) {
            out.push_back(makeEvent(nowMs, "info", ek::kNodeJoined, id,
                                    "target " + id + " joined at " + node.publicNet.url + " (cluster map v" +
                                        std::to_string(after.version) + ")"));
        } else if (!was->second.decommissioning() && node.decommissioning()) {
            out.push_back(makeEvent(nowMs, "info", ek::kNodeLeaving, id,
                                    "target " + id + " (" + node.publicNet.url +
                                        ") is being decommissioned: its objects move to the other targets, and it "
                                        "leaves the map once they have (cluster map v" +
                                        std::to_string(after.version) + ")"));
        } else if (!was->second.away() && node.inMaintenance()) {
            // Planned (a drain on SIGTERM, an operator's start-maintenance).
            out.push_back(makeEvent(nowMs, "warning", ek::kNodeAway, id,
                                    "target " + id + " (" + node.publicNet.url +
                                        ") is in maintenance: its objects answer 503 until it returns (cluster map v" +
                                        std::to_string(after.version) + ")"));
        } else if (!was->second.away() && node.away()) {
            out.push_back(makeEvent(nowMs, "error", ek::kNodeAway, id,
                                    "target " + id + " (" + node.publicNet.url +
                                        ") missed its keepalives: its objects answer 503 until it returns or is "
                                        "decommissioned (cluster map v" +
                                        std::to_string(after.version) + ")"));
        } else if (was->second.away() && !node.away()) {
            out.push_back(makeEvent(nowMs, "info", ek::kNodeBack, id,
                                    "target " + id + " is back at " + node.publicNet.url + " (cluster map v" +
                                        std::to_string(after.version) + ")"));
        }
    }
    for (const auto& [id, node] : before.tmap) {
        if (!after.tmap.count(id)) {
            out.push_back(makeEvent(nowMs, "warning", ek::kNodeLeft, id,
                                    "target " + id + " (" + node.publicNet.url + ") left the cluster map (v" +
                                        std::to_string(after.version) + ")"));
            m_nodes.erase(id);
        }
    }
    return out;
}

std::vector<api::ClusterEvent> EventDetector::observe(const std::vector<api::NodeMetrics>& nodes, std::int64_t nowMs)
{
    std::vector<api::ClusterEvent> out;
    for (const auto& n : nodes) {
        auto& st = m_nodes[n.id];
        const bool first = !st.seen;
        st.seen = true;
        if (n.stale != st.stale) {
            if (n.stale) {
                out.push_back(
                    makeEvent(nowMs, "warning", ek::kNodeStale, n.id,
                              n.role + " " + n.id + " has not reported for " + std::to_string(n.ageMs) + " ms"));
            } else {
                out.push_back(
                    makeEvent(nowMs, "info", ek::kNodeRecovered, n.id, n.role + " " + n.id + " reports again"));
            }
            st.stale = n.stale;
        }
        if (n.stale) continue;  // its figures are old

        if (!first && n.checksumErrors > st.checksumErrors) {
            const auto d = n.checksumErrors - st.checksumErrors;
            out.push_back(makeEvent(nowMs, "error", ek::kChecksumError, n.id,
                                    std::to_string(d) + " GET(s) on " + n.id +
                                        " found an object whose data no longer matches its checksum"));
        }
        st.checksumErrors = n.checksumErrors;

        double errorsPerSec = 0;
        for (const auto& r : n.ops) errorsPerSec += r.errorsPerSec;
        if (m_errorBurstPerSec > 0 && errorsPerSec >= m_errorBurstPerSec) {
            if (!st.burstReported || nowMs - st.lastBurstMs >= m_burstQuietMs) {
                char buf[64];
                std::snprintf(buf, sizeof buf, "%.1f", errorsPerSec);
                out.push_back(makeEvent(nowMs, "warning", ek::kErrorBurst, n.id,
                                        std::string(buf) + " request errors per second on " + n.id));
                st.burstReported = true;
                st.lastBurstMs = nowMs;
            }
        }

        for (const auto& mp : n.mountpaths) {
            auto [it, inserted] = st.mountpaths.try_emplace(mp.path, api::MountpathState::Ok);
            const auto before = it->second;
            it->second = mp.state;
            if (mp.state == before) continue;
            api::ClusterEvent e;
            const std::string where = mp.path + " on " + n.id;
            switch (mp.state) {
            case api::MountpathState::NearlyFull:
                if (before == api::MountpathState::Full) {
                    e = makeEvent(nowMs, "info", ek::kMountpathNearlyFull, n.id,
                                  where + " is back under 95 % (" + percent(mp.usedPercent()) + " used)");
                } else {
                    e = makeEvent(nowMs, "warning", ek::kMountpathNearlyFull, n.id,
                                  where + " is nearly full: " + percent(mp.usedPercent()) + " used");
                }
                break;
            case api::MountpathState::Full:
                e = makeEvent(nowMs, "error", ek::kMountpathFull, n.id,
                              where + " is full: " + percent(mp.usedPercent()) + " used");
                break;
            case api::MountpathState::Error:
                e = makeEvent(nowMs, "error", ek::kMountpathError, n.id,
                              where + " is unusable" + (mp.error.empty() ? std::string() : ": " + mp.error));
                break;
            case api::MountpathState::Ok:
                e = makeEvent(nowMs, "info", ek::kMountpathOk, n.id,
                              where + " is fine again (" + percent(mp.usedPercent()) + " used)");
                break;
            }
            e.mountpath = mp.path;
            out.push_back(std::move(e));
        }
    }
    return out;
}

}  // namespace tessera::daemon::proxy
