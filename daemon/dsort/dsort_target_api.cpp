#include "dsort_target_api.h"

#include "api/json_shape.h"
#include "api/paths.h"

#include <charconv>

namespace tessera::daemon::dsort {

namespace http = boost::beast::http;
using net::Exec;
using net::Request;
using net::Response;
using net::Route;

namespace {

api::Result<std::uint32_t> fromParam(const Request& req, std::size_t peers)
{
    const auto v = req.queryValue("from");
    std::uint32_t n = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (v.empty() || ec != std::errc() || p != v.data() + v.size() || n >= peers) {
        return api::Error::badRequest("from must be the index of a target of the job");
    }
    return n;
}

Response statusResponse(const api::Status& st)
{
    if (!st) return Response::error(st.error());
    return Response::json(nlohmann::json::object());
}

}  // namespace

void DsortTargetApi::registerRoutes(net::Router& router)
{
    const std::string base = "/v1/internal/dsort/{id}/";
    router.add(Route{http::verb::post,
                     base + "records",
                     Exec::Worker,
                     net::bind(this, &DsortTargetApi::records),
                     {},
                     kMaxRecordsBody});
    router.add(Route{
        http::verb::post, base + "assign", Exec::Worker, net::bind(this, &DsortTargetApi::assign), {}, kMaxAssignBody});
    router.add(Route{http::verb::post, base + "pull", Exec::Worker, net::bind(this, &DsortTargetApi::pull), {}});
    router.add(Route{http::verb::post, base + "done", Exec::Inline, net::bind(this, &DsortTargetApi::done), {}});
    router.add(Route{http::verb::post, base + "fail", Exec::Inline, net::bind(this, &DsortTargetApi::fail), {}});
    router.add(Route{http::verb::get, base + "metrics", Exec::Inline, net::bind(this, &DsortTargetApi::metrics), {}});
    router.add(Route{http::verb::get,
                     std::string(api::path::kInternalDsortMetrics),
                     Exec::Inline,
                     net::bind(this, &DsortTargetApi::metricsMany),
                     {}});
}

api::Result<std::shared_ptr<DsortSession>> DsortTargetApi::session(const Request& req) const
{
    auto s = m_registry.find(req.param("id"));
    if (!s) return api::Error::notFound("no dSort job \"" + req.param("id") + "\" on this target");
    return s;
}

Response DsortTargetApi::records(const Request& req)
{
    auto s = session(req);
    if (!s) return Response::error(s.error());
    auto from = fromParam(req, (*s)->peers().size());
    if (!from) return Response::error(from.error());
    const auto last = req.queryValue("last");
    if (last != "true" && last != "false") return Response::error(api::Error::badRequest("last must be true or false"));
    if (auto st = api::checkJsonShape(req.body, {api::JsonShape::Top::Array, 4, 40'000'000}, "records"); !st) {
        return Response::error(st.error());
    }
    auto j = nlohmann::json::parse(req.body, nullptr, false);
    if (j.is_discarded()) return Response::error(api::Error::badRequest("records: malformed JSON"));
    auto recs = spec::recordsFromJson(j);
    if (!recs) return Response::error(recs.error());
    return statusResponse((*s)->putRecords(*from, std::move(recs.value()), last == "true"));
}

Response DsortTargetApi::assign(const Request& req)
{
    auto s = session(req);
    if (!s) return Response::error(s.error());
    if (auto st = api::checkJsonShape(req.body, {api::JsonShape::Top::Array, 6, 40'000'000}, "assign"); !st) {
        return Response::error(st.error());
    }
    auto j = nlohmann::json::parse(req.body, nullptr, false);
    if (j.is_discarded()) return Response::error(api::Error::badRequest("assign: malformed JSON"));
    auto shards = assignmentsFromJson(j, (*s)->peers().size());
    if (!shards) return Response::error(shards.error());
    return statusResponse((*s)->putAssignment(std::move(shards.value())));
}

Response DsortTargetApi::pull(const Request& req)
{
    auto s = session(req);
    if (!s) return Response::error(s.error());
    if (auto st = api::checkJsonShape(req.body, {api::JsonShape::Top::Array, 1, kMaxPullRecords}, "pull"); !st) {
        return Response::error(st.error());
    }
    auto j = nlohmann::json::parse(req.body, nullptr, false);
    if (!j.is_array() || j.size() > kMaxPullRecords) {
        return Response::error(api::Error::badRequest("pull: body must be a list of at most " +
                                                      std::to_string(kMaxPullRecords) + " record indices"));
    }
    auto store = (*s)->store();
    if (!store) return Response::error(api::Error::notFound("dSort job " + (*s)->id() + " has ended on this target"));
    for (const auto& e : j) {
        if (!e.is_number_unsigned()) return Response::error(api::Error::badRequest("pull: indices are whole numbers"));
    }
    // The records' headers (and small files) from memory, their files'
    // bytes by sendfile from the input shards: no copy of them here.
    Response out;
    out.header("Content-Type", "application/octet-stream");
    std::string bytes;
    auto onBytes = [&](std::string_view b) {
        bytes.append(b);
        return api::Status{};
    };
    auto onRegion = [&](const RecordStore::Region& r) {
        if (!bytes.empty()) out.parts.push_back(net::BodyPart{std::move(bytes), nullptr});
        bytes.clear();
        out.parts.push_back(
            net::BodyPart{{}, std::make_unique<net::FileRegion>(net::FileRegion{r.fd, r.offset, r.length})});
        return api::Status{};
    };
    for (const auto& e : j) {
        if (auto st = store->pieces(e.get<std::uint64_t>(), kSendfileFrom, onBytes, onRegion); !st)
            return Response::error(st.error());
    }
    if (!bytes.empty() || out.parts.empty()) out.parts.push_back(net::BodyPart{std::move(bytes), nullptr});
    return out;
}

Response DsortTargetApi::done(const Request& req)
{
    auto s = session(req);
    if (!s) return Response::error(s.error());
    auto from = fromParam(req, (*s)->peers().size());
    if (!from) return Response::error(from.error());
    return statusResponse((*s)->markDone(*from));
}

Response DsortTargetApi::fail(const Request& req)
{
    // Accepted for a job not started here yet: it stops as soon as it starts.
    if (auto st = api::checkJsonShape(req.body, {api::JsonShape::Top::Object, 1, 8}, "fail"); !st) {
        return Response::error(st.error());
    }
    auto f = api::parseMessage<api::DsortFailure>(req.body, "fail");
    if (!f) return Response::error(f.error());
    m_registry.fail(req.param("id"), "target " + f->target.substr(0, 64) + " failed: " + f->error.substr(0, 4096));
    return Response::json(nlohmann::json::object());
}

Response DsortTargetApi::metrics(const Request& req)
{
    auto s = session(req);
    if (!s) return Response::error(s.error());
    return Response::json((*s)->metrics());
}

Response DsortTargetApi::metricsMany(const Request& req)
{
    const auto ids = req.queryValue("ids");
    nlohmann::json out = nlohmann::json::object();
    std::size_t count = 0;
    for (std::size_t pos = 0; pos < ids.size();) {
        auto end = ids.find(',', pos);
        if (end == std::string::npos) end = ids.size();
        if (++count > kMaxMetricsIds) {
            return Response::error(
                api::Error::badRequest("ids names more than " + std::to_string(kMaxMetricsIds) + " jobs"));
        }
        const auto id = ids.substr(pos, end - pos);
        if (auto s = m_registry.find(id)) out[id] = s->metrics();
        pos = end + 1;
    }
    return Response::json(out);
}

}  // namespace tessera::daemon::dsort
