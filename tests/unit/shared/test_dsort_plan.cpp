// dSort's sort phase as pure functions: the exact order per algorithm
// (alphanumeric both ways, content int/float/string, shuffle reproducible
// and seed-sensitive, none), duplicates, the size and count cut (never
// splitting a record, every shard but the last within the bound), the
// output template running out, and external key map placement.
#include "archive/archive_writer.h"
#include "spec/dsort_plan.h"

#include <QTest>
#include <nlohmann/json.hpp>

using namespace tessera;
using spec::DsortRecord;

namespace {

std::vector<DsortRecord> records(const std::vector<std::string>& keys, std::uint64_t size = 2048)
{
    std::vector<DsortRecord> out;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        DsortRecord r;
        r.key = keys[i];
        r.owner = static_cast<std::uint32_t>(i % 3);
        r.index = i;
        r.shardIndex = i / 4;
        r.seq = i % 4;
        r.size = size;
        r.files = 2;
        out.push_back(r);
    }
    return out;
}

std::vector<std::string> keysOf(const std::vector<DsortRecord>& rs)
{
    std::vector<std::string> out;
    for (const auto& r : rs) out.push_back(r.key);
    return out;
}

spec::DsortAlgorithm algo(spec::DsortAlgorithmKind kind, bool decreasing = false)
{
    spec::DsortAlgorithm a;
    a.kind = kind;
    a.decreasing = decreasing;
    return a;
}

spec::DsortSpec sizeSpec(std::uint64_t size, std::uint64_t count = 0)
{
    spec::DsortSpec s;
    s.outputFormat = "out-{0..9}";
    s.outputExtension = ".tar";
    s.outputShardSize = count ? 0 : size;
    s.outputShardRecords = count;
    return s;
}

}  // namespace

class TestDsortPlan : public QObject {
    Q_OBJECT
private slots:
    void alphanumeric()
    {
        auto rs = records({"c", "a", "d", "b"});
        QVERIFY(spec::orderRecords(rs, algo(spec::DsortAlgorithmKind::Alphanumeric)).ok());
        QCOMPARE(keysOf(rs), (std::vector<std::string>{"a", "b", "c", "d"}));
        QVERIFY(spec::orderRecords(rs, algo(spec::DsortAlgorithmKind::Alphanumeric, true)).ok());
        QCOMPARE(keysOf(rs), (std::vector<std::string>{"d", "c", "b", "a"}));
    }

    void noneKeepsInputOrder()
    {
        auto rs = records({"z", "y", "x", "w", "v"});
        std::reverse(rs.begin(), rs.end());
        QVERIFY(spec::orderRecords(rs, algo(spec::DsortAlgorithmKind::None)).ok());
        QCOMPARE(keysOf(rs), (std::vector<std::string>{"z", "y", "x", "w", "v"}));
    }

    void contentKinds()
    {
        auto rs = records({"a", "b", "c", "d"});
        const std::vector<std::string> ints{"10", " -3\n", "7", "10"};
        for (std::size_t i = 0; i < rs.size(); ++i) rs[i].contentKey = ints[i];
        auto a = algo(spec::DsortAlgorithmKind::Content);
        a.keyType = spec::ContentKeyType::Int;
        QVERIFY(spec::orderRecords(rs, a).ok());
        QCOMPARE(keysOf(rs), (std::vector<std::string>{"b", "c", "a", "d"}));  // ties by key
        a.decreasing = true;
        QVERIFY(spec::orderRecords(rs, a).ok());
        QCOMPARE(keysOf(rs), (std::vector<std::string>{"a", "d", "c", "b"}));

        auto fs = records({"a", "b", "c"});
        fs[0].contentKey = "2.5";
        fs[1].contentKey = "-1e3";
        fs[2].contentKey = "0.25";
        a = algo(spec::DsortAlgorithmKind::Content);
        a.keyType = spec::ContentKeyType::Float;
        QVERIFY(spec::orderRecords(fs, a).ok());
        QCOMPARE(keysOf(fs), (std::vector<std::string>{"b", "c", "a"}));

        auto ss = records({"a", "b", "c"});
        ss[0].contentKey = "pear";
        ss[1].contentKey = "apple";
        ss[2].contentKey = "fig";
        a.keyType = spec::ContentKeyType::String;
        QVERIFY(spec::orderRecords(ss, a).ok());
        QCOMPARE(keysOf(ss), (std::vector<std::string>{"b", "c", "a"}));

        // A key that is not an integer names its record.
        auto bad = records({"a", "b"});
        bad[0].contentKey = "1";
        bad[1].contentKey = "1.5";
        a.keyType = spec::ContentKeyType::Int;
        auto st = spec::orderRecords(bad, a);
        QCOMPARE(st.kind(), api::ErrorKind::BadRequest);
        QVERIFY2(st.error().message.find("\"b\"") != std::string::npos, st.error().message.c_str());
    }

