#pragma once

#include <QColor>
#include <QPointF>
#include <QString>
#include <QWidget>
#include <chrono>
#include <cstdint>
#include <deque>
#include <vector>

class QChart;
class QChartView;
class QDateTimeAxis;
class QLineSeries;
class QTimer;
class QValueAxis;

namespace tessera::console {

// A small time-series chart: a few named line series over a sliding time
// window, kept behind this class so that the rest of the console does not
// depend on Qt Charts. Points are buffered as they come (one per tick) and
// the chart is repainted at most every kRepaintInterval, however fast the
// feed runs. UI thread.
class ThroughputChart : public QWidget {
    Q_OBJECT
public:
    static constexpr std::chrono::milliseconds kRepaintInterval{500};    // ~2 Hz
    static constexpr std::chrono::milliseconds kMinimumSpan{30 * 1000};  // of the time axis

    ThroughputChart(const QString& title, const QString& unit, QWidget* parent = nullptr);

    // Adds a series; returns its index for append().
    int addSeries(const QString& name, const QColor& color);
    void setWindow(std::chrono::milliseconds window) { m_window = window; }

    void append(int series, std::int64_t tsMs, double value);
    // Replaces every series' points (a reloaded history).
    void clear();

    // Points the chart shows (after the last repaint) and holds (pending included).
    int shownPointCount(int series) const;
    int pointCount(int series) const;
    int repaints() const { return m_repaints; }

protected:
    void changeEvent(QEvent* event) override;

private:
    void flush();
    void applyPalette();

    struct Series {
        QLineSeries* line = nullptr;
        std::deque<QPointF> points;
    };
    QChart* m_chart;
    QChartView* m_view;
    QDateTimeAxis* m_timeAxis;
    QValueAxis* m_valueAxis;
    QTimer* m_repaintTimer;
    std::vector<Series> m_series;
    std::chrono::milliseconds m_window{10 * 60 * 1000};
    bool m_dirty = false;
    int m_repaints = 0;
};

}  // namespace tessera::console
