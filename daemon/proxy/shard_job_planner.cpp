#include "shard_job_planner.h"

#include "api/archive_msg.h"
#include "api/hrw.h"
#include "api/json_util.h"
#include "api/names.h"
#include "api/shard_task.h"
#include "archive/archive_format.h"
#include "common/log.h"
#include "net/request_params.h"
#include "spec/brace_template.h"

#include <chrono>
#include <random>

namespace tessera::daemon::proxy {

namespace http = boost::beast::http;
using net::Exec;
using net::Request;
using net::Response;
using net::Route;

namespace {

// An ishard spec is small; the plan it produces is not sent in a request.
constexpr std::size_t kMaxSpecBody = 64 << 10;

std::int64_t nowSeconds()
{
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace

ShardJobPlanner::ShardJobPlanner(ProxyState& state, JobCoordinator& jobs, BucketLister list)
    : m_state(state), m_jobs(jobs), m_list(std::move(list))
{
}

void ShardJobPlanner::registerWith(JobCoordinator& jobs, net::Router& router)
{
    using Text = JobCoordinator::TextPreparer;
    jobs.addKind("archive", JobCoordinator::KindInfo(Text(
                                [this](const nlohmann::json& a, const api::Smap& t) { return prepareArchive(a, t); })));
    jobs.addKind("ishard", JobCoordinator::KindInfo(Text(
                               [this](const nlohmann::json& a, const api::Smap& t) { return prepareIshard(a, t); })));
    router.add(Route{http::verb::post,
                     "/v1/ishard",
                     Exec::Worker,
                     [this](const Request& r) { return ishard(r); },
                     {},
                     kMaxSpecBody});
}

api::Status ShardJobPlanner::checkBuckets(const std::string& src, const std::string& dst) const
{
    const auto bmd = m_state.bmd();
    if (bmd->find(src) == nullptr) return api::Error::notFound("bucket \"" + src + "\" does not exist");
    if (bmd->find(dst) == nullptr) return api::Error::notFound("bucket \"" + dst + "\" does not exist");
    return {};
}

Response ShardJobPlanner::archiveAction(const std::string& srcBck, const nlohmann::json& value)
{
    nlohmann::json args = value;
    if (!args.is_object()) {
        return Response::error(api::Error::badRequest("archive: \"value\" must be an object (api::ArchiveMsg)"));
    }
    if (auto st = api::validateBucketName(srcBck); !st) return Response::error(st.error());
    args["src_bck"] = srcBck;
    auto st = m_jobs.startKind("archive", args);
    if (!st) return Response::error(st.error());
    return Response::json(*st);
}

api::Result<std::map<std::string, std::string>> ShardJobPlanner::prepareArchive(const nlohmann::json& args,
                                                                                const api::Smap& targets) const
{
    auto msg = api::parseArchiveMsg(args, {});
    if (!msg) return msg.error();
    if (auto st = checkBuckets(msg->srcBck, msg->toBck); !st) return st.error();
    if (auto f = archive::resolveFormat(msg->archName, msg->mime); !f) {
        const char* field = msg->mime.empty() ? "/archname: " : "/mime: ";
        return api::Error::badRequest(std::string("invalid archive request: ") + field + f.error().message);
    }
    std::vector<std::string> names = msg->objNames;
    if (!msg->templ.empty()) {
        auto t = spec::BraceTemplate::parse(msg->templ);
        if (!t) return api::Error::badRequest("invalid archive request: /template: " + t.error().message);
        auto expanded = t->expand(api::kMaxArchiveObjects);
        if (!expanded) return api::Error::badRequest("invalid archive request: /template: " + expanded.error().message);
        names = std::move(expanded.value());
        for (const auto& n : names) {
            if (auto st = api::validateObjectName(n); !st) {
                return api::Error::badRequest("invalid archive request: /template: \"" + n +
                                              "\": " + st.error().message);
            }
        }
    }
    api::ShardTask task;
    task.srcBck = msg->srcBck;
    task.dstBck = msg->toBck;
    task.mime = msg->mime;
    task.append = msg->appendToArch;
    task.continueOnErr = msg->continueOnErr;
    task.mtime = nowSeconds();
    api::ShardBuild shard;
    shard.name = msg->archName;
    for (auto& n : names) {
        api::ShardMemberSource m;
        m.object = std::move(n);
        if (msg->includeSrcBck) m.memberName = msg->srcBck + "/" + m.object;
        shard.members.push_back(std::move(m));
    }
    task.shards.push_back(std::move(shard));
    const auto* owner = api::hrwTarget(targets, api::objectUname(task.dstBck, msg->archName));
    if (owner == nullptr) return api::Error::unavailable("no targets in the cluster");
    std::map<std::string, std::string> out;
    out[owner->id] = api::dumpShardTask(task);
    return out;
}

api::Result<spec::IshardPlan> ShardJobPlanner::plan(spec::IshardSpec& s) const
{
    if (auto st = checkBuckets(s.srcBck, s.dstBck); !st) return st.error();
    if (s.order == spec::SampleOrder::Shuffle && !s.seed)
        s.seed = std::random_device{}() | (std::uint64_t{std::random_device{}()} << 32);

    api::ListRequest req;
    req.prefix = s.prefix;
    req.pageSize = api::kMaxPageSize;
    req.props = api::kPropName | api::kPropSize;
    std::vector<spec::SourceObject> objects;
    while (true) {
        auto page = m_list(s.srcBck, req);
        if (!page) return api::Error{page.kind(), "cannot list " + s.srcBck + ": " + page.error().message, {}};
        for (auto& e : page->entries) {
            objects.push_back({std::move(e.name), static_cast<std::uint64_t>(std::max<std::int64_t>(e.size, 0))});
        }
        if (objects.size() > kMaxIshardObjects) {
            return api::Error::badRequest("invalid ishard spec: /prefix: more than " +
                                          std::to_string(kMaxIshardObjects) +
                                          " objects in one ishard job; shard a narrower prefix at a time");
        }
        if (page->continuationToken.empty()) break;
        req.continuationToken = page->continuationToken;
    }
    if (objects.empty()) {
        return api::Error::badRequest("invalid ishard spec: /prefix: no objects in \"" + s.srcBck + "\" under \"" +
                                      s.prefix + "\"; nothing to shard");
    }
    return spec::planIshard(objects, s);
}

api::Result<std::map<std::string, std::string>> ShardJobPlanner::prepareIshard(const nlohmann::json& args,
                                                                               const api::Smap& targets) const
{
    auto s = spec::parseIshardSpec(args);
    if (!s) return s.error();
    if (s->dryRun) return api::Error::badRequest("invalid ishard spec: /dry_run: a dry run is POST /v1/ishard");
    auto p = plan(*s);
    if (!p) return p.error();
    std::map<std::string, api::ShardTask> tasks;
    const auto mtime = nowSeconds();
    for (auto& shard : p->shards) {
        const auto* owner = api::hrwTarget(targets, api::objectUname(s->dstBck, shard.name));
        if (owner == nullptr) return api::Error::unavailable("no targets in the cluster");
        auto& t = tasks[owner->id];
        if (t.srcBck.empty()) {
            t.srcBck = s->srcBck;
            t.dstBck = s->dstBck;
            t.mime = std::string(archive::formatName(s->format));
            t.mtime = mtime;
        }
        api::ShardBuild b;
        b.name = std::move(shard.name);
        b.members.reserve(shard.members.size());
        for (auto& m : shard.members) b.members.push_back({std::move(m.name), static_cast<std::int64_t>(m.size), {}});
        t.shards.push_back(std::move(b));
    }
    logInfo("ishard ", s->srcBck, "/", s->prefix, " -> ", s->dstBck, ": ", p->samples, " samples in ", p->shards.size(),
            " shards on ", tasks.size(), " target(s)", p->seed ? ", seed " + std::to_string(*p->seed) : std::string());
    std::map<std::string, std::string> out;
    for (auto& [id, t] : tasks) out[id] = api::dumpShardTask(t);
    return out;
}

Response ShardJobPlanner::ishard(const Request& req)
{
    auto j = api_util::specBody(req, "ishard");
    if (!j) return Response::error(j.error());
    const auto dry = req.queryValue("dry_run");
    if (!dry.empty() && dry != "true" && dry != "false") {
        return Response::error(api::Error::badRequest("dry_run must be true or false"));
    }
    auto s = spec::parseIshardSpec(*j);
    if (!s) return Response::error(s.error());
    if (dry == "true") s->dryRun = true;
    if (s->dryRun) {
        auto p = plan(*s);
        if (!p) return Response::error(p.error());
        s->dryRun = false;  // the spec as it would run: starting it gives this plan
        return Response::json(nlohmann::json(spec::IshardDryRun{*s, std::move(*p)}));
    }
    if (s->order == spec::SampleOrder::Shuffle && !s->seed) {
        // Pick the seed here so the job's args (and the log) carry it.
        s->seed = std::random_device{}() | (std::uint64_t{std::random_device{}()} << 32);
    }
    auto st = m_jobs.startKind("ishard", nlohmann::json(*s));
    if (!st) return Response::error(st.error());
    return Response::json(*st);
}

}  // namespace tessera::daemon::proxy
