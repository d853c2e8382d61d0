#pragma once
// HTTP Range header parsing (RFC 9110), single range only.

#include "result.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace tessera::api {

struct ByteRange {
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
};

// Parses `header` against an object of `size` bytes.
//  - empty header: std::nullopt (whole object)
//  - "bytes=a-b", "bytes=a-", "bytes=-n": the clamped range
//  - syntactically bad or multi-range: BadRequest
//  - syntactically fine but unsatisfiable (start >= size, or a zero suffix):
//    RangeNotSatisfiable (the caller answers 416 with "bytes */size")
Result<std::optional<ByteRange>> parseRange(std::string_view header, std::uint64_t size);

}  // namespace tessera::api
