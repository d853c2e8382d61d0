#pragma once
// Job specs the console composes (dSort now; ishard and ETL use the same
// table), kept in the console's SQLite database (table `specs`): saved by
// name, and the draft — the spec being edited, saved on every change so the
// last edited spec survives a restart. A spec is kept as the text the user
// sees (JSON or YAML) with its format. All SQL for specs lives here. UI
// thread only.

#include "api/result.h"

#include <QString>
#include <memory>
#include <optional>
#include <vector>

namespace tessera::sqlite {
class SqliteDb;
}  // namespace tessera::sqlite

namespace tessera::console {

struct SavedSpec {
    QString kind;  // "dsort"
    QString name;  // empty: the draft
    QString text;
    bool yaml = false;
    qint64 updatedMs = 0;
    bool operator==(const SavedSpec&) const = default;
};

class SpecStore {
public:
    static constexpr int kMaxNameLength = 128;
    static constexpr qint64 kMaxTextBytes = 1 << 20;  // as the proxy takes

    static api::Result<std::unique_ptr<SpecStore>> open(const QString& databasePath);
    ~SpecStore();

    // Named specs of `kind`, by name (the draft is not among them).
    api::Result<std::vector<SavedSpec>> list(const QString& kind) const;
    api::Result<std::optional<SavedSpec>> find(const QString& kind, const QString& name) const;
    // Inserts or replaces. BadRequest for an empty or too long name, or text over kMaxTextBytes.
    api::Status save(const SavedSpec& spec);
    api::Status remove(const QString& kind, const QString& name);  // NotFound when absent
    // The draft of `kind`.
    api::Status saveDraft(const QString& kind, const QString& text, bool yaml);
    api::Result<std::optional<SavedSpec>> draft(const QString& kind) const;

private:
    explicit SpecStore(std::unique_ptr<sqlite::SqliteDb> db);
    api::Status write(const SavedSpec& spec);
    std::unique_ptr<sqlite::SqliteDb> m_db;
};

}  // namespace tessera::console
