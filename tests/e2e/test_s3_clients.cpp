// Real S3 clients against a real cluster (tests/e2e/s3_clients.py): awscli
// (mb/cp/sync/ls/rm, a 100 MiB multipart upload, list-objects-v2 with a
// delimiter and paging), s3cmd (put/get/ls/del, on the S3 port of its own:
// it cannot take a path prefix), boto3 (every supported operation,
// presigned GET, error codes, an aborted multipart upload that leaves
// nothing), a WebDataset-style reader over `pipe:aws s3 cp ... -`, signatures
// verified with a keys file, and keys acting as users with auth on. The
// clients are Debian's (awscli, s3cmd, python3-boto3), run with Debian's
// python3, never a virtualenv's.
#include "../integration/local_cluster.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

using namespace tessera;

namespace {
// A port free now (the proxy binds it right after).
int freePort()
{
    QTcpServer s;
    if (!s.listen(QHostAddress::LocalHost, 0)) return 0;
    return s.serverPort();
}

constexpr const char* kPython = "/usr/bin/python3";
}  // namespace

class TestS3Clients : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<tests::LocalCluster> m_cluster;
    QTemporaryDir m_dir;
    int m_s3Port = 0;

    void section(const QString& name) { runOn(*m_cluster, name); }
    // Runs one section of the client script; its stderr says what differed.
    void runOn(tests::LocalCluster& cluster, const QString& name)
    {
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        const QString work = m_dir.path() + "/" + name;
        QVERIFY(QDir().mkpath(work));
        QStringList args{QStringLiteral(TESSERA_SOURCE_DIR "/tests/e2e/s3_clients.py"),
                         name,
                         "--endpoint",
                         QString::fromStdString(cluster.proxyUrl()) + "/s3",
                         "--root-endpoint",
                         QString(cluster.tls() ? "https" : "http") + "://127.0.0.1:" + QString::number(m_s3Port),
                         "--workdir",
                         work};
        if (cluster.tls()) args << "--ca" << cluster.caFile();
        p.start(kPython, args);
        QVERIFY(p.waitForStarted());
        QVERIFY2(p.waitForFinished(600000), "the client script did not end in 10 minutes");
        const auto out = p.readAll();
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, out.constData());
        QVERIFY2(out.contains("ok " + name.toUtf8()), out.constData());
    }

private slots:
    void initTestCase()
    {
        if (!QFile::exists(kPython)) QSKIP("Debian's python3 is not installed");
        for (const char* tool : {"aws", "s3cmd"}) {
            if (QStandardPaths::findExecutable(tool).isEmpty()) {
                QSKIP(qPrintable(QString(tool) + " is not installed (installers/deps.sh)"));
            }
        }
        QProcess probe;
        probe.start(kPython, {"-c", "import boto3"});
        probe.waitForFinished();
        if (probe.exitCode() != 0) QSKIP("python3-boto3 is not installed (installers/deps.sh)");
        QVERIFY(m_dir.isValid());
        m_s3Port = freePort();
        QVERIFY(m_s3Port > 0);
        tests::LocalCluster::Options o;
        o.extraProxyArgs = {"--s3-port", QString::number(m_s3Port)};
        m_cluster = std::make_unique<tests::LocalCluster>(o);
        QVERIFY2(m_cluster->start(), m_cluster->error().c_str());
    }

    void awscli() { section("awscli"); }
    void boto3() { section("boto3"); }
    void s3cmd() { section("s3cmd"); }
    void webdatasetPipe() { section("webdataset"); }

    // A second cluster whose proxy verifies signatures with a keys file.
    void verifiedSignatures()
    {
        const QString keys = m_dir.path() + "/s3-keys.json";
        QFile f(keys);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"keys":[{"access_key":"AKIDTESSERATEST","secret_key":"tessera-test-secret","user":"tester"}]})");
        f.close();
        tests::LocalCluster::Options o;
        o.targets = 1;
        o.extraProxyArgs = {"--s3-keys-file", keys};
        tests::LocalCluster signedCluster(o);
        QVERIFY2(signedCluster.start(), signedCluster.error().c_str());
        runOn(signedCluster, "signed");
    }

    // Auth on: keys act as their users, with the native permissions.
    void keysActAsUsersWithAuthOn()
    {
        const QString keys = m_dir.path() + "/s3-user-keys.json";
        QFile f(keys);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"keys":[{"access_key":"AKIDADMIN","secret_key":"admin-s3-secret","user":"admin"},
                            {"access_key":"AKIDALICE","secret_key":"alice-s3-secret","user":"alice"}]})");
        f.close();
        tests::LocalCluster::Options o;
        o.targets = 1;
        o.extraProxyArgs = {"--auth-enabled", "true", "--s3-keys-file", keys};
        o.extraTargetArgs = {"--auth-enabled", "true"};
        tests::LocalCluster authCluster(o);
        QVERIFY2(authCluster.start(), authCluster.error().c_str());
        const auto user = [&](const QStringList& args, const QByteArray& in) {
            QProcess p;
            p.start(tests::nodeBinary(),
                    QStringList{"--role", "proxy", "--data-dir", authCluster.dataDir() + "/proxy", "user"} + args);
            p.write(in);
            p.closeWriteChannel();
            return p.waitForFinished(30000) ? p.exitCode() : -1;
        };
        QCOMPARE(user({"add", "admin", "--admin"}, "admin-password-1\n"), 0);
        QCOMPARE(user({"add", "alice"}, "alice-password-1\n"), 0);
        QCOMPARE(user({"grant", "alice", "perm", "read,list"}, {}), 0);
        runOn(authCluster, "authorized");
    }
};

QTEST_GUILESS_MAIN(TestS3Clients)
#include "test_s3_clients.moc"
