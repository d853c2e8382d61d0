// dSort when things go wrong, on a real 3-target cluster (.tgz input): a
// run with max_mem_usage "0" spills every record to disk and still writes output
// identical to an in-memory run (and leaves no spill file), spilled records of
// 64 KiB and more (sent from the spill file by sendfile) arrive whole; an abort in the
// middle of creation stops every target, removes what they created and
// leaves the input as it was; a running job cannot be forgotten; the feed
// carries the job's `job` messages (kind dsort, per-target phases and
// progress); a target killed mid-job fails the job with an error naming it.
#include "dsort_test_util.h"
#include "feed_recorder.h"
#include "local_cluster.h"

#include <QDirIterator>
#include <QTest>
#include <QWebSocket>
#include <algorithm>
#include <set>

using namespace tessera;
using nlohmann::json;
using tests::DsortRecordData;

namespace {

constexpr int kShards = 6;
constexpr int kPerShard = 1000;

}  // namespace

class TestDsortFailures : public QObject {
    Q_OBJECT

private:
    tests::LocalCluster m_cluster;
    std::map<std::string, std::string> m_inputBytes;  // shard name -> bytes

    client::Client client() { return client::Client(m_cluster.proxyUrl()); }

    json spec(const std::string& out)
    {
        auto c = client();
        if (!c.bucketProps(out)) (void)c.createBucket(out);
        // .tgz input: its records are held in memory or spilled (a plain
        // .tar's are read in place).
        return json{{"input_bck", "fail-in"},
                    {"input_format", {{"template", "in-{0..5}"}}},
                    {"input_extension", ".tgz"},
                    {"output_extension", ".tar"},
                    {"output_bck", out},
                    {"output_format", "o-{00000..99999}"},
                    {"output_shard_size", "50 records"}};
    }

    std::size_t filesUnder(const std::string& sub)
    {
        std::size_t n = 0;
        for (int t = 0; t < m_cluster.targetCount(); ++t) {
            for (const auto& mp : m_cluster.targetMountpaths(t)) {
                QDirIterator it(QString::fromStdString(mp + sub), QDir::Files, QDirIterator::Subdirectories);
                while (it.hasNext()) {
                    it.next();
                    ++n;
                }
            }
        }
        return n;
    }

    // Starts a job that creates one shard per record, one at a time per
    // target, and waits until creation is under way.
    std::string startSlowJob(const std::string& out)
    {
        auto s = spec(out);
        s["output_shard_size"] = "1 records";
        s["create_concurrency_max_limit"] = 1;
        auto c = client();
        auto id = c.startDsort(s);
        if (!id) qFatal("dsort refused: %s", id.error().message.c_str());
        const bool creating = QTest::qWaitFor(
            [&] {
                auto st = c.dsortStatus(*id);
                if (!st) return false;
                std::uint64_t created = 0;
                bool allCreating = true;
                for (const auto& [tid, ts] : st->job.targets) {
                    allCreating = allCreating && ts.phase == "create";
                    created += ts.progress.objectsDone;
                }
                return allCreating && created >= 6;
            },
            30000);
        if (!creating) qFatal("the job never reached its creation phase");
        return *id;
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        auto c = client();
        QVERIFY(c.createBucket("fail-in"));
        std::mt19937 rng(3);
        for (int s = 0; s < kShards; ++s) {
            std::vector<DsortRecordData> shard;
            for (int k = 0; k < kPerShard; ++k) {
                char key[32];
                std::snprintf(key, sizeof key, "r%05d", static_cast<int>(rng() % 100000) * 10 + s);
                DsortRecordData r{key, {}};
                r.files.emplace_back(r.key + ".dat", tests::randomBytes(50 + rng() % 400, rng()));
                r.files.emplace_back(r.key + ".cls", std::to_string(rng() % 10));
                shard.push_back(std::move(r));
            }
            const auto name = "in-" + std::to_string(s) + ".tgz";
            m_inputBytes[name] = tests::makeShard(shard, archive::ArchiveFormat::TarGz);
            QVERIFY(c.putObject("fail-in", name, m_inputBytes[name]));
        }
    }

