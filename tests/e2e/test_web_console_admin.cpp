// The web console's ETL and Access pages (console/web/src/pages/etl*.tsx,
// access*.tsx) in headless Debian Chromium against real local clusters:
// tests/e2e/web_console_admin.mjs drives the browser with playwright-core as
// a user would. Auth off: an ETL composed and started on the page (a bad
// name refused on its field first), a bucket transformed into another and
// every output object read back and checked, the ETL removed after a
// confirmation. Auth on: an admin adds a user with a grant, the user signs
// in in a second browser context and may do exactly what the grant allows,
// an S3 key made on the page works with boto3 until it is deleted there, and
// the user's session stops working once the admin deletes them. Writes
// docs/images/web-etl*.png and web-access*.png (light and dark, 1280 and
// 768 px). Skipped, saying why, when chromium, node, the built console or
// boto3 is absent.
#include "../integration/local_cluster.h"

#include <QFile>
#include <QProcess>
#include <QTest>

using namespace tessera;

namespace {
constexpr const char* kChromium = "/usr/bin/chromium";
const QString kEtlBin = QStringLiteral(TESSERA_SOURCE_DIR "/resources/etl");
}  // namespace

class TestWebConsoleAdmin : public QObject {
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
        else if (!QFile::exists(QStringLiteral(TESSERA_WEB_NODE_MODULES "/playwright-core/package.json")))
            why = "playwright-core is not installed (npm ci of console/web)";
        return why.isEmpty();
    }

    static void runScript(tests::LocalCluster& cluster, const QStringList& extra, const QByteArray& okLine)
    {
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        if (cluster.tls()) {
            // node's fetch and boto3 trust the cluster's test CA; the browser takes its certificate.
            auto env = QProcessEnvironment::systemEnvironment();
            env.insert("NODE_EXTRA_CA_CERTS", cluster.caFile());
            env.insert("AWS_CA_BUNDLE", cluster.caFile());
            p.setProcessEnvironment(env);
        }
        p.start(QStringLiteral(TESSERA_NODE_JS),
                QStringList{QStringLiteral(TESSERA_SOURCE_DIR "/tests/e2e/web_console_admin.mjs"), "--url",
                            QString::fromStdString(cluster.proxyUrl()), "--modules",
                            QStringLiteral(TESSERA_WEB_NODE_MODULES), "--chromium", kChromium, "--shots",
                            QStringLiteral(TESSERA_SOURCE_DIR "/docs/images")} +
                    extra);
        QVERIFY(p.waitForStarted());
        QVERIFY2(p.waitForFinished(240000), "the browser script did not end in 4 minutes");
        const auto out = p.readAll();
        qInfo().noquote() << out;
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
                 (out + "\nproxy log:\n" + QByteArray::fromStdString(cluster.proxyLogTail())).constData());
        QVERIFY2(out.contains(okLine), out.constData());
    }

private slots:
    // Auth off (2 targets): the ETL page end to end, and the Access page
    // explaining that there is nothing to manage.
    void etlPage()
    {
        QString why;
        if (!ready(why)) QSKIP(qPrintable(why));
        tests::LocalCluster::Options o;
        o.targets = 2;
        o.extraProxyArgs = {"--console-dir", QStringLiteral(TESSERA_WEB_DIST)};
        o.extraTargetArgs = {"--etl-bin-dir", kEtlBin};
        tests::LocalCluster cluster(o);
        QVERIFY2(cluster.start(), cluster.error().c_str());
        runScript(cluster, {"--part", "etl"}, "ok web console etl (");
    }

    // Auth on (1 target): the Access page as an admin and as a user.
    void accessPage()
    {
        QString why;
        if (!ready(why)) QSKIP(qPrintable(why));
        QProcess boto;
        boto.start("python3", {"-c", "import boto3"});
        if (!boto.waitForFinished(30000) || boto.exitCode() != 0)
            QSKIP("python3's boto3 is not installed (installers/deps.sh)");
        tests::LocalCluster::Options o;
        o.targets = 1;
        o.extraProxyArgs = {"--console-dir", QStringLiteral(TESSERA_WEB_DIST), "--auth-enabled", "true"};
        o.extraTargetArgs = {"--auth-enabled", "true"};
        tests::LocalCluster cluster(o);
        QVERIFY2(cluster.start(), cluster.error().c_str());
        QProcess add;
        add.start(tests::nodeBinary(),
                  {"--role", "proxy", "--data-dir", cluster.dataDir() + "/proxy", "user", "add", "admin", "--admin"});
        add.write("admin-password-1\n");
        add.closeWriteChannel();
        QVERIFY(add.waitForFinished(30000));
        QCOMPARE(add.exitCode(), 0);
        runScript(cluster, {"--part", "access"}, "ok web console access (");
    }
};

QTEST_GUILESS_MAIN(TestWebConsoleAdmin)
#include "test_web_console_admin.moc"
