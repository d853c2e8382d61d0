// ETL against a real 3-target cluster, with the sample transformers of
// resources/etl and the misbehaving ones of tests/integration/etl_bin:
// init/list/show/logs/stop/start/delete; inline GET (plain, pipeline, args,
// shard member, hpush, hpull); offline by prefix with extension mapping
// (PNG -> 32x32 JPEG), by template, dry run, abort; per-sample shard ETL
// read back by GNU tar; transformers that crash, hang, exit 1, flood, leave
// children, or live outside etl_bin_dirs (each a clear error, no partial
// object, no leftover process); an hpush server restarted after it died
// (feed event); a target restarted mid-job; ETLs surviving a proxy restart.
#include "feed_recorder.h"
#include "local_cluster.h"
#include "shard_test_util.h"

#include "api/http_error.h"
#include "api/json_util.h"
#include "archive/archive_writer.h"

#include <QBuffer>
#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <dirent.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

using namespace tessera;
using client::Body;
using client::Method;
using nlohmann::json;

namespace {

const std::string kSamples = TESSERA_SOURCE_DIR "/resources/etl";
const std::string kTestBin = TESSERA_SOURCE_DIR "/tests/integration/etl_bin";

std::string md5Hex(const std::string& s)
{
    return QCryptographicHash::hash(QByteArray::fromStdString(s), QCryptographicHash::Md5).toHex().toStdString();
}

std::string upper(std::string s)
{
    for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

std::string pngOf(int w, int h, int seed)
{
    QImage img(w, h, QImage::Format_RGB32);
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) img.setPixel(x, y, qRgb((x * 7 + seed) & 255, (y * 5 + seed) & 255, seed & 255));
    }
    QByteArray bytes;
    QBuffer buf(&bytes);
    buf.open(QIODevice::WriteOnly);
    img.save(&buf, "PNG");
    return bytes.toStdString();
}

// Process ids whose parent is `ppid` (from /proc).
std::set<int> childrenOf(qint64 ppid)
{
    std::set<int> out;
    DIR* d = ::opendir("/proc");
    if (d == nullptr) return out;
    while (auto* e = ::readdir(d)) {
        const int pid = std::atoi(e->d_name);
        if (pid <= 0) continue;
        std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
        std::string stat;
        std::getline(f, stat);
        const auto close = stat.rfind(')');
        if (close == std::string::npos) continue;
        char state = 0;
        long parent = 0;
        if (std::sscanf(stat.c_str() + close + 1, " %c %ld", &state, &parent) == 2 && parent == ppid) out.insert(pid);
    }
    ::closedir(d);
    return out;
}