    void tinyMemorySpillsAndMatches()
    {
        auto c = client();
        auto id = c.startDsort(spec("spill-mem"));
        QVERIFY(id);
        auto inMemory = tests::waitDsort(c, *id);
        QVERIFY2(inMemory.job.state == api::JobState::Finished, inMemory.job.error.c_str());
        auto s = spec("spill-disk");
        s["max_mem_usage"] = "0";
        id = c.startDsort(s);
        QVERIFY(id);
        auto spilled = tests::waitDsort(c, *id);
        QVERIFY2(spilled.job.state == api::JobState::Finished, spilled.job.error.c_str());
        std::uint64_t memSpills = 0, diskSpills = 0;
        for (const auto& [tid, m] : inMemory.metrics.items()) memSpills += m.value("spill.records", 0ull);
        for (const auto& [tid, m] : spilled.metrics.items()) diskSpills += m.value("spill.records", 0ull);
        QCOMPARE(memSpills, std::uint64_t{0});
        QCOMPARE(diskSpills, std::uint64_t{kShards * kPerShard});
        // Byte for byte the same shards under the same names.
        auto a = c.listAll("spill-mem");
        auto b = c.listAll("spill-disk");
        QVERIFY(a && b);
        QCOMPARE(a->size(), std::size_t{kShards * kPerShard / 50});
        QCOMPARE(a->size(), b->size());
        for (std::size_t i = 0; i < a->size(); ++i) {
            QCOMPARE((*a)[i].name, (*b)[i].name);
            auto x = c.getObject("spill-mem", (*a)[i].name);
            auto y = c.getObject("spill-disk", (*b)[i].name);
            QVERIFY(x && y);
            QVERIFY(*x == *y);
        }
        QCOMPARE(filesUnder("/.tessera/dsort"), std::size_t{0});
    }

    // Spilled records of 64 KiB and more go from the spill file to the
    // puller by sendfile (smaller ones are read and sent with the headers):
    // every record of a .tgz input arrives whole with nothing kept in memory.
    void bigSpilledRecordsArriveWhole()
    {
        auto c = client();
        const auto all = tests::putBigFileShards(c, "spill-big-in", 3, 4, archive::ArchiveFormat::TarGz, ".tgz");
        auto s = spec("spill-big-out");
        s["input_bck"] = "spill-big-in";
        s["input_format"] = {{"template", "big-{0..2}"}};
        s["output_shard_size"] = "5 records";
        s["max_mem_usage"] = "0";
        auto id = c.startDsort(s);
        QVERIFY(id);
        auto done = tests::waitDsort(c, *id);
        QVERIFY2(done.job.state == api::JobState::Finished, done.job.error.c_str());
        std::uint64_t spills = 0;
        for (const auto& [tid, m] : done.metrics.items()) spills += m.value("spill.records", 0ull);
        QCOMPARE(spills, static_cast<std::uint64_t>(all.size()));
        auto got = tests::allRecords(tests::readOutputs(c, "spill-big-out", "", archive::ArchiveFormat::Tar));
        std::sort(got.begin(), got.end());
        QVERIFY(got == all);
        QCOMPARE(filesUnder("/.tessera/dsort"), std::size_t{0});
    }

    void abortMidCreationCleansUp()
    {
        auto c = client();
        const auto id = startSlowJob("aborted-out");
        // A running job cannot be forgotten.
        QCOMPARE(c.removeDsort(id).kind(), api::ErrorKind::Conflict);
        auto st = c.abortDsort(id);
        QVERIFY2(st.ok(), st ? "" : st.error().message.c_str());
        auto end = tests::waitDsort(c, id, std::chrono::seconds(20));
        QCOMPARE(end.job.state, api::JobState::Aborted);
        auto left = c.listAll("aborted-out");
        QVERIFY(left);
        QVERIFY2(left->empty(), (std::to_string(left->size()) + " output shard(s) left").c_str());
        QCOMPARE(filesUnder("/.tessera/work"), std::size_t{0});
        QCOMPARE(filesUnder("/.tessera/dsort"), std::size_t{0});
        // The input is untouched.
        auto in = c.listAll("fail-in");
        QVERIFY(in);
        QCOMPARE(in->size(), m_inputBytes.size());
        for (const auto& [name, bytes] : m_inputBytes) QVERIFY(*c.getObject("fail-in", name) == bytes);
        QVERIFY(c.removeDsort(id));
    }

