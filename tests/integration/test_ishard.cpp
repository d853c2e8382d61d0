// ishard on a real 3-target cluster over 10,000 small objects (4,000
// samples of 2 or 3 files): every sample exactly once across the shards,
// bytes equal to the sources, never split, in extension order, every shard
// within the size bound and as large as the plan said; a shuffle
// reproducible from its seed; a dry run that starts nothing; an abort that
// leaves no partial shard; each field of a bad spec named in a 400.
#include "at_once.h"
#include "local_cluster.h"
#include "shard_test_util.h"

#include "api/json_util.h"
#include "spec/ishard_spec.h"

#include <QDirIterator>
#include <QTest>
#include <nlohmann/json.hpp>
#include <set>

using namespace tessera;
using tests::Members;

namespace {

constexpr int kSamples = 4000;

std::string keyOf(const std::string& name) { return name.substr(0, name.find('.', name.rfind('/') + 1)); }
std::string extOf(const std::string& name) { return name.substr(name.find('.', name.rfind('/') + 1)); }

}  // namespace

class TestIshard : public QObject {
    Q_OBJECT

private:
    tests::LocalCluster m_cluster;
    std::map<std::string, std::string> m_loose;  // bucket "loose"
    std::map<std::string, std::string> m_big;    // bucket "loose-big"

    client::Client client() { return client::Client(m_cluster.proxyUrl()); }

    spec::IshardSpec specFor(const std::string& src, const std::string& dst)
    {
        spec::IshardSpec s;
        s.srcBck = src;
        s.dstBck = dst;
        return s;
    }

    api::JobStatus run(const spec::IshardSpec& s)
    {
        auto c = client();
        if (!c.bucketProps(s.dstBck)) (void)c.createBucket(s.dstBck);
        auto st = c.startIshard(s);
        if (!st) qFatal("ishard refused: %s", st.error().message.c_str());
        return tests::waitJob(c, st->id);
    }

    // Every shard of the bucket in name order with its members and size.
    struct Shard {
        std::string name;
        std::uint64_t size = 0;
        Members members;
    };
    std::vector<Shard> shards(const std::string& bucket, archive::ArchiveFormat f = archive::ArchiveFormat::Tar)
    {
        auto c = client();
        std::vector<Shard> out;
        auto list = c.listAll(bucket);
        if (!list) return out;
        for (const auto& e : *list) {
            auto bytes = c.getObject(bucket, e.name);
            if (!bytes) qFatal("cannot read %s", e.name.c_str());
            bool ok = false;
            out.push_back({e.name, bytes->size(), tests::readShard(*bytes, f, &ok)});
            if (!ok) qFatal("%s is not a readable shard", e.name.c_str());
        }
        return out;
    }

    std::pair<int, std::string> postSpec(const std::string& body, const std::string& query = {})
    {
        auto r = m_cluster.http().send(client::Method::Post, m_cluster.proxyUrl() + "/v1/ishard" + query,
                                       client::Body::string(body));
        if (!r) return {0, r.error().message};
        auto j = nlohmann::json::parse(r->body, nullptr, false);
        return {r->status, j.is_object() ? j.value("message", std::string()) : r->body};
    }

    std::size_t workFiles()
    {
        std::size_t n = 0;
        for (int t = 0; t < m_cluster.targetCount(); ++t) {
            for (const auto& mp : m_cluster.targetMountpaths(t)) {
                QDirIterator it(QString::fromStdString(mp + "/.tessera/work"), QDir::Files,
                                QDirIterator::Subdirectories);
                while (it.hasNext()) {
                    it.next();
                    ++n;
                }
            }
        }
        return n;
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        auto c = client();
        QVERIFY(c.createBucket("loose"));
        QVERIFY(c.createBucket("loose-big"));
        std::mt19937 rng(5);
        for (int i = 0; i < kSamples; ++i) {
            char key[32];
            std::snprintf(key, sizeof key, "train/s%05d", i);
            m_loose[std::string(key) + ".png"] = tests::randomBytes(100 + rng() % 1400, i);
            m_loose[std::string(key) + ".cls"] = std::to_string(i % 10);
            if (i % 2 == 0) m_loose[std::string(key) + ".json"] = "{\"i\":" + std::to_string(i) + "}";
        }
        QCOMPARE(m_loose.size(), std::size_t{10000});
        QCOMPARE(tests::putAll(m_cluster.proxyUrl(), "loose", m_loose, 16), 0);
        for (int i = 0; i < 150; ++i) {
            char key[32];
            std::snprintf(key, sizeof key, "b%03d", i);
            m_big[std::string(key) + ".bin"] = tests::randomBytes(std::size_t{1} << 20, 1000 + i);
            m_big[std::string(key) + ".cls"] = "1";
        }
        QCOMPARE(tests::putAll(m_cluster.proxyUrl(), "loose-big", m_big, 8), 0);
    }

