#pragma once

#include <QString>

namespace tessera::console {

// The console's SQLite database (profiles, metric history):
// <AppDataLocation>/console.db, unless TESSERA_CONSOLE_DB names another file.
QString defaultDatabasePath();

}  // namespace tessera::console
