// AIStore's xaction calls over Tessera's jobs, against a real 1 proxy + 3
// target cluster, sent as AIStore's clients send them (api/xaction.go, the
// Python SDK's job.py): a real job is seen in what=qryxstats, waited for
// with what=status until it ends, and another one, kept running by a
// transformer that never answers, is stopped with AIStore's stop action.
// `ais start rebalance` starts Tessera's rebalance; the configuration
// setters are refused naming their keys and change nothing.
#include "ais_strict_decoder.h"
#include "local_cluster.h"
#include "shard_test_util.h"

#include "api/etl_msg.h"

#include <QTest>
#include <nlohmann/json.hpp>

using namespace tessera;
using client::Body;
using client::Method;
using nlohmann::json;

namespace {

const std::string kTestBin = TESSERA_SOURCE_DIR "/tests/integration/etl_bin";

// The zero cmn.Bck Go marshals in a QueryMsg or ArgsMsg.
const json kNoBck = json::parse(R"({"name":"","provider":"","namespace":{"uuid":"","name":""}})");

}  // namespace

class TestAistoreXaction : public QObject {
    Q_OBJECT

private:
    tests::LocalCluster m_cluster{[] {
        tests::LocalCluster::Options o;
        o.targets = 3;
        o.mountpaths = 1;
        o.extraProxyArgs = {"--rebalance-auto", "false"};  // the tests start their own
        o.extraTargetArgs = {"--etl-bin-dir", QString::fromStdString(kTestBin)};
        return o;
    }()};

    client::Client client() { return client::Client(m_cluster.proxyUrl()); }

    std::pair<int, std::string> call(Method m, const std::string& pathAndQuery, const json& body = nullptr)
    {
        const auto b = body.is_null() ? Body::none() : Body::string(body.dump());
        auto r =
            m_cluster.http().send(m, m_cluster.proxyUrl() + pathAndQuery, b, {{"Content-Type", "application/json"}});
        if (!r) qFatal("%s: %s", pathAndQuery.c_str(), r.error().message.c_str());
        return {r->status, r->body};
    }

    // GET /v1/cluster?what=WHAT with `body`, the answer decoded strictly as `schema`
    // (each element of a list, each snap of a MultiSnap).
    json query(const std::string& what, const json& body, int wantStatus = 200)
    {
        auto [status, text] = call(Method::Get, "/v1/cluster?what=" + what, body);
        if (status != wantStatus) {
            QTest::qFail(("what=" + what + ": HTTP " + std::to_string(status) + " " + text).c_str(), __FILE__,
                         __LINE__);
            return nullptr;
        }
        if (status != 200) return nullptr;
        auto doc = json::parse(text);
        std::vector<std::string> errors;
        if (what == "status") errors = tests::ais::check(doc, tests::ais::kXactStatus);
        if (what == "qryxstats") {
            for (const auto& [tid, snaps] : doc.items()) {
                for (const auto& s : snaps) {
                    for (auto& e : tests::ais::check(s, tests::ais::kXactSnap)) errors.push_back("/" + tid + e);
                }
            }
        }
        if (!errors.empty()) QTest::qFail((what + ": " + errors.front()).c_str(), __FILE__, __LINE__);
        return doc;
    }

    // What the SDK's Job.status() sends (JobArgs.as_dict()).
    static json sdkArgs(const std::string& id, const std::string& kind = "")
    {
        return {{"ID", id}, {"Kind", kind}, {"DaemonID", ""}, {"Bck", nullptr}, {"Buckets", nullptr}};
    }

    // What the Go client sends in an ActMsg value (xact.ArgsMsg, no JSON tags).
    static json goArgs(const std::string& id, const std::string& kind)
    {
        return {{"ID", id},           {"Kind", kind}, {"DaemonID", ""}, {"Bck", kNoBck},
                {"Buckets", nullptr}, {"Timeout", 0}, {"Force", false}, {"OnlyRunning", false}};
    }

    // Polls what=status (as api.WaitForXactionIC and the SDK's wait do)
    // until end_time is set; the last status.
    json waitStatus(const std::string& id)
    {
        json st;
        const bool ended = QTest::qWaitFor(
            [&] {
                st = query("status", sdkArgs(id));
                return QTest::currentTestFailed() || (st.is_object() && st.value("end_time", std::int64_t{0}) != 0);
            },
            60000);
        if (!ended) QTest::qFail(("job " + id + " did not end: " + st.dump()).c_str(), __FILE__, __LINE__);
        return st;
    }

