#pragma once
// Selecting several members of a shard (AIStore's `archregx` + `archmode`):
//   regexp  ECMAScript regular expression found anywhere in the name
//   prefix  the name starts with the value
//   suffix  the name ends with the value
//   substr  the name contains the value
//   wdskey  the member's WebDataset key equals the value (one whole sample)
//
// Thread safety: a built matcher is immutable; matches() may be called from
// any thread.

#include "api/result.h"

#include <memory>
#include <regex>
#include <string>
#include <string_view>

namespace tessera::archive {

enum class MatchMode { Regexp, Prefix, Suffix, Substr, WdsKey };

class MemberMatcher {
public:
    static constexpr std::size_t kMaxPatternBytes = 1024;
    // BadRequest for an unknown mode, an empty or too long value, or a
    // regular expression that does not compile. An empty mode means regexp.
    static api::Result<MemberMatcher> create(std::string_view mode, std::string_view value);
    bool matches(std::string_view memberName) const;
    MatchMode mode() const { return m_mode; }

private:
    MatchMode m_mode = MatchMode::Regexp;
    std::string m_value;
    std::shared_ptr<const std::regex> m_regex;
};

}  // namespace tessera::archive
