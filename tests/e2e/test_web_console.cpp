// The web console (console/web) in headless Debian Chromium against a real
// local cluster: tests/e2e/web_console.mjs drives the browser with
// playwright-core as a user would (live dashboard under load, nodes, a
// bucket created, files and a nested folder uploaded and read back equal,
// 20,000 objects paged to "listing complete", a prefix search, JSON, text,
// hex, image and shard previews, a bucket destroyed after typing its name,
// a job, bucket properties, a killed target turning away; with auth on,
// object bytes read, downloaded and uploaded with the token) and writes
// docs/images/web-*.png: every page in light and dark, 1280 and 768 px.
// Skipped, saying why, when chromium, node or the built console is absent
// (installers/deps.sh installs chromium, nodejs and npm).
#include "../integration/local_cluster.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTest>

using namespace tessera;

namespace {
constexpr const char* kChromium = "/usr/bin/chromium";
}

class TestWebConsole : public QObject {
    Q_OBJECT

    // Whether everything the browser test needs is here; `why` says what is not.
    static bool ready(QString& why)
    {
        const QString node = QStringLiteral(TESSERA_NODE_JS);
        const QString dist = QStringLiteral(TESSERA_WEB_DIST);
        if (node.isEmpty() || dist.isEmpty()) why = "node/npm were not found at configure time: no web console built";
        else if (!QFile::exists(kChromium)) why = "Debian's chromium is not installed (installers/deps.sh)";
        else if (!QFile::exists(dist + "/index.html"))
            why = "the web console is not built (target tessera_web_console)";
        else if (!QFile::exists(QStringLiteral(TESSERA_WEB_NODE_MODULES "/playwright-core/package.json"))) {
            why = "playwright-core is not installed (npm ci of console/web)";
        }
        return why.isEmpty();
    }

    static void runScript(tests::LocalCluster& cluster, const QStringList& extra, const QByteArray& okLine)
    {
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        if (cluster.tls()) {
            // node's fetch trusts the cluster's test CA; the browser is told to take its certificate.
            auto env = QProcessEnvironment::systemEnvironment();
            env.insert("NODE_EXTRA_CA_CERTS", cluster.caFile());
            p.setProcessEnvironment(env);
        }
        p.start(QStringLiteral(TESSERA_NODE_JS),
                QStringList{QStringLiteral(TESSERA_SOURCE_DIR "/tests/e2e/web_console.mjs"), "--url",
                            QString::fromStdString(cluster.proxyUrl()), "--modules",
                            QStringLiteral(TESSERA_WEB_NODE_MODULES), "--chromium", kChromium, "--shots",
                            QStringLiteral(TESSERA_SOURCE_DIR "/docs/images")} +
                    extra);
        QVERIFY(p.waitForStarted());
        QVERIFY2(p.waitForFinished(300000), "the browser script did not end in 5 minutes");
        const auto out = p.readAll();
        qInfo().noquote() << out;
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
                 (out + "\nproxy log:\n" + QByteArray::fromStdString(cluster.proxyLogTail())).constData());
        QVERIFY2(out.contains(okLine), out.constData());
    }

private slots:
    void userJourney()
    {
        QString why;
        if (!ready(why)) QSKIP(qPrintable(why));
        tests::LocalCluster::Options o;
        o.extraProxyArgs = {"--console-dir", QStringLiteral(TESSERA_WEB_DIST), "--stats-interval-ms", "250"};
        // Bucket counts of the targets' usage scans current in the screenshots.
        o.extraTargetArgs = {"--usage-scan-interval-ms", "3000"};
        // Filling 20,000 objects (over TLS too, beside other builds) must not
        // starve a target's keepalives into "away": 2 s of silence, not 0.9 s.
        o.maxMissed = 7;
        tests::LocalCluster cluster(o);
        QVERIFY2(cluster.start(), cluster.error().c_str());
        runScript(cluster, {"--kill-pid", QString::number(cluster.targetPid(cluster.targetCount() - 1))},
                  "ok web console (");
    }

    // Auth on (1 proxy, 1 target): sign in, work, the live feed opened with
    // the token as a WebSocket subprotocol (live dashboard numbers), the feed
    // reconnecting with a refreshed token, a session revoked elsewhere shown
    // as expired, sign out.
    void signInWithAuthOn()
    {
        QString why;
        if (!ready(why)) QSKIP(qPrintable(why));
        tests::LocalCluster::Options o;
        o.targets = 1;
        o.extraProxyArgs = {
            "--console-dir", QStringLiteral(TESSERA_WEB_DIST), "--auth-enabled", "true", "--stats-interval-ms", "250"};
        o.extraTargetArgs = {"--auth-enabled", "true", "--usage-scan-interval-ms", "3000"};
        tests::LocalCluster cluster(o);
        QVERIFY2(cluster.start(), cluster.error().c_str());
        QProcess add;
        add.start(tests::nodeBinary(),
                  {"--role", "proxy", "--data-dir", cluster.dataDir() + "/proxy", "user", "add", "admin", "--admin"});
        add.write("admin-password-1\n");
        add.closeWriteChannel();
        QVERIFY(add.waitForFinished(30000));
        QCOMPARE(add.exitCode(), 0);
        runScript(cluster, {"--auth"}, "ok web console auth");
    }
};

QTEST_GUILESS_MAIN(TestWebConsole)
#include "test_web_console.moc"
