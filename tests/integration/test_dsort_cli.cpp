// `tessera dsort` as a user runs it against a real 3-target cluster: start
// from a spec file, from stdin and from SRC DST shortcuts; wait; show (the
// list, one job per target, JSON with metrics); abort of a finished job;
// rm; a bad spec refused before anything is sent, naming the field.
#include "dsort_test_util.h"
#include "local_cluster.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace tessera;
using tests::DsortRecordData;

namespace {
struct Run {
    int code = -1;
    QByteArray out;
    QByteArray err;
};
}  // namespace

class TestDsortCli : public QObject {
    Q_OBJECT

private:
    tests::LocalCluster m_cluster;
    QTemporaryDir m_work;
    std::vector<DsortRecordData> m_records;

    Run cli(const QStringList& args, const QByteArray& stdinData = {})
    {
        QProcess p;
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("TESSERA_ENDPOINT", QString::fromStdString(m_cluster.proxyUrl()));
        p.setProcessEnvironment(env);
        p.setWorkingDirectory(m_work.path());
        p.start(QStringLiteral(TESSERA_CLI_BINARY), args);
        if (!stdinData.isEmpty()) p.write(stdinData);
        p.closeWriteChannel();
        Run r;
        if (!p.waitForFinished(60000)) return r;
        r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        r.out = p.readAllStandardOutput();
        r.err = p.readAllStandardError();
        return r;
    }

    std::vector<std::string> outputKeys(const std::string& bucket)
    {
        client::Client c(m_cluster.proxyUrl());
        return tests::keysOf(tests::allRecords(tests::readOutputs(c, bucket, "", archive::ArchiveFormat::Tar)));
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        QVERIFY(m_work.isValid());
        client::Client c(m_cluster.proxyUrl());
        for (const auto* b : {"cli-in", "cli-out", "cli-shuf", "cli-stdin"}) QVERIFY(c.createBucket(b));
        std::mt19937 rng(9);
        for (int s = 0; s < 3; ++s) {
            std::vector<DsortRecordData> shard;
            for (int k = 0; k < 10; ++k) {
                const auto key = "item-" + std::to_string(rng() % 90000 + 10000);
                shard.push_back(
                    {key, {{key + ".jpg", tests::randomBytes(200 + rng() % 800, rng())}, {key + ".cls", "1"}}});
            }
            m_records.insert(m_records.end(), shard.begin(), shard.end());
            QVERIFY(c.putObject("cli-in", "part-" + std::to_string(s) + ".tar", tests::makeShard(shard)));
        }
        QFile f(m_work.path() + "/spec.json");
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"input_bck":"cli-in","input_format":{"template":"part-{0..2}"},"output_bck":"cli-out",
                    "output_format":"sorted-{00..99}","output_shard_size":"4 records","description":"from a file"})");
    }

    void startFromFileAndWait()
    {
        auto r = cli({"dsort", "start", "-f", "spec.json", "--wait"});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.out.contains("finished"), r.out.constData());
        QVERIFY(r.out.contains("sorter"));
        auto keys = outputKeys("cli-out");
        QCOMPARE(keys.size(), m_records.size());
        QVERIFY(std::is_sorted(keys.begin(), keys.end()));
        client::Client c(m_cluster.proxyUrl());
        auto list = c.listAll("cli-out");
        QCOMPARE(list->size(), std::size_t{(30 + 3) / 4});
        QCOMPARE(list->front().name, std::string("sorted-00.tar"));
    }

    void shortcutsWaitShowAbortRemove()
    {
        auto r = cli({"dsort", "start", "cli-in", "cli-shuf", "--input", "part-{0..2}", "--shard-size", "1MiB",
                      "--algorithm", "shuffle", "--seed", "7"});
        QVERIFY2(r.code == 0, r.err.constData());
        const auto id = r.out.trimmed();
        QVERIFY(id.startsWith("dsort-"));
        r = cli({"dsort", "wait", QString::fromUtf8(id), "--timeout", "50"});
        QVERIFY2(r.code == 0, r.err.constData());
        auto keys = outputKeys("cli-shuf");
        QCOMPARE(keys.size(), m_records.size());
        QVERIFY(!std::is_sorted(keys.begin(), keys.end()));

        r = cli({"dsort", "show"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains(id));
        r = cli({"dsort", "show", QString::fromUtf8(id), "--once"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("finished"));
        r = cli({"--json", "dsort", "show", QString::fromUtf8(id)});
        QCOMPARE(r.code, 0);
        auto j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j["kind"].get<std::string>(), std::string("dsort"));
        QCOMPARE(j["metrics"].size(), std::size_t{3});
        std::uint64_t records = 0;
        for (const auto& [tid, m] : j["metrics"].items()) records += m.value("extract.records", 0ull);
        QCOMPARE(records, std::uint64_t{30});

        r = cli({"dsort", "abort", QString::fromUtf8(id)});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("finished"));  // it had ended already: nothing to stop
        r = cli({"dsort", "rm", QString::fromUtf8(id)});
        QCOMPARE(r.code, 0);
        r = cli({"dsort", "show", QString::fromUtf8(id)});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("no dSort job"));
    }

    void specFromStdin()
    {
        const QByteArray spec = R"({"input_bck":"cli-in","input_format":{"objnames":["part-0","part-2"]},
                                   "output_bck":"cli-stdin","output_shard_size":"1MiB",
                                   "algorithm":{"kind":"alphanumeric","decreasing":true}})";
        auto r = cli({"dsort", "start", "-f", "-", "--wait"}, spec);
        QVERIFY2(r.code == 0, r.err.constData());
        auto keys = outputKeys("cli-stdin");
        QCOMPARE(keys.size(), std::size_t{20});
        QVERIFY(std::is_sorted(keys.rbegin(), keys.rend()));
    }

    void badSpecRefused()
    {
        auto r = cli({"dsort", "start", "cli-in", "cli-out", "--input", "part-{0..2}", "--shard-size", "huge"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("/output_shard_size"), r.err.constData());
        r = cli({"dsort", "start", "-f", "missing.json"});
        QCOMPARE(r.code, 2);
        r = cli({"dsort", "wait"});
        QCOMPARE(r.code, 2);
    }
};

QTEST_GUILESS_MAIN(TestDsortCli)
#include "test_dsort_cli.moc"
