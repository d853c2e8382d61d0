// tessera bench's statistics: histogram slots, percentiles against known
// distributions (exact within the histogram's 1/64 resolution), merging,
// interval bookkeeping and the rates of a summary.
#include "bench/bench_stats.h"
#include "bench/latency_histogram.h"

#include <QTest>
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace tessera::cli::bench;

namespace {
// The exact percentile by the same definition: the ceil(q*n)-th smallest.
std::uint64_t exactPercentile(std::vector<std::uint64_t> v, double q)
{
    std::sort(v.begin(), v.end());
    const auto rank = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size()))));
    return v[rank - 1];
}

bool within(std::uint64_t got, std::uint64_t want, double relative)
{
    return std::fabs(static_cast<double>(got) - static_cast<double>(want)) <= relative * static_cast<double>(want) + 1;
}
}  // namespace

class TestBenchStats : public QObject {
    Q_OBJECT

private slots:
    void slotsCoverEveryValue()
    {
        // Below 64 a slot per value; above, contiguous slots whose width is
        // 1/64 of their range.
        for (std::uint64_t v = 0; v < 64; ++v) {
            QCOMPARE(LatencyHistogram::slotOf(v), std::size_t(v));
            QCOMPARE(LatencyHistogram::slotLow(v), v);
        }
        QCOMPARE(LatencyHistogram::slotOf(64), std::size_t{64});
        QCOMPARE(LatencyHistogram::slotOf(127), std::size_t{127});
        QCOMPARE(LatencyHistogram::slotOf(128), std::size_t{128});
        QCOMPARE(LatencyHistogram::slotOf(129), std::size_t{128});
        QCOMPARE(LatencyHistogram::slotLow(128), std::uint64_t{128});
        QCOMPARE(LatencyHistogram::slotHigh(128), std::uint64_t{129});
        for (std::uint64_t v : {std::uint64_t{1000}, std::uint64_t{123456789}, std::uint64_t{1} << 40, UINT64_MAX}) {
            const auto s = LatencyHistogram::slotOf(v);
            QVERIFY(s < LatencyHistogram::kSlots);
            QVERIFY(LatencyHistogram::slotLow(s) <= v);
            QVERIFY(v <= LatencyHistogram::slotHigh(s));
            QVERIFY(LatencyHistogram::slotHigh(s) - LatencyHistogram::slotLow(s) <= v / 64);
        }
        QCOMPARE(LatencyHistogram::slotOf(UINT64_MAX), LatencyHistogram::kSlots - 1);
    }

    void empty()
    {
        LatencyHistogram h;
        QCOMPARE(h.count(), std::uint64_t{0});
        QCOMPARE(h.min(), std::uint64_t{0});
        QCOMPARE(h.max(), std::uint64_t{0});
        QCOMPARE(h.mean(), 0.0);
        QCOMPARE(h.percentile(0.5), std::uint64_t{0});
    }

    void uniformDistribution()
    {
        // 1..100000 ns, each once: p50 = 50000, p90 = 90000, p99 = 99000.
        LatencyHistogram h;
        for (std::uint64_t v = 1; v <= 100000; ++v) h.record(v);
        QCOMPARE(h.count(), std::uint64_t{100000});
        QCOMPARE(h.min(), std::uint64_t{1});
        QCOMPARE(h.max(), std::uint64_t{100000});
        QCOMPARE(h.mean(), 50000.5);
        QVERIFY2(within(h.percentile(0.50), 50000, 1.0 / 64), std::to_string(h.percentile(0.50)).c_str());
        QVERIFY2(within(h.percentile(0.90), 90000, 1.0 / 64), std::to_string(h.percentile(0.90)).c_str());
        QVERIFY2(within(h.percentile(0.99), 99000, 1.0 / 64), std::to_string(h.percentile(0.99)).c_str());
        QCOMPARE(h.percentile(0.0), std::uint64_t{1});
        QCOMPARE(h.percentile(1.0), std::uint64_t{100000});
    }

    void smallValuesAreExact()
    {
        // Values under 64 have a slot each: percentiles are exact.
        LatencyHistogram h;
        for (std::uint64_t v = 1; v <= 50; ++v) h.record(v);
        QCOMPARE(h.percentile(0.5), std::uint64_t{25});
        QCOMPARE(h.percentile(0.9), std::uint64_t{45});
        QCOMPARE(h.percentile(0.99), std::uint64_t{50});
    }

