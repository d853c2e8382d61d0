// dSort on a real 3-target cluster over 8 input shards of 160 samples (2 or
// 3 files each, 100 B..6 KiB, keys in no order): for every algorithm the
// output records equal the input's byte for byte with their files
// together, in exactly the specified order (alphanumeric both ways, content
// int/float/string, shuffle reproducible from its seed and different for
// another, none, EKM placement); shards within the size bound but the last;
// tar -> tgz and tar -> zip conversion; missing shards and duplicate keys
// per policy; each bad field named in a 400; the job seen in /v1/jobs and
// /v1/sort, and forgotten by DELETE /v1/sort.
#include "at_once.h"
#include "dsort_test_util.h"
#include "local_cluster.h"

#include "api/hrw.h"
#include "api/wire.h"
#include "archive/archive_writer.h"
#include "spec/dsort_preview.h"
#include "spec/spec_text.h"

#include <QFile>
#include <QProcess>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <set>

using namespace tessera;
using nlohmann::json;
using tests::DsortRecordData;

namespace {

constexpr int kShards = 8;
constexpr int kPerShard = 20;

}  // namespace

class TestDsort : public QObject {
    Q_OBJECT

private:
    // The proxy may fetch a user's URL from 127.0.0.2 only (externalKeyMapFromAUrl).
    tests::LocalCluster m_cluster{
        tests::LocalCluster::Options{3, 2, false, 300, 3, {"--fetch-allow-network", "127.0.0.2/32"}, {}}};
    std::vector<std::vector<DsortRecordData>> m_input;                // per input shard, in shard order
    std::map<std::string, std::pair<std::int64_t, double>> m_labels;  // key -> (.cls, .val)
    std::map<std::string, std::string> m_names;                       // key -> .txt content (string keys)

    client::Client client() { return client::Client(m_cluster.proxyUrl()); }

    std::vector<DsortRecordData> inputRecords() const
    {
        std::vector<DsortRecordData> out;
        for (const auto& s : m_input) out.insert(out.end(), s.begin(), s.end());
        return out;
    }

    static std::vector<DsortRecordData> sorted(std::vector<DsortRecordData> v)
    {
        std::sort(v.begin(), v.end());
        return v;
    }

    json baseSpec(const std::string& out)
    {
        auto c = client();
        if (!c.bucketProps(out)) (void)c.createBucket(out);
        return json{{"input_bck", "dsort-in"},           {"input_format", {{"template", "in-{0..7}"}}},
                    {"input_extension", ".tar"},         {"output_bck", out},
                    {"output_format", "out-{000..999}"}, {"output_shard_size", "16KiB"}};
    }

    // Starts the dSort and waits for its end.
    client::Client::DsortStatus run(const json& spec)
    {
        auto c = client();
        auto id = c.startDsort(spec);
        if (!id) qFatal("dsort refused: %s", id.error().message.c_str());
        return tests::waitDsort(c, *id);
    }

    std::vector<tests::OutputShard> outputs(const std::string& bucket,
                                            archive::ArchiveFormat f = archive::ArchiveFormat::Tar)
    {
        auto c = client();
        return tests::readOutputs(c, bucket, "", f);
    }

    std::pair<int, std::string> post(const json& spec)
    {
        auto r = m_cluster.http().send(client::Method::Post, m_cluster.proxyUrl() + "/v1/sort",
                                       client::Body::string(spec.dump()));
        if (!r) return {0, r.error().message};
        auto j = json::parse(r->body, nullptr, false);
        return {r->status, j.is_object() ? j.value("message", std::string()) : r->body};
    }

    // POST /v1/sort with a body of the given type; the status and the JSON answer.
    std::pair<int, json> postAs(const std::string& query, const std::string& body, const std::string& contentType)
    {
        auto r = m_cluster.http().send(client::Method::Post, m_cluster.proxyUrl() + "/v1/sort" + query,
                                       client::Body::string(body), {{"Content-Type", contentType}});
        if (!r) return {0, json(r.error().message)};
        auto j = json::parse(r->body, nullptr, false);
        return {r->status, j.is_discarded() ? json(r->body) : j};
    }

