// The ishard planner: the exact cut rule (the estimate is the bytes the
// writer produces), samples never split and kept together in extension
// order, the three orders (shuffle reproducible across builds, sensitive to
// its seed), each missing-extension policy, the shard name template, and
// field-level errors of the spec.
#include "archive/archive_writer.h"
#include "spec/ishard_plan.h"
#include "spec/ishard_spec.h"

#include <QTest>
#include <nlohmann/json.hpp>
#include <set>

using namespace tessera;
using spec::IshardSpec;
using spec::SourceObject;

namespace {

// key000.png (1000 bytes: 1536 as tar) + key000.cls (1 byte: 1024) = 2560 per sample.
std::vector<SourceObject> pngClsSamples(int n)
{
    std::vector<SourceObject> out;
    for (int i = 0; i < n; ++i) {
        char key[16];
        std::snprintf(key, sizeof key, "key%03d", i);
        out.push_back({std::string(key) + ".png", 1000});
        out.push_back({std::string(key) + ".cls", 1});
    }
    return out;
}

IshardSpec specWith(std::uint64_t shardSize)
{
    IshardSpec s;
    s.srcBck = "src";
    s.dstBck = "dst";
    s.shardSize = shardSize;
    return s;
}

std::vector<std::string> keysOf(const spec::IshardPlan& p)
{
    std::vector<std::string> keys;
    for (const auto& sh : p.shards) {
        for (const auto& m : sh.members) {
            const auto key = m.name.substr(0, m.name.find('.'));
            if (keys.empty() || keys.back() != key) keys.push_back(key);
        }
    }
    return keys;
}

std::vector<std::string> pointers(const nlohmann::json& j)
{
    std::vector<std::string> out;
    for (const auto& e : spec::validateIshardSpec(j)) out.push_back(e.pointer);
    return out;
}

}  // namespace

