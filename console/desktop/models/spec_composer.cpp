#include "models/spec_composer.h"

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
class SpecDocumentCommand : public QUndoCommand {
public:
    SpecDocumentCommand(SpecComposer* c, Snapshot before, Snapshot after, bool rewriteText, int mergeId)
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
        m_after = static_cast<const SpecDocumentCommand*>(other)->m_after;
        return true;
    }

private:
    SpecComposer* m_c;
    Snapshot m_before;
    Snapshot m_after;
    bool m_rewriteFirst;
    bool m_first = true;
    int m_id;
};

SpecComposer::SpecComposer(QString what, Checker checker, QObject* parent)
    : QObject(parent), m_what(std::move(what)), m_checker(std::move(checker)), m_undo(new QUndoStack(this))
{
    m_text = render(m_doc);
    static_cast<void>(check());
}

SpecComposer::~SpecComposer() = default;

QString SpecComposer::render(const nlohmann::json& doc) const
{
    if (m_yaml) return QString::fromStdString(spec::toYaml(doc));
    return QString::fromStdString(doc.dump(2)) + QLatin1Char('\n');
}

void SpecComposer::apply(const nlohmann::json& doc, const QString& text, bool rewriteText)
{
    m_doc = doc;
    m_text = text;
    const bool validity = check();
    if (rewriteText) emit textChanged();
    emit documentChanged();
    if (validity) emit validityChanged();
}

void SpecComposer::push(const nlohmann::json& doc, const QString& text, bool rewriteText, int mergeId)
{
    m_undo->push(new SpecDocumentCommand(this, {m_doc, m_text}, {doc, text}, rewriteText, mergeId));
}

bool SpecComposer::check()
{
    const auto before = std::make_pair(m_parseError, m_errors);
    m_parseError.clear();
    m_parseErrorLine = 0;
    const auto parsed = spec::parseSpecText(toStd(m_text), m_yaml ? spec::SpecFormat::Yaml : spec::SpecFormat::Json,
                                            m_what.toStdString());
    if (!parsed) {
        m_parseError = QString::fromStdString(parsed.error().message);
        static const QRegularExpression line(QStringLiteral("line (\\d+)"));
        if (const auto m = line.match(m_parseError); m.hasMatch()) m_parseErrorLine = m.captured(1).toInt();
        m_errors.clear();
    } else {
        m_errors = m_checker(m_doc);
    }
    return before != std::make_pair(m_parseError, m_errors);
}

void SpecComposer::setField(const QString& pointer, const nlohmann::json& value)
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

nlohmann::json SpecComposer::field(const QString& pointer) const
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

void SpecComposer::setText(const QString& text)
{
    if (text == m_text) return;
    const auto parsed = spec::parseSpecText(toStd(text), m_yaml ? spec::SpecFormat::Yaml : spec::SpecFormat::Json,
                                            m_what.toStdString());
    const nlohmann::json doc = parsed && parsed->is_object() ? *parsed : m_doc;
    push(doc, text, false, kTextMergeId);
}

void SpecComposer::setYaml(bool yaml)
{
    if (yaml == m_yaml) return;
    m_yaml = yaml;
    // A text that does not parse keeps its words: the document it last
    // parsed to is shown in the new format.
    apply(m_doc, render(m_doc), true);
}

void SpecComposer::load(const QString& text, bool yaml)
{
    m_yaml = yaml;
    const auto parsed =
        spec::parseSpecText(toStd(text), yaml ? spec::SpecFormat::Yaml : spec::SpecFormat::Json, m_what.toStdString());
    push(parsed && parsed->is_object() ? *parsed : nlohmann::json::object(), text, true, -1);
}

void SpecComposer::clear()
{
    const nlohmann::json doc = nlohmann::json::object();
    push(doc, render(doc), true, -1);
}

QString SpecComposer::fieldError(const QString& pointer) const
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

int SpecComposer::lineOf(const QString& pointer) const
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

}  // namespace tessera::console
