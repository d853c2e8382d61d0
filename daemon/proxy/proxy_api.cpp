#include "proxy_api.h"

#include "ais_config_set.h"

#include "api/action_msg.h"
#include "api/ais_bucket_props.h"
#include "api/ais_config.h"
#include "api/ais_node.h"
#include "api/cluster_msg.h"
#include "api/headers.h"
#include "api/hrw.h"
#include "api/http_error.h"
#include "api/json_util.h"
#include "api/object_list.h"
#include "api/paths.h"
#include "list_merge.h"
#include "meta/node_identity.h"
#include "net/request_params.h"
#include "stats/ais_answers.h"

#include <algorithm>
#include <optional>
#include <set>

namespace tessera::daemon::proxy {

namespace http = boost::beast::http;
using net::Exec;
using net::Request;
using net::Response;
using net::Route;

namespace {
constexpr std::size_t kMaxControlBody = std::size_t{1} << 20;

// What a client is told about an object whose owner is away.
api::Error ownerAway(const api::Snode& owner)
{
    return api::Error::unavailable("target " + owner.id + " (" + owner.publicNet.url + ") that owns the object is " +
                                   (owner.inMaintenance() ? "in maintenance" : "away (missed its keepalives)") +
                                   "; retry when it returns");
}

// A listing page in the form the client asked for: msgpack for AIStore's
// clients (Accept: application/msgpack), JSON otherwise; the same content.
Response listAnswer(const Request& req, const api::ObjectList& page)
{
    if (api::acceptsMsgpack(req.header("Accept"))) return Response::msgpack(api::dumpObjectListMsgpack(page));
    return Response::jsonText(api::dumpObjectList(page));
}

std::vector<api::RawObjectList> rawPages(std::vector<ProxyApi::TargetPage>& pages)
{
    std::vector<api::RawObjectList> out;
    out.reserve(pages.size());
    for (auto& p : pages) out.push_back(std::move(p.page));
    return out;
}

// The targets' pages decoded and merged (the in-process callers' page, and
// the answer in msgpack or when a page is not in the exact form).
api::Result<api::ObjectList> mergeDecoded(std::vector<ProxyApi::TargetPage> pages, std::uint32_t pageSize,
                                          std::string uuid)
{
    std::vector<api::ObjectList> decoded;
    decoded.reserve(pages.size());
    for (const auto& p : pages) {
        auto page = api::parseObjectList(p.page.body);
        if (!page) return api::Error::unavailable("target " + p.target + " sent an unreadable page");
        decoded.push_back(std::move(page.value()));
    }
    auto out = mergeListPages(std::move(decoded), pageSize);
    // AIStore's clients expect a listing id (cos.IsValidUUID: 9+ characters).
    out.uuid = std::move(uuid);
    return out;
}
}  // namespace

ProxyApi::ProxyApi(api::Snode self, ProxyState& state, PeerCalls& peers, std::function<nlohmann::json()> nodeInfo,
                   std::function<api::NodeStats()> nodeStats, std::string clusterKey,
                   std::chrono::milliseconds keepaliveWindow)
    : m_self(std::move(self)), m_state(state), m_peers(peers), m_nodeInfo(std::move(nodeInfo)),
      m_nodeStats(std::move(nodeStats)), m_clusterKey(std::move(clusterKey)), m_keepaliveWindow(keepaliveWindow)
{
}

std::optional<Response> ProxyApi::checkClusterKey(const Request& req) const
{
    const auto key = req.header(api::kHdrClusterKey);
    if (key.empty()) {
        return Response::error(api::Error{
            api::ErrorKind::Forbidden,
            "this call needs the cluster key (header " + std::string(api::kHdrClusterKey) + "; see cluster_key_file)",
            {}});
    }
    if (!meta::sameSecret(std::string(key), m_clusterKey)) {
        return Response::error(api::Error{api::ErrorKind::Forbidden, "wrong cluster key", {}});
    }
    return std::nullopt;
}

void ProxyApi::registerRoutes(net::Router& router)
{
    const std::string obj = "/v1/objects/{bucket}/{name...}";
    // PUT: answer the redirect before the body; the session closes the
    // connection when a body was announced and left unread.
    using api::OpKind;
    // Access (auth on): the permission each needs on {bucket}; what is not
    // marked is for admins (and the other nodes, with the cluster key).
    using net::Access;
    using P = api::Permission;
    router.add(net::needs(
        net::counted(Route{http::verb::put,
                           obj,
                           Exec::Inline,
                           {},
                           [this](const Request& r) -> std::variant<Response, std::unique_ptr<net::UploadSink>> {
                               return redirectObject(r);
                           }},
                     OpKind::Put),
        Access::bucket(P::Write)));
    router.add(net::needs(
        net::counted(Route{http::verb::get, obj, Exec::Inline, net::bind(this, &ProxyApi::redirectObject), {}},
                     OpKind::Get),
        Access::bucket(P::Read)));
    router.add(net::needs(
        net::counted(Route{http::verb::head, obj, Exec::Inline, net::bind(this, &ProxyApi::redirectObject), {}},
                     OpKind::Head),
        Access::bucket(P::Read)));
    router.add(net::needs(
        net::counted(Route{http::verb::delete_, obj, Exec::Inline, net::bind(this, &ProxyApi::redirectObject), {}},
                     OpKind::Delete),
        Access::bucket(P::Delete)));

    router.add(
        net::needs(Route{http::verb::get, "/v1/buckets", Exec::Inline, net::bind(this, &ProxyApi::listBuckets), {}},
                   Access::user()));
    router.add(net::needs(
        net::counted(
            Route{http::verb::get, "/v1/buckets/{bucket}", Exec::Worker, net::bind(this, &ProxyApi::listObjects), {}},
            OpKind::List),
        Access::bucket(P::List)));
    // The body may be an archive action listing up to api::kMaxArchiveObjects names.
    // POST carries the bucket actions (create-bck, archive, etl-bck): admin-bucket.
    router.add(net::needs(Route{http::verb::post,
                                "/v1/buckets/{bucket}",
                                Exec::Worker,
                                net::bind(this, &ProxyApi::createBucket),
                                {},
                                std::size_t{16} << 20},
                          Access::bucket(P::AdminBucket)));
    router.add(net::needs(
        Route{http::verb::delete_, "/v1/buckets/{bucket}", Exec::Worker, net::bind(this, &ProxyApi::destroyBucket), {}},
        Access::bucket(P::AdminBucket)));
    router.add(net::needs(
        Route{http::verb::head, "/v1/buckets/{bucket}", Exec::Inline, net::bind(this, &ProxyApi::headBucket), {}},
        Access::bucket(P::Read)));
    router.add(net::needs(
        Route{http::verb::patch, "/v1/buckets/{bucket}", Exec::Worker, net::bind(this, &ProxyApi::patchBucket), {}},
        Access::bucket(P::AdminBucket)));

    router.add(Route{http::verb::post, "/v1/cluster/join", Exec::Worker, net::bind(this, &ProxyApi::join), {}});
    router.add(
        Route{http::verb::post, "/v1/cluster/keepalive", Exec::Inline, net::bind(this, &ProxyApi::keepalive), {}});
    router.add(
        net::needs(Route{http::verb::get, "/v1/cluster", Exec::Worker, net::bind(this, &ProxyApi::clusterInfo), {}},
                   Access::user()));
    router.add(
        Route{http::verb::put, "/v1/cluster", Exec::Worker, net::bind(this, &ProxyApi::clusterAction), {}, 64 * 1024});
    router.add(
        net::needs(Route{http::verb::get, "/v1/daemon", Exec::Inline, net::bind(this, &ProxyApi::daemonInfo), {}},
                   Access::user()));
    router.add(net::needs(
        Route{http::verb::get, "/v1/reverse/daemon", Exec::Worker, net::bind(this, &ProxyApi::reverseDaemon), {}},
        Access::user()));
    router.add(net::needs(Route{http::verb::get, "/v1/health", Exec::Inline, net::bind(this, &ProxyApi::health), {}},
                          Access::open()));
    // AIStore's configuration setters: refused, naming the keys (ais_config_set.h).
    for (const char* path : {"/v1/cluster/setconfig", "/v1/reverse/daemon/setconfig"}) {
        router.add(Route{
            http::verb::put, path, Exec::Inline, [](const Request& req) { return aisSetConfigByQuery(req); }, {}});
    }
    router.add(Route{http::verb::put,
                     "/v1/reverse/daemon",
                     Exec::Inline,
                     [](const Request& req) { return aisNodeAction(req); },
                     {},
                     64 * 1024});
}

std::string ProxyApi::redirectSignature(const Request& req, const api_util::ObjectRef& ref) const
{
    if (!m_redirectSigner) return {};
    const auto method = http::to_string(req.method);
    return "&" + m_redirectSigner(std::string_view(method.data(), method.size()), ref.bucket, ref.name);
}

Response ProxyApi::redirectObject(const Request& req)
{
    auto ref = api_util::objectRef(req);
    if (!ref) return Response::error(ref.error());
    const auto smap = m_state.smap();
    if (smap->tmap.empty()) return Response::error(api::Error::unavailable("no targets in the cluster"));
    const auto bmd = m_state.bmd();
    const auto* props = bmd->find(ref->bucket);
    if (props == nullptr) {
        return Response::error(api::Error::notFound("bucket \"" + ref->bucket + "\" does not exist"));
    }
    const auto* owner = api::hrwTarget(*smap, api::objectUname(ref->bucket, ref->name));
    if (owner == nullptr) return Response::error(api::Error::unavailable("no target in the cluster can own objects"));
    if (owner->away()) {
        // A read of a protected object goes to the first holder present.
        const bool read = req.method == http::verb::get || req.method == http::verb::head;
        for (const auto* h : api::readTargets(*smap, props, ref->bucket, ref->name)) {
            if (read && !h->away()) {
                return Response::redirect(h->publicNet.url + api_util::objectTarget(*ref, req.query, smap->version) +
                                          redirectSignature(req, *ref));
            }
        }
        return Response::error(ownerAway(*owner));
    }
    return Response::redirect(owner->publicNet.url + api_util::objectTarget(*ref, req.query, smap->version) +
                              redirectSignature(req, *ref));
}

Response ProxyApi::join(const Request& req)
{
    if (auto refused = checkClusterKey(req)) return std::move(*refused);
    auto node = api::parseSnode(req.body);
    if (!node) return Response::error(node.error());
    node->flags = 0;  // flags are the proxy's to set
    auto lock = m_state.membershipLock();
    auto r = m_state.prepareJoin(*node, m_keepaliveWindow);
    if (!r) return Response::error(r.error());
    if (r->changed) {
        // Everyone, the newcomer included, has the new map and the buckets
        // before the proxy redirects anything to the newcomer.
        m_peers.pushMeta(r->smap, r->smap, r->bmd);
        m_state.publishSmap(r->smap);
        if (r->bmdChanged) m_state.announceBmd(r->bmd);
    }
    if (r->restarted && m_restarted) m_restarted(node->id);
    return Response::json(
        api::JoinReply{r->smap, r->bmd, *m_state.etl(), m_peers.revokedTokens(), m_peers.tokenKeys()});
}

Response ProxyApi::keepalive(const Request& req)
{
    if (auto refused = checkClusterKey(req)) return std::move(*refused);
    auto msg = api::parseMessage<api::Keepalive>(req.body, "keepalive");
    if (!msg) return Response::error(msg.error());
    auto r = m_state.keepalive(msg->daemonId);
    if (!r.known) return Response::error(api::Error::notFound("unknown node; join first"));
    return Response::json(api::MetaVersions{r.smapVersion, r.bmdVersion, r.etlVersion});
}

Response ProxyApi::listBuckets(const Request& req)
{
    const auto bmd = m_state.bmd();
    std::vector<api::BucketRef> out;
    for (const auto& [name, props] : bmd->buckets) out.push_back({name, props.provider});
    if (!m_bucketFilter) return Response::json(out);
    auto visible = m_bucketFilter(req, std::move(out));
    if (!visible) return Response::error(visible.error());
    return Response::json(*visible);
}

Response ProxyApi::createBucket(const Request& req)
{
    auto bucket = api_util::bucketParam(req);
    if (!bucket) return Response::error(bucket.error());
    if (!req.body.empty()) {
        auto msg = api::parseActionMsg(req.body);
        if (!msg) return Response::error(msg.error());
        if (auto other = m_bucketActions.find(msg->action); other != m_bucketActions.end()) {
            return other->second(*bucket, *msg);
        }
        if (msg->action != api::act::kCreateBck) {
            return Response::error(api::Error::badRequest("unsupported bucket action \"" + msg->action + "\""));
        }
        // The route takes up to 16 MiB for the archive action's names; a
        // create-bck is a control body like any other.
        if (req.body.size() > kMaxControlBody) {
            return Response::error(
                api::Error{api::ErrorKind::TooLarge,
                           "create-bck body larger than " + std::to_string(kMaxControlBody) + " bytes",
                           {}});
        }
        if (!msg->value.is_null()) {
            return Response::error(api::Error::badRequest(
                "/value: create-bck takes no properties; set them afterwards with PATCH /v1/buckets/" + *bucket));
        }
    }
    if (auto st = createBucketNamed(*bucket); !st) return Response::error(st.error());
    return Response::ok();
}

api::Status ProxyApi::createBucketNamed(const std::string& bucket) const
{
    auto bmd = m_state.createBucket(bucket);
    if (!bmd) return bmd.error();
    const auto smap = *m_state.smap();
    // A target that was down when an earlier bucket of this name was
    // destroyed may still hold its data: clear it before the name is usable.
    m_peers.fanOut(smap, client::Method::Delete, api::path::internalBucket(bucket));
    m_peers.pushMeta(smap, std::nullopt, *bmd);
    return {};
}

Response ProxyApi::destroyBucket(const Request& req)
{
    auto bucket = api_util::bucketParam(req);
    if (!bucket) return Response::error(bucket.error());
    // AIStore sends its multi-object deletes and evictions to this same
    // DELETE (api.DeleteMultiObj: {"action":"delete-listrange"}, the SDK's
    // bucket.objects(...).delete()): only destroy-bck (or no body, as curl
    // sends) destroys the bucket; any other action changes nothing.
    if (req.body.find_first_not_of(" \t\r\n") != std::string::npos) {
        auto msg = api::parseActionMsg(req.body);
        if (!msg) return Response::error(msg.error());
        if (msg->action != api::act::kDestroyBck) {
            return stats::aisNotImplementedError("DELETE /v1/buckets/" + *bucket + " with action \"" + msg->action +
                                                 "\": Tessera does not implement it (only destroy-bck); nothing "
                                                 "was changed");
        }
    }
    auto failed = destroyBucketNamed(*bucket);
    if (!failed) return Response::error(failed.error());
    if (!failed->empty()) {
        // The bucket is gone from the cluster; data left on these targets is
        // no longer reachable and is removed when the bucket is destroyed again.
        return Response::json({{"status", "destroyed"}, {"data_removal_failed_on", *failed}});
    }
    return Response::ok();
}

api::Result<std::string> ProxyApi::destroyBucketNamed(const std::string& bucket) const
{
    auto bmd = m_state.destroyBucket(bucket);
    if (!bmd) return bmd.error();
    const auto smap = *m_state.smap();
    m_peers.pushMeta(smap, std::nullopt, *bmd);
    auto results = m_peers.fanOut(smap, client::Method::Delete, api::path::internalBucket(bucket));
    std::string failed;
    for (const auto& [id, r] : results) {
        if (!r || !r->isSuccess()) failed += (failed.empty() ? "" : ", ") + id;
    }
    return failed;
}

Response ProxyApi::headBucket(const Request& req)
{
    auto bucket = api_util::bucketParam(req);
    if (!bucket) return Response::error(bucket.error());
    const auto bmd = m_state.bmd();
    const auto* props = bmd->find(*bucket);
    if (props == nullptr) return Response::error(api::Error::notFound("bucket \"" + *bucket + "\" does not exist"));
    Response r;
    auto [ais, ext] = api::aisBucketPropsHeaders(*props);
    r.header(std::string(api::kHdrBucketProps), std::move(ais));
    r.header(std::string(api::kHdrBucketPropsExt), std::move(ext));
    r.isHead = true;
    return r;
}

Response ProxyApi::patchBucket(const Request& req)
{
    auto bucket = api_util::bucketParam(req);
    if (!bucket) return Response::error(bucket.error());
    auto msg = api::parseActionMsg(req.body);
    if (!msg) return Response::error(msg.error());
    if (msg->action != api::act::kSetBprops || msg->value.is_null()) {
        return Response::error(
            api::Error::badRequest("body must be {\"action\":\"set-bprops\",\"value\":{...properties...}}"));
    }
    const auto bmdBefore = m_state.bmd();
    const auto* before = bmdBefore->find(*bucket);
    auto r = m_state.setBucketProps(*bucket, msg->value);
    if (!r) return Response::error(r.error());
    m_peers.pushMeta(*m_state.smap(), std::nullopt, r->first);
    if (m_propsObserver && before != nullptr) m_propsObserver(*bucket, *before, r->second);
    return Response::json(nlohmann::json(r->second));
}

Response ProxyApi::listObjects(const Request& req)
{
    auto bucket = api_util::bucketParam(req);
    if (!bucket) return Response::error(bucket.error());
    auto lr = req.body.empty() ? api::listRequestFromQuery(req.query) : api::listRequestFromJson(req.body);
    if (!lr) return Response::error(lr.error());
    auto fetched = targetPages(*bucket, *lr);
    if (!fetched) return Response::error(fetched.error());
    auto& pages = fetched.value();
    const auto uuid = lr->uuid.empty() ? meta::randomId(12) : lr->uuid;
    // JSON: the chosen entries' bytes go through as the targets wrote them
    // (pages in dumpObjectList's exact form, as every target of this
    // version writes them), without decoding each into an ObjEntry.
    if (!api::acceptsMsgpack(req.header("Accept"))) {
        const bool exact =
            std::all_of(pages.begin(), pages.end(), [](auto& p) { return api::scanRawObjectList(p.page); });
        if (exact) return Response::jsonText(mergeRawListPages(rawPages(pages), lr->pageSize, uuid));
    }
    auto page = mergeDecoded(std::move(pages), lr->pageSize, uuid);
    if (!page) return Response::error(page.error());
    return listAnswer(req, *page);
}

api::Result<api::ObjectList> ProxyApi::listPage(const std::string& bucket, const api::ListRequest& lr) const
{
    auto pages = targetPages(bucket, lr);
    if (!pages) return pages.error();
    return mergeDecoded(std::move(pages.value()), lr.pageSize, lr.uuid.empty() ? meta::randomId(12) : lr.uuid);
}

api::Result<std::vector<ProxyApi::TargetPage>> ProxyApi::targetPages(const std::string& bucket,
                                                                     const api::ListRequest& lr) const
{
    // The map is held while its props are read (a bucket created or
    // destroyed meanwhile publishes a new one).
    const auto bmd = m_state.bmd();
    const auto* props = bmd->find(bucket);
    if (props == nullptr) return api::Error::notFound("bucket \"" + bucket + "\" does not exist");
    auto smap = *m_state.smap();
    if (smap.tmap.empty()) return api::Error::unavailable("no targets in the cluster");
    if (!lr.target.empty()) {
        // AIStore's LsoMsg "target": that target's objects only.
        const auto* only = smap.findTarget(lr.target);
        if (only == nullptr) return api::Error::notFound("target \"" + lr.target + "\" is not in the cluster map");
        smap.tmap = {{lr.target, *only}};
    }
    // A page without an away target's names would look complete and is not,
    // unless every name is kept by a target that answers: a bucket mirrored
    // across targets whose copies are complete, with fewer targets missing
    // than copies; or an erasure-coded one whose slices and copies are
    // complete, with at most P targets missing (the targets that answer
    // then also list the missing owners' names from their slices).
    const bool coded = props->ec.enabled;
    std::size_t tolerated = 0;
    if (props->mirror.enabled && !props->mirror.pending) {
        tolerated = props->mirror.targetCopies() - 1;
    } else if (coded && !props->ec.pending) {
        tolerated = static_cast<std::size_t>(props->ec.paritySlices);
    }
    std::vector<std::string> missing;  // "target ... is away", "... is unreachable"
    std::set<std::string> missingIds;
    const auto incomplete = [&](const std::string& id, const std::string& why) {
        missing.push_back(why);
        missingIds.insert(id);
        return missing.size() > tolerated;
    };
    for (const auto& [id, node] : smap.tmap) {
        if (node.away() && incomplete(id, "target " + id + " (" + node.publicNet.url + ") is " +
                                              (node.inMaintenance() ? "in maintenance" : "away"))) {
            return api::Error::unavailable("listing incomplete: " + missing.back() +
                                           "; its objects cannot be listed until it returns");
        }
    }
    // Each target is asked for its share of the page and a margin, not the
    // whole page: names are spread over the targets by a hash, so n targets'
    // pages of their even share and a margin (perTargetPageSize) cover a full
    // page nearly always, at a fraction of the work of n full pages. When
    // they do not (a skewed prefix), the page is cut at the smallest target
    // token and is shorter; the next one continues from there, so nothing
    // is lost or repeated.
    auto perTarget = lr;
    // Each name of a mirrored bucket is on `copies` targets: each holds a
    // larger share of the names.
    const std::size_t copies = props->mirror.targetCopies();
    perTarget.pageSize =
        perTargetPageSize(lr.pageSize, static_cast<std::uint32_t>(std::max<std::size_t>(1, smap.tmap.size() / copies)));
    std::vector<TargetPage> pages;
    // Erasure coded: a target that fails to answer is only found out by
    // asking; the others are asked again to stand in for it (once).
    for (int round = 0; round < 2; ++round) {
        const auto failedBefore = missingIds.size();
        perTarget.standInFor.clear();
        if (coded) perTarget.standInFor.assign(missingIds.begin(), missingIds.end());
        const std::string path = api::path::bucket(bucket) + "?" + api::buildQuery(api::listRequestToQuery(perTarget));
        // A target's first page of a bucket walks all its names (seconds for
        // millions): an answer is waited for up to list_timeout_ms, not the
        // peer timeout, which still bounds the connect (a target that is
        // gone is found out as fast as before).
        auto results = m_peers.fanOut(smap, client::Method::Get, path, {}, m_listTimeout);

        // Each target answers with its names after the token, up to its own
        // continuation token; mergeListPages keeps what is known for all.
        pages.clear();
        pages.reserve(results.size());
        for (auto& [id, r] : results) {
            if (missingIds.contains(id)) continue;  // counted already
            if (!r) {
                if (incomplete(id, "target " + id + " is unreachable: " + r.error().message)) {
                    return api::Error::unavailable("listing incomplete: " + missing.back());
                }
                continue;
            }
            if (!r->isSuccess()) {
                auto e = api::errorFromResponse(r->status, r->body);
                e.message = "target " + id + ": " + e.message;
                if (e.kind == api::ErrorKind::NotFound) e.kind = api::ErrorKind::Unavailable;
                // A target that cannot list (a disabled mountpath) is covered by
                // the copies like an absent one; a bad request is not.
                if (e.kind != api::ErrorKind::Unavailable || incomplete(id, e.message)) return e;
                continue;
            }
            auto& page = pages.emplace_back();
            page.target = id;
            page.page.body = std::move(r->body);
        }
        if (!coded || missingIds.size() == failedBefore) break;
        if (round == 1) {
            return api::Error::unavailable("listing incomplete: " + missing.back() +
                                           " (while the others were listing for it)");
        }
    }
    return pages;
}

Response ProxyApi::clusterInfo(const Request& req)
{
    const auto what = req.queryValue("what");
    if (what == "smap") return Response::json(nlohmann::json(*m_state.smap()));
    if (what == "bmd") return Response::json(nlohmann::json(*m_state.bmd()));
    if (what == "etl") return Response::json(nlohmann::json(*m_state.etl()));
    if (what == "node_stats") {
        api::ClusterStats out;
        out.proxies.emplace(m_self.id, m_nodeStats());
        auto results = m_peers.fanOut(*m_state.smap(), client::Method::Get, api::path::daemonWhat("node_stats"));
        for (const auto& [id, r] : results) {
            if (r && r->isSuccess()) {
                auto st = api::parseNodeStats(r->body);
                if (st) out.targets.emplace(id, std::move(st.value()));
                else out.errors[id] = "unreadable: " + st.error().message;
            } else {
                out.errors[id] = r ? ("HTTP " + std::to_string(r->status)) : r.error().message;
            }
        }
        return Response::json(out);
    }
    if (what == "cluster_config") {
        return Response::json(api::aisClusterConfig(stats::configSource(m_ais, *m_state.smap())));
    }
    if (what == "sysinfo" || what == "mountpaths") return clusterFanOut(what);
    if (what == "snode") return Response::json(nlohmann::json(m_self));
    if (what == "target_ips") {
        // AIStore's: each target's public, control and data host, comma-separated.
        std::string ips;
        for (const auto& [id, t] : m_state.smap()->tmap) {
            for (int i = 0; i < 3; ++i) ips += (ips.empty() ? "" : ",") + t.publicNet.host;
        }
        Response r;
        r.body = std::move(ips);
        r.header("Content-Type", "text/plain");
        return r;
    }
    if (what == "backends") return Response::json(nlohmann::json::array());  // no cloud backends
    if (what == "remote") return Response::json(api::AisRemAisVec{});        // no remote clusters attached
    if (m_clusterQuery) {
        if (auto r = m_clusterQuery(what, req)) return std::move(*r);
    }
    if (auto r = stats::aisNotImplemented(what)) return std::move(*r);
    return Response::error(api::Error::badRequest(
        "unknown what=\"" + what +
        "\" (expected smap, bmd, etl, node_stats, cluster_config, sysinfo, mountpaths, snode, target_ips, backends, "
        "remote, qryxstats, status, status_all, running_all)"));
}

Response ProxyApi::clusterFanOut(const std::string& what)
{
    // apc.ClusterSysInfo (sysinfo) or target id -> apc.MountpathList (mountpaths).
    const auto smap = m_state.smap();
    api::AisClusterSysInfo sysinfo;
    std::map<std::string, api::AisMountpathList> mountpaths;
    for (auto& [id, r] : m_peers.fanOut(*smap, client::Method::Get, api::path::daemonWhat(what))) {
        if (!r) return Response::error(r.error());
        if (!r->isSuccess()) {
            return Response::error(api::Error::unavailable("target " + id + " answered HTTP " +
                                                           std::to_string(r->status) + " to what=" + what));
        }
        if (what == "sysinfo") {
            auto info = api::parseMessage<api::AisTargetSysInfo>(r->body, "sysinfo");
            if (!info) return Response::error(api::Error::unavailable("target " + id + ": " + info.error().message));
            sysinfo.target.emplace(id, std::move(info.value()));
        } else {
            auto list = api::parseMessage<api::AisMountpathList>(r->body, "mountpaths");
            if (!list) return Response::error(api::Error::unavailable("target " + id + ": " + list.error().message));
            mountpaths.emplace(id, std::move(list.value()));
        }
    }
    if (what == "mountpaths") return Response::json(mountpaths);
    const auto st = m_nodeStats();
    const auto machine = m_ais.sampler ? m_ais.sampler->sample(st.cpuNs, st.uptimeNs) : api::AisMachine{};
    sysinfo.proxy.emplace(m_self.id, api::aisMemCpuInfo(st, machine));
    return Response::json(sysinfo);
}

Response ProxyApi::clusterAction(const Request& req)
{
    // Operators call without the key; a node (a draining target) sends it,
    // and a wrong one is refused rather than ignored.
    const bool fromNode = !req.header(api::kHdrClusterKey).empty();
    if (fromNode) {
        if (auto refused = checkClusterKey(req)) return std::move(*refused);
    }
    auto msg = api::parseActionMsg(req.body);
    if (!msg) return Response::error(msg.error());
    if (msg->action == api::act::kDecommissionNode) return decommission(*msg);
    if (msg->action == api::act::kStartMaintenance) return maintenance(*msg, true, fromNode);
    if (msg->action == api::act::kStopMaintenance) return maintenance(*msg, false, fromNode);
    if (auto r = aisSetConfigByAction(*msg)) return std::move(*r);
    if (m_clusterAction) {
        if (auto r = m_clusterAction(*msg)) return std::move(*r);
    }
    return Response::error(
        api::Error::badRequest("unsupported cluster action \"" + msg->action +
                               "\" (supported: decommission-node, start-maintenance, stop-maintenance, start, stop)"));
}

Response ProxyApi::decommission(const api::ActionMsg& msg)
{
    auto rm = api::parseRemoveNode(msg.value);
    if (!rm) return Response::error(rm.error());
    auto lock = m_state.membershipLock();
    std::optional<api::Bmd> bmd;
    auto step = m_state.prepareDecommission(rm->daemonId, m_keepaliveWindow, &bmd);
    if (!step) return Response::error(step.error());
    if (step->changed) {
        // Pushed to the map before the change (an away target is not
        // called); a leaving target last, once its objects' new owners have
        // the map it redirects to them with.
        if (step->removed) m_peers.pushMeta(*m_state.smap(), step->smap, bmd);
        else m_peers.pushMetaLast(*m_state.smap(), rm->daemonId, step->smap, bmd);
        m_state.publishSmap(step->smap);
        if (bmd) m_state.announceBmd(*bmd);
    }
    // A present target: its objects move (again, when asked twice).
    if (!step->removed && m_moveRequested) m_moveRequested(rm->daemonId);
    return Response::json(api::ClusterActionReply{step->smap.version});
}

Response ProxyApi::maintenance(const api::ActionMsg& msg, bool on, bool fromNode)
{
    auto node = api::parseNodeMaintenance(msg.value);
    if (!node) return Response::error(node.error());
    auto lock = m_state.membershipLock();
    auto next = m_state.prepareMaintenance(node->daemonId, on, m_keepaliveWindow, fromNode);
    if (!next) return Response::error(next.error());
    if (!next->has_value()) return Response::json(api::ClusterActionReply{m_state.smap()->version});
    // Every target learns the new map before the proxy serves it, the one
    // going into maintenance included (it is still serving what it has).
    const api::Smap& after = **next;
    const auto before = m_state.smap();
    m_peers.pushMeta(on ? *before : after, after, std::nullopt);
    m_state.publishSmap(after);
    return Response::json(api::ClusterActionReply{after.version});
}

Response ProxyApi::daemonInfo(const Request& req)
{
    const auto what = req.queryValue("what");
    bool tessera = false;
    if (auto bad = stats::checkFormat(req, tessera)) return std::move(*bad);
    if (what == "smap") return Response::json(nlohmann::json(*m_state.smap()));
    if (what == "bmd") return Response::json(nlohmann::json(*m_state.bmd()));
    if (what == "snode") return Response::json(nlohmann::json(m_self));
    if (what == "config" && tessera) return Response::json(m_nodeInfo().value("config", nlohmann::json::object()));
    if (what == "node_stats" || what.empty()) return Response::json(m_nodeStats());
    const auto smap = m_state.smap();
    if (auto r = stats::aisDaemonAnswer(what, m_ais, m_nodeStats(), m_self, *smap, m_state.bmd()->version)) {
        return std::move(*r);
    }
    return Response::error(api::Error::badRequest(
        "unknown what=\"" + what +
        "\" (expected smap, bmd, snode, config, node_stats, node_status, sysinfo, software_version)"));
}

Response ProxyApi::reverseDaemon(const Request& req)
{
    // AIStore's clients reach a node through the proxy: /v1/reverse/daemon
    // with the node's id in ais-node-id (api.GetStatsAndStatus,
    // api.GetDaemonConfig, the SDK's get_performance()).
    const auto id = req.header(api::kHdrNodeId);
    if (id.empty()) {
        return Response::error(
            api::Error::badRequest("missing header " + std::string(api::kHdrNodeId) + " (the id of the node to ask)"));
    }
    if (id == m_self.id) return daemonInfo(req);
    const auto smap = m_state.smap();
    const auto* node = smap->findTarget(id);
    if (node == nullptr) {
        return Response::error(api::Error::notFound("node \"" + std::string(id) + "\" is not in the cluster map"));
    }
    api::Smap one;
    one.tmap.emplace(node->id, *node);
    const auto q = req.target.find('?');
    const auto query = q == std::string::npos ? std::string() : req.target.substr(q + 1);
    auto results =
        m_peers.fanOut(one, client::Method::Get, "/v1/daemon" + (query.empty() ? std::string() : "?" + query));
    auto& r = results.at(node->id);
    if (!r) return Response::error(r.error());
    Response out;
    out.status = r->status;
    out.body = std::move(r->body);
    if (auto ct = r->header("content-type"); !ct.empty()) out.header("Content-Type", ct);
    return out;
}

Response ProxyApi::health(const Request& req)
{
    // AIStore answers health with a status and no body; Tessera's Health
    // document only when asked (?detail=true).
    if (!api::wantsHealthDetail(req.queryValue("detail"))) return Response::ok();
    const auto smap = m_state.smap();
    return Response::json(api::Health{"ok", std::string(api::kRoleProxy), m_self.id, smap->version, smap->tmap.size()});
}

}  // namespace tessera::daemon::proxy
