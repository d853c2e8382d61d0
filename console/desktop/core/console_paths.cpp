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

QString defaultConfigDir()
{
    const QString overridden = qEnvironmentVariable("TESSERA_CONSOLE_CONFIG_DIR");
    if (!overridden.isEmpty()) {
        return overridden;
    }
    return QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation);
}

}  // namespace tessera::console