    void bimodalTail()
    {
        // 990 fast (100 us) and 10 slow (50 ms) operations: p99 is still
        // fast, p99.9 and max are the slow ones.
        LatencyHistogram h;
        for (int i = 0; i < 990; ++i) h.record(100'000);
        for (int i = 0; i < 10; ++i) h.record(50'000'000);
        QVERIFY(within(h.percentile(0.50), 100'000, 1.0 / 64));
        QVERIFY(within(h.percentile(0.99), 100'000, 1.0 / 64));
        QVERIFY(within(h.percentile(0.999), 50'000'000, 1.0 / 64));
        QCOMPARE(h.max(), std::uint64_t{50'000'000});
        QCOMPARE(h.mean(), (990.0 * 100'000 + 10.0 * 50'000'000) / 1000.0);
    }

    void exponentialAgainstSorted()
    {
        // A skewed distribution spanning four decades, against the exact
        // percentiles of the same samples.
        std::mt19937_64 rng(42);
        std::exponential_distribution<double> d(1.0 / 200'000.0);
        std::vector<std::uint64_t> values;
        LatencyHistogram h;
        for (int i = 0; i < 200'000; ++i) {
            const auto v = static_cast<std::uint64_t>(d(rng)) + 1000;
            values.push_back(v);
            h.record(v);
        }
        for (double q : {0.5, 0.9, 0.99, 0.999}) {
            const auto want = exactPercentile(values, q);
            QVERIFY2(
                within(h.percentile(q), want, 1.0 / 64),
                (std::to_string(q) + ": " + std::to_string(h.percentile(q)) + " vs " + std::to_string(want)).c_str());
        }
        QCOMPARE(h.min(), *std::min_element(values.begin(), values.end()));
        QCOMPARE(h.max(), *std::max_element(values.begin(), values.end()));
    }

    void mergeEqualsRecordingAll()
    {
        LatencyHistogram a, b, all;
        for (std::uint64_t v = 1; v <= 1000; ++v) {
            (v % 3 == 0 ? a : b).record(v * 1000);
            all.record(v * 1000);
        }
        a.merge(b);
        QCOMPARE(a.count(), all.count());
        QCOMPARE(a.min(), all.min());
        QCOMPARE(a.max(), all.max());
        QCOMPARE(a.mean(), all.mean());
        for (double q : {0.1, 0.5, 0.9, 0.99}) QCOMPARE(a.percentile(q), all.percentile(q));
        LatencyHistogram empty;
        a.merge(empty);
        QCOMPARE(a.count(), all.count());
        QCOMPARE(a.min(), all.min());
    }

    void intervalsStartAgainAndAddUp()
    {
        BenchStats s;
        for (int i = 0; i < 10; ++i) s.record(OpKind::Get, 1000, 1024, 0);
        s.record(OpKind::Put, 5000, 4096, 0);
        s.record(OpKind::Get, 0, 0, 0, "HTTP 404 from t1");
        auto first = s.takeInterval();
        QCOMPARE(first[0].ops, std::uint64_t{10});
        QCOMPARE(first[0].errors, std::uint64_t{1});
        QCOMPARE(first[0].bytes, std::uint64_t{10240});
        QCOMPARE(first[0].latency.count(), std::uint64_t{10});  // failures are not timed
        QCOMPARE(first[1].ops, std::uint64_t{1});
        QCOMPARE(first[2].ops, std::uint64_t{0});

        s.record(OpKind::List, 2000, 500, 1000);
        auto second = s.takeInterval();
        QCOMPARE(second[0].ops, std::uint64_t{0});  // the previous interval is gone
        QCOMPARE(second[2].items, std::uint64_t{1000});

        OpCounters total;
        total.merge(first[0]);
        total.merge(second[0]);
        QCOMPARE(total.ops, std::uint64_t{10});
        QCOMPARE(total.errors, std::uint64_t{1});
    }

    void errorSamplesAreDistinctAndBounded()
    {
        BenchStats s;
        for (int i = 0; i < 3; ++i) s.record(OpKind::Get, 0, 0, 0, "same");
        for (int i = 0; i < 20; ++i) s.record(OpKind::Put, 0, 0, 0, "e" + std::to_string(i));
        const auto samples = s.errorSamples();
        QCOMPARE(samples.size(), BenchStats::kMaxErrorSamples);
        QCOMPARE(samples.front(), std::string("same"));
        QCOMPARE(samples[1], std::string("e0"));
    }

    void summaryRates()
    {
        OpCounters c;
        for (int i = 0; i < 500; ++i) c.latency.record(2'000'000);  // 2 ms
        c.ops = 500;
        c.bytes = 500 * 1'000'000ull;
        c.items = 250'000;
        c.errors = 2;
        const auto s = summarize(c, 2.0);
        QCOMPARE(s.opsPerSec, 250.0);
        QCOMPARE(s.mbPerSec, 250.0);  // 10^6 bytes
        QCOMPARE(s.itemsPerSec, 125'000.0);
        QCOMPARE(s.errors, std::uint64_t{2});
        QCOMPARE(s.latMinUs, 2000.0);
        QCOMPARE(s.latMaxUs, 2000.0);
        QCOMPARE(s.latAvgUs, 2000.0);
        QCOMPARE(s.latP50Us, 2000.0);
        const auto zero = summarize(c, 0);
        QCOMPARE(zero.opsPerSec, 0.0);
        QCOMPARE(zero.ops, std::uint64_t{500});
    }
};

QTEST_APPLESS_MAIN(TestBenchStats)
#include "test_bench_stats.moc"
