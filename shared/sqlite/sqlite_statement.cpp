#include "sqlite/sqlite_statement.h"

#include <sqlite3.h>
#include <utility>

namespace tessera::sqlite {

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : m_db(other.m_db), m_stmt(std::exchange(other.m_stmt, nullptr))
{
}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept
{
    if (this != &other) {
        sqlite3_finalize(m_stmt);
        m_db = other.m_db;
        m_stmt = std::exchange(other.m_stmt, nullptr);
    }
    return *this;
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(m_stmt); }

void SqliteStatement::bind(int index, std::string_view text)
{
    sqlite3_bind_text(m_stmt, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
}

void SqliteStatement::bind(int index, std::int64_t value) { sqlite3_bind_int64(m_stmt, index, value); }

void SqliteStatement::bind(int index, double value) { sqlite3_bind_double(m_stmt, index, value); }

void SqliteStatement::bindNull(int index) { sqlite3_bind_null(m_stmt, index); }

api::Result<bool> SqliteStatement::step()
{
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW) {
        return true;
    }
    if (rc == SQLITE_DONE) {
        return false;
    }
    return api::Error::ioError("SQLite step failed", sqlite3_errmsg(m_db));
}

api::Status SqliteStatement::run()
{
    for (;;) {
        auto row = step();
        if (!row) {
            return row.error();
        }
        if (!*row) {
            return {};
        }
    }
}

void SqliteStatement::reset()
{
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
}

std::string SqliteStatement::text(int column) const
{
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, column));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column))) : std::string();
}

std::int64_t SqliteStatement::int64(int column) const { return sqlite3_column_int64(m_stmt, column); }

double SqliteStatement::real(int column) const { return sqlite3_column_double(m_stmt, column); }

bool SqliteStatement::isNull(int column) const { return sqlite3_column_type(m_stmt, column) == SQLITE_NULL; }

}  // namespace tessera::sqlite
