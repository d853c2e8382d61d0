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

}  // namespace tessera::console
