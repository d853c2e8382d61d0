// Spec documents as JSON or YAML: an AIStore-style YAML dSort spec reads to
// the same spec as its JSON; scalars get the core schema's types (quoted
// ones stay strings); toYaml writes what reads back to the same value;
// every refused document names line and column; the content-type and file
// name rules.
#include "spec/dsort_spec.h"
#include "spec/spec_text.h"

#include <QTest>
#include <nlohmann/json.hpp>

using namespace tessera;
using nlohmann::json;
using spec::SpecFormat;

namespace {

json yaml(const std::string& text)
{
    auto j = spec::parseSpecText(text, SpecFormat::Yaml, "dsort");
    if (!j) qWarning("%s", j.error().message.c_str());
    return j ? *j : json("<error>");
}

std::string yamlError(const std::string& text)
{
    auto j = spec::parseSpecText(text, SpecFormat::Yaml, "dsort");
    return j ? std::string("<no error>") : j.error().message;
}

}  // namespace

class TestSpecText : public QObject {
    Q_OBJECT
private slots:
    void aistoreYamlSpecReadsAsItsJson()
    {
        const std::string text =
            "# the spec of a shuffle\n"
            "input_bck: src\n"
            "input_format:\n"
            "  template: shard-{0000..0009}\n"
            "input_extension: .tar\n"
            "output_bck: dst\n"
            "output_format: out-{000..999}\n"
            "output_shard_size: 10KiB\n"
            "algorithm:\n"
            "  kind: shuffle\n"
            "  seed: \"42\"\n"
            "extract_concurrency_max_limit: 2\n"
            "dry_run: false\n"
            "description: >-\n"
            "  a folded\n"
            "  description\n";
        const json j = yaml(text);
        const json want = {{"input_bck", "src"},
                           {"input_format", {{"template", "shard-{0000..0009}"}}},
                           {"input_extension", ".tar"},
                           {"output_bck", "dst"},
                           {"output_format", "out-{000..999}"},
                           {"output_shard_size", "10KiB"},
                           {"algorithm", {{"kind", "shuffle"}, {"seed", "42"}}},
                           {"extract_concurrency_max_limit", 2},
                           {"dry_run", false},
                           {"description", "a folded description"}};
        QVERIFY2(j == want, j.dump().c_str());
        auto fromYaml = spec::parseDsortSpec(j);
        auto fromJson = spec::parseDsortSpec(want);
        QVERIFY(fromYaml && fromJson);
        QVERIFY(json(*fromYaml) == json(*fromJson));
        QCOMPARE(*fromYaml->algorithm.seed, std::uint64_t{42});
    }

    void scalarsFollowTheCoreSchema()
    {
        const json j = yaml(
            "a: 12\nb: -7\nc: 0x1f\nd: 0o17\ne: 1.5\nf: 2e3\ng: true\nh: False\ni: ~\nj: null\nk:\n"
            "l: '12'\nm: \"true\"\nn: yes\no: 1.2.3\np: !!str 5\nq: !!int \"6\"\nr: !!float 7\ns: "
            "18446744073709551615\n"
            "t: -9223372036854775808\nu: [1, two, \"3\"]\nv: {w: x}\n");
        QCOMPARE(j["a"].get<std::int64_t>(), 12);
        QVERIFY(j["a"].is_number_integer());
        QCOMPARE(j["b"].get<std::int64_t>(), -7);
        QCOMPARE(j["c"].get<std::int64_t>(), 31);
        QCOMPARE(j["d"].get<std::int64_t>(), 15);
        QVERIFY(j["e"].is_number_float() && j["e"].get<double>() == 1.5);
        QVERIFY(j["f"].is_number_float() && j["f"].get<double>() == 2000.0);
        QVERIFY(j["g"] == true);
        QVERIFY(j["h"] == false);
        QVERIFY(j["i"].is_null() && j["j"].is_null() && j["k"].is_null());
        QVERIFY(j["l"] == "12");
        QVERIFY(j["m"] == "true");
        QVERIFY(j["n"] == "yes");  // YAML 1.2: not a boolean
        QVERIFY(j["o"] == "1.2.3");
        QVERIFY(j["p"] == "5");
        QVERIFY(j["q"] == 6);
        QVERIFY(j["r"].is_number_float() && j["r"].get<double>() == 7.0);
        QVERIFY(j["s"].is_number_unsigned() && j["s"].get<std::uint64_t>() == 18446744073709551615ull);
        QVERIFY(j["t"].get<std::int64_t>() == std::numeric_limits<std::int64_t>::min());
        QVERIFY(j["u"] == json::array({1, "two", "3"}));
        QVERIFY(j["v"] == json({{"w", "x"}}));
    }

