// The console's window and charts at the sizes a new user meets: the window
// opens at 80 % of the screen (at least 1280x800 where it fits, centred)
// unless a geometry was saved, and every chart axis of the Dashboard and
// Nodes pages shows whole labels — scaled values ("1.2 GB/s") and round
// times — down to the window's minimum size. No cluster: the pages are fed
// metrics rounds made here.
#include "api/feed.h"
#include "models/console_session.h"
#include "models/metrics_history.h"
#include "models/node_model.h"
#include "ui/dashboard_page.h"
#include "ui/main_window.h"
#include "ui/nodes_page.h"
#include "ui/theme.h"
#include "ui/throughput_chart.h"

#include <QApplication>
#include <QCategoryAxis>
#include <QChart>
#include <QDateTime>
#include <QFontMetricsF>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>
#include <memory>
#include <set>

using namespace tessera;
using namespace tessera::console;

namespace {

constexpr const char* kTarget = "t1";

// The visible text items of a chart's scene (its title, legend and axis labels).
std::set<QString> visibleTexts(ThroughputChart* chart)
{
    std::set<QString> out;
    for (QGraphicsItem* item : chart->chart()->scene()->items()) {
        auto* text = qgraphicsitem_cast<QGraphicsTextItem*>(item);
        if (text != nullptr && text->isVisible()) out.insert(text->toPlainText());
    }
    return out;
}

// One metrics round: the cluster and the target `kTarget` at the given rates.
api::MetricsUpdate round(std::int64_t tsMs, double bytesPerSec, double opsPerSec, std::uint64_t p99Ns,
                         double errorsPerSec, double cpuPercent)
{
    api::MetricsUpdate u;
    u.tsMs = tsMs;
    u.intervalMs = 5000;
    api::NodeMetrics n;
    n.id = kTarget;
    n.role = "target";
    n.intervalSec = 5;
    n.cpuPercent = cpuPercent;
    auto& get = n.ops[static_cast<std::size_t>(api::OpKind::Get)];
    get.bytesPerSec = bytesPerSec;
    get.opsPerSec = opsPerSec;
    get.p99Ns = p99Ns;
    get.interval[api::latencyBucket(p99Ns)] = 100;  // the cluster's p99 comes from the histograms
    get.errorsPerSec = errorsPerSec;
    auto& put = n.ops[static_cast<std::size_t>(api::OpKind::Put)];
    put.bytesPerSec = bytesPerSec / 2;
    put.opsPerSec = opsPerSec / 2;
    put.p99Ns = p99Ns / 2;
    put.interval[api::latencyBucket(p99Ns / 2)] = 100;
    u.nodes = {n};
    u.cluster = api::clusterTotals(u.nodes);
    return u;
}

}  // namespace

