// RestClient's job calls: jobs, dSort, ishard and ETL (the exchange and the
// other calls are in rest_client.cpp).
#include "rest_client.h"

#include "rest_client_detail.h"

#include "api/action_msg.h"
#include "api/feed.h"
#include "api/headers.h"
#include "api/json_util.h"

#include <nlohmann/json.hpp>

namespace tessera::console {

using namespace rest_detail;

RestCall RestClient::jobs(QObject* context, Callback<std::vector<api::JobStatus>> done)
{
    return getParsed<std::vector<api::JobStatus>>(
        controlUrl(QByteArray(api::path::kJobs.data(), api::path::kJobs.size())), context, std::move(done),
        [](std::string_view b) { return api::decodeJobList(b); });
}

RestCall RestClient::abortJob(const QString& id, QObject* context, Callback<api::JobStatus> done)
{
    auto req = newRequest("DELETE", controlUrl(QByteArray::fromStdString(api::path::job(id.toStdString()))), context);
    req->timeoutMs = m_controlTimeoutMs;
    req->done = [done = std::move(done)](Response r) {
        if (auto st = r.status2xx(); !st) return done(st.error());
        done(api::parseJobStatus(std::string_view(r.body.constData(), static_cast<std::size_t>(r.body.size()))));
    };
    return start(req);
}

std::shared_ptr<RestClient::Request> RestClient::specRequest(const char* method, const QUrl& url,
                                                             const QByteArray& spec, bool yaml, QObject* context) const
{
    auto req = newRequest(method, url, context);
    req->timeoutMs = m_transferTimeoutMs;  // the proxy reads inputs or starts processes first
    req->hasBody = true;
    req->body.data = spec;
    req->addHeader("Content-Type", yaml ? "application/yaml" : "application/json");
    return req;
}

RestCall RestClient::dsortDryRun(const QByteArray& spec, bool yaml, QObject* context, Callback<spec::DsortDryRun> done)
{
    auto req = specRequest(
        "POST",
        controlUrl(QByteArray(api::path::kSort.data(), api::path::kSort.size()), QStringLiteral("dry_run=true")), spec,
        yaml, context);
    req->done = [done = std::move(done)](Response r) {
        if (auto st = r.status2xx(); !st) return done(st.error());
        done(api::parseMessage<spec::DsortDryRun>(bodyView(r.body), "dsort dry run"));
    };
    return start(req);
}

RestCall RestClient::startDsort(const QByteArray& spec, bool yaml, QObject* context, Callback<QString> done)
{
    auto req = specRequest("POST", controlUrl(QByteArray(api::path::kSort.data(), api::path::kSort.size())), spec, yaml,
                           context);
    req->done = [done = std::move(done)](Response r) {
        if (auto st = r.status2xx(); !st) return done(st.error());
        // The answer is the job id as text (AIStore's), possibly JSON-quoted.
        QString id = QString::fromUtf8(r.body).trimmed();
        if (id.size() >= 2 && id.startsWith(QLatin1Char('"')) && id.endsWith(QLatin1Char('"')))
            id = id.mid(1, id.size() - 2);
        if (id.isEmpty()) return done(api::Error::corruption("the proxy answered no dsort job id"));
        done(id);
    };
    return start(req);
}

RestCall RestClient::job(const QString& id, QObject* context, Callback<api::JobStatus> done)
{
    return getParsed<api::JobStatus>(controlUrl(QByteArray::fromStdString(api::path::job(id.toStdString()))), context,
                                     std::move(done), [](std::string_view b) { return api::parseJobStatus(b); });
}

RestCall RestClient::startJob(const api::JobStart& job, QObject* context, Callback<api::JobStatus> done)
{
    auto req = newRequest("POST", controlUrl(QByteArray(api::path::kJobs.data(), api::path::kJobs.size())), context);
    req->timeoutMs = m_transferTimeoutMs;  // the proxy starts the job on every target before it answers
    req->hasBody = true;
    req->body.data = QByteArray::fromStdString(api::dumpJson(nlohmann::json(job)));
    req->addHeader("Content-Type", "application/json");
    req->done = [done = std::move(done)](Response r) {
        if (auto st = r.status2xx(); !st) return done(st.error());
        done(api::parseJobStatus(bodyView(r.body)));
    };
    return start(req);
}

RestCall RestClient::ishardDryRun(const QByteArray& spec, bool yaml, QObject* context,
                                  Callback<spec::IshardDryRun> done)
{
    auto req = specRequest(
        "POST",
        controlUrl(QByteArray(api::path::kIshard.data(), api::path::kIshard.size()), QStringLiteral("dry_run=true")),
        spec, yaml, context);
    req->done = [done = std::move(done)](Response r) {
        if (auto st = r.status2xx(); !st) return done(st.error());
        done(spec::parseIshardDryRun(bodyView(r.body)));
    };
    return start(req);
}

RestCall RestClient::startIshard(const QByteArray& spec, bool yaml, QObject* context, Callback<api::JobStatus> done)
{
    auto req = specRequest("POST", controlUrl(QByteArray(api::path::kIshard.data(), api::path::kIshard.size())), spec,
                           yaml, context);
    req->done = [done = std::move(done)](Response r) {
        if (auto st = r.status2xx(); !st) return done(st.error());
        done(api::parseJobStatus(bodyView(r.body)));
    };
    return start(req);
}

RestCall RestClient::etlList(QObject* context, Callback<std::vector<api::EtlInfo>> done)
{
    return getParsed<std::vector<api::EtlInfo>>(
        controlUrl(QByteArrayLiteral("/v1/etl")), context, std::move(done),
        [](std::string_view b) { return api::parseMessageList<api::EtlInfo>(b, "etl list"); });
}

RestCall RestClient::etlInit(const QByteArray& spec, bool yaml, QObject* context, Callback<api::EtlInfo> done)
{
    auto req = specRequest("PUT", controlUrl(QByteArrayLiteral("/v1/etl")), spec, yaml, context);
    req->done = [done = std::move(done)](Response r) {
        if (auto st = r.status2xx(); !st) return done(st.error());
        done(api::parseMessage<api::EtlInfo>(bodyView(r.body), "etl"));
    };
    return start(req);
}

RestCall RestClient::etlRemove(const QString& name, QObject* context, StatusCallback done)
{
    auto req = newRequest("DELETE", controlUrl("/v1/etl/" + QUrl::toPercentEncoding(name)), context);
    req->timeoutMs = m_transferTimeoutMs;
    req->done = [done = std::move(done)](Response r) { done(r.status2xx()); };
    return start(req);
}

RestCall RestClient::etlBucket(const QString& src, const QString& dst, const api::EtlBucketMsg& msg, QObject* context,
                               Callback<api::JobStatus> done)
{
    const bool listRange = !msg.objnames.empty() || !msg.templ.empty();
    const api::ActionMsg action{listRange ? "etl-listrange" : "etl-bck", dst.toStdString(), nlohmann::json(msg)};
    auto req = newRequest("POST", bucketUrl(src), context);
    req->hasBody = true;
    req->body.data = QByteArray::fromStdString(api::dumpJson(nlohmann::json(action)));
    req->addHeader("Content-Type", "application/json");
    req->done = [done = std::move(done)](Response r) {
        if (auto st = r.status2xx(); !st) return done(st.error());
        done(api::parseJobStatus(bodyView(r.body)));
    };
    return start(req);
}

RestCall RestClient::readTransformed(const QString& bucket, const QString& name, const QString& member,
                                     const QString& etl, const QString& args, qint64 maxBytes, QObject* context,
                                     Callback<QByteArray> done)
{
    QList<std::pair<QByteArray, QString>> query;
    if (!member.isEmpty()) query.append({QByteArrayLiteral("archpath"), member});
    if (!etl.isEmpty()) {
        query.append({QByteArray(api::kQpEtlName.data(), api::kQpEtlName.size()), etl});
        if (!args.isEmpty()) query.append({QByteArray(api::kQpEtlArgs.data(), api::kQpEtlArgs.size()), args});
    }
    auto req = newRequest("GET", QUrl::fromEncoded(objectUrl(bucket, name).toEncoded() + encodeQuery(query)), context);
    req->maxBody = maxBytes;
    req->done = [done = std::move(done)](Response r) {
        if (auto st = r.status2xx(); !st) return done(st.error());
        done(std::move(r.body));
    };
    return start(req);
}

}  // namespace tessera::console