// Processes whose command line contains `needle` (the test transformers'
// unique sleeps).
int countProcesses(const std::string& needle)
{
    int n = 0;
    DIR* d = ::opendir("/proc");
    if (d == nullptr) return 0;
    while (auto* e = ::readdir(d)) {
        const int pid = std::atoi(e->d_name);
        if (pid <= 0 || pid == ::getpid()) continue;
        std::ifstream f("/proc/" + std::to_string(pid) + "/cmdline");
        std::string cmd((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        for (auto& c : cmd) c = c == '\0' ? ' ' : c;
        if (cmd.find(needle) != std::string::npos) ++n;
    }
    ::closedir(d);
    return n;
}

}  // namespace

class TestEtl : public QObject {
    Q_OBJECT

private:
    tests::LocalCluster m_cluster{[] {
        tests::LocalCluster::Options o;
        o.targets = 3;
        o.mountpaths = 1;
        o.extraTargetArgs = {"--etl-bin-dir", QString::fromStdString(kSamples), "--etl-bin-dir",
                             QString::fromStdString(kTestBin)};
        return o;
    }()};
    std::map<std::string, std::string> m_text;    // bucket "src": txt/NN.txt
    std::map<std::string, std::string> m_images;  // bucket "src": img/NN.png

    client::Client client() { return client::Client(m_cluster.proxyUrl()); }

    // A raw call through the proxy (redirects followed): status and body.
    std::pair<int, std::string> call(Method m, const std::string& path, const std::string& body = {})
    {
        auto r = m_cluster.http().send(m, m_cluster.proxyUrl() + path, body.empty() ? Body::none() : Body::string(body),
                                       {{"Content-Type", "application/json"}});
        if (!r) return {0, r.error().message};
        return {r->status, r->body};
    }

    void init(const json& spec)
    {
        auto [status, body] = call(Method::Put, "/v1/etl", spec.dump());
        if (status != 200) qFatal("etl init %s: %d %s", spec.dump().c_str(), status, body.c_str());
    }

    api::JobStatus runEtlBucket(const std::string& src, const std::string& dst, const api::EtlBucketMsg& msg)
    {
        auto c = client();
        auto st = c.etlBucket(src, dst, msg);
        if (!st) qFatal("etl bucket refused: %s", st.error().message.c_str());
        return tests::waitJob(c, st->id);
    }

    std::size_t registrySize()
    {
        auto l = client().etlList();
        return l ? l->size() : 9999;
    }

private slots:
    void initTestCase()
    {
        // A secret in the nodes' environment that no transformer may see.
        qputenv("TESSERA_TEST_SECRET", "s3cr3t-value");
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        auto c = client();
        QVERIFY(c.createBucket("src"));
        for (int i = 0; i < 24; ++i) {
            char name[32];
            std::snprintf(name, sizeof name, "txt/%02d.txt", i);
            m_text[name] = "line " + std::to_string(i) + " " +
                           std::string(static_cast<std::size_t>(i) * 37, static_cast<char>('a' + i));
        }
        for (int i = 0; i < 12; ++i) {
            char name[32];
            std::snprintf(name, sizeof name, "img/%02d.png", i);
            m_images[name] = pngOf(28 + i, 28, i * 11);
        }
        QCOMPARE(tests::putAll(m_cluster.proxyUrl(), "src", m_text), 0);
        QCOMPARE(tests::putAll(m_cluster.proxyUrl(), "src", m_images), 0);
        init({{"name", "md5"}, {"command", {"md5"}}});
        init({{"name", "upper-push"},
              {"communication", "hpush://"},
              {"command", {"http_server.py", "--port", "{port}", "--op", "upper"}}});
        init({{"name", "upper-pull"},
              {"communication", "hpull://"},
              {"command", {"http_server.py", "--op", "upper"}}});  // port from TESSERA_ETL_PORT
    }

    void lifecycle()
    {
        auto c = client();
        auto list = c.etlList();
        QVERIFY(list);
        std::set<std::string> names;
        for (const auto& e : *list) names.insert(e.name);
        QVERIFY(names.count("md5") && names.count("upper-push") && names.count("upper-pull"));
        // Init answers once every target accepted the spec; a transformer
        // on a loaded machine may still be `starting` for a moment.
        auto show = c.etlShow("upper-push");
        QVERIFY(QTest::qWaitFor(
            [&] {
                show = c.etlShow("upper-push");
                return show && show->stage == "running";
            },
            20000));
        QVERIFY(show);
        QCOMPARE(show->stage, std::string("running"));
        QCOMPARE(show->targets.size(), std::size_t(3));
        for (const auto& [tid, s] : show->targets) {
            QCOMPARE(s.stage, std::string("running"));
            QVERIFY(s.pid > 0 && s.port > 0);
        }
        QVERIFY(show->spec && show->spec->command.at(0) == "http_server.py");
        auto logs = c.etlLogs("upper-push");
        QVERIFY(logs);
        QCOMPARE(logs->size(), std::size_t(3));
        for (const auto& l : *logs) QVERIFY2(l.log.find("upper on") != std::string::npos, l.log.c_str());
        auto one = c.etlLogs("upper-push", m_cluster.targetId(1));
        QVERIFY(one && one->size() == 1 && one->front().target == m_cluster.targetId(1));

        // The same name twice: 409, nothing changes.
        auto [dup, dupBody] = call(Method::Put, "/v1/etl", json{{"name", "md5"}, {"command", {"xxhash"}}}.dump());
        QCOMPARE(dup, 409);
        // stop -> GET 409; start -> 200; rm -> 404.
        init({{"name", "cycle"}, {"command", {"md5"}}});
        const std::string obj = "/v1/objects/src/txt/01.txt?etl_name=cycle";
        QCOMPARE(call(Method::Get, obj).first, 200);
        QVERIFY(c.etlStop("cycle"));
        auto [stopped, stoppedBody] = call(Method::Get, obj);
        QCOMPARE(stopped, 409);
        QVERIFY2(stoppedBody.find("stopped") != std::string::npos, stoppedBody.c_str());
        auto started = c.etlStart("cycle");
        QVERIFY2(started, started ? "" : started.error().message.c_str());
        auto [again, againBody] = call(Method::Get, obj);
        QCOMPARE(again, 200);
        QCOMPARE(againBody, md5Hex(m_text.at("txt/01.txt")));
        QVERIFY(c.etlRemove("cycle"));
        QCOMPARE(call(Method::Get, obj).first, 404);
        QCOMPARE(call(Method::Get, "/v1/etl/cycle").first, 404);
        QCOMPARE(call(Method::Delete, "/v1/etl/cycle").first, 404);
    }

    void badSpecs_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("says");
        QTest::newRow("no command") << R"({"name":"x1"})" << 400 << "/command: required";
        QTest::newRow("shell string") << R"({"name":"x1","command":"md5 -x"})" << 400 << "/command: must be an array";
        QTest::newRow("one string with spaces") << R"({"name":"x1","command":["md5 -x"]})" << 400 << "/command/0";
        QTest::newRow("bad name") << R"({"name":"X Y","command":["md5"]})" << 400 << "/name";
        QTest::newRow("bad comm") << R"({"name":"x1","command":["md5"],"communication":"k8s://"})" << 400
                                  << "/communication";
        QTest::newRow("bad timeout") << R"({"name":"x1","command":["md5"],"obj_timeout":"soon"})" << 400
                                     << "/obj_timeout";
        QTest::newRow("unknown field") << R"({"name":"x1","command":["md5"],"image":"x"})" << 400
                                       << "/image: unknown field";
        QTest::newRow("reserved env") << R"({"name":"x1","command":["md5"],"env":{"TESSERA_X":"1"}})" << 400
                                      << "/env/TESSERA_X";
        QTest::newRow("outside etl_bin_dirs")
            << R"({"name":"x1","command":["/bin/sh","-c","id"]})" << 403 << "outside the allowed directories";
        QTest::newRow("escape by ..") << R"({"name":"x1","command":["../../../../bin/sh"]})" << 403 << "etl_bin_dirs";
        QTest::newRow("missing") << R"({"name":"x1","command":["no-such-transformer"]})" << 403 << "etl_bin_dirs";
        QTest::newRow("malformed") << R"({"name":)" << 400 << "malformed JSON";
    }

    void badSpecs()
    {
        QFETCH(QString, spec);
        QFETCH(int, status);
        QFETCH(QString, says);
        const auto before = registrySize();
        auto [got, body] = call(Method::Put, "/v1/etl", spec.toStdString());
        QCOMPARE(got, status);
        QVERIFY2(body.find(says.toStdString()) != std::string::npos, body.c_str());
        QVERIFY(json::parse(body, nullptr, false).is_object());
        QCOMPARE(registrySize(), before);
    }

    void inlineGet()
    {
        for (const auto& [name, data] : m_text) {
            auto [status, body] = call(Method::Get, "/v1/objects/src/" + name + "?etl_name=md5");
            QCOMPARE(status, 200);
            QCOMPARE(body, md5Hex(data));
            auto push = call(Method::Get, "/v1/objects/src/" + name + "?etl_name=upper-push");
            QCOMPARE(push.first, 200);
            QCOMPARE(push.second, upper(data));
            auto pull = call(Method::Get, "/v1/objects/src/" + name + "?etl_name=upper-pull");
            QCOMPARE(pull.first, 200);
            QCOMPARE(pull.second, upper(data));
        }
        // A pipeline: upper, then md5.
        const auto& data = m_text.at("txt/05.txt");
        auto [p, pbody] = call(Method::Get, "/v1/objects/src/txt/05.txt?etl_name=upper-push&etl_pipeline=md5");
        QCOMPARE(p, 200);
        QCOMPARE(pbody, md5Hex(upper(data)));
        // Range applies to the result.
        auto r = m_cluster.http().send(Method::Get, m_cluster.proxyUrl() + "/v1/objects/src/txt/05.txt?etl_name=md5",
                                       Body::none(), {{"Range", "bytes=0-7"}});
        QVERIFY(r);
        QCOMPARE(r->status, 206);
        QCOMPARE(r->body, md5Hex(data).substr(0, 8));
        // etl_args: a jq program per request.
        init({{"name", "jq"}, {"command", {"json_filter", "{args}"}}});
        auto c = client();
        QVERIFY(c.putObject("src", "doc.json", R"({"label":7,"pixels":[1,2,3]})"));
        auto [j, jbody] = call(Method::Get, "/v1/objects/src/doc.json?etl_name=jq&etl_args=.label");
        QCOMPARE(j, 200);
        QCOMPARE(jbody, std::string("7\n"));
        // The client's call.
        std::string got;
        client::Sink sink = [&](const char* d, std::size_t n) {
            got.append(d, n);
            return api::Status{};
        };
        QVERIFY(c.getTransformed("src", "doc.json", {"jq", "md5"}, "{l: .label}", sink));
        QCOMPARE(got, md5Hex("{\"l\":7}\n"));
        // Unknown ETL: 404; a bad pipeline: 400.
        QCOMPARE(call(Method::Get, "/v1/objects/src/doc.json?etl_name=nope").first, 404);
        QCOMPARE(call(Method::Get, "/v1/objects/src/doc.json?etl_name=md5&etl_pipeline=,md5").first, 400);
        QCOMPARE(call(Method::Get, "/v1/objects/src/doc.json?etl_name=md5&etl_pipeline=nope").first, 404);
        QCOMPARE(call(Method::Get, "/v1/objects/src/nothing-here?etl_name=md5").first, 404);
    }

    void shardMember()
    {
        // A shard; its member through the ETL.
        std::string shard;
        auto w = archive::ArchiveWriter::create(archive::ArchiveFormat::Tar, [&](const char* p, std::size_t n) {
            shard.append(p, n);
            return api::Status{};
        });
        QVERIFY(w);
        QVERIFY((*w)->add("s1.txt", "first sample", 0));
        QVERIFY((*w)->add("s2.txt", "second sample", 0));
        QVERIFY((*w)->finish());
        auto c = client();
        QVERIFY(c.putObject("src", "shard-member.tar", shard));
        auto [s, body] = call(Method::Get, "/v1/objects/src/shard-member.tar?archpath=s2.txt&etl_name=upper-push");
        QCOMPARE(s, 200);
        QCOMPARE(body, std::string("SECOND SAMPLE"));
        auto [m, mbody] = call(Method::Get, "/v1/objects/src/shard-member.tar?archpath=s1.txt&etl_name=md5");
        QCOMPARE(m, 200);
        QCOMPARE(mbody, md5Hex("first sample"));
        QCOMPARE(call(Method::Get, "/v1/objects/src/shard-member.tar?archpath=nope.txt&etl_name=md5").first, 404);
    }

    void failingTransformers_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("says");
        QTest::newRow("exit 1") << "exit_one" << 502 << "exit_one: this input is not acceptable";
        QTest::newRow("crash") << "crash" << 502 << "signal 11";
        QTest::newRow("hang") << "hang" << 504 << "obj_timeout";
        QTest::newRow("flood") << "flood" << 502 << "max_output_size";
    }

    void failingTransformers()
    {
        QFETCH(QString, command);
        QFETCH(int, status);
        QFETCH(QString, says);
        std::map<int, std::set<int>> before;
        for (int i = 0; i < m_cluster.targetCount(); ++i) before[i] = childrenOf(m_cluster.targetPid(i));
        std::string name = "f-" + command.toStdString().substr(0, 8);
        std::replace(name.begin(), name.end(), '_', '-');
        init(
            {{"name", name}, {"command", {command.toStdString()}}, {"obj_timeout", "1s"}, {"max_output_size", "1MiB"}});
        for (const auto& obj : {"txt/00.txt", "txt/07.txt", "img/03.png"}) {
            auto [got, body] = call(Method::Get, std::string("/v1/objects/src/") + obj + "?etl_name=" + name);
            QCOMPARE(got, status);
            QVERIFY2(body.find(says.toStdString()) != std::string::npos, body.c_str());
            QVERIFY2(body.find("etl " + name) != std::string::npos, body.c_str());
        }
        // Offline: a per-object error each, no destination object.
        api::EtlBucketMsg msg;
        msg.id = name;
        msg.prefix = "txt/0";
        msg.continueOnErr = true;
        const auto st = runEtlBucket("src", "failed-" + name, msg);
        QCOMPARE(st.state, api::JobState::Finished);
        QCOMPARE(st.progress.errors, std::uint64_t(10));
        auto dst = client().listAll("failed-" + name);
        QVERIFY(dst);
        QCOMPARE(dst->size(), std::size_t(0));
        // Without continue_on_err the job fails, naming the object.
        msg.continueOnErr = false;
        const auto failed = runEtlBucket("src", "failed-" + name, msg);
        QCOMPARE(failed.state, api::JobState::Failed);
        QVERIFY2(failed.error.find("txt/0") != std::string::npos, failed.error.c_str());
        QCOMPARE(client().listAll("failed-" + name)->size(), std::size_t(0));
        // No process left behind, no zombie.
        for (int i = 0; i < m_cluster.targetCount(); ++i) {
            QVERIFY(QTest::qWaitFor([&] { return childrenOf(m_cluster.targetPid(i)) == before[i]; }, 5000));
        }
        QCOMPARE(countProcesses("sleep 1003"), 0);
        auto show = client().etlShow(name);
        QVERIFY(show);
        QVERIFY(show->errors >= 3);
        QVERIFY(client().etlRemove(name));
    }

    void framedWorkers()
    {
        std::map<int, std::set<int>> before;
        for (int i = 0; i < m_cluster.targetCount(); ++i) before[i] = childrenOf(m_cluster.targetPid(i));
        init({{"name", "framed"}, {"command", {"framed_upper"}}, {"framing", "length"}, {"pool_size", 2}});
        // Many objects through at most 2 long-lived workers per target.
        for (int round = 0; round < 3; ++round) {
            for (const auto& [name, data] : m_text) {
                auto [s, body] = call(Method::Get, "/v1/objects/src/" + name + "?etl_name=framed");
                QCOMPARE(s, 200);
                QCOMPARE(body, upper(data));
            }
        }
        for (int i = 0; i < m_cluster.targetCount(); ++i) {
            const auto now = childrenOf(m_cluster.targetPid(i));
            QVERIFY2(now.size() <= before[i].size() + 2, "at most pool_size workers");
        }
        // A worker that dies: a 502 naming its exit, and the next object works.
        QVERIFY(client().putObject("src", "die.txt", "die"));
        auto [d, dbody] = call(Method::Get, "/v1/objects/src/die.txt?etl_name=framed");
        QCOMPARE(d, 502);
        QVERIFY2(dbody.find("exited with status 3") != std::string::npos, dbody.c_str());
        QVERIFY2(dbody.find("framed_upper: told to die") != std::string::npos, dbody.c_str());
        auto [a, abody] = call(Method::Get, "/v1/objects/src/txt/09.txt?etl_name=framed");
        QCOMPARE(a, 200);
        QCOMPARE(abody, upper(m_text.at("txt/09.txt")));
        // Offline through the workers; then per-request args are refused.
        api::EtlBucketMsg msg;
        msg.id = "framed";
        msg.prefix = "txt/";
        const auto st = runEtlBucket("src", "framed-out", msg);
        QVERIFY2(st.state == api::JobState::Finished, st.error.c_str());
        QCOMPARE(*client().getObject("framed-out", "txt/13.txt"), upper(m_text.at("txt/13.txt")));
        QCOMPARE(call(Method::Get, "/v1/objects/src/txt/09.txt?etl_name=framed&etl_args=x").first, 400);
        // The framed resize sample gives what the per-object one gives.
        init({{"name", "resize-framed"}, {"command", {"resize_image.py", "32"}}, {"framing", "length"}});
        auto [r, rbody] = call(Method::Get, "/v1/objects/src/img/04.png?etl_name=resize-framed");
        QCOMPARE(r, 200);
        QImage img;
        QVERIFY(img.loadFromData(QByteArray::fromStdString(rbody), "JPEG"));
        QCOMPARE(img.size(), QSize(32, 32));
        // Removing the ETLs ends their workers.
        QVERIFY(client().etlRemove("framed"));
        QVERIFY(client().etlRemove("resize-framed"));
        for (int i = 0; i < m_cluster.targetCount(); ++i) {
            QVERIFY(QTest::qWaitFor([&] { return childrenOf(m_cluster.targetPid(i)) == before[i]; }, 5000));
        }
        QCOMPARE(
            call(Method::Put, "/v1/etl",
                 json{{"name", "x1"}, {"communication", "hpush"}, {"command", {"md5"}}, {"framing", "length"}}.dump())
                .first,
            400);
    }

    void leftoverChildren()
    {
        init({{"name", "leaves-child"}, {"command", {"leaves_child"}}});
        auto [got, body] = call(Method::Get, "/v1/objects/src/txt/03.txt?etl_name=leaves-child");
        QCOMPARE(got, 200);
        QCOMPARE(body, m_text.at("txt/03.txt"));
        QVERIFY(QTest::qWaitFor([] { return countProcesses("sleep 1004") == 0; }, 3000));
        QVERIFY(client().etlRemove("leaves-child"));
    }

    void offlinePrefixWithExtension()
    {
        init({{"name", "resize"}, {"command", {"resize_image.py", "32"}}, {"pool_size", 4}});
        api::EtlBucketMsg msg;
        msg.id = "resize";
        msg.prefix = "img/";
        msg.ext = {{"png", "jpg"}};
        const auto st = runEtlBucket("src", "thumbs", msg);
        QVERIFY2(st.state == api::JobState::Finished, st.error.c_str());
        QCOMPARE(st.progress.objectsDone, std::uint64_t(m_images.size()));
        auto list = client().listAll("thumbs");
        QVERIFY(list);
        QCOMPARE(list->size(), m_images.size());
        for (const auto& e : *list) {
            QVERIFY2(e.name.size() > 4 && e.name.substr(e.name.size() - 4) == ".jpg", e.name.c_str());
            auto bytes = client().getObject("thumbs", e.name);
            QVERIFY(bytes);
            QImage img;
            QVERIFY(img.loadFromData(QByteArray::fromStdString(*bytes), "JPEG"));
            QCOMPARE(img.size(), QSize(32, 32));
        }
        // A dry run counts and writes nothing.
        msg.dryRun = true;
        const auto dry = runEtlBucket("src", "thumbs-dry", msg);
        QCOMPARE(dry.state, api::JobState::Finished);
        QCOMPARE(dry.progress.objectsDone, std::uint64_t(m_images.size()));
        QCOMPARE(call(Method::Get, "/v1/objects/thumbs-dry/img/00.jpg").first, 404);
    }

    void offlineTemplateAndList()
    {
        api::EtlBucketMsg msg;
        msg.id = "upper-push";
        msg.templ = "txt/{00..23..2}.txt";  // 12 names
        const auto st = runEtlBucket("src", "evens", msg);
        QVERIFY2(st.state == api::JobState::Finished, st.error.c_str());
        auto list = client().listAll("evens");
        QVERIFY(list);
        QCOMPARE(list->size(), std::size_t(12));
        for (const auto& e : *list) QCOMPARE(*client().getObject("evens", e.name), upper(m_text.at(e.name)));
        // A name that does not exist: named in the job, the others done.
        api::EtlBucketMsg names;
        names.id = "md5";
        names.objnames = {"txt/01.txt", "txt/missing.txt"};
        names.continueOnErr = true;
        const auto some = runEtlBucket("src", "named", names);
        QCOMPARE(some.state, api::JobState::Finished);
        QCOMPARE(some.progress.errors, std::uint64_t(1));
        QCOMPARE(*client().getObject("named", "txt/01.txt"), md5Hex(m_text.at("txt/01.txt")));
        // Bad requests change nothing.
        QCOMPARE(
            call(Method::Post, "/v1/buckets/src", R"({"action":"etl-bck","name":"src","value":{"id":"md5"}})").first,
            400);
        QCOMPARE(
            call(Method::Post, "/v1/buckets/src", R"({"action":"etl-bck","name":"dst-x","value":{"id":"nope"}})").first,
            404);
        QCOMPARE(
            call(Method::Post, "/v1/buckets/src", R"({"action":"etl-bck","name":"dst-x","value":{"id":"md5","ext":5}})")
                .first,
            400);
        QCOMPARE(call(Method::Post, "/v1/buckets/nosuch", R"({"action":"etl-bck","name":"dst-x","value":{"id":"md5"}})")
                     .first,
                 404);
    }

    void abortOffline()
    {
        init({{"name", "slow"}, {"command", {"hang"}}, {"obj_timeout", "30s"}, {"pool_size", 2}});
        auto c = client();
        auto st = c.etlBucket("src", "aborted", api::EtlBucketMsg{"slow", "txt/", {}, {}, {}, false, false, 2});
        QVERIFY(st);
        QTest::qWait(300);
        QVERIFY(c.abortJob(st->id));
        QElapsedTimer t;
        t.start();
        const auto end = tests::waitJob(c, st->id, std::chrono::seconds(10));
        QCOMPARE(end.state, api::JobState::Aborted);
        QVERIFY2(t.elapsed() < 5000, "an abort ends a running transformer at once");
        QCOMPARE(c.listAll("aborted")->size(), std::size_t(0));
        QVERIFY(QTest::qWaitFor([] { return countProcesses("sleep 1003") == 0; }, 3000));
        QVERIFY(c.etlRemove("slow"));
    }

    void perSampleShards()
    {
        // 3 shards of 5 samples (.txt + .cls each); .txt through the ETL.
        std::map<std::string, std::string> shards;
        std::map<std::string, tests::Members> sources;
        for (int s = 0; s < 3; ++s) {
            std::string bytes;
            auto w = archive::ArchiveWriter::create(archive::ArchiveFormat::Tar, [&](const char* p, std::size_t n) {
                bytes.append(p, n);
                return api::Status{};
            });
            QVERIFY(w);
            for (int k = 0; k < 5; ++k) {
                const std::string key = "sample-" + std::to_string(s) + "-" + std::to_string(k);
                const std::string text = "caption " + std::to_string(s * 10 + k);
                QVERIFY((*w)->add(key + ".txt", text, 0));
                QVERIFY((*w)->add(key + ".cls", std::to_string(k), 0));
                sources["shards/shard-" + std::to_string(s) + ".tar"].emplace_back(key + ".txt", text);
                sources["shards/shard-" + std::to_string(s) + ".tar"].emplace_back(key + ".cls", std::to_string(k));
            }
            QVERIFY((*w)->finish());
            shards["shards/shard-" + std::to_string(s) + ".tar"] = bytes;
        }
        QCOMPARE(tests::putAll(m_cluster.proxyUrl(), "src", shards), 0);
        api::EtlBucketMsg msg;
        msg.id = "upper-push";
        msg.prefix = "shards/";
        msg.perSample = true;
        msg.sampleExt = {"txt"};
        msg.ext = {{"txt", "TXT"}};
        const auto st = runEtlBucket("src", "shards-upper", msg);
        QVERIFY2(st.state == api::JobState::Finished, st.error.c_str());
        QTemporaryDir dir;
        for (const auto& [name, members] : sources) {
            auto bytes = client().getObject("shards-upper", name);
            QVERIFY2(bytes, name.c_str());
            const QString path = dir.filePath("s.tar");
            {
                std::ofstream f(path.toStdString(), std::ios::binary);
                f << *bytes;
            }
            // GNU tar lists every key, in the same order, renamed and transformed.
            QProcess tar;
            tar.start("tar", {"-tf", path});
            QVERIFY(tar.waitForFinished(10000));
            QCOMPARE(tar.exitCode(), 0);
            const auto listed = QString::fromUtf8(tar.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
            QCOMPARE(listed.size(), static_cast<int>(members.size()));
            for (std::size_t i = 0; i < members.size(); ++i) {
                const auto& [mname, mdata] = members[i];
                const bool text = mname.size() > 4 && mname.substr(mname.size() - 4) == ".txt";
                const std::string want = text ? mname.substr(0, mname.size() - 4) + ".TXT" : mname;
                QCOMPARE(listed[static_cast<int>(i)].toStdString(), want);
                QProcess x;
                x.start("tar", {"-xOf", path, QString::fromStdString(want)});
                QVERIFY(x.waitForFinished(10000));
                QCOMPARE(x.readAllStandardOutput().toStdString(), text ? upper(mdata) : mdata);
            }
        }
        // hpull cannot read members: refused when the job starts.
        msg.id = "upper-pull";
        auto refused = client().etlBucket("src", "shards-pull", msg);
        QVERIFY(!refused);
        QVERIFY2(refused.error().message.find("hpull") != std::string::npos, refused.error().message.c_str());
    }

    void hpushRestartedAfterDeath()
    {
        QTemporaryDir dir;
        const std::string dieFile = dir.filePath("die").toStdString();
        tests::FeedRecorder feed(m_cluster.proxyUrl());
        QVERIFY(feed.waitOpen());
        init({{"name", "dying"},
              {"communication", "hpush://"},
              {"command", {"dying_server", "--port", "{port}"}},
              {"env", {{"DIE_FILE", dieFile}}}});
        QCOMPARE(call(Method::Get, "/v1/objects/src/txt/02.txt?etl_name=dying").second, upper(m_text.at("txt/02.txt")));
        std::ofstream(dieFile) << "now";
        // Every target's server sees the file in turn; wait until all restarted.
        // One target's server sees the file first, removes it and dies; that
        // target starts it again.
        QVERIFY(QTest::qWaitFor(
            [&] {
                auto show = client().etlShow("dying");
                if (!show) return false;
                for (const auto& [tid, s] : show->targets) {
                    if (s.restarts >= 1 && s.stage == "running") return true;
                }
                return false;
            },
            20000));
        QVERIFY(QTest::qWaitFor(
            [&] {
                auto [s, body] = call(Method::Get, "/v1/objects/src/txt/02.txt?etl_name=dying");
                return s == 200 && body == upper(m_text.at("txt/02.txt"));
            },
            10000));
        QVERIFY(feed.waitFor("event", 0, 8000,
                             [](const json& m) { return m["data"].value("kind", "") == "etl_restarted"; }) >= 0);
        QVERIFY(client().etlRemove("dying"));
    }

    void targetRestartedMidJob()
    {
        init({{"name", "slowish"}, {"command", {"md5"}}, {"pool_size", 1}});
        std::map<std::string, std::string> many;
        for (int i = 0; i < 300; ++i) many["many/" + std::to_string(i)] = std::string(100, 'x') + std::to_string(i);
        QCOMPARE(tests::putAll(m_cluster.proxyUrl(), "src", many), 0);
        auto c = client();
        api::EtlBucketMsg msg;
        msg.id = "slowish";
        msg.prefix = "many/";
        msg.numWorkers = 1;
        auto st = c.etlBucket("src", "many-out", msg);
        QVERIFY(st);
        QTest::qWait(200);
        m_cluster.killTarget(2);
        const auto end = tests::waitJob(c, st->id, std::chrono::seconds(60));
        QCOMPARE(end.state, api::JobState::Failed);
        QVERIFY2(end.error.find(m_cluster.targetId(2)) != std::string::npos, end.error.c_str());
        // Whatever was written is whole: each object is the md5 of its source.
        QVERIFY(m_cluster.restartTarget(2));
        QVERIFY(m_cluster.waitForTargets(3, std::chrono::seconds(20)));
        auto out = c.listAll("many-out");
        QVERIFY(out);
        for (const auto& e : *out) {
            auto got = c.getObject("many-out", e.name);
            QVERIFY(got);
            QCOMPARE(*got, md5Hex(many.at(e.name)));
        }
        // The restarted target runs its ETLs again (it got the registry on join).
        QVERIFY(QTest::qWaitFor(
            [&] {
                auto show = c.etlShow("upper-push");
                return show && show->targets.count(m_cluster.targetId(2)) &&
                       show->targets.at(m_cluster.targetId(2)).stage == "running";
            },
            20000));
        for (const auto& [name, data] : m_text) {
            auto [s, body] = call(Method::Get, "/v1/objects/src/" + name + "?etl_name=upper-push");
            QCOMPARE(s, 200);
            QCOMPARE(body, upper(data));
        }
        // And the job, run again, completes.
        const auto again = runEtlBucket("src", "many-out", msg);
        QVERIFY2(again.state == api::JobState::Finished, again.error.c_str());
        QCOMPARE(c.listAll("many-out")->size(), many.size());
    }

    void fence()
    {
        init({{"name", "env"}, {"command", {"print_env"}}, {"memory_limit", "512MiB"}, {"env", {{"MODE", "x"}}}});
        auto [s, out] = call(Method::Get, "/v1/objects/src/txt/06.txt?etl_name=env");
        QCOMPARE(s, 200);
        QVERIFY2(out.find("s3cr3t-value") == std::string::npos, out.c_str());
        QVERIFY2(out.find("PATH=/usr/local/bin:/usr/bin:/bin\n") != std::string::npos, out.c_str());
        QVERIFY2(out.find("TESSERA_ETL_NAME=env\n") != std::string::npos, out.c_str());
        QVERIFY2(out.find("TESSERA_OBJECT=src/txt/06.txt\n") != std::string::npos, out.c_str());
        QVERIFY2(out.find("MODE=x\n") != std::string::npos, out.c_str());
        QVERIFY2(out.find("ulimit_v=524288\n") != std::string::npos, out.c_str());
        QVERIFY2(out.find("ulimit_n=1024\n") != std::string::npos, out.c_str());
        QVERIFY2(out.find("/etl-work/env\n") != std::string::npos, out.c_str());
        // Its own process group (killed as one).
        const auto pid = out.substr(out.find("pid=") + 4, out.find('\n', out.find("pid=")) - out.find("pid=") - 4);
        QVERIFY2(out.find("pgid=" + pid + "\n") != std::string::npos, out.c_str());
        QVERIFY(client().etlRemove("env"));
    }

    void cli()
    {
        const auto run = [&](const QStringList& args, int* code = nullptr) {
            QProcess p;
            p.start(TESSERA_CLI_BINARY, QStringList{"--endpoint", QString::fromStdString(m_cluster.proxyUrl())} + args);
            p.waitForFinished(60000);
            if (code) *code = p.exitCode();
            return p.readAllStandardOutput().toStdString() + p.readAllStandardError().toStdString();
        };
        int code = -1;
        auto out = run({"etl", "init", "--name", "cli-md5", "--obj-timeout", "5s", "--", "md5"}, &code);
        QVERIFY2(code == 0 && out.find("cli-md5 (io://): running") != std::string::npos, out.c_str());
        out = run({"etl", "object", "cli-md5", "src/txt/01.txt", "-"}, &code);
        QCOMPARE(code, 0);
        QCOMPARE(out, md5Hex(m_text.at("txt/01.txt")));
        out = run({"etl", "bucket", "cli-md5", "src", "cli-out", "--prefix", "txt/1", "--ext", "txt:md5", "--wait"},
                  &code);
        QVERIFY2(code == 0 && out.find("finished") != std::string::npos, out.c_str());
        QCOMPARE(*client().getObject("cli-out", "txt/12.md5"), md5Hex(m_text.at("txt/12.txt")));
        out = run({"etl", "ls"}, &code);
        QVERIFY2(code == 0 && out.find("cli-md5") != std::string::npos, out.c_str());
        // A failing transform: exit 1, the error on stderr, no file written.
        QTemporaryDir dir;
        const auto file = dir.filePath("out.bin");
        out = run({"etl", "object", "cli-md5", "src/no-such-object", file}, &code);
        QCOMPARE(code, 1);
        QVERIFY(!QFile::exists(file) && !QFile::exists(file + ".part"));
        out = run({"etl", "init", "--name", "cli-bad", "--", "/bin/sh"}, &code);
        QVERIFY2(code == 1 && out.find("etl_bin_dirs") != std::string::npos, out.c_str());
        out = run({"etl", "rm", "cli-md5"}, &code);
        QCOMPARE(code, 0);
    }

    void newTargetStartsEtls()
    {
        QVERIFY(m_cluster.addTarget());
        const auto id = m_cluster.targetId(m_cluster.targetCount() - 1);
        QVERIFY(QTest::qWaitFor(
            [&] {
                auto show = client().etlShow("upper-push");
                return show && show->targets.count(id) && show->targets.at(id).stage == "running";
            },
            20000));
    }

    void survivesProxyRestart()
    {
        m_cluster.killProxy();
        QVERIFY(m_cluster.restartProxy());
        QVERIFY(m_cluster.waitForTargets(m_cluster.targetCount(), std::chrono::seconds(20)));
        auto list = client().etlList();
        QVERIFY(list);
        std::set<std::string> names;
        for (const auto& e : *list) names.insert(e.name);
        QVERIFY(names.count("md5") && names.count("upper-push") && names.count("resize"));
        auto [s, body] = call(Method::Get, "/v1/objects/src/txt/04.txt?etl_name=md5");
        QCOMPARE(s, 200);
        QCOMPARE(body, md5Hex(m_text.at("txt/04.txt")));
    }

    void cleanupTestCase()
    {
        // Every transformer goes with its ETL: no child left on any target.
        auto list = client().etlList();
        QVERIFY(list);
        for (const auto& e : *list) QVERIFY(client().etlRemove(e.name));
        for (int i = 0; i < m_cluster.targetCount(); ++i) {
            QVERIFY(QTest::qWaitFor([&] { return childrenOf(m_cluster.targetPid(i)).empty(); }, 5000));
        }
    }
};

QTEST_GUILESS_MAIN(TestEtl)
#include "test_etl.moc"
