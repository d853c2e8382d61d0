// Real S3 clients against a real cluster (tests/e2e/s3_clients.py): awscli
// (mb/cp/sync/ls/rm, a 100 MiB multipart upload, list-objects-v2 with a
// delimiter and paging), s3cmd (put/get/ls/del, on the S3 port of its own:
// it cannot take a path prefix), boto3 (every supported operation,
// presigned GET, error codes, an aborted multipart upload that leaves
// nothing), a WebDataset-style reader over `pipe:aws s3 cp ... -`, signatures
// verified with a keys file, and keys acting as users with auth on (from a
// keys file, and made with `tessera s3-key` and kept in users.db). The
// clients are Debian's (awscli, s3cmd, python3-boto3), run with Debian's
// python3, never a virtualenv's.
#include "../integration/local_cluster.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
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
    void runOn(tests::LocalCluster& cluster, const QString& name, const QStringList& extra = {})
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
        args << extra;
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
        o.extraProxyArgs = {"--s3-port", QString::number(m_s3Port), "--s3-virtual-host", "s3.test"};
        m_cluster = std::make_unique<tests::LocalCluster>(o);
        QVERIFY2(m_cluster->start(), m_cluster->error().c_str());
    }

    void awscli() { section("awscli"); }
    void boto3() { section("boto3"); }
    void s3cmd() { section("s3cmd"); }
    void webdatasetPipe() { section("webdataset"); }
    void multipartPaging() { section("paging"); }
    // boto3's virtual addressing on both ports (names under s3.test resolve
    // through a hook in the script's process).
    void virtualHostBoto3()
    {
        // The test certificate names 127.0.0.1, not *.s3.test.
        if (m_cluster->tls()) QSKIP("virtual-host names need a wildcard certificate; the test CA issues none");
        runOn(*m_cluster, "virtualhost", {"--vhost", "s3.test"});
    }

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

    // Auth on, no keys file: keys made through the REST API (the CLI) and
    // kept in users.db act as their users; a deleted key is refused at once;
    // the keys outlive a proxy restart.
    void storedKeysActAsUsers()
    {
        tests::LocalCluster::Options o;
        o.targets = 1;
        o.extraProxyArgs = {"--auth-enabled", "true"};
        o.extraTargetArgs = {"--auth-enabled", "true"};
        tests::LocalCluster c(o);
        const auto user = [&](const QStringList& args, const QByteArray& in) {
            QProcess p;
            p.start(tests::nodeBinary(),
                    QStringList{"--role", "proxy", "--data-dir", c.dataDir() + "/proxy", "user"} + args);
            p.write(in);
            p.closeWriteChannel();
            return p.waitForFinished(30000) ? p.exitCode() : -1;
        };
        QCOMPARE(user({"add", "admin", "--admin"}, "admin-password-1\n"), 0);
        QCOMPARE(user({"add", "alice"}, "alice-password-1\n"), 0);
        QCOMPARE(user({"grant", "alice", "bucka", "read"}, {}), 0);
        QVERIFY2(c.start(), c.error().c_str());

        struct Run {
            int code = -1;
            QByteArray out;
        };
        const auto cli = [&](const QString& who, const QStringList& args, const QByteArray& in = {}) {
            QProcess p;
            auto env = QProcessEnvironment::systemEnvironment();
            env.insert("XDG_CONFIG_HOME", m_dir.path() + "/cli-" + who);
            env.remove("TESSERA_TOKEN");
            env.remove("TESSERA_TOKEN_FILE");
            p.setProcessEnvironment(env);
            QStringList all{"--endpoint", QString::fromStdString(c.proxyUrl())};
            if (c.tls()) all << "--ca-file" << c.caFile();
            p.setProcessChannelMode(QProcess::MergedChannels);
            p.start(QStringLiteral(TESSERA_CLI_BINARY), all + args);
            p.write(in);
            p.closeWriteChannel();
            Run r;
            if (p.waitForFinished(60000)) r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
            r.out = p.readAll();
            return r;
        };
        auto in = cli("admin", {"login", "--user", "admin"}, "admin-password-1\n");
        QVERIFY2(in.code == 0, in.out.constData());
        in = cli("alice", {"login", "--user", "alice"}, "alice-password-1\n");
        QVERIFY2(in.code == 0, in.out.constData());

        const auto created = [&](const Run& r) {
            const auto j = QJsonDocument::fromJson(r.out).object();
            return j["access_key"].toString() + ":" + j["secret_key"].toString();
        };
        auto adminKey = cli("admin", {"--json", "s3-key", "create", "--user", "admin"});
        QVERIFY2(adminKey.code == 0, adminKey.out.constData());
        // alice makes her own key; she may not make one for the admin.
        auto aliceKey = cli("alice", {"--json", "s3-key", "create", "--description", "alice's laptop"});
        QVERIFY2(aliceKey.code == 0, aliceKey.out.constData());
        auto forAdmin = cli("alice", {"s3-key", "create", "--user", "admin"});
        QVERIFY2(forAdmin.code == 1, forAdmin.out.constData());
        QVERIFY2(forAdmin.out.contains("only an admin or"), forAdmin.out.constData());
        const QString keys = created(adminKey) + "," + created(aliceKey);
        const QString aliceId = created(aliceKey).section(':', 0, 0);
        QCOMPARE(aliceId.size(), 20);

        // Listed without the secret.
        auto listed = cli("alice", {"--json", "s3-key", "ls"});
        QVERIFY2(listed.code == 0, listed.out.constData());
        const auto arr = QJsonDocument::fromJson(listed.out).array();
        QCOMPARE(arr.size(), 1);
        QCOMPARE(arr[0].toObject()["access_key"].toString(), aliceId);
        QCOMPARE(arr[0].toObject()["description"].toString(), QString("alice's laptop"));
        QVERIFY(!listed.out.contains("secret"));
        QVERIFY(!listed.out.contains(created(aliceKey).section(':', 1).toUtf8()));

        runOn(c, "storedkeys", {"--keys", keys});
        auto rm = cli("alice", {"s3-key", "rm", aliceId});
        QVERIFY2(rm.code == 0, rm.out.constData());
        runOn(c, "storedkeys-deleted", {"--keys", keys});
        // The admin's key is still there after a restart; alice's is still gone.
        c.killProxy();
        QVERIFY2(c.restartProxy(), c.error().c_str());
        QVERIFY(c.waitForTargets(1, std::chrono::seconds(30)));
        runOn(c, "storedkeys-deleted", {"--keys", keys});
        auto all = cli("admin", {"--json", "s3-key", "ls", "--all"});
        QVERIFY2(all.code == 0, all.out.constData());
        QVERIFY2(QJsonDocument::fromJson(all.out).array().size() == 1, all.out.constData());
        // Another sealing key (the file lost; a new one is made at start):
        // the stored secret does not open and is never guessed.
        c.killProxy();
        QVERIFY(QFile::remove(c.dataDir() + "/proxy/s3-secrets.key"));
        QVERIFY2(c.restartProxy(), c.error().c_str());
        QVERIFY(c.waitForTargets(1, std::chrono::seconds(30)));
        QVERIFY(QFile::exists(c.dataDir() + "/proxy/s3-secrets.key"));
        QVERIFY2(c.proxyLog().find("S3 keys in users.db were sealed under the old one") != std::string::npos,
                 c.proxyLogTail().c_str());
        runOn(c, "storedkeys-unsealable", {"--keys", keys});
    }
};

QTEST_GUILESS_MAIN(TestS3Clients)
#include "test_s3_clients.moc"
