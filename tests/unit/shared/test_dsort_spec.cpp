// The dSort spec: a good spec parses to exact values and back through its
// canonical JSON; each field made wrong in turn gives exactly its JSON
// pointer; defaults follow AIStore's (output_bck = input_bck, output
// extension = input extension).
#include "spec/dsort_preview.h"
#include "spec/dsort_spec.h"

#include "api/wire.h"

#include <QTest>
#include <nlohmann/json.hpp>

using namespace tessera;
using nlohmann::json;
using spec::DsortSpec;

namespace {

json goodSpec()
{
    return json{{"input_bck", "src"},
                {"input_format", {{"template", "shard-{0000..0009}"}}},
                {"input_extension", ".tar"},
                {"output_bck", "dst"},
                {"output_format", "out-{000..999}"},
                {"output_extension", ".tgz"},
                {"output_shard_size", "10KiB"},
                {"algorithm", {{"kind", "shuffle"}, {"seed", "42"}}},
                {"max_mem_usage", "1MiB"},
                {"extract_concurrency_max_limit", 2},
                {"create_concurrency_max_limit", 3},
                {"duplicated_records", "warn"},
                {"missing_shards", "abort"},
                {"description", "a test"}};
}

std::vector<std::string> pointers(const json& j)
{
    std::vector<std::string> out;
    for (const auto& e : spec::validateDsortSpec(j)) out.push_back(e.pointer);
    return out;
}

}  // namespace

class TestDsortSpec : public QObject {
    Q_OBJECT
private slots:
    void goodSpecParses()
    {
        auto s = spec::parseDsortSpec(goodSpec());
        QVERIFY2(s.ok(), s ? "" : s.error().message.c_str());
        QCOMPARE(s->inputBck, std::string("src"));
        QCOMPARE(s->outputBck, std::string("dst"));
        QCOMPARE(s->inputTemplate, std::string("shard-{0000..0009}"));
        QCOMPARE(s->outputArchiveFormat, archive::ArchiveFormat::TarGz);
        QCOMPARE(s->outputShardSize, std::uint64_t{10240});
        QCOMPARE(s->outputShardRecords, std::uint64_t{0});
        QCOMPARE(s->algorithm.kind, spec::DsortAlgorithmKind::Shuffle);
        QCOMPARE(*s->algorithm.seed, std::uint64_t{42});
        QCOMPARE(s->memoryBudget(std::uint64_t{1} << 30), std::uint64_t{1} << 20);
        QCOMPARE(s->extractConcurrency, 2u);
        QCOMPARE(s->createConcurrency, 3u);
        QCOMPARE(s->duplicatedRecords, spec::DsortPolicy::Warn);
        QCOMPARE(s->missingShards, spec::DsortPolicy::Abort);
        auto names = s->inputNames();
        QVERIFY(names.ok());
        QCOMPARE(names->size(), std::size_t{10});
        QCOMPARE(names->front(), std::string("shard-0000.tar"));
        QCOMPARE(names->back(), std::string("shard-0009.tar"));
        // The canonical JSON reads back to the same spec.
        auto again = spec::parseDsortSpec(json(*s));
        QVERIFY2(again.ok(), again ? "" : again.error().message.c_str());
        QCOMPARE(json(*again).dump(), json(*s).dump());
    }

    void defaults()
    {
        auto s = spec::parseDsortSpec(json{{"input_bck", "bkt"},
                                           {"input_format", {{"objnames", {"a", "b"}}}},
                                           {"input_extension", ".zip"},
                                           {"output_shard_size", "100 records"}});
        QVERIFY2(s.ok(), s ? "" : s.error().message.c_str());
        QCOMPARE(s->outputBck, std::string("bkt"));
        QCOMPARE(s->outputExtension, std::string(".zip"));
        QCOMPARE(s->outputFormat, std::string(DsortSpec::kDefaultOutputFormat));
        QCOMPARE(s->outputShardRecords, std::uint64_t{100});
        QCOMPARE(s->algorithm.kind, spec::DsortAlgorithmKind::Alphanumeric);
        QCOMPARE(s->maxMemPercent, DsortSpec::kDefaultMemPercent);
        QCOMPARE(s->memoryBudget(1000), std::uint64_t{800});
        QCOMPARE(s->extractConcurrency, DsortSpec::kDefaultConcurrency);
        QCOMPARE(*s->inputNames(), (std::vector<std::string>{"a.zip", "b.zip"}));
        // Content with every part; 0 bytes of memory spills everything.
        auto c = spec::parseDsortSpec(
            json{{"input_bck", "bkt"},
                 {"input_format", {{"template", "s-{0..1}"}}},
                 {"output_shard_size", 4096},
                 {"max_mem_usage", "0"},
                 {"algorithm",
                  {{"kind", "content"}, {"extension", ".cls"}, {"content_key_type", "float"}, {"decreasing", true}}}});
        QVERIFY2(c.ok(), c ? "" : c.error().message.c_str());
        QCOMPARE(c->algorithm.keyType, spec::ContentKeyType::Float);
        QVERIFY(c->algorithm.decreasing);
        QCOMPARE(c->memoryBudget(std::uint64_t{1} << 30), std::uint64_t{0});
    }

