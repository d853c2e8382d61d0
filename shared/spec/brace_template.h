#pragma once
// Brace templates name many objects at once, as AIStore's do:
//   "shard-{0000..0999}.tar"          1000 names, zero-padded to 4 digits
//   "img-{0..100..10}.jpg"            0, 10, ..., 100 (a step)
//   "d{0..2}/part-{00..15}.tar"       several ranges: the last varies fastest
// A range is {A..B} or {A..B..STEP} with decimal A <= B and STEP >= 1; the
// numbers are zero-padded to the width of A when A is written with leading
// zeros or is as wide as B ("{00..15}" -> "00".."15", "{0..15}" -> "0".."15").
// Text outside braces is literal; '{' and '}' are not allowed in it.
// Every feature that takes a template (archive jobs, ishard, dSort) parses
// it here, so they all accept exactly the same syntax.
//
// Thread safety: a parsed template is immutable.

#include "api/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::spec {

class BraceTemplate {
public:
    static constexpr std::size_t kMaxRanges = 8;
    static constexpr std::size_t kMaxTemplateBytes = 1024;
    // Upper bound on the names one template may stand for (the product of
    // its ranges' lengths).
    static constexpr std::uint64_t kMaxCount = 100'000'000;

    // BadRequest naming the problem and its position.
    static api::Result<BraceTemplate> parse(std::string_view text);

    // How many names the template stands for (1 for plain text).
    std::uint64_t count() const { return m_count; }
    // The i-th name, 0 <= i < count(), in expansion order.
    std::string at(std::uint64_t i) const;
    // Every name, in order; BadRequest when there are more than `limit`.
    api::Result<std::vector<std::string>> expand(std::uint64_t limit) const;
    bool hasRanges() const { return !m_ranges.empty(); }
    const std::string& text() const { return m_text; }

private:
    struct Range {
        std::uint64_t start = 0;
        std::uint64_t end = 0;
        std::uint64_t step = 1;
        std::size_t width = 0;  // zero-padded to this many digits (0: no padding)
        std::uint64_t count() const { return (end - start) / step + 1; }
    };
    std::string m_text;
    std::vector<std::string> m_literals;  // m_ranges.size() + 1 pieces around the ranges
    std::vector<Range> m_ranges;
    std::uint64_t m_count = 1;
};

}  // namespace tessera::spec
