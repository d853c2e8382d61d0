#include "brace_template.h"

#include <charconv>

namespace tessera::spec {

namespace {

api::Error bad(std::string_view text, std::size_t pos, const std::string& what)
{
    return api::Error::badRequest("template \"" + std::string(text) + "\": " + what + " at position " +
                                  std::to_string(pos));
}

bool parseNumber(std::string_view s, std::uint64_t& out)
{
    if (s.empty() || s.size() > 18) return false;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
    }
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

api::Result<BraceTemplate> BraceTemplate::parse(std::string_view text)
{
    if (text.empty()) return api::Error::badRequest("template is empty");
    if (text.size() > kMaxTemplateBytes) {
        return api::Error::badRequest("template longer than " + std::to_string(kMaxTemplateBytes) + " bytes");
    }
    BraceTemplate t;
    t.m_text = std::string(text);
    std::string literal;
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (c == '}') return bad(text, i, "'}' without '{'");
        if (c != '{') {
            literal += c;
            ++i;
            continue;
        }
        const auto close = text.find('}', i + 1);
        if (close == std::string_view::npos) return bad(text, i, "'{' without '}'");
        const auto body = text.substr(i + 1, close - i - 1);
        if (body.find('{') != std::string_view::npos) return bad(text, i, "nested '{'");
        // A..B or A..B..STEP
        const auto d1 = body.find("..");
        if (d1 == std::string_view::npos) return bad(text, i, "range must be {A..B} or {A..B..STEP}");
        const auto a = body.substr(0, d1);
        auto rest = body.substr(d1 + 2);
        std::string_view b = rest;
        std::string_view s;
        if (const auto d2 = rest.find(".."); d2 != std::string_view::npos) {
            b = rest.substr(0, d2);
            s = rest.substr(d2 + 2);
            if (s.find("..") != std::string_view::npos) return bad(text, i, "too many '..' in range");
        }
        Range r;
        if (!parseNumber(a, r.start)) return bad(text, i + 1, "range start is not a decimal number");
        if (!parseNumber(b, r.end)) return bad(text, i + 1, "range end is not a decimal number");
        if (!s.empty() || rest.find("..") != std::string_view::npos) {
            if (!parseNumber(s, r.step) || r.step == 0) return bad(text, i + 1, "range step must be a number >= 1");
        }
        if (r.start > r.end) return bad(text, i + 1, "range start is greater than its end");
        if ((a.size() > 1 && a[0] == '0') || a.size() == b.size()) r.width = a.size();
        if (t.m_ranges.size() == kMaxRanges) {
            return bad(text, i, "more than " + std::to_string(kMaxRanges) + " ranges");
        }
        const auto n = r.count();
        if (n > kMaxCount || t.m_count > kMaxCount / n) {
            return api::Error::badRequest("template \"" + std::string(text) + "\" stands for more than " +
                                          std::to_string(kMaxCount) + " names");
        }
        t.m_count *= n;
        t.m_literals.push_back(std::move(literal));
        literal.clear();
        t.m_ranges.push_back(r);
        i = close + 1;
    }
    t.m_literals.push_back(std::move(literal));
    return t;
}

std::string BraceTemplate::at(std::uint64_t i) const
{
    // Mixed radix: the last range is the least significant digit.
    std::vector<std::uint64_t> digits(m_ranges.size());
    for (std::size_t k = m_ranges.size(); k-- > 0;) {
        const auto n = m_ranges[k].count();
        digits[k] = i % n;
        i /= n;
    }
    std::string out = m_literals[0];
    for (std::size_t k = 0; k < m_ranges.size(); ++k) {
        const auto& r = m_ranges[k];
        auto num = std::to_string(r.start + digits[k] * r.step);
        if (num.size() < r.width) out.append(r.width - num.size(), '0');
        out += num;
        out += m_literals[k + 1];
    }
    return out;
}

api::Result<std::vector<std::string>> BraceTemplate::expand(std::uint64_t limit) const
{
    if (m_count > limit) {
        return api::Error::badRequest("template \"" + m_text + "\" stands for " + std::to_string(m_count) +
                                      " names, more than the limit of " + std::to_string(limit));
    }
    std::vector<std::string> out;
    out.reserve(m_count);
    for (std::uint64_t i = 0; i < m_count; ++i) out.push_back(at(i));
    return out;
}

}  // namespace tessera::spec