    void everySampleOnceIntactNeverSplit()
    {
        auto s = specFor("loose", "wds");
        s.shardSize = 256 << 10;
        auto c = client();
        QVERIFY(c.createBucket("wds"));
        auto plan = c.ishardDryRun(s);
        QVERIFY2(plan, plan ? "" : plan.error().message.c_str());
        auto st = run(s);
        QCOMPARE(api::jobStateName(st.state), std::string_view("finished"));
        QCOMPARE(st.progress.objectsDone, std::uint64_t{10000});
        QVERIFY(st.targets.size() > 1);  // the shards are spread; each target built its own
        std::uint64_t perTarget = 0;
        for (const auto& [id, ts] : st.targets) perTarget += ts.progress.objectsDone;
        QCOMPARE(perTarget, std::uint64_t{10000});

        const auto got = shards("wds");
        QCOMPARE(got.size(), plan->shards.size());
        std::map<std::string, std::string> shardOfKey;
        std::set<std::string> seen;
        std::string lastKey;
        for (std::size_t i = 0; i < got.size(); ++i) {
            const auto& sh = got[i];
            QCOMPARE(sh.name, plan->shards[i].name);
            QCOMPARE(sh.size, plan->shards[i].bytes);  // the estimate is the .tar's exact size
            std::set<std::string> keysHere;
            if (sh.size > s.shardSize) QCOMPARE(plan->shards[i].samples, std::uint64_t{1});
            std::string prevKey, prevExt;
            for (const auto& [name, data] : sh.members) {
                QVERIFY2(m_loose.count(name), name.c_str());
                QVERIFY2(data == m_loose.at(name), name.c_str());
                QVERIFY2(seen.insert(name).second, name.c_str());  // exactly once
                const auto key = keyOf(name);
                auto [it, fresh] = shardOfKey.emplace(key, sh.name);
                QVERIFY2(it->second == sh.name, key.c_str());  // never split
                if (key != prevKey) {
                    QVERIFY2(keysHere.insert(key).second, key.c_str());  // files together
                    QVERIFY2(lastKey < key, key.c_str());                // alpha across shards
                    lastKey = key;
                } else {
                    QVERIFY(prevExt < extOf(name));  // extension order inside a sample
                }
                prevKey = key;
                prevExt = extOf(name);
            }
        }
        QCOMPARE(seen.size(), m_loose.size());
        QCOMPARE(shardOfKey.size(), std::size_t{kSamples});
        QCOMPARE(workFiles(), std::size_t{0});
    }

    void shuffleReproducibleFromSeed()
    {
        auto sequence = [&](const std::string& dst, std::uint64_t seed) {
            auto s = specFor("loose", dst);
            s.prefix = "train/s01";  // 1,000 samples
            s.sampleCount = 100;
            s.shardSize = 0;
            s.order = spec::SampleOrder::Shuffle;
            s.seed = seed;
            auto st = run(s);
            if (st.state != api::JobState::Finished) qFatal("ishard into %s: %s", dst.c_str(), st.error.c_str());
            std::vector<std::string> names;
            for (const auto& sh : shards(dst)) {
                names.push_back("|" + sh.name);
                for (const auto& [n, d] : sh.members) names.push_back(n);
            }
            return names;
        };
        const auto a = sequence("wds-shuf-a", 11);
        const auto b = sequence("wds-shuf-b", 11);
        const auto c = sequence("wds-shuf-c", 12);
        QCOMPARE(a.size(), std::size_t{10 + 2500});
        QVERIFY(a == b);
        QVERIFY(a != c);
        // A shuffle, not the alpha order.
        std::vector<std::string> keys;
        for (const auto& n : a) {
            if (n[0] != '|' && (keys.empty() || keys.back() != keyOf(n))) keys.push_back(keyOf(n));
        }
        QCOMPARE(keys.size(), std::size_t{1000});
        QVERIFY(!std::is_sorted(keys.begin(), keys.end()));
    }

