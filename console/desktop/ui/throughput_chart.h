#pragma once

#include <QColor>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <vector>

class QCategoryAxis;
class QChart;
class QChartView;
class QFontMetricsF;
class QLineSeries;
class QTimer;
class QValueAxis;

namespace tessera::console {

// What a value axis counts: how its values are scaled and labelled.
enum class ChartUnit {
    BytesPerSecond,  // "0 B/s" .. "500 kB/s", "1.2 GB/s" (decimal prefixes, as "MB/s" elsewhere in the console)
    PerSecond,       // "800", "1.5k", "2M": the chart's title says of what ("Operations (ops/s)")
    Milliseconds,    // "250 ms", "1.5 s"
    Percent,         // "50 %"
};

// A small time-series chart: a few named line series over a sliding time
// window, kept behind this class so that the rest of the console does not
// depend on Qt Charts. Points are buffered as they come (one per tick) and
// the chart is repainted at most every kRepaintInterval, however fast the
// feed runs. UI thread.
//
// Axes stay readable at any size: the time axis puts its labels on round
// times ("14:05", or "14:05:30" for steps under a minute) as far apart as the
// chart's width needs, values are scaled to their unit ("1.2 GB/s", not
// 1200000000), and the number of ticks follows the plot's width and height,
// so that Qt Charts never has to cut a label to "...".
class ThroughputChart : public QWidget {
    Q_OBJECT
public:
    static constexpr std::chrono::milliseconds kRepaintInterval{500};    // ~2 Hz
    static constexpr std::chrono::milliseconds kMinimumSpan{30 * 1000};  // of the time axis
    // Qt Charts cuts an axis label wider (or, on a vertical axis, taller) than
    // the axis' length / its label count - 2 x this padding (Qt's
    // ChartAxisElement::labelPadding()).
    static constexpr double kLabelPadding = 4;
    static constexpr int kMaxValueIntervals = 5;

    enum class Side { Left, Right };

    // Values of the left axis are in `unit`. The value axes have no title (a
    // rotated title longer than a short plot is cut): labels carry their unit,
    // or `title` says it ("Operations (ops/s)").
    ThroughputChart(const QString& title, ChartUnit unit, QWidget* parent = nullptr);

    // A second value axis on the right, for series of another unit.
    void addRightAxis(ChartUnit unit);
    // Adds a series on the axis of `side`; returns its index for append().
    int addSeries(const QString& name, const QColor& color, Side side = Side::Left);
    void setWindow(std::chrono::milliseconds window) { m_window = window; }

    // `value` in the unit of the series' axis (bytes per second, not MB/s).
    void append(int series, std::int64_t tsMs, double value);
    // Replaces every series' points (a reloaded history).
    void clear();

    // Points the chart shows (after the last repaint) and holds (pending included).
    int shownPointCount(int series) const;
    int pointCount(int series) const;
    int repaints() const { return m_repaints; }

    // The axes as they are now (tests check their labels fit).
    QChart* chart() const { return m_chart; }
    QCategoryAxis* timeAxis() const { return m_timeAxis; }
    QValueAxis* valueAxis(Side side = Side::Left) const;
    // The labels the value axis of `side` shows, bottom to top.
    QStringList valueLabels(Side side = Side::Left) const;

    // How a value axis is scaled and ticked: `intervals` steps of `step` from 0,
    // in units of `divisor` named by `suffix` ("1.5 GB/s": divisor 1e9, " GB/s").
    struct ValueScale {
        double divisor = 1;
        QString suffix;
        double step = 1;
        int intervals = 1;
        int decimals = 0;
        double top() const { return step * intervals; }
        // The printf format of a label (QValueAxis::labelFormat).
        QString labelFormat() const;
        QStringList labels() const;
    };
    // The scale for values up to `maxValue` with at most `maxIntervals` steps.
    static ValueScale valueScale(ChartUnit unit, double maxValue, int maxIntervals);
    // How many steps a value axis of `heightPx` has room for (labels of `metrics`).
    static int valueIntervalsFor(double heightPx, const QFontMetricsF& metrics);

    // The time axis' ticks: every `stepMs` on round times in (fromMs, toMs],
    // labelled with `format`, the smallest step whose labels fit on an axis of
    // `widthPx` with labels of `metrics`.
    struct TimeTicks {
        std::int64_t stepMs = 0;
        QString format;
        std::vector<std::int64_t> ticksMs;
        QStringList labels;
    };
    static TimeTicks timeTicks(std::int64_t fromMs, std::int64_t toMs, double widthPx, const QFontMetricsF& metrics);
    // The width Qt Charts gives one label of an axis of `lengthPx` with `labels` labels.
    static double labelRoom(double lengthPx, int labels) { return lengthPx / labels - 2 * kLabelPadding; }
    // The width of a label as Qt Charts measures it.
    static double labelWidth(const QFontMetricsF& metrics, const QString& text);

protected:
    void changeEvent(QEvent* event) override;

private:
    void flush();
    void applyPalette();
    // Ticks of every axis from the plot area's size, the range and the scales.
    void updateAxes();
    void styleAxis(QValueAxis* axis);

    struct Axis {
        QValueAxis* axis = nullptr;
        ChartUnit unit = ChartUnit::PerSecond;
        double maxValue = 0;  // of the points shown
        ValueScale scale;
    };
    struct Series {
        QLineSeries* line = nullptr;
        std::size_t axis = 0;
        std::deque<QPointF> points;  // raw values, in the axis' unit
    };
    QChart* m_chart;
    QChartView* m_view;
    QCategoryAxis* m_timeAxis;
    std::vector<Axis> m_axes;  // [0] left, [1] right when added
    QTimer* m_repaintTimer;
    std::vector<Series> m_series;
    std::chrono::milliseconds m_window{10 * 60 * 1000};
    std::int64_t m_fromMs = 0;  // the time axis' range
    std::int64_t m_toMs = 0;
    TimeTicks m_ticks;
    bool m_dirty = false;
    bool m_updatingAxes = false;
    int m_repaints = 0;
};

}  // namespace tessera::console
