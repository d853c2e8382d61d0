#include "spec_text.h"

#include "api/names.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <regex>
#include <sstream>
#include <vector>

namespace tessera::spec {

namespace {

constexpr std::size_t kMaxDepth = 64;
constexpr std::size_t kMaxValues = 1'000'000;

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

struct TextError {
    YAML::Mark mark;
    std::string message;
};

bool isNullWord(std::string_view s) { return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL"; }

std::optional<bool> boolWord(std::string_view s)
{
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
    return std::nullopt;
}

// An integer of the core schema; nullopt when `s` is not one, an error when
// it is one that does not fit 64 bits.
std::optional<nlohmann::json> intWord(std::string_view s, const YAML::Mark& mark)
{
    static const std::regex dec("[-+]?[0-9]+"), oct("0o[0-7]+"), hex("0x[0-9a-fA-F]+");
    const std::string str(s);
    int base = 10;
    std::string_view digits = s;
    if (std::regex_match(str, hex)) {
        base = 16;
        digits.remove_prefix(2);
    } else if (std::regex_match(str, oct)) {
        base = 8;
        digits.remove_prefix(2);
    } else if (!std::regex_match(str, dec)) {
        return std::nullopt;
    }
    bool negative = false;
    if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) {
        negative = digits.front() == '-';
        digits.remove_prefix(1);
    }
    std::uint64_t u = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), u, base);
    if (ec != std::errc() || end != digits.data() + digits.size()) {
        throw TextError{mark, "the number " + str + " does not fit 64 bits"};
    }
    if (!negative) return nlohmann::json(u);
    if (u > std::uint64_t{1} << 63) throw TextError{mark, "the number " + str + " does not fit 64 bits"};
    return nlohmann::json(u == std::uint64_t{1} << 63 ? std::numeric_limits<std::int64_t>::min()
                                                      : -static_cast<std::int64_t>(u));
}

std::optional<nlohmann::json> floatWord(std::string_view s, const YAML::Mark& mark)
{
    static const std::regex num("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
    static const std::regex special("[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)");
    const std::string str(s);
    if (std::regex_match(str, special)) throw TextError{mark, str + ": a spec has no infinite or NaN numbers"};
    if (!std::regex_match(str, num)) return std::nullopt;
    const double d = std::strtod(str.c_str(), nullptr);
    if (!std::isfinite(d)) throw TextError{mark, "the number " + str + " is out of range"};
    return nlohmann::json(d);
}

// What a plain (unquoted, untagged) scalar means.
nlohmann::json resolvePlain(const std::string& s, const YAML::Mark& mark)
{
    if (isNullWord(s)) return nullptr;
    if (auto b = boolWord(s)) return *b;
    if (auto i = intWord(s, mark)) return *i;
    if (auto f = floatWord(s, mark)) return *f;
    return s;
}

// A scalar with an explicit tag.
nlohmann::json resolveTagged(const std::string& tag, const std::string& s, const YAML::Mark& mark)
{
    static const std::string core = "tag:yaml.org,2002:";
    const std::string kind = tag.rfind(core, 0) == 0 ? tag.substr(core.size()) : std::string();
    if (kind == "str") return s;
    if (kind == "null") {
        if (!isNullWord(s)) throw TextError{mark, "!!null with the value \"" + s + "\""};
        return nullptr;
    }
    if (kind == "bool") {
        if (auto b = boolWord(s)) return *b;
        throw TextError{mark, "!!bool with the value \"" + s + "\" (true or false)"};
    }
    if (kind == "int") {
        if (auto i = intWord(s, mark)) return *i;
        throw TextError{mark, "!!int with the value \"" + s + "\""};
    }
    if (kind == "float") {
        if (auto i = intWord(s, mark))
            return static_cast<double>(i->is_number_unsigned() ? i->get<std::uint64_t>() : i->get<std::int64_t>());
        if (auto f = floatWord(s, mark)) return *f;
        throw TextError{mark, "!!float with the value \"" + s + "\""};
    }
    throw TextError{mark,
                    "the tag " + tag + " is not supported in a spec (only !!str, !!int, !!float, !!bool, !!null)"};
}

// Builds the JSON value from the parser's events.
class JsonBuilder : public YAML::EventHandler {
public:
    nlohmann::json root;
    bool haveRoot = false;

    void OnDocumentStart(const YAML::Mark& mark) override
    {
        if (m_documents++ > 0) throw TextError{mark, "a spec is one YAML document (a second one starts here)"};
    }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override
    {
        checkAnchor(mark, anchor);
        add(nullptr, mark, nullptr);
    }
    void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override
    {
        throw TextError{mark, "aliases (*name) are not supported in a spec"};
    }
    void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  const std::string& value) override
    {
        checkAnchor(mark, anchor);
        if (tag == "?") add(resolvePlain(value, mark), mark, &value);
        else if (tag == "!") add(value, mark, &value);  // quoted
        else add(resolveTagged(tag, value, mark), mark, &value);
    }
    void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value) override
    {
        open(mark, tag, anchor, nlohmann::json::array());
    }
    void OnSequenceEnd() override { close(); }
    void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                    YAML::EmitterStyle::value) override
    {
        open(mark, tag, anchor, nlohmann::json::object());
    }
    void OnMapEnd() override { close(); }