    void shuffleIsSeeded()
    {
        std::vector<std::string> keys;
        for (int i = 0; i < 50; ++i) keys.push_back("k" + std::to_string(100 + i));
        auto a = algo(spec::DsortAlgorithmKind::Shuffle);
        a.seed = 7;
        auto one = records(keys);
        QVERIFY(spec::orderRecords(one, a).ok());
        // The same records arriving in another order give the same shuffle.
        auto two = records(keys);
        std::reverse(two.begin(), two.end());
        QVERIFY(spec::orderRecords(two, a).ok());
        QCOMPARE(keysOf(one), keysOf(two));
        auto sorted = keysOf(one);
        std::sort(sorted.begin(), sorted.end());
        QCOMPARE(sorted, keys);  // a permutation
        QVERIFY(keysOf(one) != keys);
        a.seed = 8;
        auto three = records(keys);
        QVERIFY(spec::orderRecords(three, a).ok());
        QVERIFY(keysOf(three) != keysOf(one));
        // Stable across builds: the first keys of seed 7 are fixed.
        a.seed = 7;
        auto fixed = records({"a", "b", "c", "d", "e"});
        QVERIFY(spec::orderRecords(fixed, a).ok());
        auto again = records({"e", "d", "c", "b", "a"});
        QVERIFY(spec::orderRecords(again, a).ok());
        QCOMPARE(keysOf(fixed), keysOf(again));
        a.seed.reset();
        QCOMPARE(spec::orderRecords(fixed, a).kind(), api::ErrorKind::BadRequest);
    }

    void duplicates()
    {
        auto rs = records({"a", "b", "a", "c", "b", "a"});
        std::size_t count = 0;
        QCOMPARE(spec::duplicateKeys(rs, 10, count), (std::vector<std::string>{"a", "b"}));
        QCOMPARE(count, std::size_t{2});
        QCOMPARE(spec::duplicateKeys(rs, 1, count), (std::vector<std::string>{"a"}));
        QCOMPARE(count, std::size_t{2});
        QVERIFY(spec::duplicateKeys(records({"a", "b"}), 10, count).empty());
    }

    void cutBySize()
    {
        // 2048-byte records, bound 5120: 1024 (end) + 2 records = 5120 fits, a third does not.
        auto rs = records({"a", "b", "c", "d", "e"});
        auto shards = spec::cutShards(rs, sizeSpec(5120));
        QVERIFY(shards.ok());
        QCOMPARE(shards->size(), std::size_t{3});
        QCOMPARE((*shards)[0].name, std::string("out-0.tar"));
        QCOMPARE((*shards)[0].records, (std::vector<std::size_t>{0, 1}));
        QCOMPARE((*shards)[0].bytes, std::uint64_t{5120});
        QCOMPARE((*shards)[2].records, (std::vector<std::size_t>{4}));
        QCOMPARE((*shards)[2].bytes, archive::kTarEndBytes + 2048);
        // A record bigger than the bound gets a shard of its own, never split.
        auto big = records({"a", "b", "c"});
        big[1].size = 100000;
        shards = spec::cutShards(big, sizeSpec(5120));
        QVERIFY(shards.ok());
        QCOMPARE(shards->size(), std::size_t{3});
        QCOMPARE((*shards)[1].records, (std::vector<std::size_t>{1}));
    }

