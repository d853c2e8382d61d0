#include "api_client.h"

#include "api/ais_bucket_props.h"

#include "api/action_msg.h"
#include "api/headers.h"
#include "api/hrw.h"
#include "api/http_error.h"
#include "api/json_util.h"
#include "api/object_meta.h"
#include "api/paths.h"
#include "api/uri.h"
#include "api/wire.h"

#include <cstdio>
#include <filesystem>

namespace tessera::client {

namespace {

api::Error errorOf(const Response& r)
{
    if (r.body.empty()) {
        api::Error e;
        e.kind = api::errorKindForStatus(r.status);
        e.message = r.status == 404 ? "not found" : "HTTP " + std::to_string(r.status);
        return e;
    }
    return api::errorFromResponse(r.status, r.body);
}

template <typename T>
api::Result<T> parseBody(const Response& r, const char* what)
{
    return api::parseJsonAs<T>(r.body, what);
}

const Headers kJson{{"Content-Type", "application/json"}};

}  // namespace

Client::Client(std::string endpoint, HttpClient::Options options) : m_endpoint(std::move(endpoint)), m_http(options)
{
    while (!m_endpoint.empty() && m_endpoint.back() == '/') m_endpoint.pop_back();
}

std::string Client::objectUrl(std::string_view bucket, std::string_view name) const
{
    return m_endpoint + api::path::object(bucket, name);
}

std::string Client::bucketUrl(std::string_view bucket) const { return m_endpoint + api::path::bucket(bucket); }

api::Result<Response> Client::call(Method method, const std::string& url, const Body& body, const Headers& headers,
                                   const Sink* sink)
{
    auto r = m_http.send(method, url, body, headers, sink);
    if (!r) return r.error();
    if (!r->isSuccess()) return errorOf(*r);
    return r;
}

api::Result<Response> Client::objectCall(Method method, std::string_view bucket, std::string_view name,
                                         const Body& body, const Headers& headers, const Sink* sink,
                                         const api::QueryMap& query)
{
    const std::string extra = query.empty() ? std::string() : api::buildQuery(query);
    if (m_direct) {
        if (!m_smap) {
            auto s = smap();
            if (s) m_smap = std::move(s.value());
        }
        const auto* owner = m_smap ? api::hrwTarget(*m_smap, api::objectUname(bucket, name)) : nullptr;
        // An away owner: the proxy says why the object is unavailable.
        if (owner != nullptr && !owner->away()) {
            const std::string url = owner->publicNet.url + api::path::object(bucket, name) + "?" +
                                    std::string(api::kQpSmapVersion) + "=" + std::to_string(m_smap->version) +
                                    (extra.empty() ? "" : "&" + extra);
            // Count what reaches the sink: a retry must not deliver bytes twice.
            std::uint64_t delivered = 0;
            Sink counting;
            if (sink != nullptr) {
                counting = [&](const char* d, std::size_t n) -> api::Status {
                    delivered += n;
                    return (*sink)(d, n);
                };
            }
            auto r = m_http.send(method, url, body, headers, sink ? &counting : nullptr);
            const bool retryViaProxy = delivered == 0 && (!r || r->status == 503);
            if (!r || r->redirects > 0 || r->status == 503) m_smap.reset();  // stale either way
            if (!retryViaProxy) {
                if (!r) return r.error();
                if (!r->isSuccess()) return errorOf(*r);
                return r;
            }
        }
    }
    return call(method, objectUrl(bucket, name) + (extra.empty() ? "" : "?" + extra), body, headers, sink);
}

ObjectAttrs Client::attrsFromHeaders(const Response& response)
{
    return api::attrsFromHeaders([&response](std::string_view name) { return response.header(name); });
}

api::Result<nlohmann::json> Client::health()
{
    auto r = m_http.send(Method::Get, m_endpoint + std::string(api::path::kHealth) + "?detail=true");
    if (!r) return r.error();
    auto j = nlohmann::json::parse(r->body, nullptr, false);
    if (!r->isSuccess()) return errorOf(*r);
    if (j.is_discarded()) return api::Error::unavailable("health: unreadable answer");
    return j;
}

api::Result<nlohmann::json> Client::getJson(const std::string& url, const char* what)
{
    auto r = call(Method::Get, url);
    if (!r) return r.error();
    auto j = nlohmann::json::parse(r->body, nullptr, false);
    if (j.is_discarded()) return api::Error::unavailable(std::string(what) + ": unreadable answer");
    return j;
}

api::Result<api::JobStatus> Client::startJob(std::string_view kind, const nlohmann::json& args)
{
    const nlohmann::json body{{"kind", kind}, {"args", args}};
    auto r = call(Method::Post, m_endpoint + std::string(api::path::kJobs), Body::string(body.dump()),
                  {{"Content-Type", "application/json"}});
    if (!r) return r.error();
    return api::parseJobStatus(r->body);
}

api::Result<std::vector<api::JobStatus>> Client::listJobs()
{
    auto j = getJson(m_endpoint + std::string(api::path::kJobs), "job list");
    if (!j) return j.error();
    std::vector<api::JobStatus> out;
    if (!j->is_array()) return api::Error::unavailable("job list: not an array");
    for (const auto& e : *j) {
        auto st = api::parseJobStatus(e.dump());
        if (!st) return st.error();
        out.push_back(std::move(st.value()));
    }
    return out;
}

api::Result<api::JobStatus> Client::job(std::string_view id)
{
    auto r = call(Method::Get, m_endpoint + api::path::job(id));
    if (!r) return r.error();
    return api::parseJobStatus(r->body);
}

api::Result<api::JobStatus> Client::abortJob(std::string_view id)
{
    auto r = call(Method::Delete, m_endpoint + api::path::job(id));
    if (!r) return r.error();
    return api::parseJobStatus(r->body);
}

api::Result<api::JobStatus> Client::startArchive(const api::ArchiveMsg& msg)
{
    nlohmann::json value = msg;
    value.erase("src_bck");  // the URL names it
    const api::ActionMsg body{api::act::kArchive, "", std::move(value)};
    auto r = call(Method::Post, bucketUrl(msg.srcBck), Body::string(api::dumpJson(nlohmann::json(body))), kJson);
    if (!r) return r.error();
    return api::parseJobStatus(r->body);
}

api::Result<std::string> Client::startDsort(const nlohmann::json& spec)
{
    auto r = call(Method::Post, m_endpoint + std::string(api::path::kSort), Body::string(spec.dump()),
                  {{"Content-Type", "application/json"}});
    if (!r) return r.error();
    if (r->body.empty()) return api::Error::unavailable("dsort start: no job id in the answer");
    return std::move(r->body);
}

api::Result<Client::DsortStatus> Client::dsortStatus(std::string_view id)
{
    // Tessera's own status (without format=tessera the proxy answers AIStore's JobInfo map).
    auto j = getJson(m_endpoint + std::string(api::path::kSort) + "?format=tessera&uuid=" + api::percentEncode(id),
                     "dsort status");
    if (!j) return j.error();
    DsortStatus out;
    try {
        out.job = j->get<api::JobStatus>();
    } catch (const std::exception& e) {
        return api::Error::unavailable(std::string("dsort status: unreadable answer: ") + e.what());
    }
    out.metrics = j->value("metrics", nlohmann::json::object());
    return out;
}

api::Result<std::vector<api::JobStatus>> Client::listDsorts()
{
    auto j = getJson(m_endpoint + std::string(api::path::kSort) + "?format=tessera", "dsort list");
    if (!j) return j.error();
    try {
        return j->get<std::vector<api::JobStatus>>();
    } catch (const std::exception& e) {
        return api::Error::unavailable(std::string("dsort list: unreadable answer: ") + e.what());
    }
}

api::Result<api::JobStatus> Client::abortDsort(std::string_view id)
{
    auto r = call(Method::Delete, m_endpoint + std::string(api::path::kSortAbort) + "?uuid=" + api::percentEncode(id));
    if (!r) return r.error();
    return api::parseJobStatus(r->body);
}

api::Status Client::removeDsort(std::string_view id)
{
    auto r = call(Method::Delete, m_endpoint + std::string(api::path::kSort) + "?uuid=" + api::percentEncode(id));
    if (!r) return r.error();
    return {};
}

api::Result<api::JobStatus> Client::startIshard(const spec::IshardSpec& spec)
{
    auto r = call(Method::Post, m_endpoint + std::string(api::path::kIshard), Body::string(nlohmann::json(spec).dump()),
                  {{"Content-Type", "application/json"}});
    if (!r) return r.error();
    return api::parseJobStatus(r->body);
}

api::Result<spec::IshardPlan> Client::ishardDryRun(const spec::IshardSpec& spec)
{
    auto r = call(Method::Post, m_endpoint + std::string(api::path::kIshard) + "?dry_run=true",
                  Body::string(nlohmann::json(spec).dump()), {{"Content-Type", "application/json"}});
    if (!r) return r.error();
    auto j = nlohmann::json::parse(r->body, nullptr, false);
    if (!j.is_object() || !j.contains("plan")) return api::Error::unavailable("ishard dry run: unreadable answer");
    return spec::planFromJson(j["plan"]);
}

api::Result<nlohmann::json> Client::clusterInfo(std::string_view what)
{
    return getJson(m_endpoint + api::path::clusterWhat(what), "cluster info");
}

api::Result<std::int64_t> Client::decommissionNode(std::string_view targetId)
{
    const api::ActionMsg msg{api::act::kDecommissionNode, "", nlohmann::json(api::RemoveNode{std::string(targetId)})};
    auto r = call(Method::Put, m_endpoint + std::string(api::path::kCluster),
                  Body::string(api::dumpJson(nlohmann::json(msg))), kJson);
    if (!r) return r.error();
    auto reply = api::parseMessage<api::ClusterActionReply>(r->body, "decommission answer");
    if (!reply) return reply.error();
    return reply->smapVersion;
}

api::Result<std::int64_t> Client::setMaintenance(std::string_view targetId, bool on)
{
    const api::ActionMsg msg{on ? api::act::kStartMaintenance : api::act::kStopMaintenance, "",
                             nlohmann::json(api::NodeMaintenance{std::string(targetId)})};
    auto r = call(Method::Put, m_endpoint + std::string(api::path::kCluster),
                  Body::string(api::dumpJson(nlohmann::json(msg))), kJson);
    if (!r) return r.error();
    auto reply = api::parseMessage<api::ClusterActionReply>(r->body, "maintenance answer");
    if (!reply) return reply.error();
    return reply->smapVersion;
}

api::Result<nlohmann::json> Client::daemonInfo(std::string_view what)
{
    return getJson(m_endpoint + api::path::daemonWhat(what), "daemon info");
}

api::Result<api::Smap> Client::smap()
{
    auto r = call(Method::Get, m_endpoint + api::path::clusterWhat("smap"));
    if (!r) return r.error();
    return api::parseSmap(r->body);
}

api::Result<api::ClusterStats> Client::clusterStats()
{
    auto r = call(Method::Get, m_endpoint + api::path::clusterWhat("node_stats"));
    if (!r) return r.error();
    return api::parseClusterStats(r->body);
}

api::Result<api::Bmd> Client::bmd()
{
    auto r = call(Method::Get, m_endpoint + api::path::clusterWhat("bmd"));
    if (!r) return r.error();
    return api::parseBmd(r->body);
}

api::Result<api::TokenReply> Client::login(std::string_view user, std::string_view password)
{
    const api::LoginRequest msg{std::string(user), std::string(password)};
    auto r = call(Method::Post, m_endpoint + "/v1/tokens", Body::string(api::dumpJson(nlohmann::json(msg))), kJson);
    if (!r) return r.error();
    return api::parseMessage<api::TokenReply>(r->body, "token");
}

api::Result<api::TokenReply> Client::refreshTokens(std::string_view refreshToken)
{
    const api::RefreshRequest msg{std::string(refreshToken)};
    auto r =
        call(Method::Post, m_endpoint + "/v1/tokens/refresh", Body::string(api::dumpJson(nlohmann::json(msg))), kJson);
    if (!r) return r.error();
    return api::parseMessage<api::TokenReply>(r->body, "token");
}

api::Status Client::revokeToken(std::string_view token)
{
    const api::RevokeRequest msg{std::string(token)};
    auto r = call(Method::Delete, m_endpoint + "/v1/tokens", Body::string(api::dumpJson(nlohmann::json(msg))), kJson);
    if (!r) return r.error();
    return {};
}

api::Result<api::S3KeyCreated> Client::createS3Key(std::string_view user, const api::NewS3Key& key)
{
    auto r = call(Method::Post, m_endpoint + "/v1/users/" + std::string(user) + "/s3-keys",
                  Body::string(api::dumpJson(nlohmann::json(key))), kJson);
    if (!r) return r.error();
    return api::parseMessage<api::S3KeyCreated>(r->body, "S3 key");
}

api::Result<std::vector<api::S3KeyInfo>> Client::listS3Keys(std::string_view user)
{
    const auto url =
        user.empty() ? m_endpoint + "/v1/s3-keys" : m_endpoint + "/v1/users/" + std::string(user) + "/s3-keys";
    auto r = call(Method::Get, url);
    if (!r) return r.error();
    return api::parseMessageList<api::S3KeyInfo>(r->body, "S3 keys");
}

api::Status Client::deleteS3Key(std::string_view user, std::string_view accessKey)
{
    auto r = call(Method::Delete, m_endpoint + "/v1/users/" + std::string(user) + "/s3-keys/" + std::string(accessKey));
    if (!r) return r.error();
    return {};
}

api::Result<api::UserInfo> Client::whoami()
{
    auto r = call(Method::Get, m_endpoint + "/v1/whoami");
    if (!r) return r.error();
    return api::parseMessage<api::UserInfo>(r->body, "user");
}

api::Result<std::vector<api::UserInfo>> Client::listUsers()
{
    auto r = call(Method::Get, m_endpoint + "/v1/users");
    if (!r) return r.error();
    return api::parseMessageList<api::UserInfo>(r->body, "users");
}

api::Status Client::addUser(const api::NewUser& user)
{
    auto r = call(Method::Post, m_endpoint + "/v1/users", Body::string(api::dumpJson(nlohmann::json(user))), kJson);
    if (!r) return r.error();
    return {};
}

api::Status Client::deleteUser(std::string_view user)
{
    auto r = call(Method::Delete, m_endpoint + "/v1/users/" + std::string(user));
    if (!r) return r.error();
    return {};
}

api::Status Client::setPassword(std::string_view user, std::string_view pw)
{
    const api::NewPassword msg{std::string(pw)};
    auto r = call(Method::Put, m_endpoint + "/v1/users/" + std::string(user) + "/password",
                  Body::string(api::dumpJson(nlohmann::json(msg))), kJson);
    if (!r) return r.error();
    return {};
}

api::Status Client::grant(std::string_view user, const api::Grant& grant)
{
    auto r = call(Method::Post, m_endpoint + "/v1/users/" + std::string(user) + "/grants",
                  Body::string(api::dumpJson(nlohmann::json(grant))), kJson);
    if (!r) return r.error();
    return {};
}

api::Status Client::revokeGrant(std::string_view user, std::string_view bucket, api::Permission permission)
{
    auto r = call(Method::Delete, m_endpoint + "/v1/users/" + std::string(user) + "/grants/" + std::string(bucket) +
                                      "/" + std::string(api::permissionName(permission)));
    if (!r) return r.error();
    return {};
}

api::Result<api::TokenKeyRing> Client::tokenKeys()
{
    auto r = call(Method::Get, m_endpoint + "/v1/tokens/keys");
    if (!r) return r.error();
    return api::parseMessage<api::TokenKeyRing>(r->body, "token keys");
}

api::Result<api::TokenKeyRing> Client::rotateTokenKey()
{
    auto r = call(Method::Post, m_endpoint + "/v1/tokens/keys");
    if (!r) return r.error();
    return api::parseMessage<api::TokenKeyRing>(r->body, "token keys");
}

api::Result<api::TokenKeyRing> Client::pushTokenKeys()
{
    auto r = call(Method::Put, m_endpoint + "/v1/tokens/keys");
    if (!r) return r.error();
    return api::parseMessage<api::TokenKeyRing>(r->body, "token keys");
}

api::Result<api::TokenKeyRing> Client::dropTokenKey(std::string_view kid)
{
    auto r = call(Method::Delete, m_endpoint + "/v1/tokens/keys/" + std::string(kid));
    if (!r) return r.error();
    return api::parseMessage<api::TokenKeyRing>(r->body, "token keys");
}

api::Result<std::vector<api::BucketRef>> Client::listBuckets()
{
    auto r = call(Method::Get, m_endpoint + std::string(api::path::kBuckets));
    if (!r) return r.error();
    return parseBody<std::vector<api::BucketRef>>(*r, "bucket list");
}

api::Status Client::createBucket(std::string_view bucket)
{
    const api::ActionMsg msg{api::act::kCreateBck, "", nullptr};
    auto r = call(Method::Post, bucketUrl(bucket), Body::string(api::dumpJson(nlohmann::json(msg))), kJson);
    if (!r) return r.error();
    return {};
}

api::Status Client::destroyBucket(std::string_view bucket)
{
    auto r =
        call(Method::Delete, bucketUrl(bucket),
             Body::string(api::dumpJson(nlohmann::json(api::ActionMsg{api::act::kDestroyBck, "", nullptr}))), kJson);
    if (!r) return r.error();
    return {};
}

api::Result<api::BucketProps> Client::bucketProps(std::string_view bucket)
{
    auto r = m_http.send(Method::Head, bucketUrl(bucket));
    if (!r) return r.error();
    if (!r->isSuccess()) {
        auto e = errorOf(*r);
        if (r->status == 404) e.message = "bucket \"" + std::string(bucket) + "\" does not exist";
        return e;
    }
    return api::parseAisBucketProps(r->header(api::kHdrBucketProps), r->header(api::kHdrBucketPropsExt));
}

api::Result<api::BucketProps> Client::setBucketProps(std::string_view bucket, const nlohmann::json& update)
{
    const nlohmann::json body = api::ActionMsg{api::act::kSetBprops, "", update};
    auto r = call(Method::Patch, bucketUrl(bucket), Body::string(api::dumpJson(body)), kJson);
    if (!r) return r.error();
    return api::parseBucketProps(r->body);
}

api::Result<api::ObjectList> Client::listObjects(std::string_view bucket, const api::ListRequest& request)
{
    auto r = call(Method::Get, bucketUrl(bucket) + "?" + api::buildQuery(api::listRequestToQuery(request)));
    if (!r) return r.error();
    return api::parseObjectList(r->body);
}

api::Result<std::vector<api::ObjEntry>> Client::listAll(std::string_view bucket, std::string_view prefix,
                                                        std::uint32_t props)
{
    api::ListRequest req;
    req.prefix = std::string(prefix);
    req.props = props;
    req.pageSize = api::kMaxPageSize;
    std::vector<api::ObjEntry> out;
    while (true) {
        auto page = listObjects(bucket, req);
        if (!page) return page.error();
        for (auto& e : page->entries) out.push_back(std::move(e));
        if (page->continuationToken.empty()) return out;
        req.continuationToken = page->continuationToken;
    }
}

namespace {
Headers putHeaders(const PutOptions& o)
{
    Headers h;
    if (!o.checksumValue.empty()) {
        h.emplace_back(std::string(api::kHdrChecksumType), "xxhash");
        h.emplace_back(std::string(api::kHdrChecksumValue), o.checksumValue);
    }
    if (!o.custom.empty()) h.emplace_back(std::string(api::kHdrCustomMd), api::formatCustomMd(o.custom));
    return h;
}
}  // namespace

api::Result<ObjectAttrs> Client::putObject(std::string_view bucket, std::string_view name, std::string data,
                                           const PutOptions& options)
{
    auto r = objectCall(Method::Put, bucket, name, Body::string(std::move(data)), putHeaders(options));
    if (!r) return r.error();
    return attrsFromHeaders(*r);
}

api::Result<ObjectAttrs> Client::putFile(std::string_view bucket, std::string_view name, const std::string& path,
                                         const PutOptions& options)
{
    auto r = objectCall(Method::Put, bucket, name, Body::file(path), putHeaders(options));
    if (!r) return r.error();
    return attrsFromHeaders(*r);
}

api::Result<std::string> Client::getObject(std::string_view bucket, std::string_view name, std::string_view range)
{
    Headers h;
    if (!range.empty()) h.emplace_back("Range", std::string(range));
    auto r = objectCall(Method::Get, bucket, name, {}, h);
    if (!r) return r.error();
    return std::move(r->body);
}

api::Result<ObjectAttrs> Client::getToSink(std::string_view bucket, std::string_view name, const Sink& sink,
                                           std::string_view range)
{
    Headers h;
    if (!range.empty()) h.emplace_back("Range", std::string(range));
    auto r = objectCall(Method::Get, bucket, name, {}, h, &sink);
    if (!r) return r.error();
    return attrsFromHeaders(*r);
}

api::Result<ObjectAttrs> Client::getToFile(std::string_view bucket, std::string_view name, const std::string& path)
{
    const std::string tmp = path + ".part";
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (f == nullptr) return api::Error::ioError("cannot create " + tmp);
    Sink sink = [f](const char* data, std::size_t n) -> api::Status {
        if (std::fwrite(data, 1, n, f) != n) return api::Error::ioError("write failed");
        return {};
    };
    auto attrs = getToSink(bucket, name, sink);
    const bool closed = std::fclose(f) == 0;
    std::error_code ec;
    if (!attrs || !closed) {
        std::filesystem::remove(tmp, ec);
        if (!attrs) return attrs.error();
        return api::Error::ioError("cannot write " + path);
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        return api::Error::ioError("cannot rename into " + path, ec.message());
    }
    return attrs;
}

api::Result<ObjectAttrs> Client::headObject(std::string_view bucket, std::string_view name)
{
    auto r = objectCall(Method::Head, bucket, name);
    if (!r) {
        auto e = r.error();
        if (e.kind == api::ErrorKind::NotFound) {
            e.message = "object \"" + std::string(bucket) + "/" + std::string(name) + "\" does not exist";
        }
        return e;
    }
    return attrsFromHeaders(*r);
}

api::Status Client::deleteObject(std::string_view bucket, std::string_view name)
{
    auto r = objectCall(Method::Delete, bucket, name);
    if (!r) return r.error();
    return {};
}

namespace {
api::QueryMap archiveQuery(const ArchiveSelect& s)
{
    api::QueryMap q;
    if (!s.member.empty()) q[std::string(api::kQpArchPath)] = s.member;
    if (!s.regex.empty()) q[std::string(api::kQpArchRegx)] = s.regex;
    if (!s.mode.empty()) q[std::string(api::kQpArchMode)] = s.mode;
    if (!s.mime.empty()) q[std::string(api::kQpArchMime)] = s.mime;
    return q;
}

// archpath is sent even when empty: the target refuses it rather than the
// PUT silently replacing the whole shard.
api::QueryMap appendQuery(std::string_view member, std::string_view mime)
{
    api::QueryMap q;
    q[std::string(api::kQpArchPath)] = std::string(member);
    if (!mime.empty()) q[std::string(api::kQpArchMime)] = std::string(mime);
    return q;
}
}  // namespace

api::Result<ObjectAttrs> Client::getFromArchive(std::string_view bucket, std::string_view shard,
                                                const ArchiveSelect& select, const Sink& sink)
{
    auto r = objectCall(Method::Get, bucket, shard, {}, {}, &sink, archiveQuery(select));
    if (!r) return r.error();
    return attrsFromHeaders(*r);
}

api::Result<std::string> Client::getArchiveMember(std::string_view bucket, std::string_view shard,
                                                  std::string_view member, std::string_view mime)
{
    ArchiveSelect s;
    s.member = std::string(member);
    s.mime = std::string(mime);
    auto r = objectCall(Method::Get, bucket, shard, {}, {}, nullptr, archiveQuery(s));
    if (!r) return r.error();
    return std::move(r->body);
}

api::Result<std::string> Client::getArchiveMatches(std::string_view bucket, std::string_view shard,
                                                   std::string_view regex, std::string_view mode)
{
    ArchiveSelect s;
    s.regex = std::string(regex);
    s.mode = std::string(mode);
    auto r = objectCall(Method::Get, bucket, shard, {}, {}, nullptr, archiveQuery(s));
    if (!r) return r.error();
    return std::move(r->body);
}

api::Result<std::vector<api::ObjEntry>> Client::listArchive(std::string_view bucket, std::string_view shard)
{
    api::ListRequest req;
    req.prefix = std::string(shard);
    req.flags = api::kLsArchDir;
    req.pageSize = api::kMaxPageSize;
    std::vector<api::ObjEntry> out;
    const std::string memberPrefix = std::string(shard) + "/";
    bool inShard = false;
    while (true) {
        auto page = listObjects(bucket, req);
        if (!page) return page.error();
        for (auto& e : page->entries) {
            if (!(e.flags & api::kEntryInArch)) {
                inShard = e.name == shard;
                if (!inShard) continue;
                if (e.flags & api::kEntryArchError) {
                    return api::Error::corruption("cannot list shard \"" + std::string(bucket) + "/" +
                                                  std::string(shard) + "\": " + e.error);
                }
                if (!(e.flags & api::kEntryIsArchive)) {
                    return api::Error::badRequest("\"" + std::string(bucket) + "/" + std::string(shard) +
                                                  "\" is not a shard (its name does not end in .tar, .tgz, .tar.gz, "
                                                  ".tar.lz4 or .zip)");
                }
                out.push_back(std::move(e));
            } else if (inShard && e.name.compare(0, memberPrefix.size(), memberPrefix) == 0) {
                out.push_back(std::move(e));
            }
        }
        // The shard's own name sorts before every name it prefixes: once it
        // was seen and another object followed, the rest is not this shard.
        if (page->continuationToken.empty() || (!out.empty() && !inShard)) break;
        req.continuationToken = page->continuationToken;
    }
    if (out.empty()) {
        return api::Error::notFound("shard \"" + std::string(bucket) + "/" + std::string(shard) + "\" does not exist");
    }
    return out;
}

api::Result<ObjectAttrs> Client::appendToArchive(std::string_view bucket, std::string_view shard,
                                                 std::string_view member, std::string data, std::string_view mime)
{
    auto r =
        objectCall(Method::Put, bucket, shard, Body::string(std::move(data)), {}, nullptr, appendQuery(member, mime));
    if (!r) return r.error();
    return attrsFromHeaders(*r);
}

api::Result<ObjectAttrs> Client::appendFileToArchive(std::string_view bucket, std::string_view shard,
                                                     std::string_view member, const std::string& path,
                                                     std::string_view mime)
{
    auto r = objectCall(Method::Put, bucket, shard, Body::file(path), {}, nullptr, appendQuery(member, mime));
    if (!r) return r.error();
    return attrsFromHeaders(*r);
}

}  // namespace tessera::client