private:
    struct Frame {
        nlohmann::json value;
        YAML::Mark mark;
        std::optional<std::string> key;  // maps: the key whose value comes next
    };
    std::vector<Frame> m_stack;
    std::size_t m_values = 0;
    int m_documents = 0;

    static void checkAnchor(const YAML::Mark& mark, YAML::anchor_t anchor)
    {
        if (anchor != YAML::NullAnchor) throw TextError{mark, "anchors (&name) are not supported in a spec"};
    }

    void open(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor, nlohmann::json empty)
    {
        checkAnchor(mark, anchor);
        if (tag != "?" && tag != "!" && !tag.empty()) {
            throw TextError{mark, "the tag " + tag + " is not supported in a spec"};
        }
        if (!m_stack.empty() && m_stack.back().value.is_object() && !m_stack.back().key) {
            throw TextError{mark, "a key must be a plain string, not a mapping or a list"};
        }
        if (m_stack.size() >= kMaxDepth) throw TextError{mark, "nested deeper than 64 levels"};
        m_stack.push_back({std::move(empty), mark, std::nullopt});
    }

    void close()
    {
        Frame f = std::move(m_stack.back());
        m_stack.pop_back();
        add(std::move(f.value), f.mark, nullptr);
    }

    // `raw`: the scalar's text, which is the key when a map waits for one.
    void add(nlohmann::json v, const YAML::Mark& mark, const std::string* raw)
    {
        if (++m_values > kMaxValues) throw TextError{mark, "more than 1,000,000 values"};
        if (m_stack.empty()) {
            root = std::move(v);
            haveRoot = true;
            return;
        }
        Frame& top = m_stack.back();
        if (top.value.is_array()) {
            top.value.push_back(std::move(v));
            return;
        }
        if (!top.key) {
            if (raw == nullptr) throw TextError{mark, "a key must be a string"};
            if (top.value.contains(*raw)) throw TextError{mark, "the key \"" + *raw + "\" is given twice"};
            top.key = *raw;
            return;
        }
        top.value[*top.key] = std::move(v);
        top.key.reset();
    }
};

std::string located(std::string_view what, std::string_view form, std::size_t line, std::size_t column,
                    const std::string& message)
{
    return "invalid " + std::string(what) + " spec: " + std::string(form) + " line " + std::to_string(line) +
           ", column " + std::to_string(column) + ": " + message;
}

// Every key and string in `root` is valid UTF-8 (iterative: documents nest
// up to the reader's depth limit).
bool allTextIsUtf8(const nlohmann::json& root)
{
    std::vector<const nlohmann::json*> left{&root};
    while (!left.empty()) {
        const auto* v = left.back();
        left.pop_back();
        if (v->is_string() && !api::isValidUtf8(v->get_ref<const std::string&>())) return false;
        if (v->is_object()) {
            for (const auto& [k, item] : v->items()) {
                if (!api::isValidUtf8(k)) return false;
                left.push_back(&item);
            }
        } else if (v->is_array()) {
            for (const auto& item : *v) left.push_back(&item);
        }
    }
    return true;
}

api::Result<nlohmann::json> parseYaml(std::string_view text, std::string_view what)
{
    std::istringstream in{std::string(text)};
    JsonBuilder builder;
    try {
        YAML::Parser parser(in);
        if (!parser.HandleNextDocument(builder)) {
            return api::Error::badRequest("invalid " + std::string(what) + " spec: the YAML document is empty");
        }
        // A second document is refused by the builder.
        while (parser.HandleNextDocument(builder)) {
        }
    } catch (const TextError& e) {
        return api::Error::badRequest(located(what, "YAML", e.mark.line + 1, e.mark.column + 1, e.message));
    } catch (const YAML::Exception& e) {
        return api::Error::badRequest(located(what, "YAML", e.mark.line + 1, e.mark.column + 1, e.msg));
    }
    if (!builder.haveRoot) {
        return api::Error::badRequest("invalid " + std::string(what) + " spec: the YAML document is empty");
    }
    // yaml-cpp passes bytes through; a JSON document holds UTF-8 only (its
    // dump() throws on anything else), as the JSON reader requires.
    if (!allTextIsUtf8(builder.root)) {
        return api::Error::badRequest("invalid " + std::string(what) + " spec: YAML text is not valid UTF-8");
    }
    return std::move(builder.root);
}

