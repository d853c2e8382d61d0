// Node statistics: histogram buckets and quantiles, rates between two
// snapshots (including a restarted node), cluster sums, JSON round trips.
#include "api/node_stats.h"

#include <QTest>
#include <nlohmann/json.hpp>

using namespace tessera::api;

namespace {
NodeStats sample(std::int64_t tsNs, std::int64_t uptimeNs)
{
    NodeStats s;
    s.id = "t1";
    s.role = "target";
    s.tsNs = tsNs;
    s.uptimeNs = uptimeNs;
    return s;
}
}  // namespace

class TestNodeStats : public QObject {
    Q_OBJECT

private slots:
    void bucketsAreUpperBoundsInclusive()
    {
        QCOMPARE(latencyBucket(0), std::size_t{0});
        QCOMPARE(latencyBucket(50'000), std::size_t{0});
        QCOMPARE(latencyBucket(50'001), std::size_t{1});
        QCOMPARE(latencyBucket(1'000'000), std::size_t{4});
        QCOMPARE(latencyBucket(50'000'000'000), kLatencyBounds.size() - 1);
        QCOMPARE(latencyBucket(50'000'000'001), kLatencyBounds.size());  // +Inf
    }

    void quantilesOfAKnownDistribution()
    {
        LatencyHistogram h{};
        QCOMPARE(histogramQuantile(h, 0.5), std::uint64_t{0});
        // 100 observations: 90 in (100us, 200us], 9 in (1ms, 2ms], 1 in (50ms, 100ms].
        h[latencyBucket(150'000)] = 90;
        h[latencyBucket(1'500'000)] = 9;
        h[latencyBucket(70'000'000)] = 1;
        // p50: rank 50 of 90 in (100us, 200us] -> 100us + 50/90 * 100us.
        QCOMPARE(histogramQuantile(h, 0.50), std::uint64_t{155'555});
        // p90: rank 90 is the last of the first bucket: its upper bound.
        QCOMPARE(histogramQuantile(h, 0.90), std::uint64_t{200'000});
        // p99: rank 99 is the last of the (1ms, 2ms] bucket.
        QCOMPARE(histogramQuantile(h, 0.99), std::uint64_t{2'000'000});
        // p100: inside (50ms, 100ms], the only one there -> upper bound.
        QCOMPARE(histogramQuantile(h, 1.0), std::uint64_t{100'000'000});
        // Monotone in q.
        std::uint64_t prev = 0;
        for (int i = 1; i <= 100; ++i) {
            const auto v = histogramQuantile(h, i / 100.0);
            QVERIFY(v >= prev);
            prev = v;
        }
    }

    void overflowBucketReportsItsLowerBound()
    {
        LatencyHistogram h{};
        h[kLatencyBuckets - 1] = 3;
        QCOMPARE(histogramQuantile(h, 0.99), kLatencyBounds.back());
    }

    void ratesBetweenTwoSnapshots()
    {
        auto a = sample(1'000'000'000, 5'000'000'000);
        auto b = sample(3'000'000'000, 7'000'000'000);  // two seconds later
        a.op(OpKind::Get).n = 100;
        a.op(OpKind::Get).bytes = 100 * 1024;
        a.op(OpKind::Get).errors = 1;
        a.op(OpKind::Get).aborts = 2;
        a.op(OpKind::Get).latency[latencyBucket(150'000)] = 100;
        b.op(OpKind::Get).n = 300;
        b.op(OpKind::Get).bytes = 300 * 1024;
        b.op(OpKind::Get).errors = 5;
        b.op(OpKind::Get).aborts = 8;
        b.op(OpKind::Get).latency[latencyBucket(150'000)] = 100;
        b.op(OpKind::Get).latency[latencyBucket(3'000'000)] = 200;  // all new ones are slow
        a.cpuNs = 1'000'000'000;
        b.cpuNs = 2'000'000'000;  // one CPU second in two seconds
        const auto m = deriveMetrics(a, b);
        QCOMPARE(m.intervalSec, 2.0);
        const auto& g = m.op(OpKind::Get);
        QCOMPARE(g.opsPerSec, 100.0);
        QCOMPARE(g.bytesPerSec, 100.0 * 1024);
        QCOMPARE(g.errorsPerSec, 2.0);  // client aborts are not in it
        QCOMPARE(g.abortsPerSec, 3.0);
        QCOMPARE(g.totalN, std::uint64_t{300});
        QCOMPARE(g.totalErrors, std::uint64_t{5});
        QCOMPARE(g.totalAborts, std::uint64_t{8});
        // Interval percentiles see only the 200 new, slow operations.
        QVERIFY(g.p50Ns > 2'000'000 && g.p50Ns <= 5'000'000);
        QCOMPARE(g.p99Ns, histogramQuantile(g.interval, 0.99));
        QCOMPARE(m.cpuPercent, 50.0);
        QCOMPARE(m.op(OpKind::Put).opsPerSec, 0.0);
    }

    void restartedNodeHasNoRates()
    {
        auto a = sample(1'000'000'000, 9'000'000'000);
        auto b = sample(2'000'000'000, 500'000'000);  // uptime went down: restarted
        a.op(OpKind::Put).n = 1000;
        b.op(OpKind::Put).n = 10;
        const auto m = deriveMetrics(a, b);
        QCOMPARE(m.intervalSec, 0.0);
        QCOMPARE(m.op(OpKind::Put).opsPerSec, 0.0);
        QCOMPARE(m.op(OpKind::Put).totalN, std::uint64_t{10});
        const auto first = deriveMetrics(std::nullopt, b);
        QCOMPARE(first.op(OpKind::Put).totalN, std::uint64_t{10});
        QCOMPARE(first.op(OpKind::Put).opsPerSec, 0.0);
    }

    void clusterSumsMergeHistograms()
    {
        NodeMetrics x, y;
        x.ops[0].opsPerSec = 10;
        x.ops[0].totalN = 100;
        x.ops[0].interval[latencyBucket(150'000)] = 99;
        y.ops[0].opsPerSec = 5;
        y.ops[0].totalN = 50;
        y.ops[0].interval[latencyBucket(70'000'000)] = 1;
        x.ops[0].errorsPerSec = 1;
        y.ops[0].abortsPerSec = 0.5;
        y.ops[0].totalAborts = 7;
        const auto s = sumRates({x, y});
        QCOMPARE(s[0].opsPerSec, 15.0);
        QCOMPARE(s[0].errorsPerSec, 1.0);
        QCOMPARE(s[0].abortsPerSec, 0.5);
        QCOMPARE(s[0].totalAborts, std::uint64_t{7});
        QCOMPARE(s[0].totalN, std::uint64_t{150});
        QCOMPARE(s[0].p50Ns, histogramQuantile(s[0].interval, 0.5));
        QCOMPARE(s[0].p99Ns, std::uint64_t{200'000});  // 99 of 100 are fast
        QCOMPARE(histogramQuantile(s[0].interval, 1.0), std::uint64_t{100'000'000});
    }

    void jsonRoundTripUsesAisNames()
    {
        auto s = sample(123, 456);
        s.cpuNs = 7;
        s.rssBytes = 8;
        s.connections = 3;
        s.requests = 99;
        s.smapVersion = 4;
        s.bmdVersion = 2;
        s.checksumErrors = 1;
        s.op(OpKind::Get).n = 5;
        s.op(OpKind::Get).bytes = 5000;
        s.op(OpKind::Get).ns = 777;
        s.op(OpKind::Get).errors = 2;
        s.op(OpKind::Get).redirects = 9;
        s.op(OpKind::Get).latency[3] = 5;
        s.op(OpKind::Get).aborts = 3;
        s.op(OpKind::Get).errorsByStatus = {{404, 1}, {503, 1}};
        s.op(OpKind::Delete).n = 1;
        s.mountpaths.push_back({"/mp1", 1000, 900, 100, MountpathState::NearlyFull, {}, -1, {}});
        s.feed = FeedStats{1, 2, 3, 4};
        const nlohmann::json j = s;
        QCOMPARE(j["counters"]["get.n"].get<int>(), 5);
        QCOMPARE(j["counters"]["get.size"].get<int>(), 5000);
        QCOMPARE(j["counters"]["get.ns"].get<int>(), 777);
        QCOMPARE(j["counters"]["err.get.n"].get<int>(), 2);
        QCOMPARE(j["counters"]["get.redir.n"].get<int>(), 9);
        QCOMPARE(j["counters"]["get.abort.n"].get<int>(), 3);
        QCOMPARE(j["counters"]["put.abort.n"].get<int>(), 0);
        QCOMPARE(j["counters"]["del.n"].get<int>(), 1);
        QCOMPARE(j["counters"]["err.cksum.n"].get<int>(), 1);
        QCOMPARE(j["errors_by_status"]["get"]["404"].get<int>(), 1);
        QCOMPARE(j["mountpaths"][0]["state"].get<std::string>(), std::string("nearly_full"));
        QCOMPARE(j["mountpaths"][0]["used_percent"].get<double>(), 90.0);
        auto back = parseNodeStats(j.dump());
        QVERIFY(back);
        QVERIFY(nlohmann::json(*back) == j);
        QCOMPARE(back->op(OpKind::Get).aborts, std::uint64_t{3});
        QCOMPARE(back->op(OpKind::Get).errors, std::uint64_t{2});
        // A node from before client aborts were counted apart: none.
        auto older = j;
        for (const auto* kind : {"get", "put", "head", "del", "lst"})
            older["counters"].erase(std::string(kind) + ".abort.n");
        auto old = parseNodeStats(older.dump());
        QVERIFY(old);
        QCOMPARE(old->op(OpKind::Get).aborts, std::uint64_t{0});
    }

    void ratesRoundTripWithClientAborts()
    {
        NodeMetrics m;
        m.id = "t1";
        m.role = "target";
        auto& g = m.ops[static_cast<std::size_t>(OpKind::Get)];
        g.opsPerSec = 10;
        g.errorsPerSec = 0.5;
        g.abortsPerSec = 1.5;
        g.totalErrors = 4;
        g.totalAborts = 9;
        const nlohmann::json j = m;
        QCOMPARE(j["ops"]["get"]["aborts_s"].get<double>(), 1.5);
        QCOMPARE(j["ops"]["get"]["aborts"].get<int>(), 9);
        QCOMPARE(j["ops"]["get"]["errors_s"].get<double>(), 0.5);
        const auto back = j.get<NodeMetrics>();
        const auto& b = back.op(OpKind::Get);
        QCOMPARE(b.abortsPerSec, 1.5);
        QCOMPARE(b.totalAborts, std::uint64_t{9});
        QCOMPARE(b.errorsPerSec, 0.5);
        QCOMPARE(b.totalErrors, std::uint64_t{4});
        QVERIFY(nlohmann::json(back) == j);
    }

    void malformedStatsAreBadRequest()
    {
        QCOMPARE(parseNodeStats("{").kind(), ErrorKind::BadRequest);
        QCOMPARE(parseNodeStats("{\"daemon_id\":\"x\"}").kind(), ErrorKind::BadRequest);
        auto j = nlohmann::json(sample(1, 1));
        j["latency"]["bounds_ns"] = {1, 2, 3};  // another build's buckets
        QCOMPARE(parseNodeStats(j.dump()).kind(), ErrorKind::BadRequest);
        j = nlohmann::json(sample(1, 1));
        j["errors_by_status"] = {{"get", {{"abc", 1}}}};
        QCOMPARE(parseNodeStats(j.dump()).kind(), ErrorKind::BadRequest);
        // Found by fuzz_node_stats: a float in an integer field is refused
        // (nlohmann's cast of 1.5e300 is undefined behaviour); the float a
        // node writes itself (used_percent) is not.
        j = nlohmann::json(sample(1, 1));
        j["uptime_ns"] = 1.5e300;
        QCOMPARE(parseNodeStats(j.dump()).kind(), ErrorKind::BadRequest);
        j = nlohmann::json(sample(1, 1));
        j["mountpaths"] = {{{"path", "/mp1"}, {"total", 100}, {"used", 50}, {"used_percent", 50.0}}};
        QVERIFY(parseNodeStats(j.dump()).ok());
    }

    // Found by fuzz_node_stats: a target whose figures cannot be read (a
    // status key that is not a number, another build's buckets, a float in
    // an integer field) is explained in `errors`, not thrown out of the parser.
    void clusterStatsExplainUnreadableTargets()
    {
        const auto good = nlohmann::json(sample(1, 1));
        auto badKey = good;
        badKey["errors_by_status"] = {{"get", {{"x500", 1}}}};
        auto badBounds = good;
        badBounds["latency"]["bounds_ns"] = {1, 2, 3};
        auto badFloat = good;
        badFloat["ts_ns"] = 1e300;
        const nlohmann::json doc = {{"proxy", nlohmann::json::object()},
                                    {"target", {{"t1", good}, {"t2", badKey}, {"t3", badBounds}, {"t4", badFloat}}}};
        const auto c = parseClusterStats(doc.dump());
        QVERIFY(c.ok());
        QCOMPARE(c->targets.size(), std::size_t{1});
        QCOMPARE(c->errors.size(), std::size_t{3});
        QVERIFY(c->errors.at("t4").find("whole number") != std::string::npos);
    }

    void mountpathStates()
    {
        QCOMPARE(mountpathStateFor(100, 84), MountpathState::Ok);
        QCOMPARE(mountpathStateFor(100, 85), MountpathState::NearlyFull);
        QCOMPARE(mountpathStateFor(100, 95), MountpathState::Full);
        QCOMPARE(mountpathStateFor(0, 0), MountpathState::Error);
    }
};

QTEST_APPLESS_MAIN(TestNodeStats)
#include "test_node_stats.moc"
