#pragma once
// Typed client for Tessera's REST API (AIStore-compatible v1 paths). Every
// call goes to the configured endpoint (normally the proxy) and follows its
// redirects to targets. Non-2xx answers become api::Error values whose kind
// comes from the HTTP status (see api/http_error.h).
//
// Thread safety: one Client per thread (it owns an HttpClient).

#include "api/archive_msg.h"
#include "api/auth_msg.h"
#include "api/bmd.h"
#include "api/etl_msg.h"
#include "api/job.h"
#include "api/node_stats.h"
#include "api/object_list.h"
#include "api/object_meta.h"
#include "api/result.h"
#include "api/s3_key_msg.h"
#include "api/smap.h"
#include "http_client.h"
#include "spec/ishard_plan.h"
#include "spec/ishard_spec.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::client {

using ObjectAttrs = api::ObjectAttrs;

// Which members of a shard a GET returns: one (`member`, AIStore's
// archpath) or all that match (`regex` with `mode` regexp|prefix|suffix|
// substr|wdskey, AIStore's archregx/archmode) as one .tar. `mime` overrides
// the format the shard's name implies (archmime).
struct ArchiveSelect {
    std::string member;
    std::string regex;
    std::string mode;
    std::string mime;
};

struct PutOptions {
    std::string checksumValue;                  // xxhash64 hex; verified by the target when set
    std::map<std::string, std::string> custom;  // ais-custom-md
};

class Client {
public:
    explicit Client(std::string endpoint, HttpClient::Options options = {});

    const std::string& endpoint() const { return m_endpoint; }

    // Direct mode: object calls go straight to the owning target, computed
    // with HRW over a cached cluster map and tagged with its version. A
    // target with a newer map redirects (and the cache is dropped); one that
    // cannot be reached or has an older map is bypassed through the proxy.
    void setDirect(bool direct) { m_direct = direct; }
    bool direct() const { return m_direct; }
    HttpClient& http() { return m_http; }

    // Cluster
    api::Result<nlohmann::json> health();
    api::Result<api::Smap> smap();                                   // GET /v1/cluster?what=smap
    api::Result<api::Bmd> bmd();                                     // GET /v1/cluster?what=bmd
    api::Result<api::ClusterStats> clusterStats();                   // GET /v1/cluster?what=node_stats
    api::Result<nlohmann::json> clusterInfo(std::string_view what);  // GET /v1/cluster?what=...
    // PUT /v1/cluster decommission-node: removes an away target from the
    // cluster map for good; a present one is flagged decommissioning and
    // leaves the map once the rebalance has moved its objects (Conflict for
    // one in maintenance or the last target that can own objects, NotFound
    // for an unknown id). The cluster map version holding the change.
    api::Result<std::int64_t> decommissionNode(std::string_view targetId);
    // PUT /v1/cluster start-maintenance / stop-maintenance: a target in
    // maintenance stays in the map, its objects answer 503 naming it and no
    // rebalance starts (NotFound for an unknown id, BadRequest for a proxy's,
    // Conflict when stopping one that sends no keepalives). The cluster
    // map version holding the change.
    api::Result<std::int64_t> setMaintenance(std::string_view targetId, bool on);
    api::Result<nlohmann::json> daemonInfo(std::string_view what);  // GET /v1/daemon?what=...

