#include "core/spec_store.h"

#include "sqlite/sqlite_db.h"

#include <QDateTime>

namespace tessera::console {

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS specs (
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    text TEXT NOT NULL,
    yaml INTEGER NOT NULL DEFAULT 0,
    updated_ms INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (kind, name)
);
)sql";

std::string utf8(const QString& s) { return s.toStdString(); }

}  // namespace

api::Result<std::unique_ptr<SpecStore>> SpecStore::open(const QString& databasePath)
{
    auto db = sqlite::SqliteDb::open(databasePath.toStdString(), kSchema);
    if (!db) return db.error();
    return std::unique_ptr<SpecStore>(new SpecStore(std::move(*db)));
}

SpecStore::SpecStore(std::unique_ptr<sqlite::SqliteDb> db) : m_db(std::move(db)) {}

SpecStore::~SpecStore() = default;

api::Result<std::vector<SavedSpec>> SpecStore::list(const QString& kind) const
{
    auto stmt = m_db->prepare(
        "SELECT kind, name, text, yaml, updated_ms FROM specs WHERE kind = ?1 AND name <> '' ORDER BY name");
    if (!stmt) return stmt.error();
    stmt->bind(1, utf8(kind));
    std::vector<SavedSpec> out;
    while (true) {
        auto row = stmt->step();
        if (!row) return row.error();
        if (!*row) break;
        out.push_back({QString::fromStdString(stmt->text(0)), QString::fromStdString(stmt->text(1)),
                       QString::fromStdString(stmt->text(2)), stmt->int64(3) != 0, stmt->int64(4)});
    }
    return out;
}

api::Result<std::optional<SavedSpec>> SpecStore::find(const QString& kind, const QString& name) const
{
    auto stmt = m_db->prepare("SELECT text, yaml, updated_ms FROM specs WHERE kind = ?1 AND name = ?2");
    if (!stmt) return stmt.error();
    stmt->bind(1, utf8(kind));
    stmt->bind(2, utf8(name));
    auto row = stmt->step();
    if (!row) return row.error();
    if (!*row) return std::optional<SavedSpec>();
    return std::optional<SavedSpec>(
        SavedSpec{kind, name, QString::fromStdString(stmt->text(0)), stmt->int64(1) != 0, stmt->int64(2)});
}

api::Status SpecStore::write(const SavedSpec& spec)
{
    if (spec.text.toUtf8().size() > kMaxTextBytes) return api::Error::badRequest("the spec is larger than 1 MiB");
    auto stmt = m_db->prepare(
        "INSERT INTO specs (kind, name, text, yaml, updated_ms) VALUES (?1, ?2, ?3, ?4, ?5) "
        "ON CONFLICT(kind, name) DO UPDATE SET text = excluded.text, yaml = excluded.yaml, "
        "updated_ms = excluded.updated_ms");
    if (!stmt) return stmt.error();
    stmt->bind(1, utf8(spec.kind));
    stmt->bind(2, utf8(spec.name));
    stmt->bind(3, utf8(spec.text));
    stmt->bind(4, std::int64_t{spec.yaml ? 1 : 0});
    stmt->bind(5, static_cast<std::int64_t>(QDateTime::currentMSecsSinceEpoch()));
    return stmt->run();
}

api::Status SpecStore::save(const SavedSpec& spec)
{
    const auto name = spec.name.trimmed();
    if (name.isEmpty()) return api::Error::badRequest("a saved spec needs a name");
    if (name.size() > kMaxNameLength) return api::Error::badRequest("a spec name is at most 128 characters");
    SavedSpec s = spec;
    s.name = name;
    return write(s);
}

api::Status SpecStore::remove(const QString& kind, const QString& name)
{
    auto existing = find(kind, name);
    if (!existing) return existing.error();
    if (!*existing || name.isEmpty()) return api::Error::notFound("no spec named '" + utf8(name) + "'");
    auto stmt = m_db->prepare("DELETE FROM specs WHERE kind = ?1 AND name = ?2");
    if (!stmt) return stmt.error();
    stmt->bind(1, utf8(kind));
    stmt->bind(2, utf8(name));
    return stmt->run();
}

api::Status SpecStore::saveDraft(const QString& kind, const QString& text, bool yaml)
{
    return write({kind, QString(), text, yaml, 0});
}

api::Result<std::optional<SavedSpec>> SpecStore::draft(const QString& kind) const { return find(kind, QString()); }

}  // namespace tessera::console
