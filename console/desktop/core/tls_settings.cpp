#include "core/tls_settings.h"

#include <QFile>
#include <QSslCertificate>
#include <QSslSocket>
#include <QStringList>

namespace tessera::console {

api::Result<QSslConfiguration> sslConfiguration(const TlsSettings& settings)
{
    QSslConfiguration config = QSslConfiguration::defaultConfiguration();
    if (settings.insecure) {
        config.setPeerVerifyMode(QSslSocket::VerifyNone);
        return config;
    }
    if (settings.caFile.isEmpty()) return config;
    const std::string named = "cannot load the CA file \"" + settings.caFile.toStdString() + "\": ";
    QFile file(settings.caFile);
    if (!file.open(QIODevice::ReadOnly)) return api::Error::badRequest(named + file.errorString().toStdString());
    // A CA file is small; a large one is not a CA file.
    constexpr qint64 kMaxCaFile = 4 * 1024 * 1024;
    if (file.size() > kMaxCaFile) return api::Error::badRequest(named + "larger than 4 MiB");
    const auto certificates = QSslCertificate::fromData(file.readAll(), QSsl::Pem);
    if (certificates.isEmpty()) return api::Error::badRequest(named + "no PEM certificate in it");
    config.addCaCertificates(certificates);
    return config;
}

QString handshakeFailure(const QString& hostPort, const QList<QSslError>& errors)
{
    if (errors.isEmpty()) return {};
    QStringList words;
    for (const auto& e : errors) {
        if (!words.contains(e.errorString())) words << e.errorString();
    }
    return QStringLiteral("TLS handshake with %1 failed: %2 (give the profile the cluster's CA file)")
        .arg(hostPort, words.join(QStringLiteral("; ")));
}

}  // namespace tessera::console
