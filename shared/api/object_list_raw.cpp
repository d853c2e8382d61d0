#include "object_list_raw.h"

#include "json_scan.h"

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
    // A literal, its length known when compiled (compared inline).
    template <std::size_t N>
    bool lit(const char (&s)[N])
    {
        constexpr std::size_t n = N - 1;
        if (static_cast<std::size_t>(m_end - m_p) < n || std::memcmp(m_p, s, n) != 0) return false;
        m_p += n;
        return true;
    }
    bool lit(char c)
    {
        if (m_p == m_end || *m_p != c) return false;
        ++m_p;
        return true;
    }
    bool peek(char c) const { return m_p < m_end && *m_p == c; }
    // A string without escapes or control bytes, in valid UTF-8 (as the
    // writer leaves it and a parse and write give it back); its content's
    // place.
    [[gnu::always_inline]] bool str(std::uint32_t& at, std::uint32_t& size)
    {
        if (!lit('"')) return false;
        const char* start = m_p;
        const char* c = detail::firstSpecialByte(m_p, m_end);
        // UTF-8 is taken as it is, a whole valid sequence at a time.
        while (c < m_end && static_cast<unsigned char>(*c) >= 0x80) {
            const auto n = utf8Sequence(c);
            if (n == 0) return false;
            c = detail::firstSpecialByte(c + n, m_end);
        }
        if (c == m_end || *c != '"') return false;  // a backslash or a control byte
        at = static_cast<std::uint32_t>(start - m_begin);
        size = static_cast<std::uint32_t>(c - start);
        m_p = c + 1;
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
    // The length of the valid UTF-8 sequence at p (2 to 4 bytes: no
    // overlong form, no surrogate, nothing above U+10FFFF, the ranges
    // nlohmann's parser accepts); 0 for anything else.
    std::size_t utf8Sequence(const char* p) const
    {
        const auto at = [&](std::size_t i, unsigned lo, unsigned hi) {
            if (m_end - p <= static_cast<std::ptrdiff_t>(i)) return false;
            const auto b = static_cast<unsigned char>(p[i]);
            return b >= lo && b <= hi;
        };
        const auto b0 = static_cast<unsigned char>(p[0]);
        if (b0 >= 0xC2 && b0 <= 0xDF) return at(1, 0x80, 0xBF) ? 2 : 0;
        if (b0 == 0xE0) return at(1, 0xA0, 0xBF) && at(2, 0x80, 0xBF) ? 3 : 0;
        if ((b0 >= 0xE1 && b0 <= 0xEC) || b0 == 0xEE || b0 == 0xEF)
            return at(1, 0x80, 0xBF) && at(2, 0x80, 0xBF) ? 3 : 0;
        if (b0 == 0xED) return at(1, 0x80, 0x9F) && at(2, 0x80, 0xBF) ? 3 : 0;
        if (b0 == 0xF0) return at(1, 0x90, 0xBF) && at(2, 0x80, 0xBF) && at(3, 0x80, 0xBF) ? 4 : 0;
        if (b0 >= 0xF1 && b0 <= 0xF3) return at(1, 0x80, 0xBF) && at(2, 0x80, 0xBF) && at(3, 0x80, 0xBF) ? 4 : 0;
        if (b0 == 0xF4) return at(1, 0x80, 0x8F) && at(2, 0x80, 0xBF) && at(3, 0x80, 0xBF) ? 4 : 0;
        return 0;
    }

    const char* m_begin;
    const char* m_p;
    const char* m_end;
};

// dumpObjectList's keys, in its order.
enum Key { kAtime, kChecksum, kCopies, kCustom, kError, kFlags, kLocation, kName, kSize, kVersion, kNoKey };

// The key at the scanner, with its quotes and colon; kNoKey for any other.
Key key(Exact& s)
{
    if (s.lit("\"name\":")) return kName;  // the usual order: flags, name, size
    if (s.lit("\"flags\":")) return kFlags;
    if (s.lit("\"size\":")) return kSize;
    if (s.lit("\"atime\":")) return kAtime;
    if (s.lit("\"checksum\":")) return kChecksum;
    if (s.lit("\"copies\":")) return kCopies;
    if (s.lit("\"custom-md\":")) return kCustom;
    if (s.lit("\"error\":")) return kError;
    if (s.lit("\"location\":")) return kLocation;
    if (s.lit("\"version\":")) return kVersion;
    return kNoKey;  // unknown, or a stamp
}

// One entry: the keys in dumpObjectList's order, each at most once, the
// ones it leaves out when empty or zero absent, never a stamp.
bool entry(Exact& s, RawObjectList::Entry& e)
{
    e.textAt = s.at();
    if (!s.lit('{')) return false;
    bool named = false;
    int next = 0;  // a key must come after the previous one
    while (!s.peek('}')) {
        if (next > 0 && !s.lit(',')) return false;
        const Key k = key(s);
        if (k == kNoKey || k < next) return false;
        next = k + 1;
        std::uint64_t v = 0;
        switch (k) {
        case kName:
            if (!s.str(e.nameAt, e.nameSize)) return false;
            named = true;
            break;
        case kSize:
            if (!s.lit('"') || !s.uint(static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()), v) ||
                !s.lit('"')) {
                return false;
            }
            break;
        case kFlags:
            if (!s.uint(0xffffffffu, v) || v == 0) return false;
            e.flags = static_cast<std::uint32_t>(v);
            break;
        case kCopies:
            if (!s.uint(32767, v) || v == 0) return false;
            break;
        default:
            if (!s.nonEmptyStr()) return false;
        }
    }
    if (!s.lit('}') || !named) return false;
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
        } while (s.lit(','));
    }
    std::uint64_t flags = 0;
    std::uint32_t uuidAt = 0, uuidSize = 0;
    if (!s.lit("],\"flags\":") || !s.uint(0xffffffffu, flags) || !s.lit(",\"uuid\":") || !s.str(uuidAt, uuidSize) ||
        !s.lit('}') || !s.atEnd()) {
        return false;
    }
    return true;
}

}  // namespace tessera::api
