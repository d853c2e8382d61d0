#pragma once
// Member names inside shards, and WebDataset sample keys.

#include "api/result.h"

#include <string>
#include <string_view>

namespace tessera::archive {

// A member name safe to serve and to extract under a directory: not empty,
// valid UTF-8, no NUL or control characters, not absolute, no ".."
// component, at most maxBytes. BadRequest describing the rule it breaks.
// A leading "./" is allowed (tar's habit) and removed by normalizeMemberName.
api::Status validateMemberName(std::string_view name, std::size_t maxBytes = 4096);
// "./a/b.jpg" -> "a/b.jpg"; other names unchanged.
std::string_view normalizeMemberName(std::string_view name);

// WebDataset: the key of a file is its path up to the first dot of its last
// component ("train/n01440764_10026.jpg" -> "train/n01440764_10026"); the
// rest, dot included, is its extension (".jpg"; "a.seg.png" -> ".seg.png").
// A name without a dot in its last component is its own key, extension "".
std::string_view wdsKey(std::string_view name);
std::string_view wdsExtension(std::string_view name);

}  // namespace tessera::archive
