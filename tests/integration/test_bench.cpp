// tessera bench against a real cluster: short runs of every mode (through
// the proxy and direct, verifying checksums, without keep-alive, against a
// plain URL) that must end with zero errors and counts that add up. No
// timing is asserted: benchmarks proper live in tests/bench/.
#include "local_cluster.h"

#include "archive/archive_writer.h"
#include "cli_app.h"
#include "client/api_client.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/xattr.h>

using namespace tessera;

class TestBench : public QObject {
    Q_OBJECT

private:
    tests::LocalCluster m_cluster{tests::LocalCluster::Options{3, 2, false, 300, 3, {}, {}}};

    struct Run {
        int exit = -1;
        nlohmann::json doc;
        std::string err;
    };

    Run bench(QStringList args)
    {
        args = QStringList{"tessera", "--endpoint", QString::fromStdString(m_cluster.proxyUrl()), "--json", "bench"} +
               args;
        std::vector<std::string> storage;
        for (const auto& a : args) storage.push_back(a.toStdString());
        std::vector<char*> argv;
        for (auto& s : storage) argv.push_back(s.data());
        std::ostringstream out, err;
        Run r;
        r.exit = cli::CliApp().run(static_cast<int>(argv.size()), argv.data(), out, err);
        r.err = err.str();
        if (!out.str().empty()) r.doc = nlohmann::json::parse(out.str());
        return r;
    }

    static std::uint64_t ops(const nlohmann::json& doc, const char* kind)
    {
        const auto& s = doc.at("summary");
        return s.contains(kind) ? s.at(kind).at("ops").get<std::uint64_t>() : 0;
    }

    // Every interval's counts add up to the summary's.
    static void intervalsAddUp(const nlohmann::json& doc, const char* kind)
    {
        std::uint64_t sum = 0;
        for (const auto& row : doc.at("intervals")) {
            if (row.contains(kind)) sum += row.at(kind).at("ops").get<std::uint64_t>();
        }
        QCOMPARE(sum, ops(doc, kind));
    }

private slots:
    void initTestCase() { QVERIFY2(m_cluster.start(), m_cluster.error().c_str()); }

    void putThroughTheProxy()
    {
        auto r = bench({"put", "--bucket", "bench-put", "--prefix", "p/", "--count", "300", "--workers", "8", "--size",
                        "2KiB", "--interval", "100ms"});
        QVERIFY2(r.exit == 0, r.err.c_str());
        QCOMPARE(r.doc.at("errors").get<int>(), 0);
        QCOMPARE(ops(r.doc, "put"), std::uint64_t{300});
        QCOMPARE(r.doc.at("summary").at("put").at("bytes").get<std::uint64_t>(), std::uint64_t{300 * 2048});
        intervalsAddUp(r.doc, "put");
        // The names PUT wrote are what get reads back, checksums verified.
        auto g =
            bench({"get", "--bucket", "bench-put", "--prefix", "p/", "--count", "300", "--workers", "8", "--verify"});
        QVERIFY2(g.exit == 0, g.err.c_str());
        QCOMPARE(g.doc.at("setup").get<std::string>(), std::string("reading 300 existing objects under bench-put/p/"));
        QCOMPARE(ops(g.doc, "get"), std::uint64_t{300});
        QCOMPARE(g.doc.at("summary").at("get").at("bytes").get<std::uint64_t>(), std::uint64_t{300 * 2048});
    }

    void getDirectAfterPreload()
    {
        auto r = bench({"get", "--bucket", "bench-get", "--count-objects", "40", "--min-size", "1KiB", "--max-size",
                        "200KiB", "--count", "400", "--workers", "16", "--direct", "--verify"});
        QVERIFY2(r.exit == 0, r.err.c_str());
        QCOMPARE(r.doc.at("errors").get<int>(), 0);
        QCOMPARE(ops(r.doc, "get"), std::uint64_t{400});
        QVERIFY(r.doc.at("setup").get<std::string>().find("PUT 40 objects of 1KiB..200KiB first") != std::string::npos);
        intervalsAddUp(r.doc, "get");
        // Direct: one connection per worker and target, never more.
        QVERIFY(r.doc.at("connections").get<int>() <= 16 * 3);
    }

