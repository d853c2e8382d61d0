#pragma once
// A raw connection to a node of a LocalCluster, for tests that write HTTP
// bytes by hand (slow heads, half-sent bodies, pipelining): plain TCP, or on
// a TLS cluster TLS with the cluster's CA, so the same bytes go over either.
// Qt sockets: use them on the test's thread.

#include "local_cluster.h"

#include <QHostAddress>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslSocket>
#include <QTcpSocket>
#include <memory>

namespace tessera::tests {

// Connects to host:port (from `source` when given) and, on a TLS cluster,
// completes the handshake. nullptr when either fails within `timeoutMs` — on
// a TLS cluster also when the node closes the connection before the
// handshake (what it does over its connection caps).
inline std::unique_ptr<QTcpSocket> openRaw(const LocalCluster& cluster, const QString& host, quint16 port,
                                           const QString& source = {}, int timeoutMs = 5000)
{
    std::unique_ptr<QTcpSocket> s;
    if (cluster.tls()) {
        auto ssl = std::make_unique<QSslSocket>();
        QSslConfiguration conf = ssl->sslConfiguration();
        conf.setCaCertificates(QSslCertificate::fromPath(cluster.caFile()));
        ssl->setSslConfiguration(conf);
        s = std::move(ssl);
    } else {
        s = std::make_unique<QTcpSocket>();
    }
    if (!source.isEmpty() && !s->bind(QHostAddress(source))) return nullptr;
    if (auto* ssl = qobject_cast<QSslSocket*>(s.get())) {
        ssl->connectToHostEncrypted(host, port);
        if (!ssl->waitForEncrypted(timeoutMs)) return nullptr;
    } else {
        s->connectToHost(host, port);
        if (!s->waitForConnected(timeoutMs)) return nullptr;
    }
    return s;
}

// The same for a node's URL ("http(s)://host:port").
inline std::unique_ptr<QTcpSocket> openRaw(const LocalCluster& cluster, const std::string& url,
                                           const QString& source = {}, int timeoutMs = 5000)
{
    const auto hostPort = QString::fromStdString(url).section("://", 1).section('/', 0, 0);
    return openRaw(cluster, hostPort.section(':', 0, 0), static_cast<quint16>(hostPort.section(':', 1).toUInt()),
                   source, timeoutMs);
}

}  // namespace tessera::tests
