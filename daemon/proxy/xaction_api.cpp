#include "xaction_api.h"

#include "stats/ais_answers.h"

#include <set>

namespace tessera::daemon::proxy {

using net::Request;
using net::Response;

namespace {

// apc.ActXactStart, apc.ActXactStop (api/apc/actmsg.go).
constexpr std::string_view kActStart = "start";
constexpr std::string_view kActStop = "stop";

// AIStore's message when a query selects nothing: `"%q not found"` of the
// query, naming it as xact.ArgsMsg.String() does ("xa-KIND[ID]").
api::Error notFound(const api::AisXactArgs& q)
{
    return api::Error::notFound("\"xa-" + q.kind + "[" + q.id + "]\" not found");
}

}  // namespace

std::optional<Response> XactionApi::query(const std::string& what, const Request& req) const
{
    if (what != "qryxstats" && what != "status" && what != "status_all" && what != "running_all") return std::nullopt;
    auto q = api::parseAisXactArgs(req.body, "xaction query");
    if (!q) return Response::error(q.error());
    if (what == "qryxstats") return snaps(*q);
    if (what == "status") return status(*q);
    if (what == "status_all") return statusAll(*q);
    return running(*q);
}

Response XactionApi::snaps(const api::AisXactArgs& q) const
{
    api::AisMultiSnap out;
    for (const auto& job : m_jobs.list()) {
        if (!api::aisXactSelects(q, job)) continue;
        for (const auto& [target, part] : job.targets) {
            if (!q.node.empty() && q.node != target) continue;
            out[target].push_back(api::aisXactSnap(job, part));
        }
    }
    if (out.empty()) return Response::error(notFound(q));
    return Response::json(out);
}

Response XactionApi::status(const api::AisXactArgs& q) const
{
    // AIStore's GetOneXactionStatus needs an id or a kind (apc: "missing selector").
    if (q.id.empty() && q.kind.empty()) {
        return Response::error(api::Error::badRequest("xaction status: give the job's id or kind"));
    }
    std::optional<api::JobStatus> found;
    for (const auto& job : m_jobs.list()) {  // oldest first: the last match is the newest
        if (api::aisXactSelects(q, job)) found = job;
    }
    if (!found) return Response::error(notFound(q));
    return Response::json(api::aisXactStatus(*found));
}

Response XactionApi::statusAll(const api::AisXactArgs& q) const
{
    std::vector<api::AisXactStatus> out;
    for (const auto& job : m_jobs.list()) {
        if (api::aisXactSelects(q, job)) out.push_back(api::aisXactStatus(job));
    }
    return Response::json(out);
}

Response XactionApi::running(const api::AisXactArgs& q) const
{
    api::AisXactArgs active = q;
    active.onlyRunning = true;
    std::set<std::string> names;  // sorted and unique, as AIStore's cos.StrSet
    for (const auto& job : m_jobs.list()) {
        if (!api::aisXactSelects(active, job)) continue;
        bool onNode = q.node.empty();
        for (const auto& [target, part] : job.targets) onNode = onNode || target == q.node;
        if (onNode) names.insert(api::aisXactName(job));
    }
    return Response::json(std::vector<std::string>(names.begin(), names.end()));
}

std::optional<Response> XactionApi::action(const api::ActionMsg& msg)
{
    if (msg.action != kActStart && msg.action != kActStop) return std::nullopt;
    auto args = api::readAisXactArgs(msg.value, msg.action + " /value");
    if (!args) return Response::error(args.error());
    return msg.action == kActStop ? stop(*args) : start(*args);
}

Response XactionApi::stop(const api::AisXactArgs& args)
{
    if (args.id.empty() && args.kind.empty()) {
        return Response::error(api::Error::badRequest("stop: give the job's id or kind (value.ID, value.Kind)"));
    }
    if (!args.id.empty()) {
        auto job = m_jobs.find(args.id);
        if (!job || (!args.kind.empty() && job->kind != args.kind)) return Response::error(notFound(args));
        auto st = m_jobs.abort(args.id);
        if (!st) return Response::error(st.error());
        return Response::ok();
    }
    // A kind alone: every running job of it (AIStore aborts them all).
    api::AisXactArgs active = args;
    active.onlyRunning = true;
    for (const auto& job : m_jobs.list()) {
        if (!api::aisXactSelects(active, job)) continue;
        auto st = m_jobs.abort(job.id);
        // One that ended (and was forgotten) meanwhile is not an error.
        if (!st && st.error().kind != api::ErrorKind::NotFound) return Response::error(st.error());
    }
    return Response::ok();
}

Response XactionApi::start(const api::AisXactArgs& args)
{
    if (args.kind != "rebalance") {
        return stats::aisNotImplementedError(
            "start: xaction kind \"" + args.kind +
            "\" cannot be started through AIStore's call: the one Tessera has is rebalance (Tessera's own jobs "
            "start with POST /v1/jobs, see docs/api.md)");
    }
    auto st = m_jobs.startKind(args.kind, nlohmann::json::object());
    if (!st) return Response::error(st.error());
    Response r;
    r.body = st->id;  // AIStore answers the xaction id as plain text
    r.header("Content-Type", "text/plain");
    return r;
}

}  // namespace tessera::daemon::proxy
