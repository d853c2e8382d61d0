#pragma once

#include "api/result.h"
#include "core/sqlite_statement.h"

#include <memory>
#include <string>
#include <string_view>

struct sqlite3;

namespace tessera::console {

// An open SQLite database, closed on destruction. The console's stores each
// own one connection to the same file (WAL mode, so they do not block each
// other). Used by one thread at a time (the UI thread).
class SqliteDb {
public:
    // Opens (creating when missing) the database at `path`, creating its folder.
    static api::Result<std::unique_ptr<SqliteDb>> open(const std::string& path);
    // The same, then runs `schema` (idempotent CREATE ... IF NOT EXISTS).
    static api::Result<std::unique_ptr<SqliteDb>> open(const std::string& path, std::string_view schema);
    ~SqliteDb();
    SqliteDb(const SqliteDb&) = delete;
    SqliteDb& operator=(const SqliteDb&) = delete;

    api::Status exec(std::string_view sql);
    api::Result<SqliteStatement> prepare(std::string_view sql);

private:
    explicit SqliteDb(sqlite3* db) : m_db(db) {}
    sqlite3* m_db = nullptr;
};

} // namespace tessera::console
