// The console against an https:// endpoint without a cluster: Qt's TLS
// backend loads, a profile's CA file is trusted (and a bad one named), a
// refused certificate reaches the REST caller and the connection's status as
// words a person can act on, and "don't check" connects to anything.
// `openssl s_server -HTTP` stands in for the proxy, serving /v1/health
// (with a Content-Length: Qt does not take the end of a TLS connection for
// the end of a body).
#include "core/cluster_connection.h"
#include "core/rest_client.h"
#include "core/tls_settings.h"
#include "throwaway_ca.h"

#include <QNetworkAccessManager>
#include <QSslSocket>
#include <QTest>

#include <optional>

using namespace tessera;
using namespace tessera::console;

class TestConsoleTls : public QObject {
    Q_OBJECT

    ThrowawayCa m_ca;
    quint16 m_port = 0;

    QUrl endpoint(const char* host = "127.0.0.1") const
    {
        return QUrl(QStringLiteral("https://%1:%2").arg(QLatin1String(host)).arg(m_port));
    }

    // GET /v1/health through a RestClient configured with `tls`.
    api::Result<api::Health> health(const TlsSettings& tls, const QUrl& url)
    {
        QNetworkAccessManager network;
        RestClient rest(&network);
        rest.setEndpoint(url);
        auto config = sslConfiguration(tls);
        if (!config) return config.error();
        rest.setSslConfiguration(*config);
        std::optional<api::Result<api::Health>> out;
        rest.health(this, [&](api::Result<api::Health> h) { out = std::move(h); });
        if (!QTest::qWaitFor([&] { return out.has_value(); }, 10000)) return api::Error::timeout("no answer");
        return *out;
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(QSslSocket::supportsSsl(), "no TLS backend: Qt's openssl plugin did not load");
        qInfo("TLS backend: %s, %s", qPrintable(QSslSocket::activeBackend()),
              qPrintable(QSslSocket::sslLibraryVersionString()));
        QVERIFY(m_ca.create());
        QVERIFY(m_ca.issue(QStringLiteral("proxy"), "IP:127.0.0.1,DNS:localhost"));
        QVERIFY(QDir().mkpath(m_ca.path(QStringLiteral("www/v1"))));
        const QByteArray health = R"({"status":"ok","role":"proxy","daemon_id":"p1","smap_version":3})";
        // s_server -HTTP serves the file named by the whole path, query included.
        QVERIFY(m_ca.write(QStringLiteral("www/v1/health?detail=true"),
                           "HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                               QByteArray::number(health.size()) + "\r\n\r\n" + health));
        QVERIFY(m_ca.write(QStringLiteral("not-a-ca.pem"), "no certificate here\n"));
        m_port = m_ca.serve(QStringLiteral("proxy"), ThrowawayCa::Mode::Http);
        QVERIFY2(m_port != 0, "openssl s_server did not start");
    }

    void caFileIsAddedToTheDefaultCas()
    {
        auto config = sslConfiguration({m_ca.caFile(), false});
        QVERIFY2(config, config ? "" : config.error().message.c_str());
        QCOMPARE(config->peerVerifyMode(), QSslConfiguration::defaultConfiguration().peerVerifyMode());
        const auto ca = QSslCertificate::fromPath(m_ca.caFile());
        QCOMPARE(ca.size(), 1);
        QVERIFY(config->caCertificates().contains(ca.front()));

        auto insecure = sslConfiguration({QString(), true});
        QVERIFY(insecure);
        QCOMPARE(insecure->peerVerifyMode(), QSslSocket::VerifyNone);
    }

    void badCaFileIsNamed()
    {
        for (const QString& name : {QStringLiteral("missing.pem"), QStringLiteral("not-a-ca.pem")}) {
            auto config = sslConfiguration({m_ca.path(name), false});
            QVERIFY(!config);
            QCOMPARE(config.kind(), api::ErrorKind::BadRequest);
            const std::string prefix = "cannot load the CA file \"" + m_ca.path(name).toStdString() + "\": ";
            QVERIFY2(config.error().message.rfind(prefix, 0) == 0, config.error().message.c_str());
        }
    }

    void restTrustsTheProfilesCa()
    {
        for (const char* host : {"127.0.0.1", "localhost"}) {
            auto h = health({m_ca.caFile(), false}, endpoint(host));
            QVERIFY2(h, h ? "" : h.error().message.c_str());
            QCOMPARE(h->daemonId, std::string("p1"));
            QCOMPARE(h->smapVersion, 3);
        }
    }

    void restSaysWhyACertificateIsRefused()
    {
        auto h = health({}, endpoint());
        QVERIFY(!h);
        QCOMPARE(h.kind(), api::ErrorKind::Unavailable);
        const auto& m = h.error().message;
        QVERIFY2(m.rfind("TLS handshake with 127.0.0.1:" + std::to_string(m_port) + " failed: ", 0) == 0, m.c_str());
        QVERIFY2(QString::fromStdString(m).contains(QLatin1String("issuer"), Qt::CaseInsensitive), m.c_str());
    }

    void restWithoutACheckAcceptsAnyCertificate()
    {
        auto h = health({QString(), true}, endpoint());
        QVERIFY2(h, h ? "" : h.error().message.c_str());
        QCOMPARE(h->daemonId, std::string("p1"));
    }

    void connectionShowsTheRefusal()
    {
        ClusterConnection::Options o;
        o.backoffInitial = std::chrono::milliseconds(5000);  // one attempt within the test
        ClusterConnection connection(o, nullptr);
        connection.setTls({});
        connection.setEndpoint(endpoint());
        QVERIFY(QTest::qWaitFor([&] { return connection.lastError().startsWith(QLatin1String("TLS handshake with")); },
                                10000));
        QVERIFY2(connection.lastError().contains(QLatin1String("issuer"), Qt::CaseInsensitive),
                 qPrintable(connection.lastError()));
        QVERIFY(connection.state() != ClusterConnection::State::Connected);
        connection.close();
    }

    void connectionWithABadCaFileStaysOffline()
    {
        ClusterConnection connection;
        connection.setTls({m_ca.path(QStringLiteral("missing.pem")), false});
        connection.setEndpoint(endpoint());
        QCOMPARE(connection.state(), ClusterConnection::State::Offline);
        QVERIFY2(connection.lastError().startsWith(QLatin1String("cannot load the CA file \"")),
                 qPrintable(connection.lastError()));
        // http:// needs no CA file: the same settings do not stop it.
        connection.setEndpoint(QUrl(QStringLiteral("http://127.0.0.1:1")));
        QVERIFY(connection.state() != ClusterConnection::State::Offline);
        connection.close();
    }
};

QTEST_GUILESS_MAIN(TestConsoleTls)
#include "test_console_tls.moc"