    void yamlRoundTrips()
    {
        const json values = {{"plain", "shard-{0000..0009}"},
                             {"looks_like_int", "42"},
                             {"looks_like_bool", "true"},
                             {"looks_like_null", "null"},
                             {"empty", ""},
                             {"tilde", "~"},
                             {"colon", "a: b"},
                             {"hash", "x # y"},
                             {"lead_brace", "{0..9}.tar"},
                             {"lead_dash", "- x"},
                             {"multi", "line one\nline two"},
                             {"unicode", "\xc3\xa9t\xc3\xa9"},
                             {"int", -5},
                             {"big", std::uint64_t{18446744073709551615ull}},
                             {"float", 0.1},
                             {"whole_float", 3.0},
                             {"yes", true},
                             {"no", false},
                             {"nothing", nullptr},
                             {"list", {"a", 1, "2", nullptr}},
                             {"nested", {{"k", {{"deep", {1, 2}}}}, {"objs", {{{"a", 1}}, {{"b", "x"}}}}}},
                             {"empty_list", json::array()},
                             {"empty_map", json::object()},
                             {"12", "numeric key"}};
        const auto text = spec::toYaml(values);
        auto back = spec::parseSpecText(text, SpecFormat::Yaml, "x");
        QVERIFY2(back, back ? "" : back.error().message.c_str());
        QVERIFY2(*back == values, (text + "\n" + back->dump()).c_str());
        // And a real spec through YAML and back.
        auto s = spec::parseDsortSpec(json{{"input_bck", "abc"},
                                           {"input_format", {{"template", "s-{0..9}"}}},
                                           {"output_shard_size", "1MiB"},
                                           {"algorithm", {{"kind", "shuffle"}, {"seed", "7"}}}});
        QVERIFY2(s, s ? "" : s.error().message.c_str());
        const json canonical = *s;
        auto again = spec::parseSpecText(spec::toYaml(canonical), SpecFormat::Yaml, "dsort");
        QVERIFY(again && *again == canonical);
    }

    // Found by fuzz_spec_text: a key whose written form passes YAML's 1024
    // characters of an implicit key is written explicit, and reads back.
    void longKeysRoundTrip()
    {
        for (const std::string& key : {std::string(300, 'k'), std::string(600, '\x1f') + "#", std::string(2000, 'x')}) {
            const nlohmann::json doc{{key, nullptr}, {"b", "c"}};
            const auto yaml = spec::toYaml(doc);
            const auto back = spec::parseSpecText(yaml, spec::SpecFormat::Yaml, "test");
            QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
            QCOMPARE(back->dump(), doc.dump());
        }
    }

