// Node configuration: defaults, JSON file, flags over the file, validation.
#include "app/config.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>
#include <thread>

using namespace tessera;
using namespace tessera::daemon;

namespace {
api::Result<Config> parse(std::vector<std::string> args, std::string* help = nullptr)
{
    args.insert(args.begin(), "tessera-node");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    std::string h;
    auto r = parseConfig(static_cast<int>(argv.size()), argv.data(), h);
    if (help) *help = h;
    return r;
}

std::vector<std::string> toStd(const QStringList& l)
{
    std::vector<std::string> out;
    for (const auto& s : l) out.push_back(s.toStdString());
    return out;
}
}  // namespace

class TestConfig : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    std::string writeFile(const QString& name, const QByteArray& text)
    {
        const auto path = m_dir.path() + "/" + name;
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return {};
        f.write(text);
        return path.toStdString();
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void defaults()
    {
        auto c = parse({"--role", "proxy", "--data-dir", "/tmp/x"});
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
        QCOMPARE(c->role, std::string("proxy"));
        QCOMPARE(c->host, std::string("127.0.0.1"));
        QCOMPARE(c->port, -1);
        QCOMPARE(c->effectivePort(), 8080);
        QCOMPARE(c->dataDir, std::string("/tmp/x"));
        QVERIFY(c->proxyUrl.empty());
        QVERIFY(c->mountpaths.empty());
        QVERIFY(c->portFile.empty());
        QCOMPARE(c->logLevel, std::string("info"));
        QVERIFY(c->fsync);
        QVERIFY(c->commitLog);
        QCOMPARE(c->commitLogCheckpointMs, 2000);
        QCOMPARE(c->keepaliveIntervalMs, 2000);
        QCOMPARE(c->keepaliveMaxMissed, 3);
        QCOMPARE(c->drainTimeoutMs, 30000);
        const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
        QCOMPARE(c->ioThreads, cores);
        QCOMPARE(c->workerThreads, std::max(4u, 2 * cores));
        QCOMPARE(c->maxConnections, std::size_t{1024});
        QCOMPARE(c->idleTimeoutMs, 60000);
        QCOMPARE(c->ioTimeoutMs, 60000);
        QCOMPARE(c->peerTimeoutMs, 5000);
        QCOMPARE(c->listTimeoutMs, 60000);
        QCOMPARE(c->maxObjectSize, std::uint64_t{1} << 40);

        // A target without the cluster key cannot join: refused at start.
        auto noKey =
            parse({"--role", "target", "--data-dir", "/tmp/x", "--mountpath", "/a", "--proxy-url", "http://p:1"});
        QCOMPARE(noKey.kind(), api::ErrorKind::BadRequest);
        QVERIFY(noKey.error().message.find("cluster-key-file") != std::string::npos);
        auto t = parse({"--role", "target", "--data-dir", "/tmp/x", "--mountpath", "/a", "--mountpath", "/b",
                        "--proxy-url", "http://p:1", "--cluster-key-file", "/k"});
        QVERIFY(t.ok());
        QCOMPARE(t->effectivePort(), 8081);
        QCOMPARE(t->mountpaths, (std::vector<std::string>{"/a", "/b"}));
        QCOMPARE(t->proxyUrl, std::string("http://p:1"));
    }

    void everyFlag()
    {
        auto c = parse({"--role",
                        "target",
                        "--host",
                        "0.0.0.0",
                        "--port",
                        "0",
                        "--port-file",
                        "/tmp/pf",
                        "--proxy-url",
                        "http://p:1",
                        "--data-dir",
                        "/d",
                        "--mountpath",
                        "/m",
                        "--fsync",
                        "false",
                        "--keepalive-interval-ms",
                        "250",
                        "--keepalive-max-missed",
                        "5",
                        "--io-threads",
                        "3",
                        "--worker-threads",
                        "7",
                        "--max-connections",
                        "64",
                        "--peer-timeout-ms",
                        "900",
                        "--list-timeout-ms",
                        "120000",
                        "--max-object-size",
                        "1000",
                        "--log-level",
                        "debug",
                        "--cluster-key-file",
                        "/k",
                        "--tombstone-ttl-ms",
                        "120000",
                        "--max-connections-per-address",
                        "8",
                        "--header-timeout-ms",
                        "2500",
                        "--drain-timeout-ms",
                        "1500",
                        "--commit-log",
                        "false",
                        "--commit-log-checkpoint-ms",
                        "500"});
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
        QVERIFY(!c->commitLog);
        QCOMPARE(c->commitLogCheckpointMs, 500);
        QCOMPARE(c->host, std::string("0.0.0.0"));
        QCOMPARE(c->port, 0);
        QCOMPARE(c->effectivePort(), 0);
        QCOMPARE(c->portFile, std::string("/tmp/pf"));
        QVERIFY(!c->fsync);
        QCOMPARE(c->keepaliveIntervalMs, 250);
        QCOMPARE(c->keepaliveMaxMissed, 5);
        QCOMPARE(c->ioThreads, 3u);
        QCOMPARE(c->workerThreads, 7u);
        QCOMPARE(c->maxConnections, std::size_t{64});
        QCOMPARE(c->peerTimeoutMs, 900);
        QCOMPARE(c->listTimeoutMs, 120000);
        QCOMPARE(c->maxObjectSize, std::uint64_t{1000});
        QCOMPARE(c->logLevel, std::string("debug"));
        QCOMPARE(c->clusterKeyFile, std::string("/k"));
        QCOMPARE(c->tombstoneTtlMs, 120000);
        QCOMPARE(c->maxConnectionsPerAddress, std::size_t{8});
        QCOMPARE(c->headerTimeoutMs, 2500);
        QCOMPARE(c->drainTimeoutMs, 1500);
        auto over = parse(
            {"--role", "proxy", "--data-dir", "/d", "--max-connections", "4", "--max-connections-per-address", "5"});
        QCOMPARE(over.kind(), api::ErrorKind::BadRequest);
        QCOMPARE(parse({"--role", "proxy", "--data-dir", "/d", "--header-timeout-ms", "50"}).kind(),
                 api::ErrorKind::BadRequest);
    }

    void everyFileKey()
    {
        // (no raw string literals in this file: moc 6.4 stops parsing at them)
        const auto path =
            writeFile("all.json",
                      "{\"role\":\"target\",\"host\":\"10.0.0.5\",\"port\":9000,\"port_file\":\"/"
                      "pf\",\"proxy_url\":\"http://p:2\","
                      "\"data_dir\":\"/d\",\"mountpaths\":[\"/m1\",\"/m2\"],\"log_level\":\"warn\",\"fsync\":false,"
                      "\"keepalive_interval_ms\":700,\"keepalive_max_missed\":9,\"io_threads\":2,\"worker_threads\":6,"
                      "\"max_connections\":10,\"idle_timeout_ms\":1500,\"io_timeout_ms\":2500,\"peer_timeout_ms\":3500,"
                      "\"list_timeout_ms\":45000,"
                      "\"max_object_size\":12345,\"cluster_key_file\":\"/key\",\"tombstone_ttl_ms\":90000}");
        auto c = parse({"--config", path});
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
        QCOMPARE(c->role, std::string("target"));
        QCOMPARE(c->host, std::string("10.0.0.5"));
        QCOMPARE(c->port, 9000);
        QCOMPARE(c->portFile, std::string("/pf"));
        QCOMPARE(c->proxyUrl, std::string("http://p:2"));
        QCOMPARE(c->dataDir, std::string("/d"));
        QCOMPARE(c->mountpaths, (std::vector<std::string>{"/m1", "/m2"}));
        QCOMPARE(c->logLevel, std::string("warn"));
        QVERIFY(!c->fsync);
        QCOMPARE(c->keepaliveIntervalMs, 700);
        QCOMPARE(c->keepaliveMaxMissed, 9);
        QCOMPARE(c->ioThreads, 2u);
        QCOMPARE(c->workerThreads, 6u);
        QCOMPARE(c->maxConnections, std::size_t{10});
        QCOMPARE(c->idleTimeoutMs, 1500);
        QCOMPARE(c->ioTimeoutMs, 2500);
        QCOMPARE(c->peerTimeoutMs, 3500);
        QCOMPARE(c->listTimeoutMs, 45000);
        QCOMPARE(c->maxObjectSize, std::uint64_t{12345});
        QCOMPARE(c->clusterKeyFile, std::string("/key"));
        QCOMPARE(c->tombstoneTtlMs, 90000);
    }

    void flagsOverrideFile()
    {
        const auto path =
            writeFile("node.json",
                      "{\"role\":\"target\",\"port\":9000,\"data_dir\":\"/d\",\"mountpaths\":[\"/m1\",\"/m2\"],"
                      "\"proxy_url\":\"http://127.0.0.1:8080\",\"fsync\":false,\"keepalive_interval_ms\":500,"
                      "\"cluster_key_file\":\"/k\","
                      "\"log_level\":\"warn\"}");
        auto c =
            parse({"--config", path, "--port", "0", "--fsync", "true", "--mountpath", "/only", "--log-level", "error"});
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
        QCOMPARE(c->port, 0);                                         // flag wins
        QVERIFY(c->fsync);                                            // flag wins
        QCOMPARE(c->mountpaths, std::vector<std::string>{"/only"});   // flag list replaces the file's
        QCOMPARE(c->logLevel, std::string("error"));                  // flag wins
        QCOMPARE(c->keepaliveIntervalMs, 500);                        // from the file
        QCOMPARE(c->proxyUrl, std::string("http://127.0.0.1:8080"));  // from the file
        // The flag order does not matter: --config last still loses to flags.
        auto d = parse({"--port", "0", "--config", path});
        QVERIFY(d.ok());
        QCOMPARE(d->port, 0);
    }

    void effectiveConfigIsAValidFile()
    {
        // GET /v1/daemon?what=config shows to_json(Config); fed back as a
        // config file it must be accepted and mean the same thing.
        auto c =
            parse({"--role", "target", "--data-dir", "/d", "--mountpath", "/m", "--proxy-url", "http://p:1", "--port",
                   "0", "--keepalive-interval-ms", "300", "--max-object-size", "77", "--cluster-key-file", "/k"});
        QVERIFY(c.ok());
        const auto path = writeFile("dump.json", QByteArray::fromStdString(nlohmann::json(*c).dump()));
        auto again = parse({"--config", path});
        QVERIFY2(again.ok(), again.ok() ? "" : again.error().message.c_str());
        QCOMPARE(nlohmann::json(*again).dump(), nlohmann::json(*c).dump());
    }

    void fileErrors_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("unknown field") << QByteArray("{\"role\":\"proxy\",\"data_dir\":\"/d\",\"colour\":\"blue\"}")
                                       << "colour";
        QTest::newRow("wrong type") << QByteArray("{\"role\":\"proxy\",\"data_dir\":\"/d\",\"port\":\"8080\"}") << "";
        QTest::newRow("not an object") << QByteArray("[1,2]") << "not a JSON object";
        QTest::newRow("not JSON") << QByteArray("role = proxy") << "not a JSON object";
        QTest::newRow("unknown auth field")
            << QByteArray("{\"role\":\"proxy\",\"data_dir\":\"/d\",\"auth\":{\"enabled\":true,\"mode\":\"x\"}}")
            << "auth.mode";
        QTest::newRow("auth not an object")
            << QByteArray("{\"role\":\"proxy\",\"data_dir\":\"/d\",\"auth\":true}") << "\"auth\" is not an object";
        QTest::newRow("file port out of range")
            << QByteArray("{\"role\":\"proxy\",\"data_dir\":\"/d\",\"port\":70000}") << "port";
    }
    void fileErrors()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, mentions);
        const auto path = writeFile("bad.json", text);
        auto c = parse({"--config", path});
        QVERIFY(!c.ok());
        QCOMPARE(c.kind(), api::ErrorKind::BadRequest);
        QVERIFY2(c.error().message.find(mentions.toStdString()) != std::string::npos, c.error().message.c_str());
    }

    // Off unless asked for, by file ({"auth":{"enabled":true}}) or flag,
    // the flag winning.
    void authSwitch()
    {
        auto off = parse({"--role", "proxy", "--data-dir", "/tmp/x"});
        QVERIFY(off.ok());
        QCOMPARE(off->authEnabled, false);
        QCOMPARE(nlohmann::json(*off)["auth"].dump(), std::string(R"({"enabled":false})"));
        const auto path = writeFile("auth.json", R"({"role":"proxy","data_dir":"/d","auth":{"enabled":true}})");
        auto file = parse({"--config", path});
        QVERIFY(file.ok());
        QCOMPARE(file->authEnabled, true);
        auto flag = parse({"--config", path, "--auth-enabled", "false"});
        QVERIFY(flag.ok());
        QCOMPARE(flag->authEnabled, false);
    }

    void missingFile()
    {
        auto c = parse({"--config", (m_dir.path() + "/missing.json").toStdString()});
        QVERIFY(!c.ok());
        QCOMPARE(c.kind(), api::ErrorKind::BadRequest);
    }

    void invalid_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("no role") << QStringList{"--data-dir", "/d"};
        QTest::newRow("bad role") << QStringList{"--role", "gateway", "--data-dir", "/d"};
        QTest::newRow("no data dir") << QStringList{"--role", "proxy"};
        QTest::newRow("target without mountpath")
            << QStringList{"--role", "target", "--data-dir", "/d", "--proxy-url", "http://p:1"};
        QTest::newRow("target without proxy url")
            << QStringList{"--role", "target", "--data-dir", "/d", "--mountpath", "/m"};
        QTest::newRow("port too big") << QStringList{"--role", "proxy", "--data-dir", "/d", "--port", "70000"};
        QTest::newRow("port negative") << QStringList{"--role", "proxy", "--data-dir", "/d", "--port=-2"};
        QTest::newRow("keepalive too short")
            << QStringList{"--role", "proxy", "--data-dir", "/d", "--keepalive-interval-ms", "1"};
        QTest::newRow("keepalive too long")
            << QStringList{"--role", "proxy", "--data-dir", "/d", "--keepalive-interval-ms", "600001"};
        QTest::newRow("max missed zero") << QStringList{"--role", "proxy", "--data-dir", "/d", "--keepalive-max-missed",
                                                        "0"};
        QTest::newRow("max missed too many")
            << QStringList{"--role", "proxy", "--data-dir", "/d", "--keepalive-max-missed", "101"};
        QTest::newRow("peer timeout too short")
            << QStringList{"--role", "proxy", "--data-dir", "/d", "--peer-timeout-ms", "99"};
        QTest::newRow("list timeout too short")
            << QStringList{"--role", "proxy", "--data-dir", "/d", "--list-timeout-ms", "99"};
        QTest::newRow("list timeout too long")
            << QStringList{"--role", "proxy", "--data-dir", "/d", "--list-timeout-ms", "600001"};
        QTest::newRow("commit log checkpoint too short")
            << QStringList{"--role", "target", "--data-dir", "/d", "--commit-log-checkpoint-ms", "9"};
        QTest::newRow("commit log checkpoint too long")
            << QStringList{"--role", "target", "--data-dir", "/d", "--commit-log-checkpoint-ms", "3600001"};
        QTest::newRow("zero connections")
            << QStringList{"--role", "proxy", "--data-dir", "/d", "--max-connections", "0"};
        QTest::newRow("bad log level") << QStringList{"--role", "proxy", "--data-dir", "/d", "--log-level", "loud"};
        QTest::newRow("bad bool") << QStringList{"--role", "proxy", "--data-dir", "/d", "--fsync", "maybe"};
        QTest::newRow("unknown flag") << QStringList{"--role", "proxy", "--data-dir", "/d", "--frobnicate"};
        const QStringList p{"--role", "proxy", "--data-dir", "/d"};
        QTest::newRow("stats interval too short") << (p + QStringList{"--stats-interval-ms", "249"});
        QTest::newRow("stats interval too long") << (p + QStringList{"--stats-interval-ms", "10001"});
        QTest::newRow("no feed sessions") << (p + QStringList{"--ws-max-sessions", "0"});
        QTest::newRow("feed queue too small") << (p + QStringList{"--ws-queue-max", "7"});
        QTest::newRow("feed write timeout too short") << (p + QStringList{"--ws-write-timeout-ms", "99"});
        QTest::newRow("feed send buffer too small") << (p + QStringList{"--ws-send-buffer", "100"});
        QTest::newRow("negative error burst") << (p + QStringList{"--error-burst-per-sec=-1"});
        QTest::newRow("usage scan too often") << (p + QStringList{"--usage-scan-interval-ms", "999"});
        QTest::newRow("bad op stats") << (p + QStringList{"--op-stats", "sometimes"});
        QTest::newRow("negative drain timeout") << (p + QStringList{"--drain-timeout-ms=-1"});
        QTest::newRow("drain timeout too long") << (p + QStringList{"--drain-timeout-ms", "600001"});
        QTest::newRow("negative rebalance delay") << (p + QStringList{"--rebalance-delay-ms=-1"});
        QTest::newRow("rebalance delay too long") << (p + QStringList{"--rebalance-delay-ms", "600001"});
        QTest::newRow("archive members zero") << (p + QStringList{"--archive-max-members", "0"});
        QTest::newRow("archive members too many") << (p + QStringList{"--archive-max-members", "100000001"});
        QTest::newRow("archive member size zero") << (p + QStringList{"--archive-max-member-size", "0"});
        QTest::newRow("archive total below member size")
            << (p + QStringList{"--archive-max-member-size", "1000", "--archive-max-total-size", "999"});
        QTest::newRow("archive ratio zero") << (p + QStringList{"--archive-max-compression-ratio", "0"});
        QTest::newRow("archive ratio too big") << (p + QStringList{"--archive-max-compression-ratio", "100001"});
        QTest::newRow("archive index cache too big") << (p + QStringList{"--archive-index-cache-bytes", "68719476737"});
        QTest::newRow("archive index not a bool") << (p + QStringList{"--archive-index", "perhaps"});
        QTest::newRow("not a number") << QStringList{"--role", "proxy", "--data-dir", "/d", "--port", "http"};
        QTest::newRow("missing value") << QStringList{"--role", "proxy", "--data-dir"};
    }
    void invalid()
    {
        QFETCH(QStringList, args);
        auto c = parse(toStd(args));
        QVERIFY(!c.ok());
        QCOMPARE(c.kind(), api::ErrorKind::BadRequest);
        QVERIFY(!c.error().message.empty());
    }

    // Values that pass validation today but leave a node that cannot work.
    void unusableValuesRefused_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QByteArray>("file");
        // Boost's lexical_cast wraps "-1" to 4294967295 for an unsigned
        // option: the node then tries to start four billion threads.
        QTest::newRow("io threads -1") << QStringList{"--io-threads=-1"} << QByteArray();
        QTest::newRow("worker threads -1") << QStringList{"--worker-threads=-1"} << QByteArray();
        QTest::newRow("io threads in file -1") << QStringList{} << QByteArray("\"io_threads\":-1");
        // A zero or negative timeout expires at once: every connection is
        // closed before its request is read (curl: "Empty reply from server").
        QTest::newRow("idle timeout 0") << QStringList{} << QByteArray("\"idle_timeout_ms\":0");
        QTest::newRow("io timeout negative") << QStringList{} << QByteArray("\"io_timeout_ms\":-5");
    }
    void unusableValuesRefused()
    {
        QFETCH(QStringList, args);
        QFETCH(QByteArray, file);
        auto a = toStd(QStringList{"--role", "proxy", "--data-dir", "/d"} + args);
        if (!file.isEmpty()) {
            a.push_back("--config");
            a.push_back(writeFile("unusable.json", "{" + file + "}"));
        }
        auto c = parse(a);
        // Thread counts and idle/io timeouts are range-checked: a wrapped
        // "-1" or a zero timeout leaves a node that cannot serve.
        QVERIFY(!c.ok());
        if (!c.ok()) QCOMPARE(c.kind(), api::ErrorKind::BadRequest);
    }

    void archiveLimits()
    {
        auto d = parse({"--role", "target", "--data-dir", "/d", "--mountpath", "/m", "--proxy-url", "http://p:1",
                        "--cluster-key-file", "/k"});
        QVERIFY(d.ok());
        QCOMPARE(d->archiveMaxMembers, std::uint64_t{1'000'000});
        QCOMPARE(d->archiveMaxMemberSize, std::uint64_t{4} << 30);
        QCOMPARE(d->archiveMaxTotalSize, std::uint64_t{64} << 30);
        QCOMPARE(d->archiveMaxCompressionRatio, std::uint64_t{200});
        QCOMPARE(d->archiveIndexCacheBytes, std::uint64_t{64} << 20);
        QVERIFY(d->archiveIndex);
        const auto file = writeFile("archive.json", R"({"archive_max_members": 10, "archive_max_member_size": 100,
            "archive_max_total_size": 1000, "archive_max_compression_ratio": 5, "archive_index_cache_bytes": 0,
            "archive_index": false})");
        auto c = parse({"--role", "proxy", "--data-dir", "/d", "--config", file, "--archive-max-members", "11"});
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().message.c_str());
        QCOMPARE(c->archiveMaxMembers, std::uint64_t{11});  // flag over file
        QCOMPARE(c->archiveMaxMemberSize, std::uint64_t{100});
        QCOMPARE(c->archiveMaxTotalSize, std::uint64_t{1000});
        QCOMPARE(c->archiveMaxCompressionRatio, std::uint64_t{5});
        QCOMPARE(c->archiveIndexCacheBytes, std::uint64_t{0});
        QVERIFY(!c->archiveIndex);
        const auto j = nlohmann::json(*c);
        QCOMPARE(j.at("archive_max_members").get<std::uint64_t>(), std::uint64_t{11});
        QCOMPARE(j.at("archive_index").get<bool>(), false);
    }

    void help()
    {
        std::string text;
        auto c = parse({"--help"}, &text);
        QVERIFY(!c.ok());
        QCOMPARE(c.kind(), api::ErrorKind::NotFound);  // "not a config": main prints the text, exits 0
        for (const char* flag : {"--config", "--role", "--mountpath", "--proxy-url", "--max-object-size"}) {
            QVERIFY2(text.find(flag) != std::string::npos, flag);
        }
    }
};

QTEST_GUILESS_MAIN(TestConfig)
#include "test_config.moc"
