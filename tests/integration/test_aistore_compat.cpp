// AIStore compatibility: replays the requests AIStore's own clients send
// (tests/integration/aistore_fixtures, each step citing the AIStore source
// it comes from) against a real 1 proxy + 3 target cluster, and decodes
// every answer with a strict decoder written from AIStore's field tags
// (ais_strict_decoder.h). Then the dSort spec of AIStore's WebDataset blog
// post, posted as it is, must shuffle 19 shards with every record intact.
#include "ais_strict_decoder.h"
#include "dsort_test_util.h"
#include "local_cluster.h"

#include "api/ais_node.h"
#include "api/json_util.h"
#include "api/object_list.h"
#include "api/uri.h"

#include <QDir>
#include <QFile>
#include <QTest>
#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sys/statvfs.h>

using namespace tessera;
using client::Body;
using client::HttpClient;
using client::Method;
using nlohmann::json;

namespace {

// ${var} -> value, everywhere in a string.
std::string expand(std::string s, const std::map<std::string, std::string>& vars)
{
    for (const auto& [k, v] : vars) {
        const std::string key = "${" + k + "}";
        for (auto at = s.find(key); at != std::string::npos; at = s.find(key, at + v.size()))
            s.replace(at, key.size(), v);
    }
    return s;
}

json expandJson(const json& j, const std::map<std::string, std::string>& vars)
{
    if (j.is_string()) return expand(j.get<std::string>(), vars);
    if (j.is_object()) {
        json out = json::object();
        for (const auto& [k, v] : j.items()) out[k] = expandJson(v, vars);
        return out;
    }
    if (j.is_array()) {
        json out = json::array();
        for (const auto& v : j) out.push_back(expandJson(v, vars));
        return out;
    }
    return j;
}

Method methodOf(const std::string& m)
{
    static const std::map<std::string, Method> kMethods{{"GET", Method::Get},       {"HEAD", Method::Head},
                                                        {"PUT", Method::Put},       {"POST", Method::Post},
                                                        {"DELETE", Method::Delete}, {"PATCH", Method::Patch}};
    auto it = kMethods.find(m);
    if (it == kMethods.end()) qFatal("fixture: unknown method %s", m.c_str());
    return it->second;
}

std::string tarOf(const json& members)
{
    std::vector<tests::DsortRecordData> records;
    for (const auto& m : members) records.push_back({"", {{m.at(0).get<std::string>(), m.at(1).get<std::string>()}}});
    return tests::makeShard(records);
}

// The JSON answers of AIStore's types, by the fixtures' `decode` name: one
// document, a Go map of them (target id -> T) or a Go slice.
enum class Shape { One, Map, List, MapOfList };
const std::map<std::string, std::pair<const tests::ais::Schema*, Shape>> kAisJson = {
    {"DsortJobInfoMap", {&tests::ais::kDsortJobInfo, Shape::Map}},
    {"DsortJobInfoList", {&tests::ais::kDsortJobInfo, Shape::List}},
    {"NodeStatus", {&tests::ais::kNodeStatus, Shape::One}},
    {"MemCPUInfo", {&tests::ais::kMemCpuInfo, Shape::One}},
    {"TSysInfo", {&tests::ais::kTSysInfo, Shape::One}},
    {"ClusterSysInfo", {&tests::ais::kClusterSysInfo, Shape::One}},
    {"ClusterConfig", {&tests::ais::kClusterConfig, Shape::One}},
    {"Config", {&tests::ais::kConfig, Shape::One}},
    {"MountpathList", {&tests::ais::kMountpathList, Shape::One}},
    {"MountpathListMap", {&tests::ais::kMountpathList, Shape::Map}},
    {"RemAisVec", {&tests::ais::kRemAisVec, Shape::One}},
    {"XactMultiSnap", {&tests::ais::kXactSnap, Shape::MapOfList}},  // xact.MultiSnap: target id -> []*core.Snap
    {"XactStatus", {&tests::ais::kXactStatus, Shape::One}},
    {"XactStatusList", {&tests::ais::kXactStatus, Shape::List}},  // nl.StatusVec
};

// QVERIFY2 for a function that returns a JSON document.
#define CHECK_OR_RETURN(cond, msg)                                      \
    do {                                                                \
        if (!(cond)) {                                                  \
            QTest::qFail(std::string(msg).c_str(), __FILE__, __LINE__); \
            return json();                                              \
        }                                                               \
    } while (0)

std::string joined(const std::vector<std::string>& v)
{
    std::string s;
    for (const auto& e : v) s += "\n  " + e;
    return s;
}

}  // namespace

