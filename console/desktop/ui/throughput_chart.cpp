#include "ui/throughput_chart.h"

#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QDateTime>
#include <QEvent>
#include <QFontMetricsF>
#include <QLineSeries>
#include <QPainter>
#include <QTimer>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace tessera::console {

namespace {

struct UnitTier {
    double divisor;
    const char* suffix;
};

// The prefixes of each unit, smallest first.
std::vector<UnitTier> tiersOf(ChartUnit unit)
{
    switch (unit) {
    case ChartUnit::BytesPerSecond:
        return {{1, " B/s"}, {1e3, " kB/s"}, {1e6, " MB/s"}, {1e9, " GB/s"}, {1e12, " TB/s"}};
    case ChartUnit::PerSecond: return {{1, ""}, {1e3, "k"}, {1e6, "M"}, {1e9, "G"}};
    case ChartUnit::Milliseconds: return {{1, " ms"}, {1e3, " s"}};
    case ChartUnit::Percent: return {{1, " %"}};
    }
    return {{1, ""}};
}

// Round times, in ms: the time axis takes the smallest whose labels fit.
constexpr std::array<std::int64_t, 11> kTimeSteps = {5'000,   10'000,  15'000,  30'000,    60'000,   120'000,
                                                     300'000, 600'000, 900'000, 1'800'000, 3'600'000};
constexpr std::int64_t kMinute = 60'000;

}  // namespace

QString ThroughputChart::ValueScale::labelFormat() const
{
    QString suffixFormat = suffix;
    suffixFormat.replace(QLatin1Char('%'), QLatin1String("%%"));
    return QStringLiteral("%.%1f").arg(decimals) + suffixFormat;
}

QStringList ThroughputChart::ValueScale::labels() const
{
    // As Qt Charts makes them from labelFormat() (QChart::localizeNumbers is off).
    const QByteArray format = labelFormat().toLatin1();
    QStringList out;
    for (int i = 0; i <= intervals; ++i) out << QString::asprintf(format.constData(), i * step);
    return out;
}

ThroughputChart::ValueScale ThroughputChart::valueScale(ChartUnit unit, double maxValue, int maxIntervals)
{
    ValueScale s;
    const auto tiers = tiersOf(unit);
    UnitTier tier = tiers.front();
    for (const UnitTier& t : tiers) {
        if (maxValue >= t.divisor) tier = t;
    }
    s.divisor = tier.divisor;
    s.suffix = QString::fromUtf8(tier.suffix);
    const double scaled = maxValue > 0 && std::isfinite(maxValue) ? maxValue / tier.divisor : 1.0;
    // The step: 1, 2 or 5 x 10^n, so that the top does not jitter every tick
    // and labels need at most one decimal more than the step's magnitude.
    const double raw = scaled / std::max(maxIntervals, 1);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    s.step = 10 * magnitude;
    for (double m : {1.0, 2.0, 5.0}) {
        if (m * magnitude >= raw * (1 - 1e-9)) {
            s.step = m * magnitude;
            break;
        }
    }
    s.intervals = std::max(1, static_cast<int>(std::ceil(scaled / s.step - 1e-9)));
    while (s.decimals < 6) {
        const double shifted = s.step * std::pow(10.0, s.decimals);
        if (std::abs(shifted - std::round(shifted)) < 1e-6 * std::max(1.0, shifted)) break;
        ++s.decimals;
    }
    return s;
}

double ThroughputChart::labelWidth(const QFontMetricsF& metrics, const QString& text)
{
    // Qt Charts lays a label out as a QGraphicsTextItem with a 0.5 px margin
    // on each side; one more pixel for rounding.
    return std::ceil(metrics.horizontalAdvance(text)) + 2;
}

int ThroughputChart::valueIntervalsFor(double heightPx, const QFontMetricsF& metrics)
{
    // Each of the n + 1 labels needs its height plus the padding, and a few
    // pixels between neighbours so that they do not read as one.
    const double perLabel = std::ceil(metrics.height()) + 2 + 2 * kLabelPadding + 4;
    const int labels = static_cast<int>(std::floor(heightPx / perLabel));
    return std::clamp(labels - 1, 1, kMaxValueIntervals);
}

ThroughputChart::TimeTicks ThroughputChart::timeTicks(std::int64_t fromMs, std::int64_t toMs, double widthPx,
                                                      const QFontMetricsF& metrics)
{
    if (toMs <= fromMs || widthPx <= 0) return {};
    const double span = static_cast<double>(toMs - fromMs);
    // Round in local time (a zone may be off UTC by a half hour).
    const std::int64_t offsetMs = std::int64_t{QDateTime::fromMSecsSinceEpoch(fromMs).offsetFromUtc()} * 1000;
    for (std::int64_t step : kTimeSteps) {
        TimeTicks t;
        t.stepMs = step;
        t.format = step < kMinute ? QStringLiteral("HH:mm:ss") : QStringLiteral("HH:mm");
        for (std::int64_t tick = ((fromMs + offsetMs) / step + 1) * step - offsetMs; tick <= toMs; tick += step) {
            t.ticksMs.push_back(tick);
            t.labels << QDateTime::fromMSecsSinceEpoch(tick).toString(t.format);
        }
        if (t.ticksMs.empty()) continue;
        double widest = 0;
        for (const QString& label : t.labels) widest = std::max(widest, labelWidth(metrics, label));
        // Qt's room per label (one more label than ticks: the axis' end), and
        // the distance between neighbours, which are centred on their ticks.
        const bool room = labelRoom(widthPx, static_cast<int>(t.ticksMs.size()) + 1) >= widest;
        const bool apart = static_cast<double>(step) * widthPx / span >= widest + 2 * kLabelPadding;
        if (room && apart) return t;
    }
    return {};  // not even one label fits: none rather than "..."
}

ThroughputChart::ThroughputChart(const QString& title, ChartUnit unit, QWidget* parent)
    : QWidget(parent), m_chart(new QChart), m_view(new QChartView(m_chart, this)), m_timeAxis(new QCategoryAxis),
      m_repaintTimer(new QTimer(this))
{
    m_chart->setTitle(title);
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_chart->setMargins(QMargins(4, 4, 4, 4));
    m_chart->setBackgroundRoundness(4);
    m_timeAxis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    m_chart->addAxis(m_timeAxis, Qt::AlignBottom);
    auto* values = new QValueAxis;
    m_chart->addAxis(values, Qt::AlignLeft);
    m_axes.push_back({values, unit, 0, {}});
    m_toMs = QDateTime::currentMSecsSinceEpoch();
    m_fromMs = m_toMs - m_window.count();
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setMinimumHeight(160);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);

