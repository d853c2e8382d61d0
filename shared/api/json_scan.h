#pragma once
// A scanner for JSON that Tessera itself wrote (object-list pages, shard
// tasks, job envelopes): it takes strings as they are, without a copy through
// a lexer, and reports failure on anything it does not handle exactly as
// nlohmann's parser would (an escape, a byte outside ASCII, a control byte, a
// number with a fraction or an exponent). Its callers then fall back to the
// full parser, whose answer (and error) stands.

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>

namespace tessera::api::detail {

static_assert(std::endian::native == std::endian::little, "the scanners read eight bytes at a time, little-endian");

// The first byte from p on that a JSON string cannot hold as it is: a
// quote, a backslash, a control byte, or a byte above ASCII (end when there
// is none). Eight bytes at a time (SWAR): a mask with the high bit of each
// such byte, of which only the lowest is exact (a borrow can flag bytes
// above it), and that is the one taken.
[[gnu::always_inline]] inline const char* firstSpecialByte(const char* p, const char* end)
{
    constexpr std::uint64_t kOnes = 0x0101010101010101ull;
    constexpr std::uint64_t kHighs = 0x8080808080808080ull;
    const auto below = [](std::uint64_t v, std::uint64_t n) { return (v - kOnes * n) & ~v & kHighs; };
    for (; end - p >= 8; p += 8) {
        std::uint64_t w;
        std::memcpy(&w, p, 8);
        const std::uint64_t special =
            below(w ^ (kOnes * '"'), 1) | below(w ^ (kOnes * '\\'), 1) | below(w, 0x20) | (w & kHighs);
        if (special != 0) return p + std::countr_zero(special) / 8;
    }
    for (; p < end; ++p) {
        const auto b = static_cast<unsigned char>(*p);
        if (b == '"' || b == '\\' || b < 0x20 || b >= 0x80) return p;
    }
    return end;
}

class JsonScanner {
public:
    explicit JsonScanner(std::string_view in) : m_p(in.data()), m_end(in.data() + in.size()) {}

    void ws()
    {
        while (m_p < m_end && (*m_p == ' ' || *m_p == '\n' || *m_p == '\r' || *m_p == '\t')) ++m_p;
    }
    bool eat(char c)
    {
        ws();
        if (m_p == m_end || *m_p != c) return false;
        ++m_p;
        return true;
    }
    bool peek(char c)
    {
        ws();
        return m_p < m_end && *m_p == c;
    }
    bool atEnd()
    {
        ws();
        return m_p == m_end;
    }
    // What is left, from the next non-blank byte.
    std::string_view rest()
    {
        ws();
        return {m_p, static_cast<std::size_t>(m_end - m_p)};
    }
    // A string of printable ASCII without escapes.
    bool str(std::string_view& out)
    {
        if (!eat('"')) return false;
        const char* start = m_p;
        const char* c = firstSpecialByte(m_p, m_end);
        if (c == m_end || *c != '"') return false;
        out = std::string_view(start, static_cast<std::size_t>(c - start));
        m_p = c + 1;
        return true;
    }
    // A non-negative integer as JSON writes it (no leading zeros).
    bool uint(std::uint64_t& v)
    {
        ws();
        const char* start = m_p;
        v = 0;
        while (m_p < m_end && *m_p >= '0' && *m_p <= '9') {
            const auto d = static_cast<std::uint64_t>(*m_p - '0');
            if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) return false;
            v = v * 10 + d;
            ++m_p;
        }
        if (m_p == start || (*start == '0' && m_p - start > 1)) return false;
        // A fraction or an exponent: not an integer.
        return m_p == m_end || (*m_p != '.' && *m_p != 'e' && *m_p != 'E');
    }
    // An integer that fits an int64_t, with an optional minus sign.
    bool int64(std::int64_t& v)
    {
        const bool negative = eat('-');
        if (negative && m_p < m_end && (*m_p < '0' || *m_p > '9')) return false;  // "- 1" is not a number
        std::uint64_t u = 0;
        if (!uint(u)) return false;
        constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
        if (u > kMax + (negative ? 1 : 0)) return false;
        v = negative ? static_cast<std::int64_t>(0 - u) : static_cast<std::int64_t>(u);
        return true;
    }
    bool boolean(bool& v)
    {
        ws();
        if (m_end - m_p >= 4 && std::memcmp(m_p, "true", 4) == 0) {
            m_p += 4;
            v = true;
            return true;
        }
        if (m_end - m_p >= 5 && std::memcmp(m_p, "false", 5) == 0) {
            m_p += 5;
            v = false;
            return true;
        }
        return false;
    }
    // `[item, item, ...]`, calling `item()` for each (it scans one and says
    // whether it could); false when the text is not such an array.
    template <typename Item>
    bool array(Item&& item)
    {
        if (!eat('[')) return false;
        if (eat(']')) return true;
        do {
            if (!item()) return false;
        } while (eat(','));
        return eat(']');
    }
    bool null()
    {
        ws();
        if (m_end - m_p < 4 || std::memcmp(m_p, "null", 4) != 0) return false;
        m_p += 4;
        return true;
    }

private:
    const char* m_p;
    const char* m_end;
};

}  // namespace tessera::api::detail
