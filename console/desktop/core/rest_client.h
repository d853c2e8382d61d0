#pragma once
// Typed REST calls to a Tessera proxy over the console's QNetworkAccessManager.
//
// Every call is asynchronous: it returns at once and later runs its callback
// on the thread that owns the RestClient (the UI thread), with a typed value
// or an api::Error rebuilt from the cluster's JSON error body (a transport
// failure is Unavailable, a transfer timeout Timeout). A callback never runs
// after the `context` object given with the call is destroyed.
//
// Object calls (GET, PUT, HEAD, DELETE) are answered by the proxy with a 307
// to the owning target. Redirects are followed here, not by Qt: the same
// method and headers go to the Location, and a PUT body is sent again from
// its source (the bytes in memory, or the file re-opened from the start).
// At most kMaxRedirects hops; more is Unavailable. A PUT body over
// kMaxBodyThroughRedirect is not sent to the proxy at all: a HEAD of the same
// URL (answered with the same 307) finds the owner, and the body goes there.

#include "api/auth_msg.h"
#include "api/bmd.h"
#include "api/cluster_msg.h"
#include "api/etl_msg.h"
#include "api/job.h"
#include "api/node_stats.h"
#include "api/object_list.h"
#include "api/object_meta.h"
#include "api/result.h"
#include "api/smap.h"
#include "spec/dsort_preview.h"
#include "spec/ishard_plan.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QSslConfiguration>
#include <QString>
#include <QUrl>
#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <vector>

class QNetworkAccessManager;
class QNetworkReply;

namespace tessera::console {

// Metadata of an object as HEAD/PUT/GET answer it (ais-* headers, read by
// the shared codec).
using ObjectInfo = api::ObjectAttrs;

// Bytes read from the start of an object with a Range request.
struct RangeData {
    QByteArray bytes;
    qint64 totalSize = -1;  // the object's size (Content-Range), -1 when unknown
    bool truncated() const { return totalSize > bytes.size(); }
};

// The body of a PUT: bytes in memory, or a local file read from its start on
// every attempt (so a redirected PUT sends it again).
struct PutBody {
    QByteArray data;
    QString filePath;  // when set, `data` is ignored
    static PutBody fromData(QByteArray d) { return {std::move(d), {}}; }
    static PutBody fromFile(QString path) { return {{}, std::move(path)}; }
};

// A call in flight; abort() ends it (its callback then gets Unavailable
// "aborted"). Copies refer to the same call. Empty when default-constructed.
class RestCall {
public:
    RestCall() = default;
    void abort();
    bool isRunning() const;

private:
    friend class RestClient;
    struct State;
    explicit RestCall(std::shared_ptr<State> s) : m_state(std::move(s)) {}
    std::shared_ptr<State> m_state;
};

class RestClient : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxRedirects = 5;
    // A proxy reads and drops a redirected body up to 64 KiB; a larger one it
    // does not read and closes the connection. Larger PUTs ask the owner first.
    static constexpr qint64 kMaxBodyThroughRedirect = 64 * 1024;
    static constexpr int kDefaultTransferTimeoutMs = 30000;  // no byte moved for this long: Timeout

    template <typename T>
    using Callback = std::function<void(api::Result<T>)>;
    using StatusCallback = std::function<void(api::Status)>;
    using ProgressCallback = std::function<void(qint64 done, qint64 total)>;

    explicit RestClient(QNetworkAccessManager* network, QObject* parent = nullptr);
    ~RestClient() override;

    void setEndpoint(const QUrl& endpoint);  // proxy URL, e.g. http://127.0.0.1:8080
    QUrl endpoint() const;
    void setTransferTimeoutMs(int ms) { m_transferTimeoutMs = ms; }
    // The same for the small control calls below (health, stats, jobs).
    void setControlTimeoutMs(int ms) { m_controlTimeoutMs = ms; }
    static constexpr int kDefaultControlTimeoutMs = 5000;
    // Sent as "Authorization: Bearer <token>" with every request (none when empty).
    void setToken(const QString& token) { m_token = token; }
    // Set on every request (https:// ones use it: the CAs trusted, or no
    // check); Qt's default when never set. A certificate refused fails the
    // call with Unavailable "TLS handshake with HOST:PORT failed: <why>".
    void setSslConfiguration(const QSslConfiguration& config) { m_ssl = config; }

