#pragma once
// Node statistics in the Prometheus text exposition format (version 0.0.4):
// counters end in _total, latencies are histograms in seconds, every series
// carries node_id and role labels. Checked by `promtool check metrics` in
// the integration tests.

#include "api/node_stats.h"

#include <string>

namespace tessera::daemon::stats {

inline constexpr const char* kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

std::string renderPrometheus(const api::NodeStats& s);

}  // namespace tessera::daemon::stats