    void dryRunStartsNothing()
    {
        auto c = client();
        QVERIFY(c.createBucket("wds-dry"));
        const auto jobsBefore = c.listJobs()->size();
        auto s = specFor("loose", "wds-dry");
        s.sampleCount = 1000;
        s.shardSize = 0;
        auto plan = c.ishardDryRun(s);
        QVERIFY2(plan, plan ? "" : plan.error().message.c_str());
        QCOMPARE(plan->shards.size(), std::size_t{4});
        QCOMPARE(plan->samples, std::uint64_t{kSamples});
        QCOMPARE(plan->objects, std::uint64_t{10000});
        QCOMPARE(plan->shards[3].name, std::string("shard-000003.tar"));
        // The same through the spec's own flag.
        auto [code, message] = postSpec("{\"src_bck\":\"loose\",\"dst_bck\":\"wds-dry\",\"dry_run\":true}");
        QCOMPARE(code, 200);
        QCOMPARE(c.listJobs()->size(), jobsBefore);
        QVERIFY(c.listAll("wds-dry")->empty());
    }

    void abortLeavesNoPartialShard()
    {
        auto c = client();
        QVERIFY(c.createBucket("wds-abort"));
        auto s = specFor("loose-big", "wds-abort");
        s.sampleCount = 1;
        s.shardSize = 0;
        auto st = c.startIshard(s);
        QVERIFY2(st, st ? "" : st.error().message.c_str());
        // Abort at once: the targets have started (the answer came after
        // they did) and are some way into their 150 shards of 1 MiB.
        QVERIFY(c.abortJob(st->id));
        const auto end = tests::waitJob(c, st->id);
        QVERIFY2(end.state == api::JobState::Aborted, std::string(api::jobStateName(end.state)).c_str());
        QVERIFY(end.progress.objectsDone < 300);
        // Whatever exists is a whole shard: its one sample, both files, exact bytes.
        const auto got = shards("wds-abort");
        QVERIFY(got.size() < 150);
        for (const auto& sh : got) {
            QCOMPARE(sh.members.size(), std::size_t{2});
            QCOMPARE(keyOf(sh.members[0].first), keyOf(sh.members[1].first));
            for (const auto& [n, d] : sh.members) QVERIFY2(d == m_big.at(n), n.c_str());
        }
        QVERIFY(QTest::qWaitFor([&] { return workFiles() == 0; }, 10000));
    }

    void badSpecsNameTheField_data()
    {
        QTest::addColumn<QString>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("says");
        const QString b = "\"src_bck\":\"loose\",\"dst_bck\":\"wds-bad\"";
        QTest::newRow("src") << "{\"src_bck\":\"x\",\"dst_bck\":\"wds-bad\"}" << 400 << "/src_bck";
        QTest::newRow("dst") << "{\"src_bck\":\"loose\"}" << 400 << "/dst_bck";
        QTest::newRow("prefix") << "{" + b + ",\"prefix\":[\"a\"]}" << 400 << "/prefix";
        QTest::newRow("shard_size") << "{" + b + ",\"shard_size\":\"lots\"}" << 400 << "/shard_size";
        QTest::newRow("sample_count") << "{" + b + ",\"sample_count\":0}" << 400 << "/sample_count";
        QTest::newRow("both sizes") << "{" + b + ",\"sample_count\":3,\"shard_size\":\"1MiB\"}" << 400
                                    << "/sample_count";
        QTest::newRow("shard_template") << "{" + b + ",\"shard_template\":\"s{3..1}\"}" << 400 << "/shard_template";
        QTest::newRow("ext") << "{" + b + ",\"ext\":\".7z\"}" << 400 << "/ext";
        QTest::newRow("sample_key_pattern")
            << "{" + b + ",\"sample_key_pattern\":\"[(\"}" << 400 << "/sample_key_pattern";
        QTest::newRow("sort") << "{" + b + ",\"sort\":\"zigzag\"}" << 400 << "/sort";
        QTest::newRow("missing_extension_action")
            << "{" + b + ",\"missing_extension_action\":\"shrug\"}" << 400 << "/missing_extension_action";
        QTest::newRow("sample_exts") << "{" + b + ",\"sample_exts\":[\"png\"]}" << 400 << "/sample_exts/0";
        QTest::newRow("dry_run") << "{" + b + ",\"dry_run\":1}" << 400 << "/dry_run";
        QTest::newRow("unknown field") << "{" + b + ",\"shard_sise\":\"1MiB\"}" << 400 << "/shard_sise";
        QTest::newRow("malformed") << "{" << 400 << "malformed JSON";
        QTest::newRow("empty prefix") << "{" + b + ",\"prefix\":\"nothing-here/\"}" << 400 << "/prefix";
        QTest::newRow("template too short")
            << "{" + b + ",\"sample_count\":1,\"shard_template\":\"one-{0..9}\"}" << 400 << "/shard_template";
        QTest::newRow("missing extension")
            << "{" + b + ",\"missing_extension_action\":\"abort\",\"sample_exts\":[\".png\",\".json\"]}" << 400
            << "sample \"train/s00001\" has no .json";
        QTest::newRow("no source bucket") << "{\"src_bck\":\"no-such\",\"dst_bck\":\"wds-bad\"}" << 404 << "no-such";
        QTest::newRow("no destination bucket") << "{\"src_bck\":\"loose\",\"dst_bck\":\"no-such\"}" << 404 << "no-such";
    }