namespace tessera::client {

namespace {

std::string etlPath(std::string_view name, std::string_view rest = {})
{
    return "/v1/etl/" + api::percentEncode(name) + std::string(rest);
}

}  // namespace

api::Result<api::EtlInfo> Client::etlInit(const api::EtlSpec& spec)
{
    auto r = call(Method::Put, m_endpoint + "/v1/etl", Body::string(api::dumpJson(nlohmann::json(spec))),
                  {{"Content-Type", "application/json"}});
    if (!r) return r.error();
    return api::parseMessage<api::EtlInfo>(r->body, "etl");
}

api::Result<std::vector<api::EtlInfo>> Client::etlList()
{
    auto j = getJson(m_endpoint + "/v1/etl", "etl list");
    if (!j) return j.error();
    return api::readMessageList<api::EtlInfo>(*j, "etl list");
}

api::Result<api::EtlInfo> Client::etlShow(std::string_view name)
{
    auto r = call(Method::Get, m_endpoint + etlPath(name));
    if (!r) return r.error();
    return api::parseMessage<api::EtlInfo>(r->body, "etl");
}

api::Result<std::vector<api::EtlLog>> Client::etlLogs(std::string_view name, std::string_view target)
{
    std::string url = m_endpoint + etlPath(name, "/logs");
    if (!target.empty()) url += "?target=" + api::percentEncode(target);
    auto j = getJson(url, "etl logs");
    if (!j) return j.error();
    return api::readMessageList<api::EtlLog>(*j, "etl logs");
}

api::Result<api::EtlInfo> Client::etlStart(std::string_view name)
{
    auto r = call(Method::Post, m_endpoint + etlPath(name, "/start"));
    if (!r) return r.error();
    return api::parseMessage<api::EtlInfo>(r->body, "etl");
}

api::Result<api::EtlInfo> Client::etlStop(std::string_view name)
{
    auto r = call(Method::Post, m_endpoint + etlPath(name, "/stop"));
    if (!r) return r.error();
    return api::parseMessage<api::EtlInfo>(r->body, "etl");
}

api::Status Client::etlRemove(std::string_view name)
{
    auto r = call(Method::Delete, m_endpoint + etlPath(name));
    if (!r) return r.error();
    return {};
}

api::Result<ObjectAttrs> Client::getTransformed(std::string_view bucket, std::string_view name,
                                                const std::vector<std::string>& pipeline, std::string_view args,
                                                const Sink& sink, std::string_view archpath)
{
    if (pipeline.empty()) return api::Error::badRequest("no ETL named");
    api::QueryMap q;
    q[std::string(api::kQpEtlName)] = pipeline.front();
    std::string rest;
    for (std::size_t i = 1; i < pipeline.size(); ++i) rest += (rest.empty() ? "" : ",") + pipeline[i];
    if (!rest.empty()) q[std::string(api::kQpEtlPipeline)] = rest;
    if (!args.empty()) q[std::string(api::kQpEtlArgs)] = std::string(args);
    if (!archpath.empty()) q[std::string(api::kQpArchPath)] = std::string(archpath);
    auto r = objectCall(Method::Get, bucket, name, {}, {}, &sink, q);
    if (!r) return r.error();
    return attrsFromHeaders(*r);
}

api::Result<api::JobStatus> Client::etlBucket(std::string_view src, std::string_view dst, const api::EtlBucketMsg& msg)
{
    const bool listRange = !msg.objnames.empty() || !msg.templ.empty();
    const api::ActionMsg body{listRange ? "etl-listrange" : "etl-bck", std::string(dst), nlohmann::json(msg)};
    auto r = call(Method::Post, bucketUrl(src), Body::string(api::dumpJson(nlohmann::json(body))),
                  {{"Content-Type", "application/json"}});
    if (!r) return r.error();
    return api::parseJobStatus(r->body);
}

}  // namespace tessera::client
