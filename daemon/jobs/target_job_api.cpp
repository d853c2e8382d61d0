#include "target_job_api.h"

#include "shard_build_job.h"

#include "api/json_shape.h"
#include "api/names.h"

#include <nlohmann/json.hpp>

namespace tessera::daemon::jobs {

namespace http = boost::beast::http;
using net::Exec;
using net::Request;
using net::Response;
using net::Route;

constexpr std::size_t kMaxArgsBytes = std::size_t{128} << 20;

void TargetJobApi::registerRoutes(net::Router& router)
{
    // The args of a shard-building job list every member of this target's
    // shards (ishard: up to a million objects).
    router.add(Route{
        http::verb::post, "/v1/internal/jobs", Exec::Worker, net::bind(this, &TargetJobApi::start), {}, kMaxArgsBytes});
    router.add(Route{http::verb::get, "/v1/internal/jobs", Exec::Inline, net::bind(this, &TargetJobApi::list), {}});
    router.add(
        Route{http::verb::get, "/v1/internal/jobs/{id}", Exec::Inline, net::bind(this, &TargetJobApi::show), {}});
    router.add(
        Route{http::verb::delete_, "/v1/internal/jobs/{id}", Exec::Inline, net::bind(this, &TargetJobApi::abort), {}});
}

Response TargetJobApi::start(const Request& req)
{
    // A shard task (what the proxy's archive and ishard jobs send, in
    // api::dumpJobEnvelope's layout) goes to its kind as text: it parses
    // the members straight into its struct, within the same limits.
    if (api::JobEnvelopeText env;
        api::splitJobEnvelope(req.body, env) && (env.kind == kKindArchive || env.kind == kKindIshard)) {
        auto st = m_runner.start(env.id, env.kind, JobArgs::fromText(env.args));
        if (!st) return Response::error(st.error());
        return Response::json(*st);
    }
    // Shape first, without building anything: an ishard part lists up to a
    // million [object, size] pairs, nested 5 deep.
    if (auto st = api::checkJsonShape(req.body, {api::JsonShape::Top::Object, 8, kMaxJobArgsValues}, "job"); !st) {
        return Response::error(st.error());
    }
    auto job = api::parseMessage<api::JobEnvelope>(req.body, "job");
    if (!job) return Response::error(job.error());
    auto st = m_runner.start(job->id, job->kind, job->args);
    if (!st) return Response::error(st.error());
    return Response::json(*st);
}

Response TargetJobApi::list(const Request&) { return Response::json(m_runner.list()); }

Response TargetJobApi::show(const Request& req)
{
    auto st = m_runner.status(req.param("id"));
    if (!st) return Response::error(st.error());
    return Response::json(*st);
}

Response TargetJobApi::abort(const Request& req)
{
    auto st = m_runner.abort(req.param("id"));
    if (!st) return Response::error(st.error());
    return Response::json(*st);
}

}  // namespace tessera::daemon::jobs