class TestAistoreCompat : public QObject {
    Q_OBJECT

private:
    tests::LocalCluster m_cluster;
    std::map<std::string, std::string> m_vars;

    // One step: the request as recorded, the answer decoded strictly.
    void replayStep(const json& step, const std::string& file)
    {
        const auto name = file + ": " + step.at("name").get<std::string>();
        const auto cite = " [" + step.at("source").get<std::string>() + "]";
        std::string url = m_cluster.proxyUrl() + api::percentEncode(expand(step.at("path"), m_vars), true);
        if (step.contains("query")) {
            api::QueryMap q;
            for (const auto& [k, v] : step["query"].items()) q[k] = expand(v.get<std::string>(), m_vars);
            url += "?" + api::buildQuery(q);
        }
        client::Headers headers;
        if (step.contains("headers")) {
            for (const auto& [k, v] : step["headers"].items()) headers.emplace_back(k, expand(v, m_vars));
        }
        Body body;
        if (step.contains("body")) body = Body::string(expandJson(step["body"], m_vars).dump());
        else if (step.contains("body_text")) body = Body::string(expand(step["body_text"], m_vars));
        else if (step.contains("body_tar")) body = Body::string(tarOf(step["body_tar"]));

        HttpClient http;
        const bool waitFinished = step.value("wait_finished", false);
        client::Response r;
        json doc;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        for (;;) {
            auto res = http.send(methodOf(step.at("method")), url, body, headers);
            QVERIFY2(res.ok(), (name + ": " + (res.ok() ? "" : res.error().message)).c_str());
            r = *res;
            QVERIFY2(r.status == step.at("status").get<int>(),
                     (name + ": HTTP " + std::to_string(r.status) + " " + r.body + cite).c_str());
            doc = decode(step, r, name + cite);
            if (QTest::currentTestFailed()) return;
            if (!waitFinished || finished(doc, step.at("decode"))) break;
            QVERIFY2(std::chrono::steady_clock::now() < deadline, (name + ": still running after 60 s").c_str());
            QTest::qWait(100);  // polling the job with a deadline
        }
        if (step.contains("save")) {
            for (const auto& [var, ptr] : step["save"].items()) {
                const auto p = ptr.get<std::string>();
                m_vars[var] = p.empty() ? r.body : doc.at(json::json_pointer(p)).get<std::string>();
            }
        }
        if (step.contains("expect")) {
            for (const auto& [rawPtr, want] : step["expect"].items()) {
                const auto ptr = expand(rawPtr, m_vars);  // e.g. /${target0}/0/kind
                const json::json_pointer p(ptr);
                QVERIFY2(doc.contains(p), (name + ": " + ptr + " is missing in " + doc.dump()).c_str());
                const auto expected = expandJson(want, m_vars);
                QVERIFY2(doc.at(p) == expected,
                         (name + ": " + ptr + " is " + doc.at(p).dump() + ", expected " + expected.dump()).c_str());
            }
        }
        if (step.contains("expect_count")) {
            for (const auto& [rawPtr, n] : step["expect_count"].items()) {
                const auto ptr = expand(rawPtr, m_vars);
                const json::json_pointer p(ptr);
                QVERIFY2(doc.contains(p), (name + ": " + ptr + " is missing").c_str());
                QVERIFY2(doc.at(p).size() == n.get<std::size_t>(),
                         (name + ": " + ptr + " has " + std::to_string(doc.at(p).size()) + " items, expected " +
                          n.dump() + ": " + doc.dump())
                             .c_str());
            }
        }
        if (step.contains("expect_each")) {
            // Every value of the answer's map (a JobInfo per target).
            QVERIFY2(doc.is_object() && !doc.empty(), (name + ": not a map: " + doc.dump()).c_str());
            for (const auto& [key, entry] : doc.items()) {
                for (const auto& [ptr, want] : step["expect_each"].items()) {
                    const json::json_pointer p(ptr);
                    const auto expected = expandJson(want, m_vars);
                    QVERIFY2(entry.contains(p) && entry.at(p) == expected,
                             (name + ": " + key + ptr + " is " + (entry.contains(p) ? entry.at(p).dump() : "missing") +
                              ", expected " + expected.dump())
                                 .c_str());
                }
            }
        }
        if (step.contains("expect_body_contains")) {
            // In an error's message (AIStore's {"message","status"}), else the body.
            const auto err = json::parse(r.body, nullptr, false);
            const auto text = err.is_object() && err.contains("message") && err["message"].is_string()
                                  ? err["message"].get<std::string>()
                                  : r.body;
            for (const auto& part : step["expect_body_contains"]) {
                const auto want = expand(part.get<std::string>(), m_vars);
                QVERIFY2(text.find(want) != std::string::npos,
                         (name + ": \"" + text + "\" lacks \"" + want + "\"" + cite).c_str());
            }
        }
        if (step.contains("expect_body")) {
            QVERIFY2(r.body == expand(step["expect_body"], m_vars), (name + ": body \"" + r.body + "\"").c_str());
        }
        if (step.contains("expect_headers")) {
            for (const auto& h : step["expect_headers"]) {
                QVERIFY2(!r.header(h.get<std::string>()).empty(), (name + ": no " + h.get<std::string>()).c_str());
            }
        }
        if (step.contains("expect_entry_prefix")) {
            for (const auto& [field, prefix] : step["expect_entry_prefix"].items()) {
                const auto want = expand(prefix.get<std::string>(), m_vars);
                QVERIFY2(!doc.at("entries").empty(), (name + ": no entries").c_str());
                for (const auto& e : doc.at("entries")) {
                    QVERIFY2(e.value(field, "").starts_with(want), (name + ": " + e.dump() + " not " + want).c_str());
                }
            }
        }
        if (step.contains("expect_entry_flags")) {
            const auto bits = step["expect_entry_flags"].get<std::uint32_t>();
            const bool msgp = doc.contains("Entries");
            for (const auto& e : doc.at(msgp ? "Entries" : "entries")) {
                const auto f = e.value(msgp ? "f" : "flags", 0u);
                QVERIFY2((f & bits) == bits,
                         (name + ": entry " + e.dump() + " lacks flags " + std::to_string(bits)).c_str());
            }
        }
    }