    applyPalette();
    updateAxes();
    // A new size: ticks for it at once, not at the next repaint.
    connect(m_chart, &QChart::plotAreaChanged, this, [this] { updateAxes(); });
    m_repaintTimer->setInterval(static_cast<int>(kRepaintInterval.count()));
    connect(m_repaintTimer, &QTimer::timeout, this, &ThroughputChart::flush);
    m_repaintTimer->start();
}

void ThroughputChart::addRightAxis(ChartUnit unit)
{
    if (m_axes.size() > 1) return;
    auto* values = new QValueAxis;
    m_chart->addAxis(values, Qt::AlignRight);
    m_axes.push_back({values, unit, 0, {}});
    applyPalette();
    updateAxes();
}

QValueAxis* ThroughputChart::valueAxis(Side side) const
{
    const std::size_t i = side == Side::Left ? 0 : 1;
    return i < m_axes.size() ? m_axes[i].axis : nullptr;
}

QStringList ThroughputChart::valueLabels(Side side) const
{
    const std::size_t i = side == Side::Left ? 0 : 1;
    return i < m_axes.size() ? m_axes[i].scale.labels() : QStringList();
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
    std::vector<QAbstractAxis*> axes = {m_timeAxis};
    for (const Axis& a : m_axes) axes.push_back(a.axis);
    for (QAbstractAxis* axis : axes) {
        axis->setLabelsBrush(p.text());
        axis->setTitleBrush(p.text());
        QColor grid = p.color(QPalette::Text);
        grid.setAlpha(40);
        axis->setGridLineColor(grid);
        axis->setLinePenColor(p.color(QPalette::Mid));
    }
    m_view->setBackgroundBrush(p.window());
}

int ThroughputChart::addSeries(const QString& name, const QColor& color, Side side)
{
    auto* line = new QLineSeries(m_chart);
    line->setName(name);
    QPen pen(color);
    pen.setWidthF(1.8);
    line->setPen(pen);
    m_chart->addSeries(line);
    const std::size_t axis = side == Side::Right && m_axes.size() > 1 ? 1 : 0;
    line->attachAxis(m_timeAxis);
    line->attachAxis(m_axes[axis].axis);
    m_series.push_back({line, axis, {}});
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

void ThroughputChart::updateAxes()
{
    if (m_updatingAxes) return;  // the axes' own changes move the plot area again
    m_updatingAxes = true;
    // Before the first layout the plot area is empty: estimate from the view.
    const QRectF plot = m_chart->plotArea();
    const double width = plot.width() > 1 ? plot.width() : m_view->width() * 0.8;
    const double height = plot.height() > 1 ? plot.height() : m_view->height() * 0.5;

    TimeTicks ticks = timeTicks(m_fromMs, m_toMs, width, QFontMetricsF(m_timeAxis->labelsFont()));
    if (ticks.ticksMs != m_ticks.ticksMs || ticks.labels != m_ticks.labels) {
        for (const QString& label : m_timeAxis->categoriesLabels()) m_timeAxis->remove(label);
        m_timeAxis->setStartValue(static_cast<double>(m_fromMs));
        for (std::size_t i = 0; i < ticks.ticksMs.size(); ++i) {
            m_timeAxis->append(ticks.labels[static_cast<qsizetype>(i)], static_cast<double>(ticks.ticksMs[i]));
        }
        m_ticks = std::move(ticks);
    } else {
        m_timeAxis->setStartValue(static_cast<double>(m_fromMs));
    }
    m_timeAxis->setRange(static_cast<double>(m_fromMs), static_cast<double>(m_toMs));

    for (Axis& a : m_axes) {
        const ValueScale s =
            valueScale(a.unit, a.maxValue, valueIntervalsFor(height, QFontMetricsF(a.axis->labelsFont())));
        if (s.divisor != a.scale.divisor) m_dirty = true;  // the points are redrawn in the new unit
        a.scale = s;
        a.axis->setLabelFormat(s.labelFormat());
        a.axis->setTickCount(s.intervals + 1);
        a.axis->setRange(0, s.top());
    }
    m_updatingAxes = false;
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
    for (Axis& a : m_axes) a.maxValue = 0;
    for (const auto& s : m_series) {
        for (const auto& p : s.points) {
            m_axes[s.axis].maxValue = std::max(m_axes[s.axis].maxValue, p.y());
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
        m_toMs = static_cast<std::int64_t>(newest);
        m_fromMs = m_toMs - static_cast<std::int64_t>(span);
    }
    updateAxes();
    m_dirty = false;
    for (auto& s : m_series) {
        const double divisor = m_axes[s.axis].scale.divisor;
        QList<QPointF> points;
        points.reserve(static_cast<qsizetype>(s.points.size()));
        for (const auto& p : s.points) points.append({p.x(), p.y() / divisor});
        s.line->replace(points);
    }
}

}  // namespace tessera::console
