// The job coordinator's REST routes (/v1/jobs): they parse and answer; the
// coordination itself is job_coordinator.cpp's.
#include "job_coordinator.h"

#include "api/job.h"

namespace tessera::daemon::proxy {

namespace http = boost::beast::http;
using net::Exec;
using net::Request;
using net::Response;
using net::Route;

namespace {

// POST /v1/jobs carries an archive job's object list (api::kMaxArchiveObjects names).
constexpr std::size_t kMaxStartBody = std::size_t{16} << 20;

}  // namespace

void JobCoordinator::registerRoutes(net::Router& router)
{
    router.add(Route{
        http::verb::post, "/v1/jobs", Exec::Worker, net::bind(this, &JobCoordinator::startJob), {}, kMaxStartBody});
    router.add(Route{http::verb::get, "/v1/jobs", Exec::Inline, net::bind(this, &JobCoordinator::listJobs), {}});
    router.add(Route{http::verb::get, "/v1/jobs/{id}", Exec::Inline, net::bind(this, &JobCoordinator::showJob), {}});
    router.add(
        Route{http::verb::delete_, "/v1/jobs/{id}", Exec::Worker, net::bind(this, &JobCoordinator::abortJob), {}});
}

Response JobCoordinator::startJob(const Request& req)
{
    auto start = api::parseMessage<api::JobStart>(req.body, "job");
    if (!start) return Response::error(start.error());
    auto st = startKind(start->kind, start->args);
    if (!st) return Response::error(st.error());
    return Response::json(*st);
}

Response JobCoordinator::listJobs(const Request&)
{
    std::lock_guard lock(m_mutex);
    auto out = nlohmann::json::array();
    for (const auto& id : m_order) out.push_back(m_jobs.at(id).status);
    return Response::json(out);
}

Response JobCoordinator::showJob(const Request& req)
{
    std::lock_guard lock(m_mutex);
    auto it = m_jobs.find(req.param("id"));
    if (it == m_jobs.end()) return Response::error(api::Error::notFound("no job \"" + req.param("id") + "\""));
    return Response::json(it->second.status);
}

Response JobCoordinator::abortJob(const Request& req)
{
    auto st = abort(req.param("id"));
    if (!st) return Response::error(st.error());
    return Response::json(*st);
}

}  // namespace tessera::daemon::proxy