    void errorsNameLineAndColumn_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("bad indentation") << "a: 1\n b: 2\n"
                                         << "invalid dsort spec: YAML line 2, column 3: illegal map value";
        QTest::newRow("unclosed list") << "a: [1, 2\nb: 3\n"
                                       << "invalid dsort spec: YAML line 2, column 2: end of sequence flow not found";
        QTest::newRow("duplicate key") << "a: 1\nb: 2\na: 3\n"
                                       << "invalid dsort spec: YAML line 3, column 1: the key \"a\" is given twice";
        QTest::newRow("anchor") << "a: &x 1\nb: *x\n"
                                << "invalid dsort spec: YAML line 1, column 4: anchors (&name) are not supported "
                                   "in a spec";
        QTest::newRow("alias") << "a: *x\n"
                               << "invalid dsort spec: YAML line 1, column 4: the referenced anchor is not defined";
        QTest::newRow("two documents") << "a: 1\n---\nb: 2\n"
                                       << "invalid dsort spec: YAML line 2, column 1: a spec is one YAML document (a "
                                          "second one starts here)";
        QTest::newRow("unknown tag") << "a: !!binary aGk=\n"
                                     << "invalid dsort spec: YAML line 1, column 4: the tag tag:yaml.org,2002:binary "
                                        "is not supported in a spec (only !!str, !!int, !!float, !!bool, !!null)";
        QTest::newRow("map as key") << "? {a: 1}\n: 2\n"
                                    << "invalid dsort spec: YAML line 1, column 3: a key must be a plain string, not "
                                       "a mapping or a list";
        QTest::newRow("too big") << "a: 99999999999999999999\n"
                                 << "invalid dsort spec: YAML line 1, column 4: the number 99999999999999999999 does "
                                    "not fit 64 bits";
        QTest::newRow("infinity") << "a: .inf\n"
                                  << "invalid dsort spec: YAML line 1, column 4: .inf: a spec has no infinite or NaN "
                                     "numbers";
        QTest::newRow("empty") << "# nothing\n"
                               << "invalid dsort spec: the YAML document is empty";
    }

    void errorsNameLineAndColumn()
    {
        QFETCH(QString, text);
        QFETCH(QString, message);
        QCOMPARE(QString::fromStdString(yamlError(text.toStdString())), message);
    }

    void deepOrHugeDocumentsAreRefused()
    {
        std::string deep;
        for (int i = 0; i < 100; ++i) deep += "[";
        for (int i = 0; i < 100; ++i) deep += "]";
        QCOMPARE(yamlError(deep),
                 std::string("invalid dsort spec: YAML line 1, column 65: nested deeper than 64 levels"));
        std::string many = "[";
        for (int i = 0; i < 1'000'001; ++i) many += "1,";
        many += "1]";
        QVERIFY(yamlError(many).find("more than 1,000,000 values") != std::string::npos);
    }

    void jsonErrorsNameLineAndColumn()
    {
        auto j = spec::parseSpecText("{\n  \"a\": 1,\n  \"b\": }\n", SpecFormat::Json, "etl");
        QVERIFY(!j);
        QVERIFY2(j.error().message.rfind("invalid etl spec: malformed JSON: line 3, column 8: ", 0) == 0,
                 j.error().message.c_str());
        QCOMPARE(j.error().kind, api::ErrorKind::BadRequest);
        // A number beyond double's range is a 400 too, not an exception
        // (found by fuzzing).
        auto overflow = spec::parseSpecText("{\"shard_size\": 88888444e444644}", SpecFormat::Json, "ishard");
        QVERIFY(!overflow);
        QCOMPARE(overflow.error().kind, api::ErrorKind::BadRequest);
        // YAML text that is not UTF-8 is refused as JSON text would be.
        auto latin1 = spec::parseSpecText("src_bck: caf\xe9\n", SpecFormat::Yaml, "ishard");
        QVERIFY(!latin1);
        QVERIFY2(latin1.error().message.find("not valid UTF-8") != std::string::npos, latin1.error().message.c_str());
        // JSON read as YAML works too (a flow mapping), with the same values.
        auto y = spec::parseSpecText("{\"a\": 1, \"b\": [\"x\", true]}", SpecFormat::Yaml, "etl");
        QVERIFY(y && *y == json({{"a", 1}, {"b", {"x", true}}}));
    }

    void formatsByContentTypeAndName()
    {
        using spec::specFormatForContentType;
        QVERIFY(specFormatForContentType("") == SpecFormat::Json);
        QVERIFY(specFormatForContentType("application/json") == SpecFormat::Json);
        QVERIFY(specFormatForContentType("application/json; charset=utf-8") == SpecFormat::Json);
        QVERIFY(specFormatForContentType("application/x-www-form-urlencoded") == SpecFormat::Json);  // curl -d
        QVERIFY(specFormatForContentType("Application/YAML") == SpecFormat::Yaml);
        QVERIFY(specFormatForContentType("application/x-yaml") == SpecFormat::Yaml);
        QVERIFY(specFormatForContentType("text/yaml;charset=utf-8") == SpecFormat::Yaml);
        QVERIFY(specFormatForContentType("image/png") == std::nullopt);
        QVERIFY(spec::specFormatForPath("spec.yaml") == SpecFormat::Yaml);
        QVERIFY(spec::specFormatForPath("dir/SPEC.YML") == SpecFormat::Yaml);
        QVERIFY(spec::specFormatForPath("spec.json") == SpecFormat::Json);
        QVERIFY(spec::specFormatForPath("spec") == SpecFormat::Json);
    }
};

QTEST_APPLESS_MAIN(TestSpecText)
#include "test_spec_text.moc"