    void mixedCountsAddUp()
    {
        auto r = bench({"mixed", "--bucket", "bench-mixed", "--count-objects", "20", "--size", "100KiB", "--pct-put",
                        "40", "--count", "300", "--workers", "8", "--verify"});
        QVERIFY2(r.exit == 0, r.err.c_str());
        QCOMPARE(r.doc.at("errors").get<int>(), 0);
        const auto gets = ops(r.doc, "get"), puts = ops(r.doc, "put");
        QCOMPARE(gets + puts, std::uint64_t{300});
        QVERIFY(gets > 0 && puts > 0);
        intervalsAddUp(r.doc, "get");
        intervalsAddUp(r.doc, "put");
    }

    void listPages()
    {
        auto r = bench({"put", "--bucket", "bench-list", "--count", "250", "--workers", "8", "--size", "10"});
        QVERIFY2(r.exit == 0, r.err.c_str());
        // 250 names in pages of 100: 3 pages a listing; 9 pages = 3 listings.
        auto l = bench({"list", "--bucket", "bench-list", "--pagesize", "100", "--count", "9", "--workers", "1"});
        QVERIFY2(l.exit == 0, l.err.c_str());
        QCOMPARE(ops(l.doc, "list"), std::uint64_t{9});
        QCOMPARE(l.doc.at("summary").at("list").at("items").get<std::uint64_t>(), std::uint64_t{750});
        QCOMPARE(l.doc.at("list_passes").get<int>(), 3);
    }

    void withoutKeepalive()
    {
        auto r = bench({"get", "--bucket", "bench-ka", "--count-objects", "5", "--count", "50", "--workers", "2",
                        "--keepalive", "off"});
        QVERIFY2(r.exit == 0, r.err.c_str());
        QCOMPARE(ops(r.doc, "get"), std::uint64_t{50});
        // A new connection to the proxy and one to the target for every GET.
        QVERIFY(r.doc.at("connections").get<int>() >= 100);
    }

    void plainUrl()
    {
        auto p = bench({"put", "--bucket", "bench-url", "--count", "1", "--workers", "1"});
        QVERIFY2(p.exit == 0, p.err.c_str());
        // The target serves the object like any HTTP server would, after
        // the proxy's redirect.
        const auto url = m_cluster.proxyUrl() + "/v1/objects/bench-url/obj-00000000";
        auto r = bench({"--url-get", QString::fromStdString(url), "--count", "200", "--workers", "4"});
        QVERIFY2(r.exit == 0, r.err.c_str());
        QCOMPARE(ops(r.doc, "get"), std::uint64_t{200});
        QCOMPARE(r.doc.at("summary").at("get").at("bytes").get<std::uint64_t>(), std::uint64_t{200 * 1024});
    }

    void failuresAreCountedAndExitOne()
    {
        // Reading names that do not exist: every GET is a 404, counted.
        const auto url = m_cluster.proxyUrl() + "/v1/objects/bench-url/missing-{i}";
        auto r = bench(
            {"--url-get", QString::fromStdString(url), "--count-objects", "3", "--count", "20", "--workers", "2"});
        QCOMPARE(r.exit, 1);
        QCOMPARE(r.doc.at("errors").get<int>(), 20);
        QCOMPARE(ops(r.doc, "get"), std::uint64_t{0});
        QVERIFY(r.doc.at("error_samples").at(0).get<std::string>().rfind("HTTP 404", 0) == 0);
        // A bucket that does not exist: get refuses before starting.
        auto m = bench({"get", "--bucket", "no-such-bucket", "--prefix", "x", "--count", "5"});
        QCOMPARE(m.exit, 1);
        QVERIFY(m.doc.is_null());
    }

