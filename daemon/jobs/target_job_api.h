#pragma once
// The target's job endpoints, called by the proxy:
//   POST   /v1/internal/jobs        {"id","kind","args"}  start this target's part
//   GET    /v1/internal/jobs        every job this target knows
//   GET    /v1/internal/jobs/{id}   one job's status here
//   DELETE /v1/internal/jobs/{id}   abort it here

#include "job_runner.h"
#include "net/router.h"

namespace tessera::daemon::jobs {

class TargetJobApi {
public:
    explicit TargetJobApi(JobRunner& runner) : m_runner(runner) {}
    void registerRoutes(net::Router& router);

private:
    net::Response start(const net::Request& req);
    net::Response list(const net::Request& req);
    net::Response show(const net::Request& req);
    net::Response abort(const net::Request& req);

    JobRunner& m_runner;
};

}  // namespace tessera::daemon::jobs
