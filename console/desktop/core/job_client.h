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

signals:
    // `error` is empty on success; otherwise the proxy's message (or the network error).
    void abortFinished(const QString& id, const QString& error);

private:
    RestClient* m_rest;
};

}  // namespace tessera::console
