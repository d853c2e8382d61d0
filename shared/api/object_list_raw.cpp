#include "object_list_raw.h"

#include <cstring>
#include <limits>

namespace tessera::api {

namespace {

// Reads the exact form dumpObjectList writes; every method says whether
// the text continues as expected and moves past what it read.
class Exact {
public:
    Exact(const char* begin, const char* end) : m_begin(begin), m_p(begin), m_end(end) {}

    std::uint32_t at() const { return static_cast<std::uint32_t>(m_p - m_begin); }
    bool atEnd() const { return m_p == m_end; }
    std::string_view view(std::uint32_t at, std::uint32_t size) const { return {m_begin + at, size}; }
    bool lit(std::string_view s)
    {
        if (static_cast<std::size_t>(m_end - m_p) < s.size() || std::memcmp(m_p, s.data(), s.size()) != 0) {
            return false;
        }
        m_p += s.size();
        return true;
    }
    bool peek(char c) const { return m_p < m_end && *m_p == c; }
    // A string of printable ASCII without escapes; its content's place.
    bool str(std::uint32_t& at, std::uint32_t& size)
    {
        if (!lit("\"")) return false;
        const char* start = m_p;
        const auto* q = static_cast<const char*>(std::memchr(m_p, '"', static_cast<std::size_t>(m_end - m_p)));
        if (q == nullptr) return false;
        for (const char* c = start; c < q; ++c) {
            const auto b = static_cast<unsigned char>(*c);
            if (b < 0x20 || b >= 0x80 || b == '\\') return false;
        }
        at = static_cast<std::uint32_t>(start - m_begin);
        size = static_cast<std::uint32_t>(q - start);
        m_p = q + 1;
        return true;
    }
    bool nonEmptyStr()
    {
        std::uint32_t at = 0, size = 0;
        return str(at, size) && size > 0;
    }
    // Digits as std::to_chars writes a value <= max (no sign, no leading zero).
    bool uint(std::uint64_t max, std::uint64_t& v)
    {
        const char* start = m_p;
        v = 0;
        while (m_p < m_end && *m_p >= '0' && *m_p <= '9') {
            const auto d = static_cast<std::uint64_t>(*m_p - '0');
            if (v > (max - d) / 10) return false;
            v = v * 10 + d;
            ++m_p;
        }
        return m_p > start && !(*start == '0' && m_p - start > 1);
    }

private:
    const char* m_begin;
    const char* m_p;
    const char* m_end;
};

// One entry: the keys in dumpObjectList's order, each at most once, the
// ones it leaves out when empty or zero absent, never a stamp.
bool entry(Exact& s, RawObjectList::Entry& e)
{
    e.textAt = s.at();
    if (!s.lit("{")) return false;
    bool named = false;
    bool first = true;
    // dumpObjectList's key order; a key must come after the previous one.
    static constexpr std::string_view kKeys[] = {"atime", "checksum", "copies", "custom-md", "error", "flags",
                                                 "location", "name", "size", "version"};
    std::size_t next = 0;
    while (!s.peek('}')) {
        if (!first && !s.lit(",")) return false;
        first = false;
        std::uint32_t keyAt = 0, keySize = 0;
        if (!s.str(keyAt, keySize) || !s.lit(":")) return false;
        const std::string_view key = s.view(keyAt, keySize);
        std::size_t k = next;
        while (k < std::size(kKeys) && kKeys[k] != key) ++k;
        if (k == std::size(kKeys)) return false;  // unknown, repeated, out of order, or a stamp
        next = k + 1;
        std::uint64_t v = 0;
        if (key == "name") {
            if (!s.str(e.nameAt, e.nameSize)) return false;
            named = true;
        } else if (key == "size") {
            if (!s.lit("\"") || !s.uint(static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()), v) ||
                !s.lit("\"")) {
                return false;
            }
        } else if (key == "flags") {
            if (!s.uint(0xffffffffu, v) || v == 0) return false;
            e.flags = static_cast<std::uint32_t>(v);
        } else if (key == "copies") {
            if (!s.uint(32767, v) || v == 0) return false;
        } else if (!s.nonEmptyStr()) {
            return false;
        }
    }
    if (!s.lit("}") || !named) return false;
    e.textSize = s.at() - e.textAt;
    return true;
}

}  // namespace

bool scanRawObjectList(RawObjectList& out)
{
    out.entries.clear();
    if (out.body.size() >= std::numeric_limits<std::uint32_t>::max()) return false;
    Exact s(out.body.data(), out.body.data() + out.body.size());
    if (!s.lit("{\"continuation_token\":") || !s.str(out.tokenAt, out.tokenSize) || !s.lit(",\"entries\":[")) {
        return false;
    }
    // An entry takes at least 11 bytes ({"name":""}); a listing entry rarely less than 32.
    out.entries.reserve(out.body.size() / 32);
    if (!s.peek(']')) {
        do {
            if (!entry(s, out.entries.emplace_back())) return false;
        } while (s.lit(","));
    }
    std::uint64_t flags = 0;
    std::uint32_t uuidAt = 0, uuidSize = 0;
    if (!s.lit("],\"flags\":") || !s.uint(0xffffffffu, flags) || !s.lit(",\"uuid\":") || !s.str(uuidAt, uuidSize) ||
        !s.lit("}") || !s.atEnd()) {
        return false;
    }
    return true;
}

}  // namespace tessera::api
