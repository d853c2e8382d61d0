#pragma once
// The REST paths, built in one place: every caller (the C++ client, the
// CLI, the console, the nodes calling each other) names a path here instead
// of spelling it. Names and ids are percent-encoded; object names keep
// their '/'. The routes that serve them are in the daemon's *_api.cpp.

#include <cstddef>
#include <string>
#include <string_view>

namespace tessera::api::path {

inline constexpr std::string_view kHealth = "/v1/health";
inline constexpr std::string_view kBuckets = "/v1/buckets";
inline constexpr std::string_view kJobs = "/v1/jobs";
inline constexpr std::string_view kCluster = "/v1/cluster";
inline constexpr std::string_view kJoin = "/v1/cluster/join";
inline constexpr std::string_view kKeepalive = "/v1/cluster/keepalive";
inline constexpr std::string_view kMetasync = "/v1/metasync";
inline constexpr std::string_view kSort = "/v1/sort";
inline constexpr std::string_view kSortAbort = "/v1/sort/abort";
inline constexpr std::string_view kIshard = "/v1/ishard";
inline constexpr std::string_view kFeed = "/v1/ws";
inline constexpr std::string_view kInternalJobs = "/v1/internal/jobs";

std::string bucket(std::string_view bucket);                                  // /v1/buckets/<b>
std::string object(std::string_view bucket, std::string_view name);           // /v1/objects/<b>/<name>
std::string job(std::string_view id);                                         // /v1/jobs/<id>
std::string internalJob(std::string_view id);                                 // /v1/internal/jobs/<id>
std::string internalBucket(std::string_view bucket);                          // /v1/internal/buckets/<b>
std::string internalEcSlice(std::string_view bucket, std::string_view name);  // /v1/internal/ec/<b>/<name>
std::string internalDsort(std::string_view jobId, std::string_view what);     // /v1/internal/dsort/<id>/<what>
// A target's counters of many dSort jobs in one call (?ids=A,B,...).
inline constexpr std::string_view kInternalDsortMetrics = "/v1/internal/dsort/metrics";
inline constexpr std::size_t kInternalDsortMetricsMaxIds = 1024;  // ids in one such call
std::string clusterWhat(std::string_view what);                   // /v1/cluster?what=<what>
std::string daemonWhat(std::string_view what);                    // /v1/daemon?what=<what>

}  // namespace tessera::api::path
