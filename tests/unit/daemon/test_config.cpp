// Node configuration: defaults, file, flags, validation.
#include "app/config.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace tessera;
using namespace tessera::daemon;

namespace {
api::Result<Config> parse(std::vector<std::string> args)
{
    args.insert(args.begin(), "tessera-node");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    std::string help;
    return parseConfig(static_cast<int>(argv.size()), argv.data(), help);
}
}  // namespace

class TestConfig : public QObject {
    Q_OBJECT

private slots:
    void defaults()
    {
        auto c = parse({"--role", "proxy", "--data-dir", "/tmp/x"});
        QVERIFY(c.ok());
        QCOMPARE(c->effectivePort(), 8080);
        QVERIFY(c->fsync);
        QCOMPARE(c->keepaliveIntervalMs, 2000);
        QCOMPARE(c->keepaliveMaxMissed, 3);
        QVERIFY(c->ioThreads >= 1);
        QVERIFY(c->workerThreads >= 4);
        auto t = parse({"--role", "target", "--data-dir", "/tmp/x", "--mountpath", "/a", "--proxy-url", "http://p:1"});
        QVERIFY(t.ok());
        QCOMPARE(t->effectivePort(), 8081);
        QCOMPARE(t->mountpaths.size(), std::size_t{1});
    }

    void fileThenFlags()
    {
        QTemporaryDir dir;
        const auto path = dir.path() + "/node.json";
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        // (no raw string literals in this file: moc 6.4 stops parsing at them)
        f.write("{\"role\":\"target\",\"port\":9000,\"data_dir\":\"/d\",\"mountpaths\":[\"/m1\",\"/m2\"],"
                "\"proxy_url\":\"http://127.0.0.1:8080\",\"fsync\":false,\"keepalive_interval_ms\":500}");
        f.close();
        auto c = parse({"--config", path.toStdString(), "--port", "0", "--fsync", "true"});
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
        QCOMPARE(c->port, 0);  // flag wins
        QVERIFY(c->fsync);     // flag wins
        QCOMPARE(c->keepaliveIntervalMs, 500);  // from the file
        QCOMPARE(c->mountpaths.size(), std::size_t{2});

        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write("{\"role\":\"proxy\",\"data_dir\":\"/d\",\"colour\":\"blue\"}");
        f.close();
        auto bad = parse({"--config", path.toStdString()});
        QVERIFY(!bad.ok());
        QVERIFY(bad.error().message.find("colour") != std::string::npos);
        QVERIFY(!parse({"--config", (dir.path() + "/missing.json").toStdString()}).ok());
    }

    void invalid_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("no role") << QStringList{"--data-dir", "/d"};
        QTest::newRow("bad role") << QStringList{"--role", "gateway", "--data-dir", "/d"};
        QTest::newRow("no data dir") << QStringList{"--role", "proxy"};
        QTest::newRow("target without mountpath") << QStringList{"--role", "target", "--data-dir", "/d", "--proxy-url", "http://p:1"};
        QTest::newRow("target without proxy") << QStringList{"--role", "target", "--data-dir", "/d", "--mountpath", "/m"};
        QTest::newRow("port too big") << QStringList{"--role", "proxy", "--data-dir", "/d", "--port", "70000"};
        QTest::newRow("keepalive too short") << QStringList{"--role", "proxy", "--data-dir", "/d", "--keepalive-interval-ms", "1"};
        QTest::newRow("bad log level") << QStringList{"--role", "proxy", "--data-dir", "/d", "--log-level", "loud"};
        QTest::newRow("unknown flag") << QStringList{"--role", "proxy", "--data-dir", "/d", "--frobnicate"};
        QTest::newRow("not a number") << QStringList{"--role", "proxy", "--data-dir", "/d", "--port", "http"};
    }
    void invalid()
    {
        QFETCH(QStringList, args);
        std::vector<std::string> a;
        for (const auto& s : args) a.push_back(s.toStdString());
        auto c = parse(a);
        QVERIFY(!c.ok());
        QCOMPARE(c.kind(), api::ErrorKind::BadRequest);
    }
};

QTEST_APPLESS_MAIN(TestConfig)
#include "test_config.moc"
