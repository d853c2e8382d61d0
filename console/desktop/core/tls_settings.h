#pragma once
// How the console checks an https:// / wss:// cluster: the CAs of a PEM file
// (the cluster's CA) trusted besides the system's, or no check at all.

#include "api/result.h"

#include <QList>
#include <QSslConfiguration>
#include <QSslError>
#include <QString>

namespace tessera::console {

struct TlsSettings {
    QString caFile;         // PEM file of CAs to trust besides the system's; empty: the system's only
    bool insecure = false;  // accept any certificate (test setups only)

    bool operator==(const TlsSettings&) const = default;
};

// The default SSL configuration with the certificates of `settings.caFile`
// added to its CAs; with `insecure`, QSslSocket::VerifyNone. BadRequest
// naming the file when it cannot be read or holds no PEM certificate.
api::Result<QSslConfiguration> sslConfiguration(const TlsSettings& settings);

// "TLS handshake with HOST:PORT failed: <the errors> (<what to do>)", words a
// person can act on for the SSL errors Qt reported (an unknown issuer,
// another host's name); empty when `errors` is.
QString handshakeFailure(const QString& hostPort, const QList<QSslError>& errors);

}  // namespace tessera::console
