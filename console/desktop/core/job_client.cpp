#include "core/job_client.h"

#include "core/rest_client.h"

namespace tessera::console {

JobClient::JobClient(RestClient* rest, QObject* parent) : QObject(parent), m_rest(rest) {}

void JobClient::abort(const QString& id)
{
    m_rest->abortJob(id, this, [this, id](api::Result<api::JobStatus> st) {
        emit abortFinished(id, st ? QString() : QString::fromStdString(st.error().message));
    });
}

void JobClient::startBucketJob(const QString& kind, const QString& bucket)
{
    api::BucketJobArgs args;
    if (!bucket.isEmpty()) args.bucket = bucket.toStdString();
    const api::JobStart start{kind.toStdString(), nlohmann::json(args)};
    m_rest->startJob(start, this, [this, kind, bucket](api::Result<api::JobStatus> st) {
        if (!st) {
            emit startFailed(kind, bucket, QString::fromStdString(st.error().message));
            return;
        }
        emit started(*st, bucket);
    });
}

}  // namespace tessera::console
