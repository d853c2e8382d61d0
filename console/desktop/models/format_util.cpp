#include "format_util.h"

#include <QLocale>
#include <cmath>

namespace tessera::console {

QString formatBytes(qint64 bytes)
{
    if (bytes < 0) return {};
    if (bytes < 1024) return bytes == 1 ? QStringLiteral("1 byte") : QStringLiteral("%1 bytes").arg(bytes);
    return QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeIecFormat);
}

QString formatRate(double bytesPerSecond)
{
    if (!(bytesPerSecond > 0)) return QStringLiteral("0 B/s");
    return formatBytes(static_cast<qint64>(bytesPerSecond)) + QStringLiteral("/s");
}

QString formatDuration(double seconds)
{
    if (seconds < 0 || !std::isfinite(seconds)) return QStringLiteral("–");
    const auto s = static_cast<qint64>(std::llround(seconds));
    if (s >= 3600) {
        return QStringLiteral("%1:%2:%3")
            .arg(s / 3600)
            .arg((s / 60) % 60, 2, 10, QChar('0'))
            .arg(s % 60, 2, 10, QChar('0'));
    }
    return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QChar('0'));
}

}  // namespace tessera::console