    void cutByCountAndTemplateLimit()
    {
        auto rs = records({"a", "b", "c", "d", "e", "f", "g"});
        auto shards = spec::cutShards(rs, sizeSpec(0, 3));
        QVERIFY(shards.ok());
        QCOMPARE(shards->size(), std::size_t{3});
        QCOMPARE((*shards)[2].records, (std::vector<std::size_t>{6}));
        auto s = sizeSpec(0, 1);
        s.outputFormat = "out-{0..3}";
        auto tooMany = spec::cutShards(rs, s);
        QCOMPARE(tooMany.kind(), api::ErrorKind::BadRequest);
        QVERIFY(tooMany.error().message.find("/output_format") != std::string::npos);
    }

    void externalKeyMap()
    {
        auto ekm = spec::parseEkm(R"({"cats-%02d": ["^cat_"], "dogs": ["^dog_", "^puppy_"], "rest": [".*"]})");
        QVERIFY2(ekm.ok(), ekm ? "" : ekm.error().message.c_str());
        QCOMPARE(ekm->size(), std::size_t{3});
        QCOMPARE(ekm->front().format, std::string("cats-%02d"));  // file order kept
        auto rs = records({"cat_1", "cat_2", "cat_3", "dog_1", "puppy_1", "owl_1"});
        auto s = sizeSpec(archive::kTarEndBytes + 2 * 2048);
        auto shards = spec::placeByEkm(rs, *ekm, s);
        QVERIFY2(shards.ok(), shards ? "" : shards.error().message.c_str());
        QCOMPARE(shards->size(), std::size_t{4});
        QCOMPARE((*shards)[0].name, std::string("cats-00.tar"));
        QCOMPARE((*shards)[0].records, (std::vector<std::size_t>{0, 1}));
        QCOMPARE((*shards)[1].name, std::string("cats-01.tar"));
        QCOMPARE((*shards)[1].records, (std::vector<std::size_t>{2}));
        QCOMPARE((*shards)[2].name, std::string("dogs.tar"));
        QCOMPARE((*shards)[2].records, (std::vector<std::size_t>{3, 4}));
        QCOMPARE((*shards)[3].name, std::string("rest.tar"));
        // Unplaced records and bad maps are errors naming what is wrong.
        auto partial = spec::parseEkm(R"({"cats": ["^cat_"]})");
        auto unplaced = spec::placeByEkm(rs, *partial, s);
        QCOMPARE(unplaced.kind(), api::ErrorKind::BadRequest);
        QVERIFY(unplaced.error().message.find("\"dog_1\"") != std::string::npos);
        QCOMPARE(spec::parseEkm("{\"x\": [\"(\"]}").kind(), api::ErrorKind::BadRequest);
        QCOMPARE(spec::parseEkm(R"({"x": []})").kind(), api::ErrorKind::BadRequest);
        QCOMPARE(spec::parseEkm(R"([1])").kind(), api::ErrorKind::BadRequest);
        QCOMPARE(spec::parseEkm(R"({"../x": ["a"]})").kind(), api::ErrorKind::BadRequest);
    }

    void recordsRoundTrip()
    {
        auto rs = records({"a", "b"});
        rs[1].contentKey = "12";
        auto back = spec::recordsFromJson(spec::recordsToJson(rs));
        QVERIFY(back.ok());
        QCOMPARE(back->size(), std::size_t{2});
        QCOMPARE((*back)[1].contentKey, std::string("12"));
        QCOMPARE((*back)[1].owner, rs[1].owner);
        QCOMPARE((*back)[1].size, rs[1].size);
        QVERIFY(!spec::recordsFromJson(nlohmann::json::parse(R"([["a"]])")).ok());
    }
};

QTEST_APPLESS_MAIN(TestDsortPlan)
#include "test_dsort_plan.moc"
