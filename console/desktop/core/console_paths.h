#pragma once

#include <QString>

namespace tessera::console {

// The console's SQLite database (profiles, metric history):
// <AppDataLocation>/console.db, unless TESSERA_CONSOLE_DB names another file.
QString defaultDatabasePath();

// The console's config folder: <AppConfigLocation> (e.g.
// ~/.config/tessera/tessera-console), unless TESSERA_CONSOLE_CONFIG_DIR names
// another. The token file (when no keychain is reachable) lives here.
QString defaultConfigDir();

}  // namespace tessera::console