    // The dry run's plan, then the job started with the spec the dry run
    // answered: the same output shards (names, owners, record counts) and
    // the same first records, and nothing written by the dry run itself.
    void planMatchesJob(const json& spec, const std::string& bucket)
    {
        auto [status, answer] = postAs("?dry_run=true", spec.dump(), "application/json");
        QVERIFY2(status == 200, answer.dump().c_str());
        QVERIFY(answer["dry_run"] == true);
        auto plan = api::readMessage<spec::DsortPreview>(answer["plan"], "plan");
        QVERIFY2(plan, plan ? "" : plan.error().message.c_str());
        QVERIFY2(!plan->willFail, answer.dump().c_str());
        QVERIFY(!plan->sampled);
        QCOMPARE(plan->inputShards, std::uint64_t{kShards});
        QCOMPARE(plan->found, std::uint64_t{kShards});
        QCOMPARE(plan->records, std::uint64_t{kShards * kPerShard});
        QVERIFY(outputs(bucket).empty());
        auto st = run(answer["spec"]);
        QVERIFY2(st.job.state == api::JobState::Finished, st.job.error.c_str());
        const auto outs = outputs(bucket);
        QCOMPARE(plan->outputShards, std::uint64_t{outs.size()});
        QCOMPARE(plan->shards.size(), outs.size());
        auto smap = client().smap();
        QVERIFY(smap);
        std::uint64_t bytes = 0;
        for (std::size_t i = 0; i < outs.size(); ++i) {
            QCOMPARE(plan->shards[i].name, outs[i].name);
            QCOMPARE(plan->shards[i].records, std::uint64_t{outs[i].records.size()});
            QCOMPARE(plan->shards[i].target, api::hrwTarget(*smap, api::objectUname(bucket, outs[i].name))->id);
            bytes += outs[i].size;
        }
        // The estimate is the .tar size; a written .tar may be padded to its 10 KiB record.
        QVERIFY2(plan->outputBytes <= bytes && bytes - plan->outputBytes <= outs.size() * 10240,
                 (std::to_string(plan->outputBytes) + " vs " + std::to_string(bytes)).c_str());
        const auto got = tests::allRecords(outs);
        QCOMPARE(plan->firstRecords.size(), spec::DsortPreview::kMaxFirstRecords);
        for (std::size_t i = 0; i < plan->firstRecords.size(); ++i) {
            QCOMPARE(plan->firstRecords[i].key, got[i].key);
            QCOMPARE(plan->firstRecords[i].files, static_cast<std::uint32_t>(got[i].files.size()));
        }
    }

    // Same records, files together, nothing lost or duplicated.
    void checkSameRecords(const std::vector<DsortRecordData>& got)
    {
        QCOMPARE(got.size(), inputRecords().size());
        QVERIFY(sorted(got) == sorted(inputRecords()));
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        auto c = client();
        QVERIFY(c.createBucket("dsort-in"));
        std::mt19937 rng(11);
        std::vector<int> ids(kShards * kPerShard);
        for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int>(i);
        std::shuffle(ids.begin(), ids.end(), rng);
        std::size_t next = 0;
        for (int s = 0; s < kShards; ++s) {
            std::vector<DsortRecordData> shard;
            for (int k = 0; k < kPerShard; ++k) {
                char key[32];
                std::snprintf(key, sizeof key, "sample-%04d", ids[next++]);
                DsortRecordData r{key, {}};
                const auto cls = static_cast<std::int64_t>(rng() % 41) - 20;
                const double val = static_cast<double>(rng() % 100000) / 1000.0 - 50.0;
                const std::string txt =
                    std::string(1, static_cast<char>('a' + rng() % 26)) + std::to_string(rng() % 1000);
                r.files.emplace_back(r.key + ".bin", tests::randomBytes(100 + rng() % 6000, rng()));
                r.files.emplace_back(r.key + ".cls", std::to_string(cls) + "\n");
                char vbuf[32];
                std::snprintf(vbuf, sizeof vbuf, "%.3f", val);
                r.files.emplace_back(r.key + ".val", vbuf);
                r.files.emplace_back(r.key + ".txt", txt);
                if (rng() % 2) r.files.erase(r.files.begin());  // 3 or 4 files; .bin present in half
                m_labels[r.key] = {cls, std::strtod(vbuf, nullptr)};
                m_names[r.key] = txt;
                shard.push_back(std::move(r));
            }
            QVERIFY(c.putObject("dsort-in", "in-" + std::to_string(s) + ".tar", tests::makeShard(shard)));
            m_input.push_back(std::move(shard));
        }
    }