    void eachFieldWrongNamesIt_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("pointer");
        QTest::newRow("input_bck") << "input_bck"
                                   << R"("bad name!")"
                                   << "/input_bck";
        QTest::newRow("output_bck") << "output_bck"
                                    << "7"
                                    << "/output_bck";
        QTest::newRow("input_format") << "input_format"
                                      << "[]"
                                      << "/input_format";
        QTest::newRow("input_template") << "input_format"
                                        << R"({"template":"s-{9..1}"})"
                                        << "/input_format/template";
        QTest::newRow("input_objnames") << "input_format"
                                        << R"({"objnames":["a",5]})"
                                        << "/input_format/objnames/1";
        QTest::newRow("input_both") << "input_format"
                                    << R"({"objnames":["a"],"template":"x"})"
                                    << "/input_format";
        QTest::newRow("input_extension") << "input_extension"
                                         << R"(".rar")"
                                         << "/input_extension";
        QTest::newRow("output_extension") << "output_extension"
                                          << R"("tar")"
                                          << "/output_extension";
        QTest::newRow("output_format") << "output_format"
                                       << "\"out-{1..\""
                                       << "/output_format";
        QTest::newRow("output_format_plain") << "output_format"
                                             << R"("out")"
                                             << "/output_format";
        QTest::newRow("output_shard_size") << "output_shard_size"
                                           << R"("10 parsecs")"
                                           << "/output_shard_size";
        QTest::newRow("output_shard_records") << "output_shard_size"
                                              << R"("0 records")"
                                              << "/output_shard_size";
        QTest::newRow("algorithm") << "algorithm"
                                   << R"("shuffle")"
                                   << "/algorithm";
        QTest::newRow("algorithm_kind") << "algorithm"
                                        << R"({"kind":"random"})"
                                        << "/algorithm/kind";
        QTest::newRow("algorithm_seed") << "algorithm"
                                        << R"({"kind":"shuffle","seed":"x1"})"
                                        << "/algorithm/seed";
        QTest::newRow("algorithm_decreasing") << "algorithm"
                                              << R"({"kind":"shuffle","decreasing":true})"
                                              << "/algorithm/decreasing";
        QTest::newRow("algorithm_extension") << "algorithm"
                                             << R"({"kind":"content","content_key_type":"int"})"
                                             << "/algorithm/extension";
        QTest::newRow("algorithm_key_type") << "algorithm"
                                            << R"({"kind":"content","extension":".cls","content_key_type":"date"})"
                                            << "/algorithm/content_key_type";
        QTest::newRow("algorithm_unknown") << "algorithm"
                                           << R"({"kind":"none","order":1})"
                                           << "/algorithm/order";
        QTest::newRow("ekm_file") << "ekm_file"
                                  << R"("no-slash")"
                                  << "/ekm_file";
        QTest::newRow("max_mem_usage") << "max_mem_usage"
                                       << R"("150%")"
                                       << "/max_mem_usage";
        QTest::newRow("max_mem_usage_size") << "max_mem_usage"
                                            << R"("lots")"
                                            << "/max_mem_usage";
        QTest::newRow("extract_concurrency") << "extract_concurrency_max_limit"
                                             << "-1"
                                             << "/extract_concurrency_max_limit";
        QTest::newRow("create_concurrency") << "create_concurrency_max_limit"
                                            << "1000"
                                            << "/create_concurrency_max_limit";
        QTest::newRow("duplicated_records") << "duplicated_records"
                                            << R"("panic")"
                                            << "/duplicated_records";
        QTest::newRow("missing_shards") << "missing_shards"
                                        << "true"
                                        << "/missing_shards";
        QTest::newRow("dry_run") << "dry_run"
                                 << R"("yes")"
                                 << "/dry_run";
        QTest::newRow("description") << "description"
                                     << "1"
                                     << "/description";
        QTest::newRow("unknown") << "output_shards"
                                 << "1"
                                 << "/output_shards";
    }

    void eachFieldWrongNamesIt()
    {
        QFETCH(QString, field);
        QFETCH(QString, value);
        QFETCH(QString, pointer);
        auto j = goodSpec();
        j[field.toStdString()] = json::parse(value.toStdString());
        QCOMPARE(pointers(j), std::vector<std::string>{pointer.toStdString()});
        auto s = spec::parseDsortSpec(j);
        QVERIFY(!s.ok());
        QCOMPARE(s.kind(), api::ErrorKind::BadRequest);
        QVERIFY2(s.error().message.find(pointer.toStdString() + ":") != std::string::npos, s.error().message.c_str());
    }

    void requiredFields()
    {
        QCOMPARE(pointers(json::object()),
                 (std::vector<std::string>{"/input_bck", "/input_format", "/output_shard_size"}));
        QCOMPARE(pointers(json::array()), std::vector<std::string>{""});
        QVERIFY(!spec::parseDsortSpec(std::string_view("{not json")).ok());
    }

    void ekmWithShuffleRefused()
    {
        auto j = goodSpec();
        j["ekm_file"] = "maps/ekm.json";
        QCOMPARE(pointers(j), std::vector<std::string>{"/ekm_file"});
        j["algorithm"] = json{{"kind", "alphanumeric"}};
        QCOMPARE(pointers(j), std::vector<std::string>{});
        auto s = spec::parseDsortSpec(j);
        QCOMPARE(s->ekmObject(), (std::pair<std::string, std::string>{"maps", "ekm.json"}));
    }

    // The dry run's answer (POST /v1/sort?dry_run=true) reads back to the
    // same spec and plan; a wrong field is named.
    void dryRunAnswerRoundTrips()
    {
        spec::DsortDryRun a;
        a.spec = *spec::parseDsortSpec(goodSpec());
        a.plan.inputShards = 10;
        a.plan.found = 9;
        a.plan.read = 9;
        a.plan.missing = {"shard-0009.tar"};
        a.plan.missingCount = 1;
        a.plan.inputBytes = 123456;
        a.plan.records = 40;
        a.plan.duplicates = 2;
        a.plan.firstRecords = {{"k1", "shard-0001.tar", 1536, 3}, {"k0", "shard-0000.tar", 1024, 2}};
        a.plan.outputShards = 2;
        a.plan.outputBytes = 130000;
        a.plan.shards = {{"out-000.tgz", "t1", 70000, 21}, {"out-001.tgz", "t2", 60000, 19}};
        a.plan.warnings = {"1 of 10 input shards missing"};
        const std::string body = json(a).dump();
        auto b = api::parseMessage<spec::DsortDryRun>(body, "dsort dry run");
        QVERIFY2(b.ok(), b.ok() ? "" : b.error().message.c_str());
        QVERIFY(b->plan == a.plan);
        QVERIFY(json(b->spec) == json(a.spec));
        QCOMPARE(b->spec.algorithm.seed, std::optional<std::uint64_t>(42));

        auto bad = json::parse(body);
        bad["plan"]["shards"][1]["records"] = "many";
        auto e = api::parseMessage<spec::DsortDryRun>(bad.dump(), "dsort dry run");
        QVERIFY(!e.ok());
        QVERIFY2(e.error().message.find("/plan/shards/1/records") != std::string::npos, e.error().message.c_str());
        bad = json::parse(body);
        bad["spec"]["output_shard_size"] = "lots";
        e = api::parseMessage<spec::DsortDryRun>(bad.dump(), "dsort dry run");
        QVERIFY(!e.ok());
        QVERIFY2(e.error().message.find("/spec") != std::string::npos, e.error().message.c_str());
    }
};

QTEST_APPLESS_MAIN(TestDsortSpec)
#include "test_dsort_spec.moc"
