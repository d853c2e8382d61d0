#include "rest_client.h"

#include "rest_client_detail.h"

#include "api/action_msg.h"
#include "api/feed.h"
#include "api/headers.h"
#include "api/http_error.h"
#include "api/json_util.h"
#include "api/paths.h"
#include "core/tls_settings.h"

#include <QFile>
#include <QFileInfo>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSaveFile>
#include <nlohmann/json.hpp>

namespace tessera::console {

using namespace rest_detail;

void RestCall::abort()
{
    if (!m_state || m_state->finished) return;
    m_state->aborted = true;
    if (m_state->reply) m_state->reply->abort();
}

bool RestCall::isRunning() const { return m_state && !m_state->finished; }

RestClient::RestClient(QNetworkAccessManager* network, QObject* parent) : QObject(parent), m_network(network) {}

RestClient::~RestClient() = default;

void RestClient::setEndpoint(const QUrl& endpoint)
{
    if (endpoint == m_endpoint) return;
    m_endpoint = endpoint;
    emit endpointChanged(endpoint);
}

QUrl RestClient::endpoint() const { return m_endpoint; }

QUrl RestClient::bucketUrl(const QString& bucket) const
{
    QByteArray base = m_endpoint.toEncoded(QUrl::StripTrailingSlash);
    return QUrl::fromEncoded(base + QByteArray::fromStdString(api::path::bucket(bucket.toStdString())));
}

QUrl RestClient::objectUrl(const QString& bucket, const QString& name) const
{
    return QUrl::fromEncoded(m_endpoint.toEncoded(QUrl::StripTrailingSlash) + objectPath(bucket, name));
}

std::shared_ptr<RestClient::Request> RestClient::newRequest(const char* method, QUrl url, QObject* context)
{
    auto req = std::make_shared<Request>();
    req->method = method;
    req->url = std::move(url);
    req->context = context;
    req->hasContext = context != nullptr;
    return req;
}

RestCall RestClient::start(std::shared_ptr<Request> request)
{
    auto state = std::make_shared<RestCall::State>();
    send(request, state);
    return RestCall(state);
}

void RestClient::send(const std::shared_ptr<Request>& request, const std::shared_ptr<RestCall::State>& state)
{
    auto finish = [this, request, state](Response response) {
        state->finished = true;
        // A 401 for a token replaced meanwhile says nothing about the new one.
        if (response.status == 401 && request->reportUnauthorized && !request->sentToken.isEmpty() &&
            request->sentToken == m_token) {
            emit unauthorized(QString::fromStdString(
                api::errorFromResponse(
                    401, std::string_view(response.body.constData(), static_cast<std::size_t>(response.body.size())))
                    .message));
        }
        if (request->sink) {
            if (response.status2xx().ok()) {
                if (!request->sink->commit()) {
                    response.status = 0;
                    response.errorString = QStringLiteral("cannot write ") + request->sink->fileName() + ": " +
                                           request->sink->errorString();
                }
            } else {
                request->sink->cancelWriting();
                request->sink->commit();  // discards: nothing is written under the name
            }
        }
        if (request->hasContext && !request->context) return;
        request->done(std::move(response));
    };

    if (request->resolveFirst) {
        resolve(request, state);
        return;
    }
    QNetworkRequest req(request->url);
    req.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    req.setTransferTimeout(request->timeoutMs > 0 ? request->timeoutMs : m_transferTimeoutMs);
    if (m_ssl) req.setSslConfiguration(*m_ssl);
    if (!m_token.isEmpty()) req.setRawHeader("Authorization", "Bearer " + m_token.toUtf8());
    request->sentToken = m_token;
    for (const auto& [k, v] : request->headers) req.setRawHeader(k, v);

    QNetworkReply* reply = nullptr;
    if (request->hasBody && !request->body.filePath.isEmpty()) {
        auto file = std::make_unique<QFile>(request->body.filePath);
        if (!file->open(QIODevice::ReadOnly)) {
            Response r;
            r.errorString = QStringLiteral("cannot read ") + request->body.filePath + ": " + file->errorString();
            r.status = 0;
            finish(std::move(r));
            return;
        }
        req.setHeader(QNetworkRequest::ContentLengthHeader, file->size());
        reply = m_network->sendCustomRequest(req, request->method, file.get());
        file.release()->setParent(reply);
    } else if (request->hasBody) {
        req.setHeader(QNetworkRequest::ContentLengthHeader, request->body.data.size());
        reply = m_network->sendCustomRequest(req, request->method, request->body.data);
    } else if (request->method == "HEAD") {
        // Not as a custom verb: Qt would then wait for the body that the
        // Content-Length of a HEAD answer announces but never comes.
        reply = m_network->head(req);
    } else {
        reply = m_network->sendCustomRequest(req, request->method);
    }
    state->reply = reply;
    if (state->aborted) reply->abort();

    auto buffer = std::make_shared<QByteArray>();
    auto tooLarge = std::make_shared<bool>(false);
    // Qt's own words for a refused certificate are a bare "SSL handshake
    // failed"; the errors it reports before say why.
    auto sslErrors = std::make_shared<QList<QSslError>>();
    connect(reply, &QNetworkReply::sslErrors, reply,
            [sslErrors](const QList<QSslError>& errors) { *sslErrors = errors; });
    connect(reply, &QNetworkReply::readyRead, reply, [reply, request, buffer, tooLarge] {
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (request->sink && status >= 200 && status < 300) {
            const QByteArray chunk = reply->readAll();
            if (request->sink->write(chunk) != chunk.size()) reply->abort();
            return;
        }
        if (buffer->size() + reply->bytesAvailable() > request->maxBody) {
            *tooLarge = true;
            reply->abort();
            return;
        }
        buffer->append(reply->readAll());
    });
    if (request->uploadProgress) {
        connect(reply, &QNetworkReply::uploadProgress, reply,
                [request](qint64 done, qint64 total) { request->uploadProgress(done, total); });
    }
    if (request->downloadProgress) {
        connect(reply, &QNetworkReply::downloadProgress, reply,
                [request](qint64 done, qint64 total) { request->downloadProgress(done, total); });
    }
    connect(reply, &QNetworkReply::finished, this, [this, reply, request, state, buffer, tooLarge, sslErrors, finish] {
        reply->deleteLater();
        Response r;
        r.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        r.error = reply->error();
        r.errorString = reply->errorString();
        if (r.error == QNetworkReply::SslHandshakeFailedError && !sslErrors->isEmpty()) {
            const QUrl& url = request->url;
            r.errorString =
                handshakeFailure(url.host() + QLatin1Char(':') + QString::number(url.port(443)), *sslErrors);
        }
        r.headers = reply->rawHeaderPairs();
        r.aborted = state->aborted;
        r.tooLarge = *tooLarge;
        if (!r.aborted && !r.tooLarge && isRedirect(r.status)) {
            // The proxy may close the connection after a 307 without reading
            // a large body; the redirect is still the answer to follow.
            const QByteArray location = r.header("Location");
            if (location.isEmpty()) {
                r.status = 0;
                r.errorString = QStringLiteral("redirect without a Location");
                finish(std::move(r));
                return;
            }
            if (request->redirectsLeft <= 0) {
                r.status = 0;
                r.errorString = QStringLiteral("more than %1 redirects").arg(kMaxRedirects);
                finish(std::move(r));
                return;
            }
            --request->redirectsLeft;
            request->url = request->url.resolved(QUrl::fromEncoded(location));
            send(request, state);
            return;
        }
        if (!r.tooLarge && reply->isOpen()) buffer->append(reply->readAll());
        r.body = std::move(*buffer);
        finish(std::move(r));
    });
}

void RestClient::resolve(const std::shared_ptr<Request>& request, const std::shared_ptr<RestCall::State>& state)
{
    QNetworkRequest req(request->url);
    req.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    req.setTransferTimeout(m_transferTimeoutMs);
    if (m_ssl) req.setSslConfiguration(*m_ssl);
    QNetworkReply* reply = m_network->head(req);
    state->reply = reply;
    if (state->aborted) reply->abort();
    connect(reply, &QNetworkReply::finished, this, [this, reply, request, state] {
        reply->deleteLater();
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QByteArray location = reply->rawHeader("Location");
        if (state->aborted) {
            state->finished = true;
            if (request->hasContext && !request->context) return;
            Response r;
            r.aborted = true;
            request->done(std::move(r));
            return;
        }
        if (isRedirect(status) && !location.isEmpty() && request->redirectsLeft > 0) {
            --request->redirectsLeft;
            request->url = request->url.resolved(QUrl::fromEncoded(location));
            // The owner serves it (or redirects once more, after a map change).
            send(request, state);
            return;
        }
        // Not redirected (the node owns the name, or refuses the call): the
        // request itself gives the answer.
        request->resolveFirst = false;
        send(request, state);
    });
}

QUrl RestClient::controlUrl(const QByteArray& path, const QString& query) const
{
    QUrl url = QUrl::fromEncoded(m_endpoint.toEncoded(QUrl::StripTrailingSlash) + path);
    if (!query.isEmpty()) url.setQuery(query);
    return url;
}

RestCall RestClient::health(QObject* context, Callback<api::Health> done)
{
    // AIStore's health has no body: Tessera's document is asked for.
    return getParsed<api::Health>(
        controlUrl(QByteArray(api::path::kHealth.data(), api::path::kHealth.size()), QStringLiteral("detail=true")),
        context, std::move(done), [](std::string_view b) { return api::parseMessage<api::Health>(b, "health"); });
}

RestCall RestClient::clusterStats(QObject* context, Callback<api::ClusterStats> done)
{
    return getParsed<api::ClusterStats>(controlUrl(QByteArray(api::path::kCluster.data(), api::path::kCluster.size()),
                                                   QStringLiteral("what=node_stats")),
                                        context, std::move(done),
                                        [](std::string_view b) { return api::parseClusterStats(b); });
}

RestCall RestClient::smap(QObject* context, Callback<api::Smap> done)
{
    return getParsed<api::Smap>(
        controlUrl(QByteArray(api::path::kCluster.data(), api::path::kCluster.size()), QStringLiteral("what=smap")),
        context, std::move(done), [](std::string_view b) { return api::parseSmap(b); });
}

RestCall RestClient::listBuckets(QObject* context, Callback<std::vector<api::BucketRef>> done)
{
    auto req =
        newRequest("GET", controlUrl(QByteArray(api::path::kBuckets.data(), api::path::kBuckets.size())), context);
    req->done = [done](Response r) {
        if (auto st = r.status2xx(); !st) return done(st.error());
        try {
            auto j = nlohmann::json::parse(r.body.constData(), r.body.constData() + r.body.size());
            done(j.get<std::vector<api::BucketRef>>());
        } catch (const nlohmann::json::exception& e) {
            done(api::Error::corruption(std::string("unreadable bucket list: ") + e.what()));
        }
    };
    return start(req);
}

RestCall RestClient::createBucket(const QString& bucket, QObject* context, StatusCallback done)
{
    auto req = newRequest("POST", bucketUrl(bucket), context);
    req->hasBody = true;
    req->body.data =
        QByteArray::fromStdString(api::dumpJson(nlohmann::json(api::ActionMsg{api::act::kCreateBck, "", nullptr})));
    req->addHeader("Content-Type", "application/json");
    req->done = [done](Response r) { done(r.status2xx()); };
    return start(req);
}

RestCall RestClient::destroyBucket(const QString& bucket, QObject* context, StatusCallback done)
{
    auto req = newRequest("DELETE", bucketUrl(bucket), context);
    req->done = [done](Response r) { done(r.status2xx()); };
    return start(req);
}

RestCall RestClient::bucketMetadata(QObject* context, Callback<api::Bmd> done)
{
    return getParsed<api::Bmd>(
        controlUrl(QByteArray(api::path::kCluster.data(), api::path::kCluster.size()), QStringLiteral("what=bmd")),
        context, std::move(done), [](std::string_view b) { return api::parseBmd(b); });
}

RestCall RestClient::setMirror(const QString& bucket, const api::MirrorConf& mirror, QObject* context,
                               Callback<api::BucketProps> done)
{
    // The shared codec names the fields; `pending` is read-only on the cluster.
    nlohmann::json conf = mirror;
    conf.erase("pending");
    const api::ActionMsg action{api::act::kSetBprops, "", nlohmann::json{{"mirror", std::move(conf)}}};
    auto req = newRequest("PATCH", bucketUrl(bucket), context);
    req->timeoutMs = m_transferTimeoutMs;  // the proxy pushes the metadata to every target first
    req->hasBody = true;
    req->body.data = QByteArray::fromStdString(api::dumpJson(nlohmann::json(action)));
    req->addHeader("Content-Type", "application/json");
    req->done = [done = std::move(done)](Response r) {
        if (auto st = r.status2xx(); !st) return done(st.error());
        done(api::parseBucketProps(bodyView(r.body)));
    };
    return start(req);
}

RestCall RestClient::listObjects(const QString& bucket, const api::ListRequest& request, QObject* context,
                                 Callback<api::ObjectList> done)
{
    QList<std::pair<QByteArray, QString>> query;
    for (const auto& [k, v] : api::listRequestToQuery(request)) {
        query.append({QByteArray::fromStdString(k), QString::fromStdString(v)});
    }
    auto req = newRequest("GET", QUrl::fromEncoded(bucketUrl(bucket).toEncoded() + encodeQuery(query)), context);
    req->done = [done](Response r) {
        if (auto st = r.status2xx(); !st) return done(st.error());
        done(api::parseObjectList(std::string_view(r.body.constData(), r.body.size())));
    };
    return start(req);
}

RestCall RestClient::headObject(const QString& bucket, const QString& name, QObject* context, Callback<ObjectInfo> done)
{
    auto req = newRequest("HEAD", objectUrl(bucket, name), context);
    req->done = [done](Response r) {
        if (auto st = r.status2xx(); !st) return done(st.error());
        done(r.objectInfo());
    };
    return start(req);
}

RestCall RestClient::readHead(const QString& bucket, const QString& name, qint64 maxBytes, QObject* context,
                              Callback<RangeData> done)
{
    auto req = newRequest("GET", objectUrl(bucket, name), context);
    req->addHeader("Range", "bytes=0-" + QByteArray::number(std::max<qint64>(maxBytes, 1) - 1));
    req->maxBody = std::max<qint64>(maxBytes, 1);
    req->done = [done](Response r) {
        // "bytes a-b/size" on 206, "bytes */size" on 416 (an empty object).
        const QByteArray range = r.header("Content-Range");
        const int slash = range.lastIndexOf('/');
        bool ok = false;
        const qint64 total = slash >= 0 ? range.mid(slash + 1).toLongLong(&ok) : -1;
        if (r.status == 416 && ok && total == 0) return done(RangeData{{}, 0});
        if (auto st = r.status2xx(); !st) return done(st.error());
        RangeData data;
        data.bytes = std::move(r.body);
        data.totalSize = ok ? total : r.objectInfo().size;
        done(std::move(data));
    };
    return start(req);
}

RestCall RestClient::readArchiveMember(const QString& bucket, const QString& shard, const QString& member,
                                       qint64 maxBytes, QObject* context, Callback<QByteArray> done)
{
    auto req = newRequest(
        "GET", QUrl::fromEncoded(objectUrl(bucket, shard).toEncoded() + encodeQuery({{"archpath", member}})), context);
    req->maxBody = maxBytes;
    req->done = [done](Response r) {
        if (auto st = r.status2xx(); !st) return done(st.error());
        done(std::move(r.body));
    };
    return start(req);
}

RestCall RestClient::putObject(const QString& bucket, const QString& name, const PutBody& body, const QString& checksum,
                               QObject* context, Callback<ObjectInfo> done, ProgressCallback progress)
{
    auto req = newRequest("PUT", objectUrl(bucket, name), context);
    req->hasBody = true;
    req->body = body;
    const qint64 size = body.filePath.isEmpty() ? body.data.size() : QFileInfo(body.filePath).size();
    req->resolveFirst = size > kMaxBodyThroughRedirect;
    req->addHeader("Content-Type", "application/octet-stream");
    if (!checksum.isEmpty()) {
        req->addHeader("ais-checksum-type", "xxhash");
        req->addHeader("ais-checksum-value", checksum.toLatin1());
    }
    req->uploadProgress = std::move(progress);
    req->done = [done](Response r) {
        if (auto st = r.status2xx(); !st) return done(st.error());
        done(r.objectInfo());
    };
    return start(req);
}

RestCall RestClient::deleteObject(const QString& bucket, const QString& name, QObject* context, StatusCallback done)
{
    auto req = newRequest("DELETE", objectUrl(bucket, name), context);
    req->done = [done](Response r) { done(r.status2xx()); };
    return start(req);
}

RestCall RestClient::download(const QString& bucket, const QString& name, const QString& member,
                              const QString& filePath, QObject* context, Callback<qint64> done,
                              ProgressCallback progress)
{
    auto req = newRequest("GET", objectUrl(bucket, name), context);
    if (!member.isEmpty()) {
        req->url = QUrl::fromEncoded(req->url.toEncoded() + encodeQuery({{"archpath", member}}));
    }
    req->sink = std::make_shared<QSaveFile>(filePath);
    req->downloadProgress = std::move(progress);
    if (!req->sink->open(QIODevice::WriteOnly)) {
        const std::string why =
            "cannot write " + filePath.toStdString() + ": " + req->sink->errorString().toStdString();
        auto state = std::make_shared<RestCall::State>();
        state->finished = true;
        QPointer<QObject> guard = context;
        const bool hasContext = context != nullptr;
        QMetaObject::invokeMethod(
            this,
            [done, why, guard, hasContext] {
                if (hasContext && !guard) return;
                done(api::Error::ioError(why));
            },
            Qt::QueuedConnection);
        return RestCall(state);
    }
    req->done = [done, filePath](Response r) {
        if (auto st = r.status2xx(); !st) return done(st.error());
        done(QFileInfo(filePath).size());
    };
    return start(req);
}

template <typename T>
RestCall RestClient::jsonCall(const char* method, const QUrl& url, const nlohmann::json* body, bool reportUnauthorized,
                              QObject* context, Callback<T> done, std::function<api::Result<T>(std::string_view)> parse)
{
    auto req = newRequest(method, url, context);
    req->timeoutMs = m_transferTimeoutMs;  // a login hashes a password; a revocation waits for every target
    req->reportUnauthorized = reportUnauthorized;
    if (body) {
        req->hasBody = true;
        req->body.data = QByteArray::fromStdString(api::dumpJson(*body));
        req->addHeader("Content-Type", "application/json");
    }
    req->done = [done = std::move(done), parse = std::move(parse)](Response r) {
        if (auto st = r.status2xx(); !st) return done(st.error());
        done(parse(bodyView(r.body)));
    };
    return start(req);
}

RestCall RestClient::jsonStatusCall(const char* method, const QUrl& url, const nlohmann::json* body,
                                    bool reportUnauthorized, QObject* context, StatusCallback done)
{
    auto req = newRequest(method, url, context);
    req->timeoutMs = m_transferTimeoutMs;
    req->reportUnauthorized = reportUnauthorized;
    if (body) {
        req->hasBody = true;
        req->body.data = QByteArray::fromStdString(api::dumpJson(*body));
        req->addHeader("Content-Type", "application/json");
    }
    req->done = [done = std::move(done)](Response r) { done(r.status2xx()); };
    return start(req);
}

namespace {

api::Result<api::TokenReply> parseTokenReply(std::string_view body)
{
    return api::parseMessage<api::TokenReply>(body, "token answer");
}

QByteArray userPath(const QString& name) { return "/v1/users/" + QUrl::toPercentEncoding(name); }

}  // namespace

RestCall RestClient::login(const api::LoginRequest& credentials, QObject* context, Callback<api::TokenReply> done)
{
    const nlohmann::json body = credentials;
    return jsonCall<api::TokenReply>("POST", controlUrl("/v1/tokens"), &body, false, context, std::move(done),
                                     parseTokenReply);
}

RestCall RestClient::refreshTokens(const QString& refreshToken, QObject* context, Callback<api::TokenReply> done)
{
    const nlohmann::json body = api::RefreshRequest{refreshToken.toStdString()};
    return jsonCall<api::TokenReply>("POST", controlUrl("/v1/tokens/refresh"), &body, false, context, std::move(done),
                                     parseTokenReply);
}

RestCall RestClient::revokeToken(const QString& token, QObject* context, StatusCallback done)
{
    const nlohmann::json body = api::RevokeRequest{token.toStdString()};
    return jsonStatusCall("DELETE", controlUrl("/v1/tokens"), &body, false, context, std::move(done));
}

RestCall RestClient::whoami(QObject* context, Callback<api::UserInfo> done)
{
    return jsonCall<api::UserInfo>("GET", controlUrl("/v1/whoami"), nullptr, true, context, std::move(done),
                                   [](std::string_view b) { return api::parseMessage<api::UserInfo>(b, "whoami"); });
}

RestCall RestClient::users(QObject* context, Callback<std::vector<api::UserInfo>> done)
{
    return jsonCall<std::vector<api::UserInfo>>(
        "GET", controlUrl("/v1/users"), nullptr, true, context, std::move(done),
        [](std::string_view b) { return api::parseMessageList<api::UserInfo>(b, "users"); });
}

RestCall RestClient::addUser(const api::NewUser& user, QObject* context, Callback<api::UserInfo> done)
{
    const nlohmann::json body = user;
    return jsonCall<api::UserInfo>("POST", controlUrl("/v1/users"), &body, true, context, std::move(done),
                                   [](std::string_view b) { return api::parseMessage<api::UserInfo>(b, "user"); });
}

RestCall RestClient::removeUser(const QString& name, QObject* context, StatusCallback done)
{
    return jsonStatusCall("DELETE", controlUrl(userPath(name)), nullptr, true, context, std::move(done));
}

RestCall RestClient::grant(const QString& user, const api::Grant& grant, QObject* context, Callback<api::UserInfo> done)
{
    const nlohmann::json body = grant;
    return jsonCall<api::UserInfo>("POST", controlUrl(userPath(user) + "/grants"), &body, true, context,
                                   std::move(done),
                                   [](std::string_view b) { return api::parseMessage<api::UserInfo>(b, "user"); });
}

RestCall RestClient::revokeGrant(const QString& user, const QString& bucket, api::Permission permission,
                                 QObject* context, StatusCallback done)
{
    const std::string_view name = api::permissionName(permission);
    const QByteArray path = userPath(user) + "/grants/" + QUrl::toPercentEncoding(bucket) + '/' +
                            QByteArray(name.data(), static_cast<qsizetype>(name.size()));
    return jsonStatusCall("DELETE", controlUrl(path), nullptr, true, context, std::move(done));
}

}  // namespace tessera::console
