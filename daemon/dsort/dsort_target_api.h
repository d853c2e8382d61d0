#pragma once
// A target's internal dSort endpoints, called by the job's other targets:
//   POST /v1/internal/dsort/{id}/records?from=N&last=B  record metadata (JSON, spec::recordsToJson) to the sorter
//   POST /v1/internal/dsort/{id}/assign                 the output shards this target creates (assignmentsToJson)
//   POST /v1/internal/dsort/{id}/pull                   [index, ...] -> the encoded records, back to back
//   POST /v1/internal/dsort/{id}/done?from=N            N finished creating (it pulls nothing more)
//   POST /v1/internal/dsort/{id}/fail?from=N            {"target":"<id>","error":"..."}: it failed, stop
//                                                       (kept when the job has not started here yet)
//   GET  /v1/internal/dsort/{id}/metrics                this target's counters and phase times
//   GET  /v1/internal/dsort/metrics?ids=A,B,...         the same for every listed job this target
//                                                       has ({id: counters}), in one call
// A job unknown here is a 404 (the caller retries a moment: its start may
// not have reached this target yet), as is a pull after the job ended here.
//
// Thread safety: handlers run on worker threads; sessions are thread-safe.

#include "api/paths.h"
#include "dsort_registry.h"

#include "net/router.h"

namespace tessera::daemon::dsort {

class DsortTargetApi {
public:
    static constexpr std::size_t kMaxPullRecords = 4096;
    // A record's file of at least this many bytes goes out of a pull answer
    // by sendfile; smaller ones are read and sent with the headers.
    static constexpr std::uint64_t kSendfileFrom = 64 * 1024;
    static constexpr std::size_t kMaxRecordsBody = std::size_t{64} << 20;
    static constexpr std::size_t kMaxAssignBody = std::size_t{256} << 20;
    // Jobs one metrics call may name (the proxy keeps 100 finished jobs).
    static constexpr std::size_t kMaxMetricsIds = api::path::kInternalDsortMetricsMaxIds;

    explicit DsortTargetApi(DsortRegistry& registry) : m_registry(registry) {}
    void registerRoutes(net::Router& router);

private:
    api::Result<std::shared_ptr<DsortSession>> session(const net::Request& req) const;
    net::Response records(const net::Request& req);
    net::Response assign(const net::Request& req);
    net::Response pull(const net::Request& req);
    net::Response done(const net::Request& req);
    net::Response fail(const net::Request& req);
    net::Response metrics(const net::Request& req);
    net::Response metricsMany(const net::Request& req);

    DsortRegistry& m_registry;
};

}  // namespace tessera::daemon::dsort