    std::vector<std::string> running(const std::string& kind)
    {
        auto [status, text] = call(Method::Get, "/v1/cluster?what=running_all",
                                   {{"show_active", nullptr}, {"bck", kNoBck}, {"id", ""}, {"kind", kind}});
        if (status != 200) qFatal("running_all: %d %s", status, text.c_str());
        return json::parse(text).get<std::vector<std::string>>();
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        auto c = client();
        QVERIFY(c.createBucket("xin"));
        std::map<std::string, std::string> objects;
        for (int i = 0; i < 12; ++i) objects["txt/" + std::to_string(i) + ".txt"] = "line " + std::to_string(i);
        QCOMPARE(tests::putAll(m_cluster.proxyUrl(), "xin", objects), 0);
    }

    // A real Tessera job (a rebalance, started with Tessera's own call)
    // seen in what=qryxstats on every target taking part, waited for with
    // what=status until it ends, then seen ended and idle.
    void jobSeenAndWaitedFor()
    {
        auto c = client();
        auto started = c.startJob("rebalance");
        QVERIFY2(started, started ? "" : started.error().message.c_str());
        const auto id = started->id;

        auto snaps = query("qryxstats", {{"show_active", nullptr}, {"bck", kNoBck}, {"id", id}, {"kind", ""}});
        QVERIFY(!QTest::currentTestFailed());
        QCOMPARE(snaps.size(), std::size_t{3});
        for (int i = 0; i < m_cluster.targetCount(); ++i) {
            const auto& mine = snaps.at(m_cluster.targetId(i));
            QCOMPARE(mine.size(), std::size_t{1});
            QCOMPARE(mine[0].at("id").get<std::string>(), id);
            QCOMPARE(mine[0].at("kind").get<std::string>(), std::string("rebalance"));
        }

        const auto st = waitStatus(id);
        QVERIFY(!QTest::currentTestFailed());
        QCOMPARE(st.at("uuid").get<std::string>(), id);
        QCOMPARE(st.at("kind").get<std::string>(), std::string("rebalance"));
        QCOMPARE(st.at("aborted").get<bool>(), false);
        QCOMPARE(st.at("err").get<std::string>(), std::string());
        // Tessera's own view agrees.
        auto mine = c.job(id);
        QVERIFY(mine);
        QCOMPARE(mine->state, api::JobState::Finished);
        QCOMPARE(st.at("end_time").get<std::int64_t>(), mine->endNs);

        snaps = query("qryxstats", {{"show_active", nullptr}, {"bck", kNoBck}, {"id", id}, {"kind", ""}});
        for (const auto& [tid, list] : snaps.items()) {
            QVERIFY2(list[0].at("is_idle").get<bool>(), tid.c_str());
            QVERIFY2(list[0].at("end-time").get<std::string>() != "0001-01-01T00:00:00Z", tid.c_str());
        }
        // Listed by kind, not among the running.
        const auto all = query("status_all", {{"kind", "rebalance"}});
        bool listed = false;
        for (const auto& s : all) listed = listed || s.at("uuid") == id;
        QVERIFY(listed);
        QVERIFY(running("rebalance").empty());
    }

    // An offline ETL job kept running by a transformer that never answers,
    // stopped with AIStore's stop action (api.AbortXaction), then seen
    // aborted through what=status and in Tessera's own job status.
    void stopRunningJob()
    {
        auto [st, body] = call(Method::Put, "/v1/etl",
                               {{"name", "hang"}, {"command", {"hang"}}, {"obj_timeout", "30s"}, {"pool_size", 2}});
        QVERIFY2(st == 200, body.c_str());
        auto c = client();
        auto job = c.etlBucket("xin", "xout", api::EtlBucketMsg{"hang", "txt/", {}, {}, {}, false, false, 2});
        QVERIFY2(job, job ? "" : job.error().message.c_str());
        const auto id = job->id;
        const auto name = "etl-bck[" + id + "]";
        QVERIFY(QTest::qWaitFor(
            [&] {
                const auto r = running("etl-bck");
                return std::find(r.begin(), r.end(), name) != r.end();
            },
            10000));
        auto active = query("qryxstats", {{"show_active", true}, {"bck", kNoBck}, {"id", id}, {"kind", ""}});
        QVERIFY(!QTest::currentTestFailed());
        for (const auto& [tid, list] : active.items()) {
            QCOMPARE(list[0].at("end-time").get<std::string>(), std::string("0001-01-01T00:00:00Z"));
            QCOMPARE(list[0].at("is_idle").get<bool>(), false);
        }
        QCOMPARE(query("status", sdkArgs(id)).at("end_time").get<std::int64_t>(), std::int64_t{0});

        auto [stop, stopBody] =
            call(Method::Put, "/v1/cluster", {{"action", "stop"}, {"value", goArgs(id, "etl-bck")}});
        QVERIFY2(stop == 200, stopBody.c_str());
        const auto ended = waitStatus(id);
        QVERIFY(!QTest::currentTestFailed());
        QCOMPARE(ended.at("aborted").get<bool>(), true);
        QVERIFY(!ended.at("err").get<std::string>().empty());
        QCOMPARE(c.job(id)->state, api::JobState::Aborted);
        QVERIFY(running("etl-bck").empty());
        QVERIFY(c.etlRemove("hang"));
    }