class TestIshardPlan : public QObject {
    Q_OBJECT

private slots:
    void cutRuleIsExact()
    {
        const auto objects = pngClsSamples(10);
        // Exactly three samples fit: 1024 + 3 * 2560.
        auto p = spec::planIshard(objects, specWith(1024 + 3 * 2560));
        QVERIFY(p);
        QCOMPARE(p->shards.size(), std::size_t{4});
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(p->shards[i].samples, std::uint64_t{3});
            QCOMPARE(p->shards[i].bytes, std::uint64_t{1024 + 3 * 2560});
        }
        QCOMPARE(p->shards[3].samples, std::uint64_t{1});
        // One byte less: two per shard.
        auto q = spec::planIshard(objects, specWith(1024 + 3 * 2560 - 1));
        QVERIFY(q);
        QCOMPARE(q->shards.size(), std::size_t{5});
        for (const auto& sh : q->shards) QCOMPARE(sh.samples, std::uint64_t{2});
        QCOMPARE(q->samples, std::uint64_t{10});
        QCOMPARE(q->objects, std::uint64_t{20});
        QCOMPARE(q->inputBytes, std::uint64_t{10 * 1001});
    }

    void estimateEqualsWrittenTar()
    {
        auto p = spec::planIshard(pngClsSamples(7), specWith(1 << 20));
        QVERIFY(p);
        QCOMPARE(p->shards.size(), std::size_t{1});
        std::string tar;
        auto w = archive::ArchiveWriter::create(archive::ArchiveFormat::Tar, [&](const char* d, std::size_t n) {
            tar.append(d, n);
            return api::Status{};
        });
        QVERIFY(w);
        for (const auto& m : p->shards[0].members) QVERIFY((*w)->add(m.name, std::string(m.size, 'x'), 0));
        QVERIFY((*w)->finish());
        QCOMPARE(std::uint64_t{tar.size()}, p->shards[0].bytes);
    }

    void oversizeSampleAloneAndNeverSplit()
    {
        std::vector<SourceObject> objects{{"a.png", 100}, {"a.cls", 1}, {"b.png", 50000}, {"b.cls", 1},
                                          {"c.png", 100}, {"c.cls", 1}, {"d.png", 100},   {"d.cls", 1}};
        auto p = spec::planIshard(objects, specWith(8192));
        QVERIFY(p);
        QCOMPARE(p->shards.size(), std::size_t{3});
        QCOMPARE(p->shards[0].samples, std::uint64_t{1});  // a: b would not fit beside it
        QCOMPARE(p->shards[1].samples, std::uint64_t{1});  // b alone, over the bound
        QVERIFY(p->shards[1].bytes > 8192);
        QCOMPARE(p->shards[1].members.size(), std::size_t{2});
        QCOMPARE(p->shards[2].samples, std::uint64_t{2});  // c and d
        for (const auto& sh : p->shards) {
            if (sh.samples > 1) QVERIFY(sh.bytes <= 8192);
        }
        // Every object exactly once, a sample's files in one shard.
        std::map<std::string, int> shardOfKey;
        std::set<std::string> seen;
        for (std::size_t i = 0; i < p->shards.size(); ++i) {
            for (const auto& m : p->shards[i].members) {
                QVERIFY(seen.insert(m.name).second);
                const auto key = m.name.substr(0, 1);
                auto [it, fresh] = shardOfKey.emplace(key, int(i));
                QCOMPARE(it->second, int(i));
            }
        }
        QCOMPARE(seen.size(), objects.size());
    }

    void sampleFilesTogetherByExtension()
    {
        // Listing order scatters a sample's files; the shard keeps them together.
        std::vector<SourceObject> objects{{"x/b.png", 1}, {"x/a.json", 1}, {"x/a.png", 1},
                                          {"x/b.cls", 1}, {"x/a.cls", 1},  {"x/a.seg.png", 1}};
        auto p = spec::planIshard(objects, specWith(1 << 20));
        QVERIFY(p);
        std::vector<std::string> names;
        for (const auto& m : p->shards.at(0).members) names.push_back(m.name);
        QCOMPARE(names,
                 (std::vector<std::string>{"x/a.cls", "x/a.json", "x/a.png", "x/a.seg.png", "x/b.cls", "x/b.png"}));
        QCOMPARE(p->samples, std::uint64_t{2});
    }

    void sampleCountCut()
    {
        auto s = specWith(0);
        s.sampleCount = 3;
        auto p = spec::planIshard(pngClsSamples(10), s);
        QVERIFY(p);
        QCOMPARE(p->shards.size(), std::size_t{4});
        QCOMPARE(p->shards[3].samples, std::uint64_t{1});
        QCOMPARE(p->shards[0].name, std::string("shard-000000.tar"));
        QCOMPARE(p->shards[3].name, std::string("shard-000003.tar"));
    }

    void alphaAndListingOrder()
    {
        std::vector<SourceObject> objects{{"c.png", 1}, {"a.png", 1}, {"b.png", 1}, {"a.cls", 1}};
        auto s = specWith(1 << 20);
        auto alpha = spec::planIshard(objects, s);
        QVERIFY(alpha);
        QCOMPARE(keysOf(*alpha), (std::vector<std::string>{"a", "b", "c"}));
        s.order = spec::SampleOrder::None;
        auto none = spec::planIshard(objects, s);
        QVERIFY(none);
        QCOMPARE(keysOf(*none), (std::vector<std::string>{"c", "a", "b"}));
    }

    void shuffleIsReproducibleAndSeeded()
    {
        const auto objects = pngClsSamples(100);
        auto s = specWith(1 << 20);
        s.order = spec::SampleOrder::Shuffle;
        s.seed = 42;
        auto p1 = spec::planIshard(objects, s);
        auto p2 = spec::planIshard(objects, s);
        QVERIFY(p1 && p2);
        const auto k1 = keysOf(*p1);
        QCOMPARE(k1, keysOf(*p2));
        QCOMPARE(k1.size(), std::size_t{100});
        QCOMPARE(std::set<std::string>(k1.begin(), k1.end()).size(), std::size_t{100});  // a permutation
        QCOMPARE(p1->seed.value_or(0), std::uint64_t{42});
        // Pinned: std::mt19937_64 is specified exactly and the shuffle is ours,
        // so every build and standard library gives this order.
        QCOMPARE((std::vector<std::string>(k1.begin(), k1.begin() + 5)), kSeed42Head);
        s.seed = 43;
        auto p3 = spec::planIshard(objects, s);
        QVERIFY(p3);
        QVERIFY(keysOf(*p3) != k1);
        // The input's order does not matter (the shuffle starts from alpha).
        auto reversed = objects;
        std::reverse(reversed.begin(), reversed.end());
        s.seed = 42;
        QCOMPARE(keysOf(*spec::planIshard(reversed, s)), k1);
        // No seed: the planner refuses (the proxy picks one first).
        s.seed.reset();
        QCOMPARE(spec::planIshard(objects, s).kind(), api::ErrorKind::BadRequest);
    }

    void missingExtensionPolicies()
    {
        std::vector<SourceObject> objects{{"a.png", 1}, {"a.cls", 1}, {"b.png", 1}, {"c.png", 1}, {"c.cls", 1}};
        auto s = specWith(1 << 20);
        s.sampleExts = {".png", ".cls"};

        s.missingExt = spec::MissingExtAction::Abort;
        auto abort = spec::planIshard(objects, s);
        QVERIFY(!abort);
        QCOMPARE(abort.kind(), api::ErrorKind::BadRequest);
        QVERIFY2(abort.error().message.find("sample \"b\" has no .cls") != std::string::npos,
                 abort.error().message.c_str());

        s.missingExt = spec::MissingExtAction::Warn;
        auto warn = spec::planIshard(objects, s);
        QVERIFY(warn);
        QCOMPARE(warn->samples, std::uint64_t{3});
        QCOMPARE(warn->warningCount, std::uint64_t{1});
        QVERIFY(warn->warnings.at(0).find("\"b\"") != std::string::npos);

        s.missingExt = spec::MissingExtAction::Exclude;
        auto exclude = spec::planIshard(objects, s);
        QVERIFY(exclude);
        QCOMPARE(exclude->samples, std::uint64_t{2});
        QCOMPARE(exclude->excludedSamples, std::uint64_t{1});
        QCOMPARE(keysOf(*exclude), (std::vector<std::string>{"a", "c"}));

        s.missingExt = spec::MissingExtAction::Ignore;
        auto ignore = spec::planIshard(objects, s);
        QVERIFY(ignore);
        QCOMPARE(ignore->samples, std::uint64_t{3});
        QCOMPARE(ignore->warningCount, std::uint64_t{0});
        QCOMPARE(ignore->excludedSamples, std::uint64_t{0});
    }

    void templateTooShort()
    {
        auto s = specWith(1024 + 2560);  // one sample per shard
        s.shardTemplate = "part-{0..1}";
        auto p = spec::planIshard(pngClsSamples(3), s);
        QVERIFY(!p);
        QCOMPARE(p.kind(), api::ErrorKind::BadRequest);
        QVERIFY2(p.error().message.find("/shard_template") != std::string::npos, p.error().message.c_str());
        QVERIFY(p.error().message.find("3 shards") != std::string::npos);
        auto ok = spec::planIshard(pngClsSamples(2), s);
        QVERIFY(ok);
        QCOMPARE(ok->shards[1].name, std::string("part-1.tar"));
    }

    void regexKey()
    {
        std::vector<SourceObject> objects{
            {"img1_rgb.png", 1}, {"img1_depth.png", 1}, {"img2_rgb.png", 1}, {"README", 1}};
        auto s = specWith(1 << 20);
        s.sampleKeyPattern = "^(img[0-9]+)_";
        auto p = spec::planIshard(objects, s);
        QVERIFY(p);
        QCOMPARE(p->samples, std::uint64_t{3});  // img1, img2, README (its own sample)
        std::vector<std::string> names;
        for (const auto& m : p->shards.at(0).members) names.push_back(m.name);
        // Keys in order README < img1 < img2; within img1 by extension "_depth.png" < "_rgb.png".
        QCOMPARE(names, (std::vector<std::string>{"README", "img1_depth.png", "img1_rgb.png", "img2_rgb.png"}));
    }

    void planJsonRoundTrip()
    {
        auto p = spec::planIshard(pngClsSamples(5), specWith(1024 + 2 * 2560));
        QVERIFY(p);
        auto back = spec::planFromJson(spec::planToJson(*p, true));
        QVERIFY(back);
        QCOMPARE(back->shards.size(), p->shards.size());
        QCOMPARE(back->shards[2].members.size(), p->shards[2].members.size());
        QCOMPARE(back->shards[2].objects, p->shards[2].objects);
        QCOMPARE(back->samples, p->samples);
        auto summary = spec::planFromJson(spec::planToJson(*p, false));
        QVERIFY(summary);
        QVERIFY(summary->shards[0].members.empty());
        QCOMPARE(summary->shards[0].objects, std::uint64_t{4});
        // The first samples: grouped as the shards hold them, and read back equal.
        QCOMPARE(p->firstSamples.size(), std::size_t{5});
        QCOMPARE(p->firstSamples[0].shard, p->shards[0].name);
        QCOMPARE(p->firstSamples[0].files.size(), std::size_t{2});
        QCOMPARE(p->firstSamples[0].files[0], p->shards[0].members[0].name);
        QCOMPARE(p->firstSamples[0].bytes, p->shards[0].members[0].size + p->shards[0].members[1].size);
        QVERIFY(summary->firstSamples == p->firstSamples);
    }

    // The dry run's answer (POST /v1/ishard?dry_run=true) reads back to the
    // same spec and plan; a wrong field is named.
    void dryRunAnswerRoundTrips()
    {
        auto s = specWith(1024 + 2 * 2560);
        s.order = spec::SampleOrder::Shuffle;
        s.seed = 99;
        auto p = spec::planIshard(pngClsSamples(7), s);
        QVERIFY(p);
        const std::string body = nlohmann::json(spec::IshardDryRun{s, *p}).dump();
        auto back = spec::parseIshardDryRun(body);
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
        QVERIFY(nlohmann::json(back->spec) == nlohmann::json(s));
        QCOMPARE(back->plan.seed, std::optional<std::uint64_t>(99));
        QVERIFY(back->plan.firstSamples == p->firstSamples);
        QCOMPARE(back->plan.shards.size(), p->shards.size());
        QCOMPARE(back->plan.samples, p->samples);
        auto bad = nlohmann::json::parse(body);
        bad["spec"]["shard_size"] = "lots";
        auto e = spec::parseIshardDryRun(bad.dump());
        QVERIFY(!e.ok());
        QVERIFY2(e.error().message.find("/spec") != std::string::npos, e.error().message.c_str());
        bad = nlohmann::json::parse(body);
        bad["plan"]["first_samples"][0]["bytes"] = "many";
        QVERIFY(!spec::parseIshardDryRun(bad.dump()).ok());
    }

    void specFieldErrors_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("pointer");
        const QString base = "\"src_bck\":\"raw\",\"dst_bck\":\"shards\"";
        QTest::newRow("no src") << "{\"dst_bck\":\"shards\"}"
                                << "/src_bck";
        QTest::newRow("bad src") << "{\"src_bck\":\"x\",\"dst_bck\":\"shards\"}"
                                 << "/src_bck";
        QTest::newRow("no dst") << "{\"src_bck\":\"raw\"}"
                                << "/dst_bck";
        QTest::newRow("dst not a name") << "{\"src_bck\":\"raw\",\"dst_bck\":7}"
                                        << "/dst_bck";
        QTest::newRow("prefix") << "{" + base + ",\"prefix\":3}"
                                << "/prefix";
        QTest::newRow("size junk") << "{" + base + ",\"shard_size\":\"12x\"}"
                                   << "/shard_size";
        QTest::newRow("size zero") << "{" + base + ",\"shard_size\":0}"
                                   << "/shard_size";
        QTest::newRow("size type") << "{" + base + ",\"shard_size\":true}"
                                   << "/shard_size";
        QTest::newRow("both") << "{" + base + ",\"shard_size\":\"1MiB\",\"sample_count\":5}"
                              << "/sample_count";
        QTest::newRow("count zero") << "{" + base + ",\"sample_count\":0}"
                                    << "/sample_count";
        QTest::newRow("count negative") << "{" + base + ",\"sample_count\":-3}"
                                        << "/sample_count";
        QTest::newRow("template") << "{" + base + ",\"shard_template\":\"s-{9..1}\"}"
                                  << "/shard_template";
        QTest::newRow("template name") << "{" + base + ",\"shard_template\":\"../{0..9}\"}"
                                       << "/shard_template";
        QTest::newRow("ext") << "{" + base + ",\"ext\":\".rar\"}"
                             << "/ext";
        QTest::newRow("key regex") << "{" + base + ",\"sample_key_pattern\":\"(\"}"
                                   << "/sample_key_pattern";
        QTest::newRow("key groups") << "{" + base + ",\"sample_key_pattern\":\"abc\"}"
                                    << "/sample_key_pattern";
        QTest::newRow("sort") << "{" + base + ",\"sort\":\"random\"}"
                              << "/sort";
        QTest::newRow("seed") << "{" + base + ",\"sort\":\"shuffle:x1\"}"
                              << "/sort";
        QTest::newRow("action") << "{" + base + ",\"missing_extension_action\":\"drop\"}"
                                << "/missing_extension_action";
        QTest::newRow("exts needed") << "{" + base + ",\"missing_extension_action\":\"abort\"}"
                                     << "/sample_exts";
        QTest::newRow("ext no dot") << "{" + base + ",\"sample_exts\":[\"png\"]}"
                                    << "/sample_exts/0";
        QTest::newRow("ext twice") << "{" + base + ",\"sample_exts\":[\".png\",\".png\"]}"
                                   << "/sample_exts/1";
        QTest::newRow("exts type") << "{" + base + ",\"sample_exts\":\".png\"}"
                                   << "/sample_exts";
        QTest::newRow("dry run") << "{" + base + ",\"dry_run\":\"yes\"}"
                                 << "/dry_run";
        QTest::newRow("unknown") << "{" + base + ",\"shardsize\":\"1MiB\"}"
                                 << "/shardsize";
        QTest::newRow("not an object") << "[1]"
                                       << "";
    }

    void specFieldErrors()
    {
        QFETCH(QString, json);
        QFETCH(QString, pointer);
        const auto j = nlohmann::json::parse(json.toStdString());
        QCOMPARE(pointers(j), (std::vector<std::string>{pointer.toStdString()}));
        auto s = spec::parseIshardSpec(j);
        QVERIFY(!s);
        QCOMPARE(s.kind(), api::ErrorKind::BadRequest);
        QVERIFY2(s.error().message.find(pointer.toStdString() + ":") != std::string::npos || pointer.isEmpty(),
                 s.error().message.c_str());
    }

    void specDefaultsAndCanonicalJson()
    {
        auto s = spec::parseIshardSpec(nlohmann::json::parse(
            "{\"src_bck\":{\"name\":\"raw\"},\"dst_bck\":\"shards\",\"shard_size\":\"16MiB\",\"sort\":\"shuffle:9\",\n "
            "               \"ext\":\".tar.lz4\",\"missing_extension_action\":\"warn\",\"sample_exts\":[\".png\"]}"));
        QVERIFY2(s, s ? "" : s.error().message.c_str());
        QCOMPARE(s->srcBck, std::string("raw"));
        QCOMPARE(s->shardSize, std::uint64_t{16} << 20);
        QCOMPARE(s->seed.value_or(0), std::uint64_t{9});
        QCOMPARE(s->format, archive::ArchiveFormat::TarLz4);
        auto again = spec::parseIshardSpec(nlohmann::json(*s));
        QVERIFY(again);
        QVERIFY(nlohmann::json(*again) == nlohmann::json(*s));
        auto d = spec::parseIshardSpec(nlohmann::json::parse("{\"src_bck\":\"raw\",\"dst_bck\":\"shards\"}"));
        QVERIFY(d);
        QCOMPARE(d->shardSize, IshardSpec::kDefaultShardSize);
        QCOMPARE(d->shardTemplate, std::string(IshardSpec::kDefaultTemplate));
        QCOMPARE(d->ext, std::string(".tar"));
        QVERIFY(d->order == spec::SampleOrder::Alpha);
        QVERIFY(d->missingExt == spec::MissingExtAction::Ignore);
    }

private:
    const std::vector<std::string> kSeed42Head{"key070", "key021", "key043", "key060", "key082"};
};

QTEST_GUILESS_MAIN(TestIshardPlan)
#include "test_ishard_plan.moc"