    // The cluster (the console's connection polls these when the live feed
    // is unavailable).
    RestCall health(QObject* context, Callback<api::Health> done);
    RestCall clusterStats(QObject* context, Callback<api::ClusterStats> done);  // GET /v1/cluster?what=node_stats
    RestCall smap(QObject* context, Callback<api::Smap> done);
    // Jobs: every job the proxy knows (oldest first), and aborting one.
    RestCall jobs(QObject* context, Callback<std::vector<api::JobStatus>> done);
    RestCall abortJob(const QString& id, QObject* context, Callback<api::JobStatus> done);

    // One job with every target's phase and progress (GET /v1/jobs/<id>).
    RestCall job(const QString& id, QObject* context, Callback<api::JobStatus> done);
    // POST /v1/jobs: a job of `job.kind` with its args; the new job's status.
    // A kind that runs one at a time and is running already is Conflict.
    RestCall startJob(const api::JobStart& job, QObject* context, Callback<api::JobStatus> done);

    // Job specs go as the user wrote them: `yaml` sends the body as
    // application/yaml, else as JSON. dSort (docs/dsort.md): the plan,
    // nothing started; a new job's id. ishard (docs/api.md): the plan; a new
    // job's status.
    RestCall dsortDryRun(const QByteArray& spec, bool yaml, QObject* context, Callback<spec::DsortDryRun> done);
    RestCall startDsort(const QByteArray& spec, bool yaml, QObject* context, Callback<QString> done);
    RestCall ishardDryRun(const QByteArray& spec, bool yaml, QObject* context, Callback<spec::IshardDryRun> done);
    RestCall startIshard(const QByteArray& spec, bool yaml, QObject* context, Callback<api::JobStatus> done);

    // ETL (docs/etl.md): the registered transformers, initializing one from
    // a spec as written (`yaml`: application/yaml), removing one, and an
    // offline job (etl-bck by prefix; etl-listrange with a template or names).
    RestCall etlList(QObject* context, Callback<std::vector<api::EtlInfo>> done);
    RestCall etlInit(const QByteArray& spec, bool yaml, QObject* context, Callback<api::EtlInfo> done);
    RestCall etlRemove(const QString& name, QObject* context, StatusCallback done);
    RestCall etlBucket(const QString& src, const QString& dst, const api::EtlBucketMsg& msg, QObject* context,
                       Callback<api::JobStatus> done);
    // An object, or the shard member `member` when not empty, whole, through
    // the ETL `etl` with `args` (`etl` empty: as stored); more than maxBytes
    // is TooLarge.
    RestCall readTransformed(const QString& bucket, const QString& name, const QString& member, const QString& etl,
                             const QString& args, qint64 maxBytes, QObject* context, Callback<QByteArray> done);

    // Buckets.
    RestCall listBuckets(QObject* context, Callback<std::vector<api::BucketRef>> done);
    RestCall createBucket(const QString& bucket, QObject* context, StatusCallback done);
    RestCall destroyBucket(const QString& bucket, QObject* context, StatusCallback done);
    // Every bucket's properties with the metadata's version (GET /v1/cluster?what=bmd).
    RestCall bucketMetadata(QObject* context, Callback<api::Bmd> done);
    // PATCH /v1/buckets/<b> set-bprops with `mirror` (enabled, copies,
    // across_targets; `pending` is the cluster's and is not sent); the
    // bucket's properties after the change. A value the cluster refuses is
    // BadRequest with its message (and nothing changed); a missing bucket
    // NotFound. Changing the copies starts a reprotect job on the cluster.
    RestCall setMirror(const QString& bucket, const api::MirrorConf& mirror, QObject* context,
                       Callback<api::BucketProps> done);

    // One page of GET /v1/buckets/<b> (prefix, pagesize, continuation_token,
    // props, flags as in `request`).
    RestCall listObjects(const QString& bucket, const api::ListRequest& request, QObject* context,
                         Callback<api::ObjectList> done);

    // Objects.
    RestCall headObject(const QString& bucket, const QString& name, QObject* context, Callback<ObjectInfo> done);
    // The first `maxBytes` bytes (Range: bytes=0-<maxBytes-1>). An empty
    // object gives no bytes and totalSize 0.
    RestCall readHead(const QString& bucket, const QString& name, qint64 maxBytes, QObject* context,
                      Callback<RangeData> done);
    // A shard member (archpath), whole; more than maxBytes is TooLarge.
    RestCall readArchiveMember(const QString& bucket, const QString& shard, const QString& member, qint64 maxBytes,
                               QObject* context, Callback<QByteArray> done);
    // PUT. `checksum` (xxhash64 hex), when not empty, is sent for the target
    // to check as it writes.
    RestCall putObject(const QString& bucket, const QString& name, const PutBody& body, const QString& checksum,
                       QObject* context, Callback<ObjectInfo> done, ProgressCallback progress = {});
    RestCall deleteObject(const QString& bucket, const QString& name, QObject* context, StatusCallback done);
    // GET into a local file, written to `filePath` only when complete
    // (QSaveFile). `member` non-empty reads that shard member (archpath).
    RestCall download(const QString& bucket, const QString& name, const QString& member, const QString& filePath,
                      QObject* context, Callback<qint64> done, ProgressCallback progress = {});