    void alphanumericWithinSize()
    {
        auto spec = baseSpec("out-alpha");
        auto st = run(spec);
        QVERIFY2(st.job.state == api::JobState::Finished, st.job.error.c_str());
        QCOMPARE(st.job.kind, std::string("dsort"));
        auto shards = outputs("out-alpha");
        QVERIFY(shards.size() > 3);
        for (std::size_t i = 0; i + 1 < shards.size(); ++i) {
            QVERIFY2(shards[i].size <= 16384, (shards[i].name + " " + std::to_string(shards[i].size)).c_str());
            QCOMPARE(shards[i].name, "out-" + std::string(i < 10 ? "00" : "0") + std::to_string(i) + ".tar");
        }
        auto got = tests::allRecords(shards);
        checkSameRecords(got);
        auto keys = tests::keysOf(got);
        QVERIFY(std::is_sorted(keys.begin(), keys.end()));
        // The metrics name each phase on every target; the sorter saw every record.
        QCOMPARE(st.metrics.size(), std::size_t{3});
        std::uint64_t sorted = 0, extracted = 0;
        for (const auto& [tid, m] : st.metrics.items()) {
            QVERIFY(m.contains("extract.ms") && m.contains("create.ms"));
            extracted += m.value("extract.records", 0ull);
            // A plain .tar input is read in place: nothing held in memory.
            QCOMPARE(m.value("extract.in_place_records", 0ull), m.value("extract.records", 0ull));
            QCOMPARE(m.value("memory.bytes", 1ull), std::uint64_t{0});
            if (m.value("sorter", false)) sorted = m.value("sort.records", 0ull);
        }
        QCOMPARE(sorted, std::uint64_t{kShards * kPerShard});
        QCOMPARE(extracted, std::uint64_t{kShards * kPerShard});
        // Listed as a job of kind dsort, and by /v1/sort.
        auto c = client();
        auto jobs = c.listJobs();
        QVERIFY(jobs);
        QVERIFY(std::any_of(jobs->begin(), jobs->end(), [&](const api::JobStatus& j) { return j.id == st.job.id; }));
        auto list = c.listDsorts();
        QVERIFY(list);
        QVERIFY(std::any_of(list->begin(), list->end(), [&](const api::JobStatus& j) { return j.id == st.job.id; }));
    }

    void decreasing()
    {
        auto spec = baseSpec("out-desc");
        spec["algorithm"] = {{"kind", "alphanumeric"}, {"decreasing", true}};
        auto st = run(spec);
        QVERIFY2(st.job.state == api::JobState::Finished, st.job.error.c_str());
        auto got = tests::allRecords(outputs("out-desc"));
        checkSameRecords(got);
        auto keys = tests::keysOf(got);
        QVERIFY(std::is_sorted(keys.rbegin(), keys.rend()));
    }

    void contentKinds()
    {
        for (const auto* type : {"int", "float", "string"}) {
            const std::string bucket = std::string("out-content-") + type;
            auto spec = baseSpec(bucket);
            const std::string ext = std::string(type) == "int"     ? ".cls"
                                    : std::string(type) == "float" ? ".val"
                                                                   : ".txt";
            spec["algorithm"] = {{"kind", "content"}, {"extension", ext}, {"content_key_type", type}};
            auto st = run(spec);
            QVERIFY2(st.job.state == api::JobState::Finished, st.job.error.c_str());
            auto got = tests::allRecords(outputs(bucket));
            checkSameRecords(got);
            for (std::size_t i = 1; i < got.size(); ++i) {
                const auto& a = got[i - 1].key;
                const auto& b = got[i].key;
                if (std::string(type) == "int") {
                    auto x = m_labels[a].first, y = m_labels[b].first;
                    QVERIFY(x < y || (x == y && a < b));
                } else if (std::string(type) == "float") {
                    auto x = m_labels[a].second, y = m_labels[b].second;
                    QVERIFY(x < y || (x == y && a < b));
                } else {
                    const auto &x = m_names[a], &y = m_names[b];
                    QVERIFY(x < y || (x == y && a < b));
                }
            }
        }
    }

