#include "sqlite/sqlite_db.h"

#include <filesystem>
#include <sqlite3.h>
#include <system_error>

namespace tessera::sqlite {

namespace {
constexpr int kBusyTimeoutMs = 2000;
}

api::Result<std::unique_ptr<SqliteDb>> SqliteDb::open(const std::string& path, Sync sync)
{
    const auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(parent, ec);
        if (ec) {
            return api::Error::ioError("cannot create " + parent.string(), ec.message());
        }
    }
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    std::unique_ptr<SqliteDb> db(new SqliteDb(raw));  // closes `raw` even when opening failed
    if (rc != SQLITE_OK) {
        return api::Error::ioError("cannot open " + path, raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc));
    }
    sqlite3_busy_timeout(raw, kBusyTimeoutMs);
    const char* pragmas = sync == Sync::Full ? "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                                             : "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;";
    if (auto st = db->exec(pragmas); !st) {
        return st.error();
    }
    return db;
}

api::Result<std::unique_ptr<SqliteDb>> SqliteDb::open(const std::string& path, std::string_view schema, Sync sync)
{
    auto db = open(path, sync);
    if (!db) return db.error();
    if (auto st = (*db)->exec(schema); !st) return st.error();
    return db;
}

SqliteDb::~SqliteDb() { sqlite3_close_v2(m_db); }

api::Status SqliteDb::exec(std::string_view sql)
{
    char* message = nullptr;
    const std::string text(sql);
    if (sqlite3_exec(m_db, text.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
        std::string reason = message ? message : sqlite3_errmsg(m_db);
        sqlite3_free(message);
        return api::Error::ioError("SQLite statement failed", reason);
    }
    return {};
}

api::Result<SqliteStatement> SqliteDb::prepare(std::string_view sql)
{
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(m_db, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) != SQLITE_OK) {
        return api::Error::ioError("cannot prepare SQL", sqlite3_errmsg(m_db));
    }
    return SqliteStatement(m_db, stmt);
}

}  // namespace tessera::sqlite
