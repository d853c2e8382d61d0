// The `tessera` CLI as a user runs it, against a real cluster.
#include "local_cluster.h"

#include "api/checksum.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

using namespace tessera;

namespace {
struct Run {
    int code = -1;
    QByteArray out;
    QByteArray err;
};
}  // namespace

class TestCli : public QObject {
    Q_OBJECT

private:
    // No automatic rebalance: the one it starts after the targets join could
    // still be running when jobs() starts its own (409 on a loaded machine).
    tests::LocalCluster m_cluster{[] {
        tests::LocalCluster::Options o;
        o.extraProxyArgs = {"--rebalance-auto", "false"};
        return o;
    }()};
    QTemporaryDir m_work;

    Run cli(const QStringList& args)
    {
        QProcess p;
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("TESSERA_ENDPOINT", QString::fromStdString(m_cluster.proxyUrl()));
        p.setProcessEnvironment(env);
        p.setWorkingDirectory(m_work.path());
        p.start(QStringLiteral(TESSERA_CLI_BINARY), args);
        p.closeWriteChannel();
        Run r;
        if (!p.waitForFinished(60000)) return r;
        r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        r.out = p.readAllStandardOutput();
        r.err = p.readAllStandardError();
        return r;
    }

    void writeFile(const QString& rel, const QByteArray& data)
    {
        const auto path = m_work.path() + "/" + rel;
        QDir().mkpath(QFileInfo(path).path());
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(data);
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        QVERIFY(m_work.isValid());
    }

