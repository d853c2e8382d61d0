#include "core/console_paths.h"

#include <QDir>
#include <QStandardPaths>

namespace tessera::console {

QString defaultDatabasePath()
{
    const QString overridden = qEnvironmentVariable("TESSERA_CONSOLE_DB");
    if (!overridden.isEmpty()) {
        return overridden;
    }
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
        .filePath(QStringLiteral("console.db"));
}

}  // namespace tessera::console