api::Result<nlohmann::json> parseJson(std::string_view text, std::string_view what)
{
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        // Line and column of the byte where parsing stopped.
        const std::size_t at = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
        std::size_t line = 1, column = 1;
        for (std::size_t i = 0; i < at; ++i) {
            if (text[i] == '\n') {
                ++line;
                column = 1;
            } else {
                ++column;
            }
        }
        // nlohmann's text after its "[json.exception...] parse error at ...: ".
        std::string why = e.what();
        if (const auto p = why.find(": "); p != std::string::npos) why = why.substr(p + 2);
        return api::Error::badRequest(located(what, "malformed JSON:", line, column, why));
    } catch (const nlohmann::json::out_of_range& e) {
        // A number beyond double's range ("1e999") is not a parse_error.
        return api::Error::badRequest("invalid " + std::string(what) + " spec: malformed JSON: " + e.what());
    }
}

// Would `s`, written plain, read back as the string `s`?
bool plainIsString(const std::string& s)
{
    try {
        return resolvePlain(s, YAML::Mark{}).is_string();
    } catch (const TextError&) {
        return false;
    }
}

constexpr std::size_t kMaxImplicitKeyBytes = 200;

void emit(YAML::Emitter& out, const nlohmann::json& j)
{
    switch (j.type()) {
    case nlohmann::json::value_t::object:
        out << YAML::BeginMap;
        for (const auto& [k, v] : j.items()) {
            out << YAML::Key;
            // YAML allows an implicit key of at most 1024 characters, and an
            // escaped one may be four times its bytes: a long key is written
            // explicit ("? key"). Found by fuzz_spec_text.
            if (k.size() > kMaxImplicitKeyBytes) out << YAML::LongKey;
            if (plainIsString(k)) out << k;
            else out << YAML::DoubleQuoted << k;
            out << YAML::Value;
            emit(out, v);
        }
        out << YAML::EndMap;
        break;
    case nlohmann::json::value_t::array: {
        const bool flat = std::all_of(j.begin(), j.end(), [](const auto& e) { return e.is_primitive(); });
        out << (flat ? YAML::Flow : YAML::Block) << YAML::BeginSeq;
        for (const auto& e : j) emit(out, e);
        out << YAML::EndSeq;
        break;
    }
    case nlohmann::json::value_t::string: {
        const auto& s = j.get_ref<const std::string&>();
        if (plainIsString(s)) out << s;
        else out << YAML::DoubleQuoted << s;
        break;
    }
    case nlohmann::json::value_t::boolean: out << (j.get<bool>() ? "true" : "false"); break;
    case nlohmann::json::value_t::null: out << YAML::Null; break;
    default: out << j.dump(); break;  // numbers as JSON writes them (they read back the same)
    }
}

}  // namespace

std::optional<SpecFormat> specFormatForContentType(std::string_view contentType)
{
    auto ct = lower(trim(contentType.substr(0, contentType.find(';'))));
    // curl -d sends application/x-www-form-urlencoded: a JSON body all the same.
    if (ct.empty() || ct == "application/json" || ct == "text/plain" || ct == "application/octet-stream" ||
        ct == "application/x-www-form-urlencoded") {
        return SpecFormat::Json;
    }
    if (ct == "application/yaml" || ct == "application/x-yaml" || ct == "text/yaml" || ct == "text/x-yaml") {
        return SpecFormat::Yaml;
    }
    return std::nullopt;
}

SpecFormat specFormatForPath(std::string_view path)
{
    const auto l = lower(path);
    const auto ends = [&](std::string_view suffix) {
        return l.size() >= suffix.size() && l.compare(l.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    return ends(".yaml") || ends(".yml") ? SpecFormat::Yaml : SpecFormat::Json;
}

std::string_view contentTypeFor(SpecFormat f)
{
    return f == SpecFormat::Yaml ? "application/yaml" : "application/json";
}

api::Result<nlohmann::json> parseSpecText(std::string_view text, SpecFormat format, std::string_view what)
{
    return format == SpecFormat::Yaml ? parseYaml(text, what) : parseJson(text, what);
}

std::string toYaml(const nlohmann::json& j)
{
    YAML::Emitter out;
    out.SetIndent(2);
    emit(out, j);
    std::string s = out.c_str();
    if (s.empty() || s.back() != '\n') s += '\n';
    return s;
}

}  // namespace tessera::spec
