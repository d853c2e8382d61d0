#pragma once

#include "api/result.h"

#include <cstdint>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace tessera::sqlite {

// One prepared statement, finalized on destruction. Bind indexes start at 1,
// column indexes at 0 (as in SQLite). Used by one thread at a time.
class SqliteStatement {
public:
    SqliteStatement(sqlite3* db, sqlite3_stmt* stmt) : m_db(db), m_stmt(stmt) {}
    SqliteStatement(SqliteStatement&& other) noexcept;
    SqliteStatement& operator=(SqliteStatement&& other) noexcept;
    SqliteStatement(const SqliteStatement&) = delete;
    SqliteStatement& operator=(const SqliteStatement&) = delete;
    ~SqliteStatement();

    void bind(int index, std::string_view text);
    void bind(int index, std::int64_t value);
    void bind(int index, double value);
    void bindNull(int index);

    // True while a row is available; false when done. An SQLite error is an IoError.
    api::Result<bool> step();
    // Runs to completion, ignoring rows (INSERT/UPDATE/DELETE).
    api::Status run();
    void reset();

    std::string text(int column) const;
    std::int64_t int64(int column) const;
    double real(int column) const;
    bool isNull(int column) const;

private:
    sqlite3* m_db = nullptr;
    sqlite3_stmt* m_stmt = nullptr;
};

}  // namespace tessera::sqlite
