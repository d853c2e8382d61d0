#pragma once
// Display helpers shared by the console's models.

#include <QString>

namespace tessera::console {

// "1.5 MiB"; "" for a negative (unknown) size.
QString formatBytes(qint64 bytes);
// "12.3 MB/s"
QString formatRate(double bytesPerSecond);
// "1:05", "1:02:03"; "–" for a negative (unknown) duration.
QString formatDuration(double seconds);

}  // namespace tessera::console
