// The dSort spec: a good spec parses to exact values and back through its
// canonical JSON; each field made wrong in turn gives exactly its JSON
// pointer; defaults follow AIStore's (output_bck = input_bck, output
// extension = input extension).
#include "spec/dsort_preview.h"
#include "spec/dsort_spec.h"
#include "spec/dsort_spec_legacy.h"
#include "spec/spec_text.h"

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

    // AIStore's WebDataset blog post spec, as it is: older field names and
    // a printf-style output name.
    void blogPostSpec()
    {
        const auto j = json::parse(R"({"extension": ".tar", "bck": {"name": "images"},
            "input_format": "samples-{00..18}", "output_format": "shuffled-shard-%d",
            "output_shard_size": "100MB", "algorithm": {"kind": "shuffle"}})");
        QVERIFY(pointers(j).empty());
        auto s = spec::parseDsortSpec(j);
        QVERIFY2(s.ok(), s ? "" : s.error().message.c_str());
        QCOMPARE(s->inputBck, std::string("images"));
        QCOMPARE(s->outputBck, std::string("images"));
        QCOMPARE(s->inputExtension, std::string(".tar"));
        QCOMPARE(s->outputExtension, std::string(".tar"));
        QCOMPARE(s->outputFormat, std::string("shuffled-shard-{0..99999999}"));
        QCOMPARE(s->outputShardSize, std::uint64_t{100'000'000});
        QCOMPARE(s->algorithm.kind, spec::DsortAlgorithmKind::Shuffle);
        auto names = s->inputNames();
        QCOMPARE(names->size(), std::size_t{19});
        QCOMPARE(names->front(), std::string("samples-00.tar"));
        QCOMPARE(names->back(), std::string("samples-18.tar"));
    }

    // The same spec as YAML (`ais start dsort -f spec.yaml`, or a body with
    // Content-Type: application/yaml) means the same.
    void blogPostSpecAsYaml()
    {
        const auto yaml =
            "extension: .tar\n"
            "bck:\n"
            "  name: images\n"
            "input_format: samples-{00..18}\n"
            "output_format: shuffled-shard-%06d\n"
            "output_shard_size: 100MB\n"
            "algorithm:\n"
            "  kind: shuffle\n";
        auto j = spec::parseSpecText(yaml, spec::SpecFormat::Yaml, "dsort");
        QVERIFY2(j.ok(), j ? "" : j.error().message.c_str());
        auto s = spec::parseDsortSpec(*j);
        QVERIFY2(s.ok(), s ? "" : s.error().message.c_str());
        QCOMPARE(s->inputBck, std::string("images"));
        QCOMPARE(s->outputFormat, std::string("shuffled-shard-{000000..999999}"));
        QCOMPARE(s->inputNames()->size(), std::size_t{19});
    }

    void printfOutputNames_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("templ");  // empty: refused
        QTest::newRow("%d") << "out-%d"
                            << "out-{0..99999999}";
        QTest::newRow("%06d") << "out-%06d"
                              << "out-{000000..999999}";
        QTest::newRow("%03d with suffix") << "a-%03d-b"
                                          << "a-{000..999}-b";
        QTest::newRow("%09d capped") << "x%09d"
                                     << "x{000000000..099999999}";
        QTest::newRow("%01d") << "x%01d"
                              << "x{0..99999999}";
        QTest::newRow("no %") << "plain-{0..9}"
                              << "plain-{0..9}";
        QTest::newRow("%s") << "x-%s"
                            << "";
        QTest::newRow("two") << "%d-%d"
                             << "";
        QTest::newRow("%6d (spaces)") << "x%6d"
                                      << "";
        QTest::newRow("%010d") << "x%010d"
                               << "";
        QTest::newRow("brace and %") << "x-{0..9}-%d"
                                     << "";
        QTest::newRow("trailing %") << "x%"
                                    << "";
    }

    void printfOutputNames()
    {
        QFETCH(QString, format);
        QFETCH(QString, templ);
        auto t = spec::printfToBraceTemplate(format.toStdString());
        if (templ.isEmpty()) {
            QVERIFY(!t.ok());
            QCOMPARE(t.kind(), api::ErrorKind::BadRequest);
            QVERIFY2(t.error().message.find("/output_format") != std::string::npos, t.error().message.c_str());
        } else {
            QVERIFY2(t.ok(), t ? "" : t.error().message.c_str());
            QCOMPARE(QString::fromStdString(*t), templ);
        }
    }

    // The whole RequestSpec AIStore's Go API marshals (ext/dsort/api.go),
    // zero values and Config included.
    void goRequestSpec()
    {
        const auto j = json::parse(R"({"input_bck":{"name":"src","provider":"ais","namespace":{"uuid":"","name":""}},
            "input_format":{"template":"shard-{0..3}","objnames":null},"output_format":"out-{00..99}",
            "output_shard_size":"10KiB","input_extension":".tar","output_extension":"","description":"",
            "output_bck":{"name":"","provider":"","namespace":{"uuid":"","name":""}},
            "algorithm":{"kind":"alphanumeric","decreasing":false,"seed":"","extension":"","content_key_type":""},
            "ekm_file":"","ekm_file_sep":"","max_mem_usage":"","extract_concurrency_max_limit":0,
            "create_concurrency_max_limit":0,"dsorter_type":"","dry_run":false,
            "Config":{"duplicated_records":"warn","missing_shards":"ignore","ekm_malformed_line":"abort",
                      "ekm_missing_key":"abort","default_max_mem_usage":"80%","dsorter_mem_threshold":"100GB",
                      "compression":"never","bundle_multiplier":4,"call_timeout":"10m"}})");
        QVERIFY(pointers(j).empty());
        auto s = spec::parseDsortSpec(j);
        QVERIFY2(s.ok(), s ? "" : s.error().message.c_str());
        QCOMPARE(s->outputBck, std::string("src"));
        QCOMPARE(s->outputExtension, std::string(".tar"));
        QCOMPARE(s->inputTemplate, std::string("shard-{0..3}"));
        QCOMPARE(s->duplicatedRecords, spec::DsortPolicy::Warn);
        QCOMPARE(s->extractConcurrency, DsortSpec::kDefaultConcurrency);
        QCOMPARE(s->maxMemPercent, DsortSpec::kDefaultMemPercent);
    }

    void legacyConflictsNamed()
    {
        auto j = goodSpec();
        j["bck"] = "other";
        QCOMPARE(pointers(j), std::vector<std::string>{"/bck"});
        j = goodSpec();
        j["extension"] = ".tar";
        QCOMPARE(pointers(j), std::vector<std::string>{"/extension"});
        j = goodSpec();
        j["ekm_file_sep"] = ",";
        QCOMPARE(pointers(j), std::vector<std::string>{"/ekm_file_sep"});
        j = goodSpec();
        j["dsorter_type"] = "fast";
        QCOMPARE(pointers(j), std::vector<std::string>{"/dsorter_type"});
        j = goodSpec();
        j["Config"] = 3;
        QCOMPARE(pointers(j), std::vector<std::string>{"/Config"});
        j = goodSpec();
        j["output_format"] = "out-%x";
        QCOMPARE(pointers(j), std::vector<std::string>{"/output_format"});
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
