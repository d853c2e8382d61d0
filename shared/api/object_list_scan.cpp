#include "object_list_scan.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

namespace tessera::api::detail {

namespace {

class Scanner {
public:
    explicit Scanner(std::string_view in) : m_p(in.data()), m_end(in.data() + in.size()) {}

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
    // A string of printable ASCII without escapes.
    bool str(std::string_view& out)
    {
        if (!eat('"')) return false;
        const char* start = m_p;
        const auto* q = static_cast<const char*>(std::memchr(m_p, '"', static_cast<std::size_t>(m_end - m_p)));
        if (q == nullptr) return false;
        for (const char* c = start; c < q; ++c) {
            const auto b = static_cast<unsigned char>(*c);
            if (b < 0x20 || b >= 0x80 || b == '\\') return false;
        }
        out = std::string_view(start, static_cast<std::size_t>(q - start));
        m_p = q + 1;
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

bool decimal(std::string_view s, std::int64_t& v)
{
    if (s.empty()) return false;
    std::uint64_t u = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        const auto d = static_cast<std::uint64_t>(c - '0');
        if (u > (static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) - d) / 10) return false;
        u = u * 10 + d;
    }
    v = static_cast<std::int64_t>(u);
    return true;
}

bool entry(Scanner& s, ObjEntry& e)
{
    if (!s.eat('{')) return false;
    e.size = -1;  // absent: the listing did not ask for sizes
    bool named = false;
    if (s.eat('}')) return false;  // no name: the full parser says so
    do {
        std::string_view key, val;
        if (!s.str(key) || !s.eat(':')) return false;
        if (key == "name") {
            if (!s.str(val)) return false;
            e.name.assign(val);
            named = true;
        } else if (key == "size") {
            if (s.peek('"')) {
                if (!s.str(val) || !decimal(val, e.size)) return false;
            } else {
                std::uint64_t u = 0;
                if (!s.uint(u) || u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
                    return false;
                }
                e.size = static_cast<std::int64_t>(u);
            }
        } else if (key == "stamp") {
            std::uint64_t u = 0;
            if (!s.uint(u) || u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return false;
            e.stamp = static_cast<std::int64_t>(u);
        } else if (key == "flags" || key == "copies") {
            std::uint64_t u = 0;
            if (!s.uint(u) || u > (key == "flags" ? 0xffffffffu : 32767u)) return false;
            if (key == "flags") e.flags = static_cast<std::uint32_t>(u);
            else e.copies = static_cast<int>(u);
        } else {
            std::string* field = key == "checksum"    ? &e.checksum
                                 : key == "atime"     ? &e.atime
                                 : key == "version"   ? &e.version
                                 : key == "location"  ? &e.location
                                 : key == "custom-md" ? &e.custom
                                 : key == "error"     ? &e.error
                                                      : nullptr;
            if (field == nullptr || !s.str(val)) return false;
            field->assign(val);
        }
    } while (s.eat(','));
    return named && s.eat('}');
}

}  // namespace

bool scanObjectList(std::string_view json, ObjectList& out)
{
    Scanner s(json);
    bool sawToken = false;
    if (!s.eat('{')) return false;
    if (s.eat('}')) return false;  // no continuation_token
    do {
        std::string_view key, val;
        if (!s.str(key) || !s.eat(':')) return false;
        if (key == "continuation_token") {
            if (!s.str(val)) return false;
            out.continuationToken.assign(val);
            sawToken = true;
        } else if (key == "uuid") {
            if (s.null()) continue;
            if (!s.str(val)) return false;
            out.uuid.assign(val);
        } else if (key == "flags") {
            std::uint64_t u = 0;
            if (s.null()) continue;
            if (!s.uint(u) || u > 0xffffffffu) return false;
            out.flags = static_cast<std::uint32_t>(u);
        } else if (key == "entries") {
            if (s.null()) continue;
            if (!s.eat('[')) return false;
            // An entry takes at least 11 bytes ({"name":""}); a listing entry
            // with a name (and maybe a size) rarely takes less than 32.
            out.entries.reserve(std::min<std::size_t>(json.size() / 32, kMaxPageSize * 4));
            if (!s.eat(']')) {
                do {
                    if (!entry(s, out.entries.emplace_back())) return false;
                } while (s.eat(','));
                if (!s.eat(']')) return false;
            }
        } else {
            return false;  // an unknown field: the full parser skips it
        }
    } while (s.eat(','));
    return s.eat('}') && s.atEnd() && sawToken;
}

}  // namespace tessera::api::detail
