#pragma once

#include "api/job.h"

#include <QObject>
#include <QString>

namespace tessera::console {

class RestClient;

// Job actions over REST (`POST /v1/jobs`, `DELETE /v1/jobs/<id>`); job state
// itself arrives through the ClusterConnection's feed. UI thread.
class JobClient : public QObject {
    Q_OBJECT
public:
    explicit JobClient(RestClient* rest, QObject* parent = nullptr);

    // Asks the proxy to abort job `id`; abortFinished reports the answer.
    void abort(const QString& id);
    // Starts a `reprotect` or `scrub` job (api::BucketJobArgs) on `bucket`, or
    // on every bucket when `bucket` is empty; started or startFailed reports
    // the answer.
    void startBucketJob(const QString& kind, const QString& bucket);

signals:
    // `error` is empty on success; otherwise the proxy's message (or the network error).
    void abortFinished(const QString& id, const QString& error);
    // The proxy's status of the job just started (its first state: the feed's
    // `job` messages follow).
    void started(const tessera::api::JobStatus& job, const QString& bucket);
    // The proxy refused (a reprotect already running, a missing bucket) or
    // could not be reached.
    void startFailed(const QString& kind, const QString& bucket, const QString& error);

private:
    RestClient* m_rest;
};

}  // namespace tessera::console