    // Tokens (auth on; docs/security.md). login: POST /v1/tokens (401 for a
    // wrong name or password); refreshTokens: POST /v1/tokens/refresh (the
    // refresh token is spent); revokeToken: DELETE /v1/tokens, sent with
    // the client's own credential; whoami: GET /v1/whoami.
    api::Result<api::TokenReply> login(std::string_view user, std::string_view password);
    api::Result<api::TokenReply> refreshTokens(std::string_view refreshToken);
    api::Status revokeToken(std::string_view token);
    api::Result<api::UserInfo> whoami();
    // Users and their grants (admins; docs/api.md "Auth").
    api::Result<std::vector<api::UserInfo>> listUsers();                  // GET /v1/users
    api::Status addUser(const api::NewUser& user);                        // POST /v1/users
    api::Status deleteUser(std::string_view user);                        // DELETE /v1/users/U
    api::Status setPassword(std::string_view user, std::string_view pw);  // PUT /v1/users/U/password
    api::Status grant(std::string_view user, const api::Grant& grant);    // POST /v1/users/U/grants
    api::Status revokeGrant(std::string_view user, std::string_view bucket, api::Permission permission);
    // The token-key ring (admins): show, rotate, push again, drop a key.
    api::Result<api::TokenKeyRing> tokenKeys();
    api::Result<api::TokenKeyRing> rotateTokenKey();
    api::Result<api::TokenKeyRing> pushTokenKeys();
    api::Result<api::TokenKeyRing> dropTokenKey(std::string_view kid);
    // S3 access keys (admins, or the user for themself; docs/api.md "S3
    // access keys"). listS3Keys with an empty user: every key (admins).
    api::Result<api::S3KeyCreated> createS3Key(std::string_view user, const api::NewS3Key& key);
    api::Result<std::vector<api::S3KeyInfo>> listS3Keys(std::string_view user);
    api::Status deleteS3Key(std::string_view user, std::string_view accessKey);

    // Buckets
    api::Result<std::vector<api::BucketRef>> listBuckets();
    api::Status createBucket(std::string_view bucket);
    api::Status destroyBucket(std::string_view bucket);
    api::Result<api::BucketProps> bucketProps(std::string_view bucket);  // HEAD
    api::Result<api::BucketProps> setBucketProps(std::string_view bucket, const nlohmann::json& update);

    // Listing: one page, or every page until the listing is complete.
    api::Result<api::ObjectList> listObjects(std::string_view bucket, const api::ListRequest& request);
    api::Result<std::vector<api::ObjEntry>> listAll(std::string_view bucket, std::string_view prefix = {},
                                                    std::uint32_t props = api::kPropName | api::kPropSize);

    // Objects
    api::Result<ObjectAttrs> putObject(std::string_view bucket, std::string_view name, std::string data,
                                       const PutOptions& options = {});
    api::Result<ObjectAttrs> putFile(std::string_view bucket, std::string_view name, const std::string& path,
                                     const PutOptions& options = {});
    // `range` is a Range header value such as "bytes=0-99"; empty for all.
    api::Result<std::string> getObject(std::string_view bucket, std::string_view name, std::string_view range = {});
    api::Result<ObjectAttrs> getToSink(std::string_view bucket, std::string_view name, const Sink& sink,
                                       std::string_view range = {});
    // Writes `path` through a temporary file renamed into place on success.
    api::Result<ObjectAttrs> getToFile(std::string_view bucket, std::string_view name, const std::string& path);
    api::Result<ObjectAttrs> headObject(std::string_view bucket, std::string_view name);
    api::Status deleteObject(std::string_view bucket, std::string_view name);

    // Shards. getFromArchive streams the member (or the .tar of matches) to
    // `sink`. listArchive gives the shard's entry first, then its members
    // ("shard/member", kEntryInArch); a shard that cannot be read is a
    // Corruption error with the target's reason. appendToArchive adds a
    // member, creating the shard when it does not exist.
    api::Result<std::string> getArchiveMember(std::string_view bucket, std::string_view shard, std::string_view member,
                                              std::string_view mime = {});
    api::Result<std::string> getArchiveMatches(std::string_view bucket, std::string_view shard, std::string_view regex,
                                               std::string_view mode = "regexp");
    api::Result<ObjectAttrs> getFromArchive(std::string_view bucket, std::string_view shard,
                                            const ArchiveSelect& select, const Sink& sink);
    api::Result<std::vector<api::ObjEntry>> listArchive(std::string_view bucket, std::string_view shard);
    api::Result<ObjectAttrs> appendToArchive(std::string_view bucket, std::string_view shard, std::string_view member,
                                             std::string data, std::string_view mime = {});
    api::Result<ObjectAttrs> appendFileToArchive(std::string_view bucket, std::string_view shard,
                                                 std::string_view member, const std::string& path,
                                                 std::string_view mime = {});