    void shuffleSeeded()
    {
        auto spec = baseSpec("out-shuf-a");
        spec["algorithm"] = {{"kind", "shuffle"}, {"seed", "42"}};
        QVERIFY(run(spec).job.state == api::JobState::Finished);
        spec = baseSpec("out-shuf-b");
        spec["algorithm"] = {{"kind", "shuffle"}, {"seed", "42"}};
        QVERIFY(run(spec).job.state == api::JobState::Finished);
        spec = baseSpec("out-shuf-c");
        spec["algorithm"] = {{"kind", "shuffle"}, {"seed", "43"}};
        QVERIFY(run(spec).job.state == api::JobState::Finished);
        auto a = outputs("out-shuf-a");
        auto b = outputs("out-shuf-b");
        auto cc = outputs("out-shuf-c");
        QCOMPARE(a.size(), b.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            QCOMPARE(a[i].name, b[i].name);
            QVERIFY(a[i].records == b[i].records);
        }
        checkSameRecords(tests::allRecords(a));
        checkSameRecords(tests::allRecords(cc));
        const auto ka = tests::keysOf(tests::allRecords(a));
        QVERIFY(ka != tests::keysOf(tests::allRecords(cc)));
        QVERIFY(!std::is_sorted(ka.begin(), ka.end()));
    }

    // Files of 64 KiB and more go from target to target by sendfile, and
    // this target's own ones are read in pieces: every record arrives whole,
    // its small files with it, whichever target held it.
    void bigFilesArriveWhole()
    {
        auto c = client();
        const auto all = tests::putBigFileShards(c, "dsort-big", 3, 6, archive::ArchiveFormat::Tar, ".tar");
        auto spec = baseSpec("out-big");
        spec["input_bck"] = "dsort-big";
        spec["input_format"] = {{"template", "big-{0..2}"}};
        spec["output_shard_size"] = "3MiB";
        spec["algorithm"] = {{"kind", "shuffle"}, {"seed", "7"}};
        const auto st = run(spec);
        QVERIFY2(st.job.state == api::JobState::Finished, st.job.error.c_str());
        const auto out = outputs("out-big");
        QVERIFY(out.size() >= 3);
        QVERIFY(sorted(tests::allRecords(out)) == all);
    }

    void noneKeepsInputOrderAndCountsRecords()
    {
        auto spec = baseSpec("out-none");
        spec["algorithm"] = {{"kind", "none"}};
        spec["output_shard_size"] = "7 records";
        auto st = run(spec);
        QVERIFY2(st.job.state == api::JobState::Finished, st.job.error.c_str());
        auto shards = outputs("out-none");
        QCOMPARE(shards.size(), std::size_t{(kShards * kPerShard + 6) / 7});
        for (std::size_t i = 0; i + 1 < shards.size(); ++i) QCOMPARE(shards[i].records.size(), std::size_t{7});
        QVERIFY(tests::allRecords(shards) == inputRecords());
    }

    void dryRunWritesNothing()
    {
        auto spec = baseSpec("out-dry");
        spec["dry_run"] = true;
        auto st = run(spec);
        QVERIFY2(st.job.state == api::JobState::Finished, st.job.error.c_str());
        QVERIFY(outputs("out-dry").empty());
        std::uint64_t shards = 0, records = 0;
        for (const auto& [tid, m] : st.metrics.items()) {
            shards += m.value("create.shards", 0ull);
            records += m.value("create.records", 0ull);
        }
        QCOMPARE(shards, std::uint64_t{outputs("out-alpha").size()});  // what the same spec wrote
        QCOMPARE(records, std::uint64_t{kShards * kPerShard});
    }

    void externalKeyMap()
    {
        auto c = client();
        QVERIFY(c.createBucket("ekm-maps"));
        QVERIFY(c.putObject("ekm-maps", "ekm.json", R"({"even-%02d": ["[02468]$"], "odd": ["[13579]$"]})"));
        auto spec = baseSpec("out-ekm");
        spec["ekm_file"] = "ekm-maps/ekm.json";
        spec["output_shard_size"] = "20KiB";
        auto st = run(spec);
        QVERIFY2(st.job.state == api::JobState::Finished, st.job.error.c_str());
        auto shards = outputs("out-ekm");
        checkSameRecords(tests::allRecords(shards));
        std::size_t evenShards = 0;
        for (const auto& s : shards) {
            const bool even = s.name.rfind("even-", 0) == 0;
            if (even) ++evenShards;
            else QCOMPARE(s.name, std::string("odd.tar"));
            for (const auto& r : s.records) QCOMPARE((r.key.back() - '0') % 2 == 0, even);
        }
        QVERIFY(evenShards > 1);  // numbered and cut by the size bound
        QCOMPARE(shards.front().name, std::string("even-00.tar"));
        // A map that leaves records out fails the job naming one.
        QVERIFY(c.putObject("ekm-maps", "partial.json", R"({"even": ["[02468]$"]})"));
        spec = baseSpec("out-ekm-partial");
        spec["ekm_file"] = "ekm-maps/partial.json";
        st = run(spec);
        QCOMPARE(st.job.state, api::JobState::Failed);
        QVERIFY2(st.job.error.find("matches no entry") != std::string::npos, st.job.error.c_str());
        QVERIFY(outputs("out-ekm-partial").empty());
    }

