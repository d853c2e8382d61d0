#pragma once

#include "api/result.h"
#include "sqlite/sqlite_statement.h"

#include <memory>
#include <string>
#include <string_view>

struct sqlite3;

namespace tessera::sqlite {

// An open SQLite database in WAL mode, closed on destruction: the one
// wrapper of the SQLite C API, used by the proxy's cluster store and the
// console's stores. A connection is used by one thread at a time (callers
// that share one across threads serialize their calls).
class SqliteDb {
public:
    // How much a commit waits for the disk: Full (the proxy's cluster map:
    // a commit survives a power cut) or Normal (the console's settings and
    // history: may lose the last commits, never corrupts).
    enum class Sync { Normal, Full };
    // Opens (creating when missing) the database at `path`, creating its folder.
    static api::Result<std::unique_ptr<SqliteDb>> open(const std::string& path, Sync sync = Sync::Normal);
    // The same, then runs `schema` (idempotent CREATE ... IF NOT EXISTS).
    static api::Result<std::unique_ptr<SqliteDb>> open(const std::string& path, std::string_view schema,
                                                       Sync sync = Sync::Normal);
    ~SqliteDb();
    SqliteDb(const SqliteDb&) = delete;
    SqliteDb& operator=(const SqliteDb&) = delete;

    api::Status exec(std::string_view sql);
    api::Result<SqliteStatement> prepare(std::string_view sql);

private:
    explicit SqliteDb(sqlite3* db) : m_db(db) {}
    sqlite3* m_db = nullptr;
};

}  // namespace tessera::sqlite
