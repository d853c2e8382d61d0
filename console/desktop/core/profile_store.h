#pragma once

#include "api/result.h"
#include "core/connection_profile.h"

#include <QString>
#include <memory>
#include <optional>
#include <vector>

namespace tessera::sqlite {
class SqliteDb;
}  // namespace tessera::sqlite

namespace tessera::console {

// Connection profiles in the console's SQLite database (table `profiles`),
// and which one was used last so that it reopens at start. All SQL for
// profiles lives here. UI thread only.
class ProfileStore {
public:
    static api::Result<std::unique_ptr<ProfileStore>> open(const QString& databasePath);
    ~ProfileStore();

    // Sorted by name.
    api::Result<std::vector<ConnectionProfile>> profiles() const;
    api::Result<std::optional<ConnectionProfile>> find(const QString& name) const;
    // Inserts, or replaces the profile of the same name. BadRequest for an invalid profile.
    api::Status save(const ConnectionProfile& profile);
    // NotFound when there is no such profile.
    api::Status remove(const QString& name);
    // Records `name` as the most recently used profile (NotFound when unknown).
    api::Status markUsed(const QString& name);
    // The most recently used profile, if any.
    api::Result<std::optional<ConnectionProfile>> lastUsed() const;

private:
    explicit ProfileStore(std::unique_ptr<sqlite::SqliteDb> db);
    // Profiles of `SELECT <every column> FROM profiles <clauses>`; `name`, when given, binds ?1.
    api::Result<std::vector<ConnectionProfile>> query(const char* clauses, const QString* name) const;
    std::unique_ptr<sqlite::SqliteDb> m_db;
};

}  // namespace tessera::console
