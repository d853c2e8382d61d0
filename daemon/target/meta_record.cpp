#include "meta_record.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace tessera::daemon::target {

namespace {

constexpr unsigned char kXxhash = 0x01;
constexpr unsigned char kCustom = 0x02;
constexpr std::size_t kXxhashDigits = 16;

void putVarint(std::string& out, std::uint64_t v)
{
    while (v >= 0x80) {
        out.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

void putString(std::string& out, std::string_view s)
{
    putVarint(out, s.size());
    out.append(s);
}

int hexValue(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

// The 16 lowercase hex digits xxhash64Hex writes; anything else is kept as text.
bool packedXxhash(const api::ObjectMeta& m)
{
    if (m.checksumType != "xxhash" || m.checksumValue.size() != kXxhashDigits) return false;
    for (char c : m.checksumValue) {
        if (hexValue(c) < 0) return false;
    }
    return true;
}

class Reader {
public:
    explicit Reader(std::string_view in) : m_in(in) {}
    bool varint(std::uint64_t& v)
    {
        v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (m_in.empty()) return false;
            const auto b = static_cast<unsigned char>(m_in.front());
            m_in.remove_prefix(1);
            v |= std::uint64_t{b & 0x7fu} << shift;
            if ((b & 0x80) == 0) return true;
        }
        return false;
    }
    bool signedValue(std::int64_t& v)
    {
        std::uint64_t u = 0;
        if (!varint(u) || u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return false;
        v = static_cast<std::int64_t>(u);
        return true;
    }
    bool bytes(std::size_t n, std::string_view& out)
    {
        if (m_in.size() < n) return false;
        out = m_in.substr(0, n);
        m_in.remove_prefix(n);
        return true;
    }
    bool string(std::string& out)
    {
        std::uint64_t n = 0;
        std::string_view s;
        if (!varint(n) || n > m_in.size() || !bytes(static_cast<std::size_t>(n), s)) return false;
        out.assign(s);
        return true;
    }
    bool done() const { return m_in.empty(); }

private:
    std::string_view m_in;
};

api::Error cut() { return api::Error::corruption("object metadata is unreadable: a record cut short or malformed"); }

}  // namespace

std::string encodeMetaRecord(const api::ObjectMeta& m)
{
    std::string out;
    out.reserve(48);
    const bool xx = packedXxhash(m);
    out.push_back(static_cast<char>(kMetaRecordV1));
    out.push_back(static_cast<char>((xx ? kXxhash : 0) | (m.custom.empty() ? 0 : kCustom)));
    putVarint(out, static_cast<std::uint64_t>(std::max<std::int64_t>(m.size, 0)));
    putVarint(out, static_cast<std::uint64_t>(std::max<std::int64_t>(m.atimeNs, 0)));
    putVarint(out, static_cast<std::uint64_t>(std::max<std::int64_t>(m.stamp, 0)));
    putString(out, m.version);
    if (xx) {
        for (std::size_t i = 0; i < kXxhashDigits; i += 2) {
            out.push_back(static_cast<char>(hexValue(m.checksumValue[i]) << 4 | hexValue(m.checksumValue[i + 1])));
        }
    } else {
        putString(out, m.checksumType);
        putString(out, m.checksumValue);
    }
    if (!m.custom.empty()) {
        putVarint(out, m.custom.size());
        for (const auto& [k, v] : m.custom) {
            putString(out, k);
            putString(out, v);
        }
    }
    return out;
}

api::Result<api::ObjectMeta> decodeMetaRecord(std::string_view bytes)
{
    if (bytes.empty()) return cut();
    if (static_cast<unsigned char>(bytes.front()) != kMetaRecordV1) return api::parseObjectMeta(bytes);  // JSON
    Reader r(bytes.substr(1));
    std::string_view flagByte;
    if (!r.bytes(1, flagByte)) return cut();
    const auto flags = static_cast<unsigned char>(flagByte.front());
    if ((flags & ~(kXxhash | kCustom)) != 0) return cut();
    api::ObjectMeta m;
    if (!r.signedValue(m.size) || !r.signedValue(m.atimeNs) || !r.signedValue(m.stamp) || !r.string(m.version)) {
        return cut();
    }
    if (flags & kXxhash) {
        std::string_view raw;
        if (!r.bytes(kXxhashDigits / 2, raw)) return cut();
        static constexpr char kDigits[] = "0123456789abcdef";
        m.checksumType = "xxhash";
        m.checksumValue.clear();
        for (unsigned char b : raw) {
            m.checksumValue.push_back(kDigits[b >> 4]);
            m.checksumValue.push_back(kDigits[b & 0x0f]);
        }
    } else if (!r.string(m.checksumType) || !r.string(m.checksumValue)) {
        return cut();
    }
    if (flags & kCustom) {
        std::uint64_t n = 0;
        if (!r.varint(n) || n > api::kMaxCustomMdBytes) return cut();
        for (std::uint64_t i = 0; i < n; ++i) {
            std::string k, v;
            if (!r.string(k) || !r.string(v)) return cut();
            m.custom.emplace(std::move(k), std::move(v));
        }
    }
    if (!r.done()) return cut();
    return m;
}

}  // namespace tessera::daemon::target