    // Jobs (rebalance, ...): start on every target, list, show, abort.
    api::Result<api::JobStatus> startJob(std::string_view kind, const nlohmann::json& args = nlohmann::json::object());
    api::Result<std::vector<api::JobStatus>> listJobs();
    api::Result<api::JobStatus> job(std::string_view id);
    api::Result<api::JobStatus> abortJob(std::string_view id);

    // Shard-creating jobs. startArchive: POST /v1/buckets/SRC
    // {"action":"archive"} (msg.srcBck is the source). startIshard: POST
    // /v1/ishard; the spec's dry_run must be false. ishardDryRun: the plan
    // (shard names, samples, sizes; no members), nothing started.
    api::Result<api::JobStatus> startArchive(const api::ArchiveMsg& msg);
    api::Result<api::JobStatus> startIshard(const spec::IshardSpec& spec);
    api::Result<spec::IshardPlan> ishardDryRun(const spec::IshardSpec& spec);

    // dSort (AIStore's /v1/sort): start with a spec (spec/dsort_spec.h
    // JSON; the answer is the job id), its status with every target's
    // metrics (phase times, records, spills), every dSort job, abort, and
    // forgetting a finished one.
    struct DsortStatus {
        api::JobStatus job;
        nlohmann::json metrics;  // target id -> counters
    };
    api::Result<std::string> startDsort(const nlohmann::json& spec);
    api::Result<DsortStatus> dsortStatus(std::string_view id);
    api::Result<std::vector<api::JobStatus>> listDsorts();
    api::Result<api::JobStatus> abortDsort(std::string_view id);
    api::Status removeDsort(std::string_view id);

    // ETL (docs/etl.md).
    api::Result<api::EtlInfo> etlInit(const api::EtlSpec& spec);  // PUT /v1/etl
    api::Result<std::vector<api::EtlInfo>> etlList();
    api::Result<api::EtlInfo> etlShow(std::string_view name);
    api::Result<std::vector<api::EtlLog>> etlLogs(std::string_view name, std::string_view target = {});
    api::Result<api::EtlInfo> etlStart(std::string_view name);
    api::Result<api::EtlInfo> etlStop(std::string_view name);
    api::Status etlRemove(std::string_view name);
    // The object through an ETL (pipeline: more ETL names after it) into `sink`.
    api::Result<ObjectAttrs> getTransformed(std::string_view bucket, std::string_view name,
                                            const std::vector<std::string>& pipeline, std::string_view args,
                                            const Sink& sink, std::string_view archpath = {});
    // etl-bck (prefix) or, with names or a template, etl-listrange.
    api::Result<api::JobStatus> etlBucket(std::string_view src, std::string_view dst, const api::EtlBucketMsg& msg);

    std::string objectUrl(std::string_view bucket, std::string_view name) const;
    std::string bucketUrl(std::string_view bucket) const;

    static ObjectAttrs attrsFromHeaders(const Response& response);

private:
    api::Result<nlohmann::json> getJson(const std::string& url, const char* what);
    // An object call, direct or through the proxy (see setDirect).
    api::Result<Response> objectCall(Method method, std::string_view bucket, std::string_view name,
                                     const Body& body = {}, const Headers& headers = {}, const Sink* sink = nullptr,
                                     const api::QueryMap& query = {});
    api::Result<Response> call(Method method, const std::string& url, const Body& body = {},
                               const Headers& headers = {}, const Sink* sink = nullptr);

    std::string m_endpoint;
    HttpClient m_http;
    bool m_direct = false;
    std::optional<api::Smap> m_smap;  // direct mode's cached map
};

}  // namespace tessera::client