    // Auth (docs/api.md, "Auth"). The token calls answer 404 when the
    // cluster runs with auth off. A wrong password is Unauthorized, too many
    // failed logins TooManyRequests with the wait in the message; neither
    // emits unauthorized(). The password is only put in the request body.
    RestCall login(const api::LoginRequest& credentials, QObject* context, Callback<api::TokenReply> done);
    // Trades a refresh token (once) for a new pair.
    RestCall refreshTokens(const QString& refreshToken, QObject* context, Callback<api::TokenReply> done);
    // DELETE /v1/tokens {"token"}: revokes `token` (sent with the client's
    // token as the bearer; a 401 does not emit unauthorized()).
    RestCall revokeToken(const QString& token, QObject* context, StatusCallback done);
    RestCall whoami(QObject* context, Callback<api::UserInfo> done);
    // Admins only (Forbidden for others): users and their grants.
    RestCall users(QObject* context, Callback<std::vector<api::UserInfo>> done);
    RestCall addUser(const api::NewUser& user, QObject* context, Callback<api::UserInfo> done);
    RestCall removeUser(const QString& name, QObject* context, StatusCallback done);
    // Adds `grant`'s permissions on its bucket; the user after the change.
    RestCall grant(const QString& user, const api::Grant& grant, QObject* context, Callback<api::UserInfo> done);
    RestCall revokeGrant(const QString& user, const QString& bucket, api::Permission permission, QObject* context,
                         StatusCallback done);

    // http://proxy/v1/objects/<b>/<name> (percent-encoded), for "copy URL".
    QUrl objectUrl(const QString& bucket, const QString& name) const;

signals:
    void endpointChanged(const QUrl& endpoint);
    // A request sent with a token was answered 401 (the token expired, was
    // revoked, or its user removed); `message` is the cluster's. The token
    // calls above never emit it. Emitted before the call's callback runs.
    void unauthorized(const QString& message);

private:
    struct Request;
    struct Response;
    // A request for `method` on `url`; its answer is dropped once `context`
    // (when given) is destroyed.
    static std::shared_ptr<Request> newRequest(const char* method, QUrl url, QObject* context);
    RestCall start(std::shared_ptr<Request> request);
    // A request whose body is a job spec as written (JSON, or YAML when `yaml`).
    std::shared_ptr<Request> specRequest(const char* method, const QUrl& url, const QByteArray& spec, bool yaml,
                                         QObject* context) const;
    void send(const std::shared_ptr<Request>& request, const std::shared_ptr<RestCall::State>& state);
    void resolve(const std::shared_ptr<Request>& request, const std::shared_ptr<RestCall::State>& state);
    QUrl bucketUrl(const QString& bucket) const;
    // The endpoint with `path` (already percent-encoded) and `query`.
    QUrl controlUrl(const QByteArray& path, const QString& query = {}) const;
    // GET of a control path whose 2xx body `parse` turns into a T.
    // A control call with a JSON body (none when `body` is null) whose 2xx
    // answer `parse` reads.
    template <typename T>
    RestCall jsonCall(const char* method, const QUrl& url, const nlohmann::json* body, bool reportUnauthorized,
                      QObject* context, Callback<T> done, std::function<api::Result<T>(std::string_view)> parse);
    RestCall jsonStatusCall(const char* method, const QUrl& url, const nlohmann::json* body, bool reportUnauthorized,
                            QObject* context, StatusCallback done);
    template <typename T>
    RestCall getParsed(const QUrl& url, QObject* context, Callback<T> done,
                       std::function<api::Result<T>(std::string_view)> parse);

    QNetworkAccessManager* m_network;
    QUrl m_endpoint;
    int m_transferTimeoutMs = kDefaultTransferTimeoutMs;
    int m_controlTimeoutMs = kDefaultControlTimeoutMs;
    QString m_token;
    std::optional<QSslConfiguration> m_ssl;
};

}  // namespace tessera::console
