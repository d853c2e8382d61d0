#include "ui/throughput_chart.h"

#include <QChart>
#include <QChartView>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QEvent>
#include <QLineSeries>
#include <QPainter>
#include <QTimer>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace tessera::console {

ThroughputChart::ThroughputChart(const QString& title, const QString& unit, QWidget* parent)
    : QWidget(parent), m_chart(new QChart), m_view(new QChartView(m_chart, this)), m_timeAxis(new QDateTimeAxis),
      m_valueAxis(new QValueAxis), m_repaintTimer(new QTimer(this))
{
    m_chart->setTitle(title);
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_chart->setMargins(QMargins(4, 4, 4, 4));
    m_chart->setBackgroundRoundness(4);
    m_timeAxis->setFormat(QStringLiteral("HH:mm"));
    m_timeAxis->setTickCount(6);
    m_valueAxis->setTitleText(unit);
    m_valueAxis->setLabelFormat(QStringLiteral("%.4g"));
    m_valueAxis->setRange(0, 1);
    m_chart->addAxis(m_timeAxis, Qt::AlignBottom);
    m_chart->addAxis(m_valueAxis, Qt::AlignLeft);
    const auto now = QDateTime::currentDateTime();
    m_timeAxis->setRange(now.addMSecs(-m_window.count()), now);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setMinimumHeight(160);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);

    applyPalette();
    m_repaintTimer->setInterval(static_cast<int>(kRepaintInterval.count()));
    connect(m_repaintTimer, &QTimer::timeout, this, &ThroughputChart::flush);
    m_repaintTimer->start();
}

void ThroughputChart::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPalette();
    }
}

void ThroughputChart::applyPalette()
{
    // Follow the application's palette (light or dark) rather than a fixed chart theme.
    const QPalette& p = palette();
    m_chart->setBackgroundBrush(p.base());
    m_chart->setBackgroundPen(QPen(p.color(QPalette::Mid)));
    m_chart->setTitleBrush(p.text());
    m_chart->legend()->setLabelColor(p.color(QPalette::Text));
    for (QAbstractAxis* axis : {static_cast<QAbstractAxis*>(m_timeAxis), static_cast<QAbstractAxis*>(m_valueAxis)}) {
        axis->setLabelsBrush(p.text());
        axis->setTitleBrush(p.text());
        QColor grid = p.color(QPalette::Text);
        grid.setAlpha(40);
        axis->setGridLineColor(grid);
        axis->setLinePenColor(p.color(QPalette::Mid));
    }
    m_view->setBackgroundBrush(p.window());
}

int ThroughputChart::addSeries(const QString& name, const QColor& color)
{
    auto* line = new QLineSeries(m_chart);
    line->setName(name);
    QPen pen(color);
    pen.setWidthF(1.8);
    line->setPen(pen);
    m_chart->addSeries(line);
    line->attachAxis(m_timeAxis);
    line->attachAxis(m_valueAxis);
    m_series.push_back({line, {}});
    return static_cast<int>(m_series.size()) - 1;
}

void ThroughputChart::append(int series, std::int64_t tsMs, double value)
{
    if (series < 0 || series >= static_cast<int>(m_series.size()) || !std::isfinite(value)) {
        return;
    }
    auto& points = m_series[static_cast<std::size_t>(series)].points;
    points.emplace_back(static_cast<double>(tsMs), value);
    const double cutoff = static_cast<double>(tsMs - m_window.count());
    while (!points.empty() && points.front().x() < cutoff) {
        points.pop_front();
    }
    m_dirty = true;
}

void ThroughputChart::clear()
{
    for (auto& s : m_series) {
        s.points.clear();
    }
    m_dirty = true;
}

int ThroughputChart::shownPointCount(int series) const
{
    return m_series.at(static_cast<std::size_t>(series)).line->count();
}

int ThroughputChart::pointCount(int series) const
{
    return static_cast<int>(m_series.at(static_cast<std::size_t>(series)).points.size());
}

void ThroughputChart::flush()
{
    if (!m_dirty) {
        return;
    }
    m_dirty = false;
    ++m_repaints;
    double newest = 0;
    double oldest = 0;
    double maxValue = 0;
    for (auto& s : m_series) {
        s.line->replace(QList<QPointF>(s.points.begin(), s.points.end()));
        for (const auto& p : s.points) {
            maxValue = std::max(maxValue, p.y());
        }
        if (!s.points.empty()) {
            newest = std::max(newest, s.points.back().x());
            oldest = oldest == 0 ? s.points.front().x() : std::min(oldest, s.points.front().x());
        }
    }
    if (newest > 0) {
        // The window, or less while the history is shorter (at least kMinimumSpan):
        // a fresh console's first minute fills the chart instead of a sliver at its edge.
        const double span = std::clamp(newest - oldest, static_cast<double>(kMinimumSpan.count()),
                                       static_cast<double>(m_window.count()));
        const auto end = QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(newest));
        m_timeAxis->setRange(end.addMSecs(-static_cast<qint64>(span)), end);
        m_timeAxis->setFormat(span <= 5 * 60 * 1000 ? QStringLiteral("HH:mm:ss") : QStringLiteral("HH:mm"));
    }
    // Round the top up to 1, 2 or 5 × 10^n so the axis does not jitter every tick.
    double top = 1;
    if (maxValue > 0) {
        const double magnitude = std::pow(10.0, std::floor(std::log10(maxValue)));
        for (double step : {1.0, 2.0, 5.0, 10.0}) {
            if (maxValue <= step * magnitude) {
                top = step * magnitude;
                break;
            }
        }
    }
    m_valueAxis->setRange(0, top);
}

}  // namespace tessera::console
