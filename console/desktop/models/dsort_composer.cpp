#include "models/dsort_composer.h"

#include "spec/dsort_spec.h"
#include "spec/spec_text.h"

#include <QRegularExpression>
#include <QUndoCommand>
#include <QUndoStack>

namespace tessera::console {

namespace {

constexpr int kTextMergeId = 1;

struct Snapshot {
    nlohmann::json doc;
    QString text;
};

// The pointer's tokens ("/algorithm/seed" -> algorithm, seed), unescaped.
QStringList tokens(const QString& pointer)
{
    QStringList out = pointer.split(QLatin1Char('/'));
    if (!out.isEmpty() && out.front().isEmpty()) out.pop_front();
    for (auto& t : out)
        t.replace(QStringLiteral("~1"), QStringLiteral("/")).replace(QStringLiteral("~0"), QStringLiteral("~"));
    return out;
}

std::string toStd(const QString& s) { return s.toStdString(); }

}  // namespace

// One change of the document: both sides before and after.
class DsortDocumentCommand : public QUndoCommand {
public:
    DsortDocumentCommand(DsortComposer* c, Snapshot before, Snapshot after, bool rewriteText, int mergeId)
        : m_c(c), m_before(std::move(before)), m_after(std::move(after)), m_rewriteFirst(rewriteText), m_id(mergeId)
    {
        setText(QObject::tr("Edit the spec"));
    }
    void redo() override
    {
        m_c->apply(m_after.doc, m_after.text, m_first ? m_rewriteFirst : true);
        m_first = false;
    }
    void undo() override { m_c->apply(m_before.doc, m_before.text, true); }
    int id() const override { return m_id; }
    bool mergeWith(const QUndoCommand* other) override
    {
        if (other->id() != m_id || m_id < 0) return false;
        m_after = static_cast<const DsortDocumentCommand*>(other)->m_after;
        return true;
    }

private:
    DsortComposer* m_c;
    Snapshot m_before;
    Snapshot m_after;
    bool m_rewriteFirst;
    bool m_first = true;
    int m_id;
};

DsortComposer::DsortComposer(QObject* parent) : QObject(parent), m_undo(new QUndoStack(this))
{
    m_text = render(m_doc);
    static_cast<void>(check());
}

DsortComposer::~DsortComposer() = default;

QString DsortComposer::render(const nlohmann::json& doc) const
{
    if (m_yaml) return QString::fromStdString(spec::toYaml(doc));
    return QString::fromStdString(doc.dump(2)) + QLatin1Char('\n');
}

void DsortComposer::apply(const nlohmann::json& doc, const QString& text, bool rewriteText)
{
    m_doc = doc;
    m_text = text;
    const bool validity = check();
    if (rewriteText) emit textChanged();
    emit documentChanged();
    if (validity) emit validityChanged();
}

void DsortComposer::push(const nlohmann::json& doc, const QString& text, bool rewriteText, int mergeId)
{
    m_undo->push(new DsortDocumentCommand(this, {m_doc, m_text}, {doc, text}, rewriteText, mergeId));
}

bool DsortComposer::check()
{
    const auto before = std::make_pair(m_parseError, m_errors);
    m_parseError.clear();
    m_parseErrorLine = 0;
    const auto parsed =
        spec::parseSpecText(toStd(m_text), m_yaml ? spec::SpecFormat::Yaml : spec::SpecFormat::Json, "dsort");
    if (!parsed) {
        m_parseError = QString::fromStdString(parsed.error().message);
        static const QRegularExpression line(QStringLiteral("line (\\d+)"));
        if (const auto m = line.match(m_parseError); m.hasMatch()) m_parseErrorLine = m.captured(1).toInt();
        m_errors.clear();
    } else {
        m_errors = spec::validateDsortSpec(m_doc);
    }
    return before != std::make_pair(m_parseError, m_errors);
}

void DsortComposer::setField(const QString& pointer, const nlohmann::json& value)
{
    const auto path = tokens(pointer);
    if (path.isEmpty()) return;
    nlohmann::json doc = m_doc.is_object() ? m_doc : nlohmann::json::object();
    // Walk to the parent, creating objects on the way (not when removing).
    std::vector<nlohmann::json*> chain{&doc};
    for (int i = 0; i + 1 < path.size(); ++i) {
        nlohmann::json& cur = *chain.back();
        const auto key = toStd(path[i]);
        if (!cur.contains(key) || !cur[key].is_object()) {
            if (value.is_null()) return;  // nothing to remove
            cur[key] = nlohmann::json::object();
        }
        chain.push_back(&cur[key]);
    }
    const auto last = toStd(path.back());
    if (value.is_null()) {
        chain.back()->erase(last);
        // Objects left empty go too ("algorithm": {} is not what the user meant).
        for (int i = static_cast<int>(chain.size()) - 1; i > 0 && chain[i]->empty(); --i) {
            chain[i - 1]->erase(toStd(path[i - 1]));
        }
    } else {
        (*chain.back())[last] = value;
    }
    if (doc == m_doc && m_parseError.isEmpty()) return;
    int id = m_mergeKeys.indexOf(pointer);
    if (id < 0) {
        m_mergeKeys.push_back(pointer);
        id = m_mergeKeys.size() - 1;
    }
    push(doc, render(doc), true, kTextMergeId + 1 + id);
}

nlohmann::json DsortComposer::field(const QString& pointer) const
{
    const nlohmann::json* cur = &m_doc;
    for (const auto& t : tokens(pointer)) {
        if (!cur->is_object()) return nullptr;
        auto it = cur->find(toStd(t));
        if (it == cur->end()) return nullptr;
        cur = &*it;
    }
    return *cur;
}

void DsortComposer::setText(const QString& text)
{
    if (text == m_text) return;
    const auto parsed =
        spec::parseSpecText(toStd(text), m_yaml ? spec::SpecFormat::Yaml : spec::SpecFormat::Json, "dsort");
    const nlohmann::json doc = parsed && parsed->is_object() ? *parsed : m_doc;
    push(doc, text, false, kTextMergeId);
}

void DsortComposer::setYaml(bool yaml)
{
    if (yaml == m_yaml) return;
    m_yaml = yaml;
    // A text that does not parse keeps its words: the document it last
    // parsed to is shown in the new format.
    apply(m_doc, render(m_doc), true);
}

void DsortComposer::load(const QString& text, bool yaml)
{
    m_yaml = yaml;
    const auto parsed =
        spec::parseSpecText(toStd(text), yaml ? spec::SpecFormat::Yaml : spec::SpecFormat::Json, "dsort");
    push(parsed && parsed->is_object() ? *parsed : nlohmann::json::object(), text, true, -1);
}

void DsortComposer::clear()
{
    const nlohmann::json doc = nlohmann::json::object();
    push(doc, render(doc), true, -1);
}

QString DsortComposer::fieldError(const QString& pointer) const
{
    QStringList out;
    const auto p = toStd(pointer);
    for (const auto& e : m_errors) {
        if (e.pointer == p ||
            (e.pointer.size() > p.size() && e.pointer.compare(0, p.size(), p) == 0 && e.pointer[p.size()] == '/')) {
            out << QString::fromStdString(e.message);
        }
    }
    return out.join(QStringLiteral("; "));
}

int DsortComposer::lineOf(const QString& pointer) const
{
    const auto path = tokens(pointer);
    if (path.isEmpty()) return 1;
    const QStringList lines = m_text.split(QLatin1Char('\n'));
    int from = 0;
    for (const auto& t : path) {
        bool isIndex = false;
        t.toInt(&isIndex);
        if (isIndex) continue;  // array elements: stay on the array's line
        const QString key = m_yaml ? QStringLiteral("(^|[\\s{,])[\"']?%1[\"']?\\s*:").arg(QRegularExpression::escape(t))
                                   : QStringLiteral("\"%1\"\\s*:").arg(QRegularExpression::escape(t));
        const QRegularExpression re(key);
        int found = -1;
        for (int i = from; i < lines.size(); ++i) {
            if (re.match(lines[i]).hasMatch()) {
                found = i;
                break;
            }
        }
        if (found < 0) return 0;
        from = found;
    }
    return from + 1;
}

QStringList DsortComposer::inputNames(int max, qint64* total, QString* error) const
{
    *total = 0;
    error->clear();
    // Only the fields the names depend on: the rest may still be wrong.
    nlohmann::json j{{"input_bck", "input"}, {"output_shard_size", 1}};
    for (const char* key : {"input_format", "input_extension"}) {
        if (m_doc.is_object() && m_doc.contains(key)) j[key] = m_doc[key];
    }
    if (!j.contains("input_format")) {
        *error = tr("no input template");
        return {};
    }
    auto s = spec::parseDsortSpec(j);
    if (!s) {
        QString m = QString::fromStdString(s.error().message);
        if (const int colon = m.indexOf(QStringLiteral(": /")); colon >= 0) m = m.mid(colon + 2);
        *error = m;
        return {};
    }
    auto names = s->inputNames();
    if (!names) {
        *error = QString::fromStdString(names.error().message);
        return {};
    }
    *total = static_cast<qint64>(names->size());
    QStringList out;
    for (std::size_t i = 0; i < names->size() && out.size() < max; ++i) out << QString::fromStdString((*names)[i]);
    if (names->size() > static_cast<std::size_t>(max) && max > 0) out.back() = QString::fromStdString(names->back());
    return out;
}

QString DsortComposer::inputSummary() const
{
    qint64 total = 0;
    QString error;
    const QStringList names = inputNames(2, &total, &error);
    if (!error.isEmpty()) return error;
    if (total == 0) return tr("no input shards");
    if (total == 1) return tr("1 shard: %1").arg(names.front());
    if (total == 2) return tr("2 shards: %1, %2").arg(names.front(), names.back());
    return tr("%L1 shards: %2 … %3").arg(total).arg(names.front(), names.back());
}

}  // namespace tessera::console