    // The P5 pair: the same 1 KiB samples as 3 shards (40 samples each, two
    // files per sample) and as loose objects (one per sample), read both ways
    // and parsed locally the third way; every count checks out.
    void shardAndLooseReads()
    {
        client::Client api(m_cluster.proxyUrl());
        QVERIFY(api.createBucket("bench-shards"));
        QTemporaryDir dir;
        const std::string payload(1024, 'x');
        for (int s = 0; s < 3; ++s) {
            std::string shard;
            auto w = archive::ArchiveWriter::create(archive::ArchiveFormat::Tar, [&](const char* p, std::size_t n) {
                shard.append(p, n);
                return api::Status{};
            });
            QVERIFY(w);
            for (int i = 0; i < 40; ++i) {
                const auto key = "s" + std::to_string(s) + "/" + std::to_string(1000 + i);
                QVERIFY((*w)->add(key + ".bin", payload, 0));
                QVERIFY((*w)->add(key + ".cls", std::to_string(i % 10), 0));
                QVERIFY(api.putObject("bench-shards", "loose/" + key + ".bin", payload));
            }
            QVERIFY((*w)->finish());
            const auto name = "shard-" + std::to_string(s) + ".tar";
            QVERIFY(api.putObject("bench-shards", "tar/" + name, shard));
            std::ofstream(dir.filePath(QString::fromStdString(name)).toStdString(), std::ios::binary) << shard;
        }
        auto r = bench({"shard-read", "--bucket", "bench-shards", "--prefix", "tar/", "--count", "30", "--workers", "3",
                        "--direct", "--verify"});
        QVERIFY2(r.exit == 0, r.err.c_str());
        QCOMPARE(ops(r.doc, "get"), std::uint64_t{30});
        QCOMPARE(r.doc.at("summary").at("get").at("items").get<std::uint64_t>(), std::uint64_t{30 * 40});
        intervalsAddUp(r.doc, "get");

        auto l =
            bench({"loose-read", "--bucket", "bench-shards", "--prefix", "loose/", "--count", "200", "--workers", "4"});
        QVERIFY2(l.exit == 0, l.err.c_str());
        QCOMPARE(l.doc.at("setup").get<std::string>(),
                 std::string("reading 120 existing objects under bench-shards/loose/"));
        QCOMPARE(l.doc.at("summary").at("get").at("items").get<std::uint64_t>(), std::uint64_t{200});
        QCOMPARE(l.doc.at("summary").at("get").at("bytes").get<std::uint64_t>(), std::uint64_t{200 * 1024});

        auto scan = bench({"shard-scan", "--dir", dir.path(), "--count", "12", "--workers", "2"});
        QVERIFY2(scan.exit == 0, scan.err.c_str());
        QCOMPARE(scan.doc.at("summary").at("get").at("items").get<std::uint64_t>(), std::uint64_t{12 * 40});

        // A bucket of loose objects is no set of shards.
        auto bad = bench({"shard-read", "--bucket", "bench-shards", "--prefix", "loose/", "--count", "5"});
        QCOMPARE(bad.exit, 1);
        QVERIFY2(bad.err.find("is not a shard") != std::string::npos, bad.err.c_str());
    }

    void filePutWritesCommittedFiles()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string root = dir.path().toStdString();
        auto r = bench(
            {"file-put", "--dir", dir.path(), "--dirs", "2", "--count", "40", "--workers", "4", "--size", "3000"});
        QVERIFY2(r.exit == 0, r.err.c_str());
        QCOMPARE(ops(r.doc, "put"), std::uint64_t{40});
        QCOMPARE(r.doc.at("summary").at("put").at("bytes").get<std::uint64_t>(), std::uint64_t{40 * 3000});
        intervalsAddUp(r.doc, "put");
        // Dealt over the two folders, each file whole and in place, no work
        // file left behind, the attribute a target's metadata would take set.
        for (int d = 0; d < 2; ++d) {
            const QDir folder(dir.filePath(QStringLiteral("d%1").arg(d)));
            const auto files = folder.entryInfoList(QDir::Files);
            QCOMPARE(files.size(), 20);
            for (const auto& f : files) QCOMPARE(f.size(), qint64{3000});
            QVERIFY(QDir(folder.filePath(".work")).entryList(QDir::Files | QDir::Hidden).isEmpty());
        }
        char attr[64];
        const auto first = root + "/d0/obj-00000000";
        QVERIFY(::getxattr(first.c_str(), "user.tessera.bench", attr, sizeof attr) > 0);

        // Without the syncs, the same files.
        auto n = bench({"file-put", "--dir", dir.path(), "--fsync", "off", "--count", "10", "--workers", "2"});
        QVERIFY2(n.exit == 0, n.err.c_str());
        QCOMPARE(ops(n.doc, "put"), std::uint64_t{10});

        // A folder that is not there: a usage error before anything runs.
        auto missing = bench({"file-put", "--dir", dir.filePath("nowhere"), "--count", "1"});
        QCOMPARE(missing.exit, 2);
        QVERIFY2(missing.err.find("is not a directory") != std::string::npos, missing.err.c_str());
    }

    void usageErrorsExitTwo()
    {
        auto r = bench({"get", "--bucket", "bench-get"});
        QCOMPARE(r.exit, 2);
        QVERIFY(r.err.find("reads objects that exist") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestBench)
#include "test_bench.moc"