    void badSpecsNameTheField()
    {
        QFETCH(QString, body);
        QFETCH(int, status);
        QFETCH(QString, says);
        auto c = client();
        if (!c.bucketProps("wds-bad")) QVERIFY(c.createBucket("wds-bad"));
        const auto before = c.listJobs()->size();
        auto [code, message] = postSpec(body.toStdString());
        QCOMPARE(code, status);
        QVERIFY2(message.find(says.toStdString()) != std::string::npos, message.c_str());
        // And through POST /v1/jobs, the same answer.
        auto j = nlohmann::json::parse(body.toStdString(), nullptr, false);
        if (!j.is_discarded()) {
            auto r = m_cluster.http().send(client::Method::Post, m_cluster.proxyUrl() + "/v1/jobs",
                                           client::Body::string(api::dumpJson({{"kind", "ishard"}, {"args", j}})));
            QVERIFY(r);
            QCOMPARE(r->status, status);
        }
        QCOMPARE(c.listJobs()->size(), before);
        QVERIFY(c.listAll("wds-bad")->empty());
    }

    // More dry runs at once than the proxy has workers (max(4, 2 x cores)): each plans on a
    // worker, and its listing must not need another one. (When the planner
    // listed through the proxy's own HTTP port, 12 at once took every worker
    // and each waited for a listing none was free to answer: 504 after the
    // list timeout, or no answer at all.)
    void dryRunsAtOnceAllAnswer()
    {
        auto c = client();
        QVERIFY(c.createBucket("wds-many"));
        const auto r = tests::sendAtOnce(16, [this](int) {
            return tests::AtOnceCall{client::Method::Post,
                                     m_cluster.proxyUrl() + "/v1/ishard?dry_run=true",
                                     "{\"src_bck\":\"loose\",\"dst_bck\":\"wds-many\"}",
                                     {}};
        });
        for (const auto& a : r.answers) QVERIFY2(a.status == 200, a.body.c_str());
        QVERIFY2(r.took < std::chrono::seconds(20), r.tookText().c_str());
        QVERIFY(c.listAll("wds-many")->empty());
    }

    // The planner lists the source in process (ProxyApi::listPage): a target
    // that does not answer makes the plan a 503 naming it, never a plan of
    // the names the others hold. Nothing starts; with the target back the
    // same spec plans every sample. Last: it takes a target down.
    void targetDownPlansNothing()
    {
        auto c = client();
        QVERIFY(c.createBucket("wds-down"));
        const auto before = c.listJobs()->size();
        m_cluster.killTarget(2);
        const std::string spec = "{\"src_bck\":\"loose\",\"dst_bck\":\"wds-down\"}";
        for (const std::string query : {"?dry_run=true", ""}) {
            auto [code, message] = postSpec(spec, query);
            QCOMPARE(code, 503);
            QVERIFY2(message.find("listing incomplete: target ") != std::string::npos, message.c_str());
        }
        QCOMPARE(c.listJobs()->size(), before);
        QVERIFY2(m_cluster.restartTarget(2), m_cluster.error().c_str());
        QVERIFY(m_cluster.waitForTargets(3, std::chrono::seconds(20)));
        auto [code, message] = postSpec(spec, "?dry_run=true");
        QCOMPARE(code, 200);
        auto plan = c.ishardDryRun(specFor("loose", "wds-down"));
        QVERIFY2(plan, plan ? "" : plan.error().message.c_str());
        QCOMPARE(plan->samples, std::uint64_t{kSamples});
        QCOMPARE(plan->objects, std::uint64_t{10000});
    }
};

QTEST_GUILESS_MAIN(TestIshard)
#include "test_ishard.moc"