class TestConsoleLayout : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("tessera-test"));
        QCoreApplication::setApplicationName(QStringLiteral("test_console_layout"));
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        m_session = std::make_unique<ConsoleSession>(m_dir.filePath(QStringLiteral("console.db")));
        m_theme = std::make_unique<Theme>(qApp);
    }

    void defaultGeometryIsEightyPercentAtLeast1280x800Centred_data()
    {
        QTest::addColumn<QRect>("available");
        QTest::addColumn<QRect>("expected");
        // 80 % would be 1120x720: raised to 1280x800, centred.
        QTest::newRow("1400x900") << QRect(0, 0, 1400, 900) << QRect(60, 50, 1280, 800);
        QTest::newRow("1920x1080") << QRect(0, 0, 1920, 1080) << QRect(192, 108, 1536, 864);
        // A panel takes the top 32 px; a second screen to the right of the first.
        QTest::newRow("2560x1408 at 1920,32") << QRect(1920, 32, 2560, 1408) << QRect(2176, 173, 2048, 1126);
        // Smaller than 1280x800: the whole screen, never more.
        QTest::newRow("1280x720") << QRect(0, 0, 1280, 720) << QRect(0, 0, 1280, 720);
        QTest::newRow("1366x705") << QRect(0, 0, 1366, 705) << QRect(43, 0, 1280, 705);
        QTest::newRow("1024x768") << QRect(0, 0, 1024, 768) << QRect(0, 0, 1024, 768);
    }

    void defaultGeometryIsEightyPercentAtLeast1280x800Centred()
    {
        QFETCH(QRect, available);
        QFETCH(QRect, expected);
        QCOMPARE(MainWindow::defaultGeometry(available), expected);
    }

    void windowOpensAtTheDefaultGeometryUnlessOneWasSaved()
    {
        QSettings().clear();
        const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
        {
            MainWindow window(m_session.get(), m_theme.get());
            QCOMPARE(window.geometry(), MainWindow::defaultGeometry(available));
            QCOMPARE(window.minimumSize(), MainWindow::kMinimumSize.boundedTo(available.size()));
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            window.resize(1100, 700);
            window.close();  // saves the geometry
        }
        MainWindow again(m_session.get(), m_theme.get());
        QCOMPARE(again.size(), QSize(1100, 700));
        QSettings().clear();
    }

    void valuesAreScaledToTheirUnit()
    {
        using S = ThroughputChart;
        auto gbps = S::valueScale(ChartUnit::BytesPerSecond, 1.2e9, 5);
        QCOMPARE(gbps.divisor, 1e9);
        QCOMPARE(gbps.labels(), QStringList({"0.0 GB/s", "0.5 GB/s", "1.0 GB/s", "1.5 GB/s"}));
        QCOMPARE(gbps.labelFormat(), QStringLiteral("%.1f GB/s"));
        QCOMPARE(S::valueScale(ChartUnit::BytesPerSecond, 350e6, 4).labels(),
                 QStringList({"0 MB/s", "100 MB/s", "200 MB/s", "300 MB/s", "400 MB/s"}));
        QCOMPARE(S::valueScale(ChartUnit::BytesPerSecond, 800, 2).labels(),
                 QStringList({"0 B/s", "500 B/s", "1000 B/s"}));
        QCOMPARE(S::valueScale(ChartUnit::PerSecond, 1500, 4).labels(), QStringList({"0.0k", "0.5k", "1.0k", "1.5k"}));
        QCOMPARE(S::valueScale(ChartUnit::PerSecond, 3.2e6, 2).labels(), QStringList({"0M", "2M", "4M"}));
        QCOMPARE(S::valueScale(ChartUnit::PerSecond, 40, 5).labels(), QStringList({"0", "10", "20", "30", "40"}));
        QCOMPARE(S::valueScale(ChartUnit::Milliseconds, 2500, 3).labels(), QStringList({"0 s", "1 s", "2 s", "3 s"}));
        QCOMPARE(S::valueScale(ChartUnit::Milliseconds, 0.3, 3).labels(),
                 QStringList({"0.0 ms", "0.1 ms", "0.2 ms", "0.3 ms"}));
        auto cpu = S::valueScale(ChartUnit::Percent, 130, 3);
        QCOMPARE(cpu.labels(), QStringList({"0 %", "50 %", "100 %", "150 %"}));
        QCOMPARE(cpu.labelFormat(), QStringLiteral("%.0f %%"));
        // Nothing yet: 0 to 1 of the smallest unit.
        QCOMPARE(S::valueScale(ChartUnit::PerSecond, 0, 2).labels(), QStringList({"0.0", "0.5", "1.0"}));
        // Never more steps than asked for.
        for (int n = 1; n <= ThroughputChart::kMaxValueIntervals; ++n) {
            for (double v : {0.07, 1.0, 9.99, 123.0, 4.5e6, 7.7e9}) {
                const auto s = S::valueScale(ChartUnit::BytesPerSecond, v, n);
                QVERIFY2(
                    s.intervals <= n && s.top() * s.divisor >= v,
                    qPrintable(QStringLiteral("%1 in %2 steps: %3 x %4").arg(v).arg(n).arg(s.intervals).arg(s.step)));
            }
        }
    }

    void timeTicksAreRoundAndFewerWhenNarrow()
    {
        const QFontMetricsF metrics(QApplication::font());
        // Ten minutes ending at 14:07:13 today.
        const QDateTime end(QDate::currentDate(), QTime(14, 7, 13));
        const std::int64_t to = end.toMSecsSinceEpoch();
        const std::int64_t from = to - 10 * 60 * 1000;
        std::int64_t lastStep = 0;
        std::size_t lastCount = 1000;
        for (double width = 1200; width >= 100; width -= 50) {
            const auto t = ThroughputChart::timeTicks(from, to, width, metrics);
            const QString what =
                QStringLiteral("%1 px: step %2 ms, %3 ticks").arg(width).arg(t.stepMs).arg(t.ticksMs.size());
            QVERIFY2(!t.ticksMs.empty(), qPrintable(what));
            QVERIFY2(t.stepMs >= lastStep && t.ticksMs.size() <= lastCount, qPrintable(what));
            lastStep = t.stepMs;
            lastCount = t.ticksMs.size();
            double widest = 0;
            for (std::size_t i = 0; i < t.ticksMs.size(); ++i) {
                const QDateTime at = QDateTime::fromMSecsSinceEpoch(t.ticksMs[i]);
                QVERIFY(t.ticksMs[i] > from && t.ticksMs[i] <= to);
                QCOMPARE(at.time().msecsSinceStartOfDay() % t.stepMs, 0);
                QCOMPARE(t.labels[static_cast<qsizetype>(i)], at.toString(t.format));
                widest = std::max(widest, ThroughputChart::labelWidth(metrics, t.labels[static_cast<qsizetype>(i)]));
            }
            QCOMPARE(t.format, t.stepMs < 60000 ? QStringLiteral("HH:mm:ss") : QStringLiteral("HH:mm"));
            // Qt's room for each label, and room between neighbours.
            QVERIFY2(ThroughputChart::labelRoom(width, static_cast<int>(t.ticksMs.size()) + 1) >= widest,
                     qPrintable(what));
            QVERIFY2(static_cast<double>(t.stepMs) * width / (to - from) >= widest, qPrintable(what));
        }
        // Wide: minutes at most; narrow: 5 minutes or more.
        QVERIFY(ThroughputChart::timeTicks(from, to, 1200, metrics).stepMs <= 60000);
        QVERIFY(ThroughputChart::timeTicks(from, to, 150, metrics).stepMs >= 300000);
        // A 30 s window gets seconds.
        const auto short30 = ThroughputChart::timeTicks(to - 30000, to, 600, metrics);
        QCOMPARE(short30.format, QStringLiteral("HH:mm:ss"));
        QVERIFY(short30.ticksMs.size() >= 2);
    }

    void everyAxisLabelFitsAtTheMinimumWindowSize_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("minimum") << MainWindow::kMinimumSize;
        QTest::newRow("1280x800") << QSize(1280, 800);
    }

    void everyAxisLabelFitsAtTheMinimumWindowSize()
    {
        QFETCH(QSize, size);
        QSettings().clear();
        MainWindow window(m_session.get(), m_theme.get());
        window.setMinimumSize(MainWindow::kMinimumSize);  // the offscreen screen is smaller than some
        window.resize(size);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(window.size(), size);

        // The Nodes page shows the target's own charts once it is selected.
        api::Smap smap;
        smap.version = 2;
        smap.tmap[kTarget] = api::Snode{kTarget, "target", {}, 0};
        m_session->nodes()->setSmap(smap);

        // Ten minutes of a busy cluster, one round every 5 s: GB/s, thousands of
        // ops/s, hundreds of ms, fractions of an error per second, CPU over 100 %.
        const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
        MetricsHistory* history = m_session->metrics();
        history->setSource(QStringLiteral("http://layout.test:%1").arg(size.width()), now);
        const auto feed = [&] {
            for (std::int64_t t = now - 10 * 60 * 1000; t <= now; t += 5000) {
                const double k = static_cast<double>((t / 5000) % 7) / 6.0;
                history->addMetrics(round(t, 1.2e9 * k, 4800 * k, 250'000'000, 0.4 * k, 130 * k));
            }
        };
        feed();
        window.showPage(window.pageIndex(QStringLiteral("Nodes")));
        window.nodesPage()->selectNode(QString::fromLatin1(kTarget));

        std::vector<ThroughputChart*> charts = {
            window.dashboard()->throughputChart(),     window.dashboard()->opsChart(),
            window.dashboard()->latencyChart(),        window.dashboard()->errorsChart(),
            window.nodesPage()->nodeThroughputChart(), window.nodesPage()->nodeOpsChart()};
        for (QWidget* page : {static_cast<QWidget*>(window.dashboard()), static_cast<QWidget*>(window.nodesPage())}) {
            window.showPage(
                window.pageIndex(page == window.dashboard() ? QStringLiteral("Dashboard") : QStringLiteral("Nodes")));
            for (ThroughputChart* chart : charts) {
                if (!page->isAncestorOf(chart)) continue;
                QVERIFY(chart->pointCount(0) > 100);
                QVERIFY(QTest::qWaitFor([&] { return chart->shownPointCount(0) == chart->pointCount(0); }, 2000));
                // The chart lays itself out (with the ticks of its last repaint) on the
                // event loop; checkAxes() says what is missing if it never does.
                (void)QTest::qWaitFor([&] { return missingLabels(chart).isEmpty(); }, 2000);
                checkAxes(chart, size);
                if (QTest::currentTestFailed()) return;
            }
        }
    }

    void cleanupTestCase() { QSettings().clear(); }