    void bucketCommands()
    {
        auto r = cli({"bucket", "create", "cli-data"});
        QCOMPARE(r.code, 0);
        r = cli({"bucket", "create", "cli-data"});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("already exists"));
        r = cli({"bucket", "create", "Bad_Name"});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("invalid bucket name"));
        r = cli({"--json", "bucket", "ls"});
        QCOMPARE(r.code, 0);
        auto j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j.size(), std::size_t{1});
        QCOMPARE(j[0]["name"].get<std::string>(), std::string("cli-data"));
        r = cli({"bucket", "props", "cli-data", "--set", "checksum.validate_warm_get=true"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("\"validate_warm_get\": true"));
    }

    void putDirectoryListGet()
    {
        for (int i = 0; i < 60; ++i) {
            writeFile(QStringLiteral("dataset/class-%1/sample-%2.bin").arg(i % 3).arg(i, 3, 10, QChar('0')),
                      QByteArray(100 + i * 37, static_cast<char>('a' + i % 26)));
        }
        auto r = cli({"put", "dataset", "cli-data/train", "--workers", "4", "--verify"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("uploaded 60 object(s)"), r.out.constData());
        QVERIFY(r.out.contains("0 failed"));

        r = cli({"--json", "ls", "cli-data/train/", "--props", "name,size,checksum"});
        QCOMPARE(r.code, 0);
        auto j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j["entries"].size(), std::size_t{60});
        QCOMPARE(j["complete"].get<bool>(), true);
        QCOMPARE(j["entries"][0]["name"].get<std::string>(), std::string("train/class-0/sample-000.bin"));

        r = cli({"ls", "cli-data", "--limit", "10"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("10 objects shown, listing incomplete"));
        r = cli({"ls", "cli-data", "--pagesize", "7", "--paged"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("-- page 9"));
        QVERIFY(r.out.contains("60 objects"));
        QVERIFY(r.out.contains("listing complete"));

        r = cli({"get", "cli-data/train/class-1/sample-004.bin", "got.bin"});
        QCOMPARE(r.code, 0);
        QFile got(m_work.path() + "/got.bin");
        QVERIFY(got.open(QIODevice::ReadOnly));
        QCOMPARE(got.readAll(), QByteArray(100 + 4 * 37, 'e'));
        r = cli({"cat", "cli-data/train/class-2/sample-005.bin"});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out, QByteArray(100 + 5 * 37, 'f'));

        r = cli({"--json", "head", "cli-data/train/class-2/sample-005.bin"});
        QCOMPARE(r.code, 0);
        j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j["size"].get<int>(), 100 + 5 * 37);
        QCOMPARE(j["checksum"].get<std::string>(), api::xxhash64Hex(std::string(100 + 5 * 37, 'f')));
    }

    void putSingleFileAndRemove()
    {
        writeFile("one.txt", "single file\n");
        auto r = cli({"put", "one.txt", "cli-data"});
        QCOMPARE(r.code, 0);
        r = cli({"cat", "cli-data/one.txt"});
        QCOMPARE(r.out, QByteArray("single file\n"));
        r = cli({"put", "one.txt", "cli-data/docs/renamed.txt"});
        QCOMPARE(r.code, 0);
        r = cli({"rm", "cli-data/one.txt", "cli-data/docs/renamed.txt"});
        QCOMPARE(r.code, 0);
        r = cli({"head", "cli-data/one.txt"});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("does not exist"));
        r = cli({"rm", "cli-data/one.txt"});
        QCOMPARE(r.code, 1);
    }

    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("nothing") << QStringList{};
        QTest::newRow("unknown") << QStringList{"frobnicate"};
        QTest::newRow("ls-missing") << QStringList{"ls"};
        QTest::newRow("get-no-name") << QStringList{"get", "cli-data"};
        QTest::newRow("bad-option") << QStringList{"ls", "cli-data", "--bogus"};
        QTest::newRow("bad-limit") << QStringList{"ls", "cli-data", "--limit", "ten"};
        QTest::newRow("rm-bucket-unconfirmed") << QStringList{"bucket", "rm", "cli-data"};
    }
    void usageErrors()
    {
        QFETCH(QStringList, args);
        auto r = cli(args);
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("usage"));
    }

    void unreachableEndpoint()
    {
        auto r = cli({"--endpoint", "http://127.0.0.1:1", "bucket", "ls"});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("error:"));
    }

    void clusterShowCountsADiskOnce()
    {
        // Every mountpath of the test cluster is on one filesystem.
        auto r = cli({"cluster", "show"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("2 on 1 fs"), r.out.constData());
        QVERIFY2(r.out.contains("on 1 filesystem(s)"), r.out.constData());
        r = cli({"--json", "cluster", "show"});
        QCOMPARE(r.code, 0);
        const auto doc = nlohmann::json::parse(r.out.toStdString());
        for (const auto& [id, t] : doc["node_stats"]["target"].items()) {
            QVERIFY(!t["mountpaths"][0]["fs"].get<std::string>().empty());
        }
    }

    void endpointForms()
    {
        // host:port as the console takes it (meaning http://, so not for a
        // cluster run over TLS); a trailing slash is fine.
        const auto url = QString::fromStdString(m_cluster.proxyUrl());
        if (!m_cluster.tls()) QCOMPARE(cli({"--endpoint", url.mid(url.indexOf("://") + 3), "bucket", "ls"}).code, 0);
        auto r = cli({"--endpoint", url + "/", "bucket", "ls"});
        QCOMPARE(r.code, 0);
        r = cli({"--endpoint", "ftp://127.0.0.1:21", "bucket", "ls"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("http or https"));
        // A target: the CLI says so and goes to its proxy, so a listing is whole.
        QCOMPARE(cli({"bucket", "create", "cli-ep"}).code, 0);
        writeFile("ep/one.txt", "1");
        writeFile("ep/two.txt", "2");
        writeFile("ep/three.txt", "3");
        QCOMPARE(cli({"put", "ep", "cli-ep/"}).code, 0);
        r = cli({"--endpoint", QString::fromStdString(m_cluster.targetUrl(0)), "--json", "ls", "cli-ep"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.err.contains("is target") && r.err.contains("using its proxy"), r.err.constData());
        QCOMPARE(nlohmann::json::parse(r.out.toStdString())["entries"].size(), std::size_t{3});
    }

    void foreignServer()
    {
        // A plain web server: named for what it is, never quoted page by page.
        QTemporaryDir root;
        QProcess web;
        web.setWorkingDirectory(root.path());
        int port = 0;
        {
            QTcpServer probe;  // a port nobody listens on, for the web server
            QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
            port = probe.serverPort();
        }
        web.start("python3", {"-m", "http.server", QString::number(port), "--bind", "127.0.0.1"});
        QVERIFY(web.waitForStarted());
        Run r;
        for (int i = 0; i < 400 && web.state() == QProcess::Running; ++i) {
            QTcpSocket s;
            s.connectToHost(QHostAddress::LocalHost, static_cast<quint16>(port));
            if (s.waitForConnected(100)) break;
            QTest::qWait(25);
        }
        QVERIFY2(web.state() == QProcess::Running, web.readAllStandardError().constData());
        r = cli({"--endpoint", "127.0.0.1:" + QString::number(port), "bucket", "ls"});
        web.kill();
        web.waitForFinished();
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("does not look like a Tessera proxy") && r.err.contains("HTTP 404"), r.err.constData());
        QVERIFY2(r.err.count('\n') == 1 && r.err.size() < 400, r.err.constData());
    }

    void archiveListOfANonShard()
    {
        QCOMPARE(cli({"bucket", "create", "cli-ns"}).code, 0);
        writeFile("ns/readme.md", "not a shard");
        QCOMPARE(cli({"put", "ns/readme.md", "cli-ns/readme.md"}).code, 0);
        auto r = cli({"archive", "ls", "cli-ns/readme.md"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("is not a shard"), r.err.constData());
    }

    void showPerfAndWatch()
    {
        auto r = cli({"--json", "show", "perf", "--count", "1", "--refresh", "200ms"});
        QCOMPARE(r.code, 0);
        const auto doc = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(doc["nodes"].size(), std::size_t{4});                  // the proxy and three targets
        QVERIFY(doc["cluster"]["put"]["n"].get<std::uint64_t>() >= 1);  // earlier tests stored objects
        for (const auto& n : doc["nodes"]) QVERIFY(n["interval_s"].get<double>() > 0.1);

        r = cli({"show", "perf", "--count", "1", "--refresh", "200ms"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("GET/s"));
        QVERIFY(r.out.contains("TOTAL"));

        r = cli({"show", "cluster"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("STATE"));

        r = cli({"--json", "watch", "--topics", "event,smap", "--count", "2"});
        QCOMPARE(r.code, 0);
        const auto lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        QCOMPARE(nlohmann::json::parse(lines[0].toStdString())["type"].get<std::string>(), std::string("snapshot"));
        const auto ack = nlohmann::json::parse(lines[1].toStdString());
        QCOMPARE(ack["type"].get<std::string>(), std::string("subscribed"));
        QVERIFY(ack["data"]["topics"] == nlohmann::json({"smap", "event"}));

        r = cli({"watch", "--topics", "nonsense", "--count", "3"});
        QCOMPARE(r.code, 0);  // the proxy's error answer is printed, not fatal
        QVERIFY(r.out.contains("snapshot"));
        QVERIFY(r.out.contains("unknown topic"));

        QCOMPARE(cli({"show", "perf", "--refresh", "5x"}).code, 2);
        QCOMPARE(cli({"watch", "--count", "many"}).code, 2);
        QCOMPARE(cli({"--endpoint", "http://127.0.0.1:1", "watch", "--count", "1"}).code, 1);
    }

    void jobs()
    {
        auto r = cli({"job", "start", "rebalance"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        QVERIFY(r.out.startsWith("started rebalance-"));
        const auto id = r.out.split(' ')[1];
        r = cli({"job", "wait", QString::fromUtf8(id), "--timeout", "60"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        QVERIFY(r.out.contains("finished"));
        r = cli({"--json", "job", "show", QString::fromUtf8(id)});
        QCOMPARE(r.code, 0);
        const auto st = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(st["state"].get<std::string>(), std::string("finished"));
        QCOMPARE(st["targets"].size(), std::size_t{3});
        r = cli({"job", "ls"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains(id));
        r = cli({"job", "abort", QString::fromUtf8(id)});
        QCOMPARE(r.code, 0);
        r = cli({"job", "start", "teleport"});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("unknown job kind"));
        QCOMPARE(cli({"job", "show", "nope"}).code, 1);
        QCOMPARE(cli({"job", "wait"}).code, 2);
    }

    void destroyBucket()
    {
        auto r = cli({"bucket", "rm", "cli-data", "--yes"});
        QCOMPARE(r.code, 0);
        r = cli({"ls", "cli-data"});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("does not exist"));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