    // AIStore's form: the ekm_file is a URL the proxy fetches, refused when it
    // leads into the node's own networks (SSRF) unless the config allows
    // that network (here 127.0.0.2 only, where the test serves the map).
    void externalKeyMapFromAUrl()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QFile map(dir.filePath("ekm.json"));
        QVERIFY(map.open(QIODevice::WriteOnly));
        map.write(R"({"even": ["[02468]$"], "odd": ["[13579]$"]})");
        map.close();
        // Python's file server on 127.0.0.2, on a port it picks and prints.
        QProcess server;
        server.setProcessChannelMode(QProcess::MergedChannels);
        server.start("python3", {"-u", "-m", "http.server", "--bind", "127.0.0.2", "--directory", dir.path(), "0"});
        QVERIFY(server.waitForStarted(5000));
        auto stop = qScopeGuard([&] {
            server.kill();
            server.waitForFinished(5000);
        });
        QByteArray banner;
        QVERIFY(QTest::qWaitFor(
            [&] {
                server.waitForReadyRead(50);
                banner += server.readAll();
                return banner.contains("port ");
            },
            10000));
        const auto port = banner.mid(banner.indexOf("port ") + 5).split(' ').front().trimmed().toStdString();
        QVERIFY2(!port.empty() && port != "0", banner.constData());

        auto spec = baseSpec("out-ekm-url");
        spec["ekm_file"] = "http://127.0.0.2:" + port + "/ekm.json";
        auto st = run(spec);
        QVERIFY2(st.job.state == api::JobState::Finished, st.job.error.c_str());
        auto shards = outputs("out-ekm-url");
        checkSameRecords(tests::allRecords(shards));
        QCOMPARE(shards.size(), std::size_t{2});