    // A job the step polls is over: Tessera's state, or every target's
    // JobInfo finished as AIStore's Go client judges it
    // (dsort.JobInfo.IsFinished: aborted or archived).
    static bool finished(const json& doc, const std::string& kind)
    {
        // nl.Status.IsFinished: an end time (api.WaitForXactionIC polls until then).
        if (kind == "XactStatus") return doc.value("end_time", std::int64_t{0}) != 0;
        if (kind != "DsortJobInfoMap") return doc.value("state", "") != "running";
        if (!doc.is_object() || doc.empty()) return false;
        for (const auto& [tid, info] : doc.items()) {
            if (!info.value("aborted", false) && !info.value("archived", false)) return false;
        }
        return true;
    }

    // The answer as the AIStore type the step names, checked strictly.
    json decode(const json& step, const client::Response& r, const std::string& name)
    {
        const auto kind = step.at("decode").get<std::string>();
        json doc;
        std::vector<std::string> errors;
        const auto strict = [&](const json& d, const tests::ais::Schema& s) {
            errors = tests::ais::check(d, s);
            return d;
        };
        try {
            if (kind == "LsoRes" || kind == "Smap" || kind == "Bcks" || kind == "TesseraDsortStatus") {
                if (kind != "TesseraDsortStatus") {
                    CHECK_OR_RETURN(r.header("content-type") == "application/json",
                                    name + ": Content-Type " + r.header("content-type"));
                }
                doc = json::parse(r.body);
                if (kind == "LsoRes") strict(doc, tests::ais::kLsoRes);
                if (kind == "Smap") strict(doc, tests::ais::kSmap);
                if (kind == "Bcks") {
                    CHECK_OR_RETURN(doc.is_array(), name + ": cmn.Bcks must be an array");
                    for (std::size_t i = 0; i < doc.size(); ++i) {
                        for (auto& e : tests::ais::check(doc[i], tests::ais::kBck))
                            errors.push_back("/" + std::to_string(i) + e);
                    }
                }
            } else if (kAisJson.count(kind)) {
                CHECK_OR_RETURN(r.header("content-type") == "application/json",
                                name + ": Content-Type " + r.header("content-type"));
                doc = json::parse(r.body);
                const auto& [schema, shape] = kAisJson.at(kind);
                if (shape == Shape::One) strict(doc, *schema);
                const auto each = [&](const json& item, const std::string& at) {
                    for (auto& e : tests::ais::check(item, *schema)) errors.push_back(at + e);
                };
                if (shape == Shape::Map) {
                    CHECK_OR_RETURN(doc.is_object(), name + ": must be a JSON object (a Go map)");
                    for (const auto& [k, v] : doc.items()) each(v, "/" + k);
                }
                if (shape == Shape::List) {
                    CHECK_OR_RETURN(doc.is_array(), name + ": must be a JSON array (a Go slice)");
                    for (std::size_t i = 0; i < doc.size(); ++i) each(doc[i], "/" + std::to_string(i));
                }
                if (shape == Shape::MapOfList) {
                    CHECK_OR_RETURN(doc.is_object(), name + ": must be a JSON object (a Go map)");
                    for (const auto& [k, v] : doc.items()) {
                        CHECK_OR_RETURN(v.is_array(), name + ": /" + k + " must be a JSON array (a Go slice)");
                        for (std::size_t i = 0; i < v.size(); ++i) each(v[i], "/" + k + "/" + std::to_string(i));
                    }
                }
            } else if (kind == "StringList") {
                doc = json::parse(r.body);
                CHECK_OR_RETURN(doc.is_array(), name + ": must be a JSON array of strings");
                for (const auto& e : doc) CHECK_OR_RETURN(e.is_string(), name + ": must be a JSON array of strings");
            } else if (kind == "LsoResMsgpack") {
                CHECK_OR_RETURN(r.header("content-type") == "application/msgpack",
                                name + ": Content-Type " + r.header("content-type"));
                // nlohmann's own msgpack reader: independent of the node's writer.
                doc = json::from_msgpack(r.body);
                strict(doc, tests::ais::kLsoResMsgp);
            } else if (kind == "Bprops") {
                CHECK_OR_RETURN(r.body.empty(), name + ": HEAD with a body");
                const auto hdr = r.header("ais-bucket-props");
                CHECK_OR_RETURN(!hdr.empty(), name + ": no ais-bucket-props header");
                doc = json::parse(hdr);
                strict(doc, tests::ais::kBprops);
            } else if (kind == "ObjHead") {
                // cmn/objattrs.go FromHeader: these must parse as AIStore parses them.
                doc = json::object();
                for (const char* h : {"ais-checksum-type", "ais-checksum-value", "ais-atime", "ais-version",
                                      "content-length", "etag", "last-modified", "ais-present", "ais-location"}) {
                    doc[h] = r.header(h);
                }
                const auto digits = [](const std::string& s) {
                    return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
                };
                if (!digits(doc["ais-atime"])) errors.push_back("ais-atime: must be unix nanoseconds");
                if (!digits(doc["content-length"])) errors.push_back("Content-Length: must be a size");
                const std::string etag = doc["etag"];
                if (etag.size() < 3 || etag.front() != '"' || etag.back() != '"')
                    errors.push_back("ETag: must be quoted");
                if (doc["ais-present"] != "true") errors.push_back("ais-present: must be true");
                if (std::string(doc["last-modified"]).find(" GMT") == std::string::npos) {
                    errors.push_back("Last-Modified: must be an HTTP date");
                }
            } else if (kind == "empty") {
                CHECK_OR_RETURN(r.body.empty(), name + ": a body where AIStore sends none: " + r.body);
            } else if (kind == "text" || kind == "bytes") {
                doc = json::object();
            } else {
                qFatal("fixture: unknown decode %s", kind.c_str());
            }
        } catch (const json::exception& e) {
            QTest::qFail((name + ": undecodable answer: " + e.what() + "\n" + r.body).c_str(), __FILE__, __LINE__);
            return doc;
        }
        if (!errors.empty())
            QTest::qFail((name + ": not AIStore's shape:" + joined(errors)).c_str(), __FILE__, __LINE__);
        return doc;
    }

