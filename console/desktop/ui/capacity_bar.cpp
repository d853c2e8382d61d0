#include "ui/capacity_bar.h"

#include "models/capacity_level.h"
#include "models/format_util.h"

namespace tessera::console {

CapacityBar::CapacityBar(QWidget* parent) : QProgressBar(parent)
{
    setRange(0, 1000);
    setTextVisible(true);
    setMaximumHeight(18);
}

void CapacityBar::setUsage(const QString& label, std::uint64_t used, std::uint64_t total)
{
    const double fraction = total == 0 ? 0.0 : static_cast<double>(used) / static_cast<double>(total);
    setValue(static_cast<int>(fraction * 1000.0));
    setFormat(QStringLiteral("%1  %2 / %3 (%4 %)")
                  .arg(label, formatBytes(static_cast<qint64>(used)), formatBytes(static_cast<qint64>(total)))
                  .arg(fraction * 100.0, 0, 'f', 1));
    QString color;
    switch (capacityLevel(used, total)) {
    case CapacityLevel::Critical:
        m_level = QStringLiteral("critical");
        color = QStringLiteral("#c62828");
        break;
    case CapacityLevel::Warning:
        m_level = QStringLiteral("warning");
        color = QStringLiteral("#e08a00");
        break;
    case CapacityLevel::Normal:
        m_level = QStringLiteral("normal");
        color = QStringLiteral("#2e7d32");
        break;
    }
    setStyleSheet(
        QStringLiteral("QProgressBar { border: 1px solid palette(mid); border-radius: 3px; text-align: center;"
                       " background: palette(base); color: palette(text); }"
                       "QProgressBar::chunk { background-color: %1; }")
            .arg(color));
}

}  // namespace tessera::console