        // Loopback, the cloud metadata address, a name for loopback and an
        // IPv4-mapped loopback: refused before any connection, naming why.
        const std::vector<std::pair<std::string, std::string>> refused = {
            {"http://127.0.0.1:" + port + "/ekm.json", "loopback"},
            {"http://169.254.169.254/latest/meta-data/", "link-local"},
            {"http://localhost:" + port + "/ekm.json", "loopback"},
            {"http://[::ffff:127.0.0.1]:" + port + "/ekm.json", "loopback"},
            {"http://10.1.2.3/ekm.json", "private"},
        };
        auto c = client();
        const auto jobsBefore = c.listDsorts()->size();
        for (const auto& [url, why] : refused) {
            auto bad = baseSpec("out-ekm-ssrf");
            bad["ekm_file"] = url;
            auto [status, message] = post(bad);
            QVERIFY2(status == 400, (url + ": " + std::to_string(status) + " " + message).c_str());
            QVERIFY2(message.find("/ekm_file") != std::string::npos && message.find(why) != std::string::npos,
                     (url + ": " + message).c_str());
        }
        QCOMPARE(c.listDsorts()->size(), jobsBefore);
        // The map came from the server (its log names the GET).
        server.waitForReadyRead(200);
        banner += server.readAll();
        QVERIFY2(banner.contains("\"GET /ekm.json HTTP/1.1\" 200"), banner.constData());
    }

    void convertsFormats()
    {
        const std::vector<std::tuple<std::string, archive::ArchiveFormat, std::string>> kinds = {
            {".tgz", archive::ArchiveFormat::TarGz, "out-conv-tgz"},
            {".zip", archive::ArchiveFormat::Zip, "out-conv-zip"},
            {".tar.lz4", archive::ArchiveFormat::TarLz4, "out-conv-lz4"}};
        for (const auto& [ext, format, bucket] : kinds) {
            auto spec = baseSpec(bucket);
            spec["output_extension"] = ext;
            auto st = run(spec);
            QVERIFY2(st.job.state == api::JobState::Finished, st.job.error.c_str());
            auto shards = outputs(bucket, format);
            QVERIFY(!shards.empty());
            QVERIFY(shards.front().name.size() > ext.size() &&
                    shards.front().name.substr(shards.front().name.size() - ext.size()) == ext);
            auto got = tests::allRecords(shards);
            checkSameRecords(got);
            auto keys = tests::keysOf(got);
            QVERIFY(std::is_sorted(keys.begin(), keys.end()));
        }
    }

    void missingShardsPolicy()
    {
        auto spec = baseSpec("out-missing");
        spec["input_format"] = {{"template", "in-{0..9}"}};
        spec["missing_shards"] = "abort";
        auto st = run(spec);
        QVERIFY2(st.job.state == api::JobState::Failed, nlohmann::json(st.job).dump().c_str());
        QVERIFY2(
            st.job.error.find("in-8.tar") != std::string::npos || st.job.error.find("in-9.tar") != std::string::npos,
            st.job.error.c_str());
        QVERIFY(outputs("out-missing").empty());
        spec["missing_shards"] = "ignore";
        st = run(spec);
        QVERIFY2(st.job.state == api::JobState::Finished, st.job.error.c_str());
        checkSameRecords(tests::allRecords(outputs("out-missing")));
        std::uint64_t missing = 0;
        for (const auto& [tid, m] : st.metrics.items()) missing += m.value("extract.missing_shards", 0ull);
        QCOMPARE(missing, std::uint64_t{2});
    }

    void duplicatesPolicy()
    {
        auto c = client();
        QVERIFY(c.createBucket("dup-in"));
        std::vector<DsortRecordData> a{{"k1", {{"k1.cls", "1"}}}, {"k2", {{"k2.cls", "2"}}}};
        std::vector<DsortRecordData> b{{"k2", {{"k2.cls", "22"}}}, {"k3", {{"k3.cls", "3"}}}};
        QVERIFY(c.putObject("dup-in", "d-0.tar", tests::makeShard(a)));
        QVERIFY(c.putObject("dup-in", "d-1.tar", tests::makeShard(b)));
        QVERIFY(c.createBucket("out-dup"));
        json spec{{"input_bck", "dup-in"},
                  {"input_format", {{"template", "d-{0..1}"}}},
                  {"output_bck", "out-dup"},
                  {"output_shard_size", "1MiB"},
                  {"duplicated_records", "abort"}};
        auto st = run(spec);
        QCOMPARE(st.job.state, api::JobState::Failed);
        QVERIFY2(st.job.error.find("\"k2\"") != std::string::npos, st.job.error.c_str());
        QVERIFY(outputs("out-dup").empty());
        spec["duplicated_records"] = "warn";
        st = run(spec);
        QVERIFY2(st.job.state == api::JobState::Finished, st.job.error.c_str());
        // The warning is in the sorting target's status and metrics.
        std::string warnings;
        for (const auto& [tid, ts] : st.job.targets) warnings += ts.error;
        QVERIFY2(warnings.find("\"k2\"") != std::string::npos, warnings.c_str());
        std::uint64_t dups = 0;
        for (const auto& [tid, m] : st.metrics.items()) dups += m.value("sort.duplicates", 0ull);
        QCOMPARE(dups, std::uint64_t{1});
        auto got = tests::allRecords(outputs("out-dup"));
        // Both k2 records are kept, next to each other in input order (read
        // back, consecutive files of one key form one WebDataset sample).
        QCOMPARE(tests::keysOf(got), (std::vector<std::string>{"k1", "k2", "k3"}));
        QCOMPARE(got[1].files, (tests::Members{{"k2.cls", "2"}, {"k2.cls", "22"}}));
    }

    void badSpecsNameTheField()
    {
        const auto good = baseSpec("out-bad");
        const std::vector<std::tuple<std::string, json, std::string>> cases = {
            {"input_bck", "no such!", "/input_bck"},
            {"input_format", json{{"template", "in-{5..1}"}}, "/input_format/template"},
            {"input_extension", ".rar", "/input_extension"},
            {"output_extension", ".7z", "/output_extension"},
            {"output_format", "plain", "/output_format"},
            {"output_shard_size", "lots", "/output_shard_size"},
            {"algorithm", json{{"kind", "magic"}}, "/algorithm/kind"},
            {"algorithm", json{{"kind", "content"}, {"content_key_type", "int"}}, "/algorithm/extension"},
            {"max_mem_usage", "200%", "/max_mem_usage"},
            {"create_concurrency_max_limit", 9999, "/create_concurrency_max_limit"},
            {"duplicated_records", "sometimes", "/duplicated_records"},
            {"missing_shards", 1, "/missing_shards"},
            {"ekm_file", "ekm-maps/none.json", "/ekm_file"},
            {"colour", "blue", "/colour"},
        };
        auto c = client();
        const auto jobsBefore = c.listDsorts()->size();
        for (const auto& [field, value, pointer] : cases) {
            auto spec = good;
            spec[field] = value;
            auto [status, message] = post(spec);
            QVERIFY2(status == 400, (field + ": " + std::to_string(status) + " " + message).c_str());
            QVERIFY2(message.find(pointer) != std::string::npos, (pointer + " not in: " + message).c_str());
        }
        auto [status, message] = post(json::parse("[1,2]"));
        QCOMPARE(status, 400);
        // An output that would replace an input in the same bucket.
        auto same = good;
        same["output_bck"] = "dsort-in";
        same["output_format"] = "in-{0..99}";
        std::tie(status, message) = post(same);
        QCOMPARE(status, 400);
        QVERIFY2(message.find("/output_format") != std::string::npos && message.find("in-0.tar") != std::string::npos,
                 message.c_str());
        auto spec = good;
        spec["input_bck"] = "nowhere";
        std::tie(status, message) = post(spec);
        QCOMPARE(status, 404);
        QVERIFY(message.find("nowhere") != std::string::npos);
        QCOMPARE(c.listDsorts()->size(), jobsBefore);  // nothing started
        QCOMPARE(client().dsortStatus("dsort-nope").kind(), api::ErrorKind::NotFound);
    }

    void dryRunPlansWhatTheJobDoes()
    {
        planMatchesJob(baseSpec("out-plan-alpha"), "out-plan-alpha");
        auto spec = baseSpec("out-plan-shuffle");
        spec["algorithm"] = {{"kind", "shuffle"}};  // the dry run picks the seed and returns it
        planMatchesJob(spec, "out-plan-shuffle");
        spec = baseSpec("out-plan-content");
        spec["algorithm"] = {{"kind", "content"}, {"extension", ".cls"}, {"content_key_type", "int"}};
        planMatchesJob(spec, "out-plan-content");
        spec = baseSpec("out-plan-none");
        spec["algorithm"] = {{"kind", "none"}};
        spec["output_shard_size"] = "7 records";
        planMatchesJob(spec, "out-plan-none");
    }

    void dryRunWarns()
    {
        // Missing shards: named, and the job's fate by the policy.
        auto spec = baseSpec("out-plan-warn");
        spec["input_format"] = {{"template", "in-{0..9}"}};
        spec["missing_shards"] = "abort";
        spec["output_shard_size"] = "1KiB";  // smaller than most records
        auto [status, answer] = postAs("?dry_run=true", spec.dump(), "application/json");
        QVERIFY2(status == 200, answer.dump().c_str());
        const auto& plan = answer["plan"];
        QVERIFY(plan["will_fail"] == true);
        QVERIFY(plan["missing"] == json::array({"in-8.tar", "in-9.tar"}));
        QCOMPARE(plan["missing_count"].get<int>(), 2);
        const auto warnings = plan["warnings"].dump();
        QVERIFY2(warnings.find("the job will fail: 2 input shard(s) do not exist (first: dsort-in/in-8.tar); "
                               "missing_shards is abort") != std::string::npos,
                 warnings.c_str());
        QVERIFY2(warnings.find("are larger than output_shard_size (1.0 KiB)") != std::string::npos, warnings.c_str());
        // Half the records have a .bin: not a majority rule, no warning; every record has .cls.
        QVERIFY2(warnings.find("have no .cls") == std::string::npos, warnings.c_str());
        // The same missing shards with "ignore": a plan without failure.
        spec["missing_shards"] = "ignore";
        std::tie(status, answer) = postAs("?dry_run=true", spec.dump(), "application/json");
        QVERIFY(answer["plan"]["will_fail"] == false);
        // Errors a job would get at once are the dry run's errors too.
        spec["input_bck"] = "no-such-bucket";
        std::tie(status, answer) = postAs("?dry_run=true", spec.dump(), "application/json");
        QCOMPARE(status, 404);
        std::tie(status, answer) = postAs("?dry_run=maybe", baseSpec("out-x").dump(), "application/json");
        QCOMPARE(status, 400);
        QVERIFY(answer["message"] == "dry_run must be true or false");
    }

    // More dry runs at once than the proxy has workers (max(4, 2 x cores)): each walks the
    // inputs' listing from a worker, and that listing must not need another
    // worker (when it went through the proxy's own HTTP port, every worker
    // could end up waiting for one: no answer until the list timeout).
    void dryRunsAtOnceAllAnswer()
    {
        const auto spec = baseSpec("out-many").dump();
        const auto r = tests::sendAtOnce(16, [&](int) {
            return tests::AtOnceCall{client::Method::Post,
                                     m_cluster.proxyUrl() + "/v1/sort?dry_run=true",
                                     spec,
                                     {{"Content-Type", "application/json"}}};
        });
        for (const auto& a : r.answers) QVERIFY2(a.status == 200, a.body.c_str());
        QVERIFY2(r.took < std::chrono::seconds(20), r.tookText().c_str());
        QVERIFY(outputs("out-many").empty());
    }

    void yamlSpecs()
    {
        // The same spec as YAML starts the same job.
        auto spec = baseSpec("out-yaml");
        spec["algorithm"] = {{"kind", "shuffle"}, {"seed", "42"}};
        auto [status, answer] = postAs("", spec::toYaml(spec), "application/yaml");
        QVERIFY2(status == 200, answer.dump().c_str());
        auto c = client();
        const auto st = tests::waitDsort(c, answer.is_string() ? answer.get<std::string>() : answer.dump());
        QVERIFY2(st.job.state == api::JobState::Finished, st.job.error.c_str());
        const auto viaYaml = outputs("out-yaml");
        const auto viaJson = outputs("out-shuf-a");  // seed 42 by JSON (shuffleSeeded)
        QCOMPARE(viaYaml.size(), viaJson.size());
        for (std::size_t i = 0; i < viaYaml.size(); ++i) QVERIFY(viaYaml[i].records == viaJson[i].records);
        // A YAML error names its line and column, and nothing starts.
        std::tie(status, answer) = postAs("", "input_bck: dsort-in\noutput_bck: [x\n", "text/yaml");
        QCOMPARE(status, 400);
        QVERIFY2(answer["message"].get<std::string>().rfind("invalid dsort spec: YAML line 3, column 1: ", 0) == 0,
                 answer.dump().c_str());
        // A field error is the checker's, as for JSON.
        std::tie(status, answer) = postAs("",
                                          "input_bck: dsort-in\ninput_format: {template: 'in-{0..7}'}\n"
                                          "output_shard_size: -5\n",
                                          "application/x-yaml");
        QCOMPARE(status, 400);
        QVERIFY2(answer["message"].get<std::string>().find("/output_shard_size") != std::string::npos,
                 answer.dump().c_str());
        std::tie(status, answer) = postAs("", spec.dump(), "image/png");
        QCOMPARE(status, 400);
        QVERIFY2(answer["message"] ==
                     "invalid dsort spec: Content-Type image/png (give application/json or application/yaml)",
                 answer.dump().c_str());
        // A dry run takes YAML too.
        std::tie(status, answer) = postAs("?dry_run=true", spec::toYaml(baseSpec("out-yaml-plan")), "application/yaml");
        QVERIFY2(status == 200, answer.dump().c_str());
        QCOMPARE(answer["plan"]["records"].get<int>(), kShards * kPerShard);
    }

    void removeFinished()
    {
        auto c = client();
        auto list = c.listDsorts();
        QVERIFY(list && !list->empty());
        const auto id = list->front().id;
        QVERIFY(c.removeDsort(id));
        QCOMPARE(c.dsortStatus(id).kind(), api::ErrorKind::NotFound);
        QCOMPARE(c.removeDsort(id).kind(), api::ErrorKind::NotFound);
    }
};

QTEST_GUILESS_MAIN(TestDsort)
#include "test_dsort.moc"