    void replayFile(const QString& file)
    {
        QFile f(QStringLiteral(TESSERA_AIS_FIXTURES "/") + file);
        QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(file));
        const auto steps = json::parse(f.readAll().toStdString());
        QVERIFY(!steps.empty());
        for (const auto& step : steps) {
            replayStep(step, file.toStdString());
            if (QTest::currentTestFailed()) return;
        }
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        m_vars["bucket"] = "aiscompat";
        m_vars["target0"] = m_cluster.targetId(0);
        auto smap = client::Client(m_cluster.proxyUrl()).smap();
        QVERIFY(smap.ok());
        m_vars["proxy"] = smap->primary.id;
        m_vars["proxyurl"] = m_cluster.proxyUrl();
    }

    void replay_data()
    {
        QTest::addColumn<QString>("file");
        const auto files = QDir(QStringLiteral(TESSERA_AIS_FIXTURES)).entryList({"*.json"}, QDir::Files, QDir::Name);
        QCOMPARE(files.size(), 9);
        for (const auto& f : files) QTest::newRow(qPrintable(f)) << f;
    }

    // The decoder itself: what it must refuse (else a pass proves nothing).
    void strictDecoderRefuses()
    {
        using tests::ais::check;
        const auto ok = json::parse(R"({"uuid":"u","continuation_token":"","flags":0,
            "entries":[{"name":"a","size":"12","flags":64}]})");
        QVERIFY(check(ok, tests::ais::kLsoRes).empty());
        auto unknown = ok;
        unknown["entries"][0]["error"] = "x";
        QCOMPARE(check(unknown, tests::ais::kLsoRes),
                 std::vector<std::string>{"/entries/0/error: not a field of cmn.LsoEnt (cmn/objlist.go)"});
        auto missing = ok;
        missing.erase("flags");
        QCOMPARE(check(missing, tests::ais::kLsoRes),
                 std::vector<std::string>{"/flags: missing (required in cmn.LsoRes (cmn/objlist.go))"});
        auto number = ok;
        number["entries"][0]["size"] = 12;
        QCOMPARE(check(number, tests::ais::kLsoRes).size(), std::size_t{1});
        auto older = json::parse(R"({"version":4,"uuid":"u","creation_time":"","primary":{},"pmap":{},"tmap":{}})");
        QCOMPARE(check(older, tests::ais::kSmap).size(), std::size_t{3});  // version, primary, no proxy_si

        // The shapes of the second pass: a JobInfo with a number where Go
        // writes a string, a time that is not RFC 3339, no Metrics.
        const auto phase =
            json::parse(R"({"started_time":"0001-01-01T00:00:00Z","end_time":"2026-11-26T10:00:00.5Z","elapsed":0,)"
                        R"("running":false,"finished":true})");
        auto ex = phase;
        for (const char* k : {"total_count", "extracted_count", "extracted_size", "extracted_record_count",
                              "extracted_to_disk_count", "extracted_to_disk_size"})
            ex[k] = "0";
        auto cr = phase;
        for (const char* k : {"to_create", "created_count", "moved_shard_count"}) cr[k] = "0";
        const json bck = json::parse(R"({"name":"b","provider":"ais","namespace":{"uuid":"","name":""}})");
        json info{{"id", "x"},
                  {"src-bck", bck},
                  {"dst-bck", bck},
                  {"started_time", "2026-11-26T10:00:00Z"},
                  {"finish_time", "0001-01-01T00:00:00Z"},
                  {"loc-objs", "1"},
                  {"loc-bytes", "2"},
                  {"Metrics",
                   {{"local_extraction", ex},
                    {"meta_sorting", phase},
                    {"shard_creation", cr},
                    {"aborted", false},
                    {"archived", true}}},
                  {"aborted", false},
                  {"archived", true}};
        QVERIFY(check(info, tests::ais::kDsortJobInfo).empty());
        auto bad = info;
        bad["loc-objs"] = 1;
        QCOMPARE(check(bad, tests::ais::kDsortJobInfo).size(), std::size_t{1});
        bad = info;
        bad["finish_time"] = "2026-11-26 10:00:00";
        QCOMPARE(check(bad, tests::ais::kDsortJobInfo).size(), std::size_t{1});
        bad = info;
        bad.erase("Metrics");
        QCOMPARE(check(bad, tests::ais::kDsortJobInfo),
                 std::vector<std::string>{"/Metrics: missing (required in dsort.JobInfo (ext/dsort/api_metrics.go))"});
        QCOMPARE(check(json::parse(R"({"v":7})"), tests::ais::kCopyValue).size(), std::size_t{1});
        QCOMPARE(check(json::parse(R"({"a":[],"ver":0,"extra":1})"), tests::ais::kRemAisVec).size(), std::size_t{1});
    }

    // The files run in order, each on the state the ones before left.
    void replay()
    {
        QFETCH(QString, file);
        replayFile(file);
    }

    // The spec of AIStore's WebDataset blog post, byte for byte, with its
    // older field names (bck, extension) and a printf-style output name:
    // 19 input shards (~6 MiB each) become shuffled-shard-0.tar,
    // shuffled-shard-1.tar, ... of at most 100MB, every record intact.
    void blogPostDsortSpec()
    {
        client::Client c(m_cluster.proxyUrl());
        QVERIFY(c.createBucket("images").ok());
        std::map<std::string, std::string> shards;
        std::vector<tests::DsortRecordData> inputs;
        for (int s = 0; s < 19; ++s) {
            std::vector<tests::DsortRecordData> records;
            for (int r = 0; r < 6; ++r) {
                char key[32];
                std::snprintf(key, sizeof key, "n%02d_%04d", s, r);
                const auto seed = static_cast<std::uint64_t>(s * 100 + r);
                records.push_back({key,
                                   {{std::string(key) + ".jpg", tests::randomBytes((1u << 20) + seed * 37, seed)},
                                    {std::string(key) + ".cls", std::to_string(seed % 1000)}}});
            }
            inputs.insert(inputs.end(), records.begin(), records.end());
            char name[32];
            std::snprintf(name, sizeof name, "samples-%02d.tar", s);
            shards[name] = tests::makeShard(records);
        }
        QCOMPARE(tests::putAll(m_cluster.proxyUrl(), "images", shards), 0);

        const std::string spec =
            R"({"extension": ".tar", "bck": {"name": "images"}, "input_format": "samples-{00..18}", )"
            R"("output_format": "shuffled-shard-%d", "output_shard_size": "100MB", "algorithm": {"kind": "shuffle"}})";
        HttpClient http;
        auto r = http.send(Method::Post, m_cluster.proxyUrl() + "/v1/sort", Body::string(spec),
                           {{"Content-Type", "application/json"}});
        QVERIFY(r.ok());
        QVERIFY2(r->status == 200, r->body.c_str());
        const auto id = r->body;  // AIStore answers the job id as text
        QVERIFY(!id.empty() && id.find('{') == std::string::npos);
        const auto st = tests::waitDsort(c, id, std::chrono::minutes(3));
        QVERIFY2(st.job.state == api::JobState::Finished, api::dumpJson(nlohmann::json(st.job)).c_str());

        const auto outputs = tests::readOutputs(c, "images", "shuffled-shard-", archive::ArchiveFormat::Tar);
        QVERIFY(outputs.size() >= 2);
        for (std::size_t i = 0; i < outputs.size(); ++i) {
            QCOMPARE(outputs[i].name, "shuffled-shard-" + std::to_string(i) + ".tar");
            QVERIFY2(outputs[i].size <= 100'000'000 + (2u << 20), outputs[i].name.c_str());
        }
        auto got = tests::allRecords(outputs);
        const auto order = tests::keysOf(got);
        auto want = inputs;
        std::sort(got.begin(), got.end());
        std::sort(want.begin(), want.end());
        QCOMPARE(got.size(), want.size());
        QVERIFY(got == want);                   // every record, every file, every byte
        QVERIFY(order != tests::keysOf(want));  // shuffled, not sorted
    }

    // What AIStore's node status and system information say is what the
    // nodes have: each target's mountpaths are its configured ones, their
    // capacity is the filesystem's (statvfs here; the disk is shared with
    // other work, so used and available within 1 GiB), fs_capacity is the
    // filesystem's size exactly, and a PUT moves the owner's counters by
    // one object and its bytes.
    void nodeStatusIsReal()
    {
        for (int i = 0; i < m_cluster.targetCount(); ++i) {
            const auto id = m_cluster.targetId(i);
            const auto st = nodeStatus(id);
            if (QTest::currentTestFailed()) return;
            std::set<std::string> got, want;
            for (const auto& [path, cdf] : st.capacity.mountpaths) got.insert(std::filesystem::weakly_canonical(path));
            for (const auto& path : m_cluster.targetMountpaths(i)) want.insert(std::filesystem::weakly_canonical(path));
            QCOMPARE(got, want);
            std::uint64_t fsTotal = 0;
            for (const auto& [path, cdf] : st.capacity.mountpaths) {
                struct statvfs vfs {};
                QVERIFY(::statvfs(path.c_str(), &vfs) == 0);
                const auto used = static_cast<std::int64_t>((vfs.f_blocks - vfs.f_bfree) * vfs.f_frsize);
                const auto avail = static_cast<std::int64_t>(vfs.f_bavail * vfs.f_frsize);
                QVERIFY2(std::llabs(cdf.used.value - used) < (std::int64_t{1} << 30), path.c_str());
                QVERIFY2(std::llabs(cdf.avail.value - avail) < (std::int64_t{1} << 30), path.c_str());
                fsTotal = vfs.f_blocks * vfs.f_frsize;  // every mountpath of the test is on one filesystem
            }
            QCOMPARE(st.snode.id, id);
            QCOMPARE(st.tracker.count("up.ns.time"), std::size_t{1});
            QVERIFY(st.tracker.at("up.ns.time") > 0);
            QVERIFY(st.sysInfo.memUsed > 0);  // the node's resident memory

            auto sys = reverse(id, "sysinfo");
            QCOMPARE(sys.status, 200);
            auto info = api::parseMessage<api::AisTargetSysInfo>(sys.body, "sysinfo");
            QVERIFY2(info.ok(), sys.body.c_str());
            QCOMPARE(static_cast<std::uint64_t>(info->capacity.total.value), fsTotal);
            QVERIFY(info->memCpu.memAvail > 0);
        }

        client::Client c(m_cluster.proxyUrl());
        QVERIFY(c.createBucket("nodestat").ok());
        const auto data = tests::randomBytes(1 << 20, 5);
        HttpClient http;
        auto head = http.send(Method::Put, m_cluster.proxyUrl() + "/v1/objects/nodestat/one", Body::string(data));
        QVERIFY(head.ok() && head->status == 200);
        head = http.send(Method::Head, m_cluster.proxyUrl() + "/v1/objects/nodestat/one");
        QVERIFY(head.ok() && head->status == 200);
        const auto owner = head->header("ais-location");
        QVERIFY(!owner.empty());
        const auto before = nodeStatus(owner);
        // A new version of "one": its owner writes it.
        auto r = http.send(Method::Put, m_cluster.proxyUrl() + "/v1/objects/nodestat/one", Body::string(data));
        QVERIFY(r.ok() && r->status == 200);
        const auto after = nodeStatus(owner);
        const auto delta = [&](const char* k) { return after.tracker.at(k) - before.tracker.at(k); };
        QCOMPARE(delta("put.n"), std::int64_t{1});
        QCOMPARE(delta("put.size"), static_cast<std::int64_t>(data.size()));
        QVERIFY(delta("up.ns.time") > 0);
        QVERIFY(c.destroyBucket("nodestat").ok());
    }

private:
    client::Response reverse(const std::string& node, const std::string& what)
    {
        HttpClient http;
        auto r = http.send(Method::Get, m_cluster.proxyUrl() + "/v1/reverse/daemon?what=" + what, {},
                           {{"ais-node-id", node}});
        if (!r.ok()) qFatal("reverse %s: %s", what.c_str(), r.error().message.c_str());
        return *r;
    }

    api::AisNodeStatus nodeStatus(const std::string& node)
    {
        const auto r = reverse(node, "node_status");
        auto st = api::parseMessage<api::AisNodeStatus>(r.body, "node status");
        if (r.status != 200 || !st) {
            QTest::qFail(("node status of " + node + ": " + r.body).c_str(), __FILE__, __LINE__);
            return {};
        }
        return *st;
    }
};

QTEST_GUILESS_MAIN(TestAistoreCompat)
#include "test_aistore_compat.moc"