    // `ais start rebalance`: the id as plain text, a job Tessera runs.
    void startRebalance()
    {
        auto [status, id] = call(Method::Put, "/v1/cluster", {{"action", "start"}, {"value", goArgs("", "rebalance")}});
        QVERIFY2(status == 200, id.c_str());
        QVERIFY(!id.empty() && id.front() != '{');
        auto job = client().job(id);
        QVERIFY2(job, id.c_str());
        QCOMPARE(job->kind, std::string("rebalance"));
        const auto st = waitStatus(id);
        QCOMPARE(st.at("aborted").get<bool>(), false);
    }

    void refusals()
    {
        // A query that selects nothing is AIStore's 404; no selector where
        // one is needed, a bad body, an unknown field: 400.
        query("qryxstats", {{"id", "no-such-job"}}, 404);
        query("status", json::object(), 400);
        QCOMPARE(call(Method::Get, "/v1/cluster?what=qryxstats", json::parse(R"({"uuid":"x"})")).first, 400);
        QCOMPARE(call(Method::Put, "/v1/cluster", {{"action", "stop"}, {"value", goArgs("", "")}}).first, 400);
        QCOMPARE(call(Method::Put, "/v1/cluster", {{"action", "stop"}, {"value", goArgs("no-such-job", "")}}).first,
                 404);
        const auto lru = call(Method::Put, "/v1/cluster", {{"action", "start"}, {"value", goArgs("", "lru")}});
        QCOMPARE(lru.first, 501);
        QVERIFY2(json::parse(lru.second).at("message").get<std::string>().find("\"lru\"") != std::string::npos,
                 lru.second.c_str());
    }

    // The configuration setters: 501 naming every key, and nothing changes.
    void configSetIsRefused()
    {
        const auto before = call(Method::Get, "/v1/cluster?what=cluster_config");
        QCOMPARE(before.first, 200);
        auto r = call(Method::Put, "/v1/cluster/setconfig?log.level=4&periodic.stats_time=1s&transient=true");
        QCOMPARE(r.first, 501);
        QVERIFY2(r.second.find("log.level (Tessera: log_level, at start)") != std::string::npos, r.second.c_str());
        QVERIFY2(r.second.find("periodic.stats_time (no Tessera equivalent)") != std::string::npos, r.second.c_str());
        QVERIFY2(r.second.find("transient") == std::string::npos, r.second.c_str());
        r = call(Method::Put, "/v1/cluster/setconfig?transient=true");
        QCOMPARE(r.first, 400);
        r = call(Method::Put, "/v1/cluster",
                 {{"action", "set-config"}, {"value", {{"keepalivetracker", {{"target", {{"interval", "1s"}}}}}}}});
        QCOMPARE(r.first, 501);
        QVERIFY2(r.second.find("keepalivetracker.target.interval (Tessera: keepalive_interval_ms") != std::string::npos,
                 r.second.c_str());
        r = call(Method::Put, "/v1/cluster", {{"action", "set-config"}, {"value", json::object()}});
        QCOMPARE(r.first, 400);
        r = call(Method::Put, "/v1/cluster", {{"action", "reset-config"}});
        QCOMPARE(r.first, 501);
        r = call(Method::Put, "/v1/reverse/daemon", {{"action", "reset-config"}});
        QCOMPARE(r.first, 501);
        r = call(Method::Put, "/v1/reverse/daemon", {{"action", "rotate-logs"}});
        QCOMPARE(r.first, 501);
        QVERIFY2(r.second.find("rotate-logs") != std::string::npos, r.second.c_str());
        QCOMPARE(call(Method::Put, "/v1/reverse/daemon", json::array()).first, 400);
        const auto after = call(Method::Get, "/v1/cluster?what=cluster_config");
        QCOMPARE(after.second, before.second);
    }
};

QTEST_GUILESS_MAIN(TestAistoreXaction)
#include "test_aistore_xaction.moc"
