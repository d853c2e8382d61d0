#pragma once
// The spec a composer page edits (dSort, ishard): one JSON document shown
// two ways, as a form and as text (JSON or YAML), kept in step. The form sets fields by
// JSON pointer; the text is parsed with the proxy's reader (spec_text.h), so
// a YAML or JSON syntax error names the same line and column the proxy would.
// Every document is checked with the proxy's own checker (the Checker
// given: spec::validateDsortSpec, spec::validateIshardSpec): the field errors name the same JSON pointers the
// proxy's 400 does, and lineOf() finds a field's line in the text.
//
// Every change of the document — from the form, from the text, or loading a
// spec — is an undo step on undoStack(); consecutive edits of one field (or
// of the text) merge into one step.
//
// UI thread only.

#include "spec/spec_checker.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>
#include <nlohmann/json.hpp>
#include <vector>

class QUndoStack;

namespace tessera::console {

class SpecComposer : public QObject {
    Q_OBJECT
public:
    using Checker = std::function<std::vector<spec::FieldError>(const nlohmann::json&)>;

    // `what` names the spec in syntax errors ("dsort": "invalid dsort spec: ...").
    SpecComposer(QString what, Checker checker, QObject* parent = nullptr);
    ~SpecComposer() override;

    // The spec as the form shows it (an object; possibly not a valid spec).
    const nlohmann::json& document() const { return m_doc; }
    QString text() const { return m_text; }
    bool yaml() const { return m_yaml; }

    // The form: sets the field at `pointer` (e.g. "/algorithm/seed") to
    // `value`; a null value removes it (and an object left empty). One undo
    // step per field while the same field is edited in a row.
    void setField(const QString& pointer, const nlohmann::json& value);
    // The value at `pointer`, null when absent.
    nlohmann::json field(const QString& pointer) const;

    // The text, as the user typed it. When it parses, the document follows
    // (textChanged is not emitted: the text is already the user's); when it
    // does not, the document stays and parseError() says where.
    void setText(const QString& text);
    // Shows the document as YAML (true) or JSON; the text is rewritten.
    void setYaml(bool yaml);
    // A whole spec (a file or a saved spec): the text as given, in its format.
    void load(const QString& text, bool yaml);
    // A fresh spec with the required fields empty.
    void clear();

    // The syntax error of the text ("" when it parses), and its line (1-based; 0 unknown).
    QString parseError() const { return m_parseError; }
    int parseErrorLine() const { return m_parseErrorLine; }
    // The checker's errors for the document (empty while the text does not parse).
    const std::vector<spec::FieldError>& errors() const { return m_errors; }
    // The error of the field at `pointer`, or of anything below it; "" when none.
    QString fieldError(const QString& pointer) const;
    // True when the text parses and the checker finds nothing.
    bool isValid() const { return m_parseError.isEmpty() && m_errors.empty(); }

    // The line (1-based) of the field at `pointer` in the text, 0 when not
    // found; the root ("") is line 1.
    int lineOf(const QString& pointer) const;

    QUndoStack* undoStack() const { return m_undo; }

signals:
    // The document changed: the form shows it again.
    void documentChanged();
    // The text was rewritten from the document (not on the user's own typing).
    void textChanged();
    // The errors or the syntax error changed.
    void validityChanged();

private:
    friend class SpecDocumentCommand;
    // Applies a document (undo/redo and the first application of a change).
    void apply(const nlohmann::json& doc, const QString& text, bool rewriteText);
    void push(const nlohmann::json& doc, const QString& text, bool rewriteText, int mergeId);
    QString render(const nlohmann::json& doc) const;
    // Parses the text and checks the document; true when the errors changed.
    bool check();

    QString m_what;
    Checker m_checker;
    nlohmann::json m_doc = nlohmann::json::object();
    QString m_text;
    bool m_yaml = false;
    QString m_parseError;
    int m_parseErrorLine = 0;
    std::vector<spec::FieldError> m_errors;
    QUndoStack* m_undo;
    QStringList m_mergeKeys;  // merge ids of fields: index + 1
};

}  // namespace tessera::console
