#include "core/job_client.h"

#include "api/http_error.h"
#include "core/cluster_connection.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QUrl>

namespace tessera::console {

JobClient::JobClient(ClusterConnection* connection, QObject* parent) : QObject(parent), m_connection(connection) {}

void JobClient::abort(const QString& id)
{
    const QString path = QStringLiteral("/v1/jobs/") + QString::fromUtf8(QUrl::toPercentEncoding(id));
    QNetworkReply* reply = m_connection->network()->deleteResource(m_connection->request(path));
    connect(reply, &QNetworkReply::finished, this, [this, reply, id] {
        reply->deleteLater();
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status >= 200 && status < 300) {
            emit abortFinished(id, QString());
            return;
        }
        if (status == 0) {
            emit abortFinished(id, reply->errorString());
            return;
        }
        const auto error = api::errorFromResponse(status, reply->readAll().toStdString());
        emit abortFinished(id, QString::fromStdString(error.message));
    });
}

} // namespace tessera::console
