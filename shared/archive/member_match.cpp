#include "member_match.h"

#include "member_name.h"

namespace tessera::archive {

api::Result<MemberMatcher> MemberMatcher::create(std::string_view mode, std::string_view value)
{
    MemberMatcher m;
    if (mode.empty() || mode == "regexp") m.m_mode = MatchMode::Regexp;
    else if (mode == "prefix") m.m_mode = MatchMode::Prefix;
    else if (mode == "suffix") m.m_mode = MatchMode::Suffix;
    else if (mode == "substr") m.m_mode = MatchMode::Substr;
    else if (mode == "wdskey") m.m_mode = MatchMode::WdsKey;
    else {
        return api::Error::badRequest("archmode \"" + std::string(mode) +
                                      "\" is not one of regexp, prefix, suffix, substr, wdskey");
    }
    if (value.empty()) return api::Error::badRequest("archregx is empty");
    if (value.size() > kMaxPatternBytes) {
        return api::Error::badRequest("archregx is longer than " + std::to_string(kMaxPatternBytes) + " bytes");
    }
    m.m_value = std::string(value);
    if (m.m_mode == MatchMode::Regexp) {
        try {
            m.m_regex = std::make_shared<const std::regex>(m.m_value, std::regex::ECMAScript);
        } catch (const std::regex_error& e) {
            return api::Error::badRequest("archregx \"" + m.m_value +
                                          "\" is not a valid regular expression: " + e.what());
        }
    }
    return m;
}

bool MemberMatcher::matches(std::string_view name) const
{
    switch (m_mode) {
    case MatchMode::Prefix: return name.substr(0, m_value.size()) == m_value;
    case MatchMode::Suffix:
        return name.size() >= m_value.size() && name.substr(name.size() - m_value.size()) == m_value;
    case MatchMode::Substr: return name.find(m_value) != std::string_view::npos;
    case MatchMode::WdsKey: return wdsKey(name) == m_value;
    case MatchMode::Regexp: try { return std::regex_search(name.begin(), name.end(), *m_regex);
        } catch (const std::regex_error&) {
            return false;  // the engine's own limits (complexity, stack): no match
        }
    }
    return false;
}

}  // namespace tessera::archive