    void feedCarriesPhases()
    {
        QWebSocket ws;
        std::vector<json> jobs;
        connect(&ws, &QWebSocket::textMessageReceived, this, [&](const QString& text) {
            auto m = json::parse(text.toStdString(), nullptr, false);
            if (m.is_object() && m.value("type", "") == "job") jobs.push_back(m["data"]);
        });
        tests::openFeed(ws, m_cluster.proxyUrl());
        QVERIFY(QTest::qWaitFor([&] { return ws.state() == QAbstractSocket::ConnectedState; }, 5000));
        const auto id = startSlowJob("feed-out");
        std::set<std::string> phases;
        std::set<std::string> kinds;
        bool ended = false;
        QVERIFY(QTest::qWaitFor(
            [&] {
                for (const auto& d : jobs) {
                    if (d.value("id", "") != id) continue;
                    kinds.insert(d.value("kind", ""));
                    for (const auto& [tid, t] : d["targets"].items()) phases.insert(t.value("phase", ""));
                    ended = ended || d.value("state", "") == "finished";
                }
                return ended;
            },
            30000));
        QCOMPARE(kinds, std::set<std::string>{"dsort"});
        QVERIFY(phases.count("create"));
        QVERIFY(phases.count("done"));
        const auto& last = jobs.back();
        QCOMPARE(last["targets"].size(), std::size_t{3});
        std::uint64_t created = 0;
        for (const auto& [tid, t] : last["targets"].items()) created += t["progress"].value("objects_done", 0ull);
        QCOMPARE(created, std::uint64_t{kShards * kPerShard});  // one output shard per record
    }

    void deadTargetFailsTheJobNamingIt()
    {
        auto c = client();
        const auto id = startSlowJob("dead-out");
        const auto victim = m_cluster.targetId(2);
        // It has finished at least one output shard of its own.
        QVERIFY(QTest::qWaitFor(
            [&] {
                for (const auto& mp : m_cluster.targetMountpaths(2)) {
                    QDirIterator it(QString::fromStdString(mp + "/buckets/dead-out"), QDir::Files);
                    if (it.hasNext()) return true;
                }
                return false;
            },
            20000));
        m_cluster.killTarget(2);
        auto end = tests::waitDsort(c, id, std::chrono::seconds(40));
        QCOMPARE(end.job.state, api::JobState::Failed);
        QVERIFY2(end.job.error.find(victim) != std::string::npos, end.job.error.c_str());
        qInfo("the job failed with: %s", end.job.error.c_str());

        // The killed target comes back: the shards it had finished for the
        // failed job are removed before it serves, so the output bucket is
        // empty, not holding a part of a failed job.
        QVERIFY(m_cluster.restartTarget(2));
        QVERIFY(m_cluster.waitForTargets(3, std::chrono::seconds(10)));
        auto left = c.listAll("dead-out");
        QVERIFY2(left, left ? "" : left.error().message.c_str());
        QVERIFY2(left->empty(), (std::to_string(left->size()) + " output shard(s) of the failed job left").c_str());
        QCOMPARE(filesUnder("/.tessera/dsort-out"), std::size_t{0});
        // A user's object under an output name afterwards is the user's.
        QVERIFY(c.putObject("dead-out", "o-00001.tar", "mine").ok());
        QCOMPARE(*c.getObject("dead-out", "o-00001.tar"), std::string("mine"));
    }
};

QTEST_GUILESS_MAIN(TestDsortFailures)
#include "test_dsort_failures.moc"
