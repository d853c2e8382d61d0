// The web console (console/web) in headless Debian Chromium against a real
// local cluster: tests/e2e/web_console.mjs drives the browser with
// playwright-core as a user would (live dashboard under load, nodes, a
// bucket created, files and a nested folder uploaded and read back equal,
// 2,105 objects paged to "listing complete", a prefix search, JSON, text,
// hex, image and shard previews, a bucket destroyed after typing its name,
// a job, a killed target turning away) and writes docs/images/web-*.png.
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

private slots:
    void userJourney()
    {
        const QString node = QStringLiteral(TESSERA_NODE_JS);
        const QString modules = QStringLiteral(TESSERA_WEB_NODE_MODULES);
        const QString dist = QStringLiteral(TESSERA_WEB_DIST);
        if (node.isEmpty() || dist.isEmpty()) QSKIP("node/npm were not found at configure time: no web console built");
        if (!QFile::exists(kChromium)) QSKIP("Debian's chromium is not installed (installers/deps.sh)");
        if (!QFile::exists(dist + "/index.html"))
            QSKIP("the web console bundle is not built (target tessera_web_console)");
        if (!QFile::exists(modules + "/playwright-core/package.json"))
            QSKIP("playwright-core is not installed (npm ci)");

        tests::LocalCluster::Options o;
        o.extraProxyArgs = {"--console-dir", dist, "--stats-interval-ms", "250"};
        tests::LocalCluster cluster(o);
        if (cluster.tls()) QSKIP("the console reads objects through the S3 path, which does not relay over TLS yet");
        QVERIFY2(cluster.start(), cluster.error().c_str());

        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(node, {QStringLiteral(TESSERA_SOURCE_DIR "/tests/e2e/web_console.mjs"), "--url",
                       QString::fromStdString(cluster.proxyUrl()), "--modules", modules, "--chromium", kChromium,
                       "--shots", QStringLiteral(TESSERA_SOURCE_DIR "/docs/images"), "--kill-pid",
                       QString::number(cluster.targetPid(cluster.targetCount() - 1))});
        QVERIFY(p.waitForStarted());
        QVERIFY2(p.waitForFinished(300000), "the browser script did not end in 5 minutes");
        const auto out = p.readAll();
        qInfo().noquote() << out;
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
                 (out + "\nproxy log:\n" + QByteArray::fromStdString(cluster.proxyLogTail())).constData());
        QVERIFY2(out.contains("ok web console"), out.constData());
    }
};

QTEST_GUILESS_MAIN(TestWebConsole)
#include "test_web_console.moc"
