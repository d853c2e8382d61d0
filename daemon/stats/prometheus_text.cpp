#include "prometheus_text.h"

#include <cstdio>
#include <string_view>

namespace tessera::daemon::stats {

namespace {

std::string escapeLabel(std::string_view v)
{
    std::string out;
    out.reserve(v.size());
    for (char c : v) {
        if (c == '\\') out += "\\\\";
        else if (c == '"') out += "\\\"";
        else if (c == '\n') out += "\\n";
        else out += c;
    }
    return out;
}

std::string formatDouble(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

class Writer {
public:
    explicit Writer(const api::NodeStats& s)
        : m_base("node_id=\"" + escapeLabel(s.id) + "\",role=\"" + escapeLabel(s.role) + "\"")
    {
    }

    void family(std::string_view name, std::string_view type, std::string_view help)
    {
        m_out.append("# HELP ").append(name).append(" ").append(help).append("\n");
        m_out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
    }
    void sample(std::string_view name, std::string_view extraLabels, const std::string& value)
    {
        m_out.append(name).append("{").append(m_base);
        if (!extraLabels.empty()) m_out.append(",").append(extraLabels);
        m_out.append("} ").append(value).append("\n");
    }
    void sample(std::string_view name, std::string_view extraLabels, std::uint64_t value)
    {
        sample(name, extraLabels, std::to_string(value));
    }
    std::string take() { return std::move(m_out); }

private:
    std::string m_base;
    std::string m_out;
};

std::string opLabel(std::size_t i) { return "op=\"" + std::string(api::kOpNames[i]) + "\""; }

}  // namespace

std::string renderPrometheus(const api::NodeStats& s)
{
    Writer w(s);
    w.family("tessera_ops_total", "counter", "Successful operations by kind.");
    for (std::size_t i = 0; i < api::kOpKinds; ++i) w.sample("tessera_ops_total", opLabel(i), s.ops[i].n);
    w.family("tessera_op_bytes_total", "counter", "Payload bytes of successful operations by kind.");
    for (std::size_t i = 0; i < api::kOpKinds; ++i) w.sample("tessera_op_bytes_total", opLabel(i), s.ops[i].bytes);
    w.family("tessera_op_redirects_total", "counter", "Operations answered with a redirect by kind.");
    for (std::size_t i = 0; i < api::kOpKinds; ++i) {
        w.sample("tessera_op_redirects_total", opLabel(i), s.ops[i].redirects);
    }
    w.family("tessera_op_errors_total", "counter",
             "Operations answered with an error, by kind and HTTP status (0: other); client aborts are apart.");
    for (std::size_t i = 0; i < api::kOpKinds; ++i) {
        for (const auto& [status, n] : s.ops[i].errorsByStatus) {
            w.sample("tessera_op_errors_total", opLabel(i) + ",status=\"" + std::to_string(status) + "\"", n);
        }
    }
    w.family("tessera_op_client_aborts_total", "counter",
             "Operations the client abandoned before the answer was complete (closed or stalled), by kind.");
    for (std::size_t i = 0; i < api::kOpKinds; ++i) {
        w.sample("tessera_op_client_aborts_total", opLabel(i), s.ops[i].aborts);
    }
    w.family("tessera_op_duration_seconds", "histogram",
             "Latency of successful operations, from request header to the end of the answer.");
    for (std::size_t i = 0; i < api::kOpKinds; ++i) {
        const auto& c = s.ops[i];
        std::uint64_t cumulative = 0;
        for (std::size_t b = 0; b < api::kLatencyBuckets; ++b) {
            cumulative += c.latency[b];
            const std::string le = b < api::kLatencyBounds.size()
                                       ? formatDouble(static_cast<double>(api::kLatencyBounds[b]) / 1e9)
                                       : std::string("+Inf");
            w.sample("tessera_op_duration_seconds_bucket", opLabel(i) + ",le=\"" + le + "\"", cumulative);
        }
        w.sample("tessera_op_duration_seconds_sum", opLabel(i), formatDouble(static_cast<double>(c.ns) / 1e9));
        w.sample("tessera_op_duration_seconds_count", opLabel(i), cumulative);
    }
    w.family("tessera_checksum_errors_total", "counter", "GETs refused because the stored checksum did not match.");
    w.sample("tessera_checksum_errors_total", "", s.checksumErrors);
    w.family("tessera_requests_total", "counter", "HTTP requests received.");
    w.sample("tessera_requests_total", "", s.requests);
    w.family("tessera_connections", "gauge", "Open client connections (HTTP and WebSocket).");
    w.sample("tessera_connections", "", s.connections);
    w.family("tessera_uptime_seconds", "gauge", "Seconds since the node started.");
    w.sample("tessera_uptime_seconds", "", formatDouble(static_cast<double>(s.uptimeNs) / 1e9));
    w.family("tessera_smap_version", "gauge", "Version of the cluster map this node holds.");
    w.sample("tessera_smap_version", "", std::to_string(s.smapVersion));
    w.family("tessera_bmd_version", "gauge", "Version of the bucket metadata this node holds.");
    w.sample("tessera_bmd_version", "", std::to_string(s.bmdVersion));
    w.family("process_cpu_seconds_total", "counter", "User and system CPU time of the node process.");
    w.sample("process_cpu_seconds_total", "", formatDouble(static_cast<double>(s.cpuNs) / 1e9));
    w.family("process_resident_memory_bytes", "gauge", "Resident memory of the node process.");
    w.sample("process_resident_memory_bytes", "", s.rssBytes);
    if (s.feed) {
        w.family("tessera_feed_sessions", "gauge", "Open sessions of the live feed (/v1/ws).");
        w.sample("tessera_feed_sessions", "", s.feed->sessions);
        w.family("tessera_feed_sessions_accepted_total", "counter", "Feed sessions accepted.");
        w.sample("tessera_feed_sessions_accepted_total", "", s.feed->accepted);
        w.family("tessera_feed_sessions_refused_total", "counter", "Feed upgrades refused (origin, session cap).");
        w.sample("tessera_feed_sessions_refused_total", "", s.feed->refused);
        w.family("tessera_feed_sessions_closed_slow_total", "counter",
                 "Feed sessions closed because the client fell behind.");
        w.sample("tessera_feed_sessions_closed_slow_total", "", s.feed->closedSlow);
    }
    if (!s.mountpaths.empty()) {
        auto mp = [](const api::MountpathStats& m) { return "mountpath=\"" + escapeLabel(m.path) + "\""; };
        w.family("tessera_mountpath_capacity_bytes", "gauge", "Size of the filesystem under a mountpath.");
        for (const auto& m : s.mountpaths) w.sample("tessera_mountpath_capacity_bytes", mp(m), m.total);
        w.family("tessera_mountpath_used_bytes", "gauge", "Used bytes of the filesystem under a mountpath.");
        for (const auto& m : s.mountpaths) w.sample("tessera_mountpath_used_bytes", mp(m), m.used);
        w.family("tessera_mountpath_available_bytes", "gauge", "Bytes available to the node under a mountpath.");
        for (const auto& m : s.mountpaths) w.sample("tessera_mountpath_available_bytes", mp(m), m.available);
        w.family("tessera_mountpath_objects", "gauge", "Objects under a mountpath at the last usage scan.");
        for (const auto& m : s.mountpaths) {
            if (m.objects >= 0) w.sample("tessera_mountpath_objects", mp(m), static_cast<std::uint64_t>(m.objects));
        }
        w.family("tessera_mountpath_state", "gauge",
                 "1 for the state a mountpath is in (ok, nearly_full at 85 %, full at 95 %, error).");
        for (const auto& m : s.mountpaths) {
            for (auto st : {api::MountpathState::Ok, api::MountpathState::NearlyFull, api::MountpathState::Full,
                            api::MountpathState::Error}) {
                w.sample("tessera_mountpath_state",
                         mp(m) + ",state=\"" + std::string(api::mountpathStateName(st)) + "\"",
                         std::uint64_t{m.state == st ? 1u : 0u});
            }
        }
    }
    if (s.usageScannedNs > 0) {
        auto b = [](const std::string& name) { return "bucket=\"" + escapeLabel(name) + "\""; };
        w.family("tessera_bucket_objects", "gauge", "Objects of a bucket on this target at the last usage scan.");
        for (const auto& [name, u] : s.buckets) w.sample("tessera_bucket_objects", b(name), u.objects);
        w.family("tessera_bucket_bytes", "gauge", "Bytes of a bucket on this target at the last usage scan.");
        for (const auto& [name, u] : s.buckets) w.sample("tessera_bucket_bytes", b(name), u.bytes);
        w.family("tessera_usage_scan_timestamp_seconds", "gauge", "When the last usage scan finished (Unix time).");
        w.sample("tessera_usage_scan_timestamp_seconds", "", formatDouble(static_cast<double>(s.usageScannedNs) / 1e9));
    }
    return w.take();
}

}  // namespace tessera::daemon::stats