private:
    // Every label the axes show fits whole: none is cut to "...", every one
    // is on screen, and Qt's room for it (the axis' length per label, less
    // the padding) is at least its width or height by the label font.
    void checkAxes(ThroughputChart* chart, QSize windowSize)
    {
        const QString where = QStringLiteral("\"%1\" at %2x%3")
                                  .arg(chart->chart()->title())
                                  .arg(windowSize.width())
                                  .arg(windowSize.height());
        const QRectF plot = chart->chart()->plotArea();
        QVERIFY2(plot.width() > 100 && plot.height() > 40,
                 qPrintable(where + QStringLiteral(": plot %1x%2").arg(plot.width()).arg(plot.height())));

        // Time: at least two round times, on the plot, each with room.
        QCategoryAxis* time = chart->timeAxis();
        const QStringList times = time->categoriesLabels();
        QVERIFY2(times.size() >= 2, qPrintable(where + QStringLiteral(": %1 time labels").arg(times.size())));
        const QFontMetricsF timeMetrics(time->labelsFont());
        for (const QString& label : times) {
            QVERIFY2(ThroughputChart::labelRoom(plot.width(), static_cast<int>(times.size()) + 1) >=
                         ThroughputChart::labelWidth(timeMetrics, label),
                     qPrintable(where + QStringLiteral(": ") + label));
            QVERIFY(time->endValue(label) > time->min() && time->endValue(label) <= time->max());
        }

        // Values: scaled (no raw byte counts), with room for each.
        for (auto side : {ThroughputChart::Side::Left, ThroughputChart::Side::Right}) {
            QValueAxis* axis = chart->valueAxis(side);
            if (axis == nullptr) continue;
            const QStringList labels = chart->valueLabels(side);
            QCOMPARE(axis->tickCount(), labels.size());
            QVERIFY2(labels.size() >= 2, qPrintable(where));
            const QFontMetricsF metrics(axis->labelsFont());
            QVERIFY2(plot.height() / labels.size() - 2 * ThroughputChart::kLabelPadding >= metrics.height(),
                     qPrintable(where + QStringLiteral(": %1 value labels").arg(labels.size())));
            for (const QString& label : labels) {
                QVERIFY2(label.size() <= 9, qPrintable(where + QStringLiteral(": ") + label));
            }
        }

        // What Qt Charts drew: nothing cut, and every label above is there.
        for (const QString& text : visibleTexts(chart)) {
            QVERIFY2(!text.contains(QLatin1String("...")) && !text.contains(QChar(0x2026)),
                     qPrintable(where + QStringLiteral(": cut label ") + text));
        }
        const QStringList missing = missingLabels(chart);
        QVERIFY2(missing.isEmpty(), qPrintable(where + QStringLiteral(": not shown: ") + missing.join(", ")));
    }

    // The axis labels the chart asked for that its scene does not show whole.
    static QStringList missingLabels(ThroughputChart* chart)
    {
        QStringList expected = chart->timeAxis()->categoriesLabels();
        for (auto side : {ThroughputChart::Side::Left, ThroughputChart::Side::Right}) {
            if (chart->valueAxis(side) != nullptr) expected += chart->valueLabels(side);
        }
        const std::set<QString> shown = visibleTexts(chart);
        QStringList missing;
        for (const QString& label : expected) {
            if (shown.count(label) == 0) missing << label;
        }
        return missing;
    }

    QTemporaryDir m_dir;
    std::unique_ptr<ConsoleSession> m_session;
    std::unique_ptr<Theme> m_theme;
};

QTEST_MAIN(TestConsoleLayout)
#include "test_console_layout.moc"
