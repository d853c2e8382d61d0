// The data-path counters: exact under concurrent updates, redirects and
// errors kept apart from successes, error statuses tracked, and the
// Prometheus rendering of a known snapshot.
#include "stats/prometheus_text.h"
#include "stats/stats_recorder.h"

#include <QTest>
#include <thread>
#include <vector>

using namespace tessera;
using tessera::daemon::stats::StatsRecorder;

class TestStatsRecorder : public QObject {
    Q_OBJECT

private slots:
    void concurrentUpdatesAreExact()
    {
        StatsRecorder r;
        constexpr int kThreads = 4;
        constexpr int kPer = 50000;
        std::vector<std::thread> ts;
        for (int t = 0; t < kThreads; ++t) {
            ts.emplace_back([&r] {
                for (int i = 0; i < kPer; ++i) r.record(api::OpKind::Get, 200, 1024, 150'000);
            });
        }
        for (auto& t : ts) t.join();
        const auto s = r.snapshot();
        const auto& g = s[static_cast<std::size_t>(api::OpKind::Get)];
        QCOMPARE(g.n, std::uint64_t{kThreads * kPer});
        QCOMPARE(g.bytes, std::uint64_t{kThreads * kPer} * 1024);
        QCOMPARE(g.ns, std::uint64_t{kThreads * kPer} * 150'000);
        QCOMPARE(g.latency[api::latencyBucket(150'000)], std::uint64_t{kThreads * kPer});
        QCOMPARE(s[static_cast<std::size_t>(api::OpKind::Put)].n, std::uint64_t{0});
    }

    void redirectsErrorsAndClientAbortsAreNotSuccesses()
    {
        StatsRecorder r;
        r.record(api::OpKind::Put, 307, 0, 1000);
        r.record(api::OpKind::Put, 404, 0, 1000);
        r.record(api::OpKind::Put, 404, 0, 1000);
        r.record(api::OpKind::Put, StatsRecorder::kClientAbort, 0, 1000);
        r.record(api::OpKind::Put, StatsRecorder::kClientAbort, 4096, 1000);
        r.record(api::OpKind::Put, 418, 0, 1000);  // untracked status: counted under 0
        r.record(api::OpKind::Put, 201, 10, 1000);
        r.record(api::OpKind::List, StatsRecorder::kClientAbort, 0, 1000);
        r.addChecksumError();
        const auto p = r.snapshot()[static_cast<std::size_t>(api::OpKind::Put)];
        QCOMPARE(p.n, std::uint64_t{1});
        QCOMPARE(p.bytes, std::uint64_t{10});
        QCOMPARE(p.redirects, std::uint64_t{1});
        // The client's aborts are not the node's errors.
        QCOMPARE(p.errors, std::uint64_t{3});
        QCOMPARE(p.aborts, std::uint64_t{2});
        QCOMPARE(p.errorsByStatus.at(404), std::uint64_t{2});
        QCOMPARE(p.errorsByStatus.at(0), std::uint64_t{1});
        QCOMPARE(p.errorsByStatus.size(), std::size_t{2});
        QCOMPARE(p.latency[api::latencyBucket(1000)], std::uint64_t{1});  // the one success
        const auto l = r.snapshot()[static_cast<std::size_t>(api::OpKind::List)];
        QCOMPARE(l.aborts, std::uint64_t{1});
        QCOMPARE(l.errors, std::uint64_t{0});
        QVERIFY(l.errorsByStatus.empty());
        QCOMPARE(r.checksumErrors(), std::uint64_t{1});
    }

    void prometheusTextOfAKnownSnapshot()
    {
        StatsRecorder r;
        r.record(api::OpKind::Get, 200, 100, 70'000);     // (50us, 100us]
        r.record(api::OpKind::Get, 200, 100, 3'000'000);  // (2ms, 5ms]
        r.record(api::OpKind::Get, 404, 0, 1);
        r.record(api::OpKind::Get, StatsRecorder::kClientAbort, 0, 1);
        api::NodeStats s;
        s.id = "t\"x";  // escaped in labels
        s.role = "target";
        s.ops = r.snapshot();
        s.mountpaths.push_back({"/mp1", 100, 90, 10, api::MountpathState::NearlyFull, {}, -1, {}});
        const auto text = daemon::stats::renderPrometheus(s);
        const std::string base = "node_id=\"t\\\"x\",role=\"target\"";
        auto has = [&](const std::string& line) { return text.find(line + "\n") != std::string::npos; };
        QVERIFY(has("# TYPE tessera_ops_total counter"));
        QVERIFY(has("tessera_ops_total{" + base + ",op=\"get\"} 2"));
        QVERIFY(has("tessera_op_bytes_total{" + base + ",op=\"get\"} 200"));
        QVERIFY(has("tessera_op_errors_total{" + base + ",op=\"get\",status=\"404\"} 1"));
        // The client's abort is its own counter, not an error status.
        QVERIFY(has("# TYPE tessera_op_client_aborts_total counter"));
        QVERIFY(has("tessera_op_client_aborts_total{" + base + ",op=\"get\"} 1"));
        QVERIFY(has("tessera_op_client_aborts_total{" + base + ",op=\"put\"} 0"));
        QVERIFY(text.find("status=\"499\"") == std::string::npos);
        QVERIFY(has("# TYPE tessera_op_duration_seconds histogram"));
        QVERIFY(has("tessera_op_duration_seconds_bucket{" + base + ",op=\"get\",le=\"5e-05\"} 0"));
        QVERIFY(has("tessera_op_duration_seconds_bucket{" + base + ",op=\"get\",le=\"0.0001\"} 1"));
        QVERIFY(has("tessera_op_duration_seconds_bucket{" + base + ",op=\"get\",le=\"0.005\"} 2"));
        QVERIFY(has("tessera_op_duration_seconds_bucket{" + base + ",op=\"get\",le=\"+Inf\"} 2"));
        QVERIFY(has("tessera_op_duration_seconds_count{" + base + ",op=\"get\"} 2"));
        QVERIFY(has("tessera_op_duration_seconds_sum{" + base + ",op=\"get\"} 0.00307"));
        QVERIFY(has("tessera_mountpath_state{" + base + ",mountpath=\"/mp1\",state=\"nearly_full\"} 1"));
        QVERIFY(has("tessera_mountpath_state{" + base + ",mountpath=\"/mp1\",state=\"ok\"} 0"));
        QVERIFY(text.find("tessera_feed_sessions") == std::string::npos);  // targets have no feed
    }
};

QTEST_APPLESS_MAIN(TestStatsRecorder)
#include "test_stats_recorder.moc"
