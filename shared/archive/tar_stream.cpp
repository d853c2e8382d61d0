#include "tar_stream.h"

#include <algorithm>
#include <cstring>

namespace tessera::archive {

namespace {

constexpr std::size_t kRecord = 512;
constexpr std::uint64_t kMaxUstarSize = 077777777777ull;  // 11 octal digits

// `v` as `width - 1` octal digits and a NUL (zero-padded).
void octal(char* field, std::size_t width, std::uint64_t v)
{
    field[width - 1] = '\0';
    for (std::size_t i = width - 1; i-- > 0;) {
        field[i] = static_cast<char>('0' + (v & 7));
        v >>= 3;
    }
}

bool ascii(std::string_view s)
{
    return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

// A pax record: "LEN key=value\n", LEN counting the whole record.
void paxRecord(std::string& out, std::string_view key, std::string_view value)
{
    const std::size_t body = key.size() + value.size() + 3;  // ' ', '=', '\n'
    std::size_t len = body + 1;
    while (std::to_string(len).size() + body != len) len = std::to_string(len).size() + body;
    out += std::to_string(len);
    out.push_back(' ');
    out.append(key);
    out.push_back('=');
    out.append(value);
    out.push_back('\n');
}

}  // namespace

TarStream::TarStream(DataSink sink) : m_sink(std::move(sink)) { m_buf.reserve(kBlockBytes + kRecord * 4); }

api::Status TarStream::flush()
{
    if (!m_error) return m_error;
    if (m_buf.empty()) return {};
    if (auto st = m_sink(m_buf.data(), m_buf.size()); !st) {
        m_error = st;
        return st;
    }
    m_out += m_buf.size();
    m_buf.clear();
    return {};
}

api::Status TarStream::put(const char* p, std::size_t n)
{
    if (!m_error) return m_error;
    while (n > 0) {
        const auto take = std::min(n, kBlockBytes - m_buf.size());
        m_buf.append(p, take);
        p += take;
        n -= take;
        if (m_buf.size() >= kBlockBytes) {
            if (auto st = flush(); !st) return st;
        }
    }
    return {};
}

api::Status TarStream::ustar(std::string_view name, std::string_view prefix, std::uint64_t size, std::int64_t mtime,
                             char type)
{
    char h[kRecord] = {};
    std::memcpy(h, name.data(), std::min<std::size_t>(name.size(), 100));
    octal(h + 100, 8, 0644);
    octal(h + 108, 8, 0);
    octal(h + 116, 8, 0);
    octal(h + 124, 12, size);
    octal(h + 136, 12, static_cast<std::uint64_t>(std::clamp<std::int64_t>(mtime, 0, kMaxUstarSize)));
    h[156] = type;
    std::memcpy(h + 257,
                "ustar\0"
                "00",
                8);
    std::memcpy(h + 345, prefix.data(), std::min<std::size_t>(prefix.size(), 155));
    // The checksum: the header's bytes summed with its own field as spaces.
    std::memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (const char c : h) sum += static_cast<unsigned char>(c);
    octal(h + 148, 7, sum);  // six digits and a NUL, then the space left in place
    return put(h, sizeof h);
}

api::Status TarStream::header(std::string_view name, std::uint64_t size, std::int64_t mtime)
{
    std::string_view prefix;
    std::string_view rest = name;
    bool fits = ascii(name) && size <= kMaxUstarSize;
    if (fits && name.size() > 100) {
        // The first '/' that leaves at most 100 bytes after it, with at most
        // 155 before it.
        fits = false;
        for (std::size_t p = name.find('/'); p != std::string_view::npos && p <= 155; p = name.find('/', p + 1)) {
            if (name.size() - p - 1 <= 100 && p + 1 < name.size()) {
                prefix = name.substr(0, p);
                rest = name.substr(p + 1);
                fits = true;
                break;
            }
        }
    }
    std::string paxName;
    if (!fits) {
        std::string records;
        if (!ascii(name) || name.size() > 100) paxRecord(records, "path", name);
        if (size > kMaxUstarSize) paxRecord(records, "size", std::to_string(size));
        const auto base = name.substr(name.size() > 80 ? name.size() - 80 : 0);
        paxName = "PaxHeader/" + std::string(ascii(base) ? base : std::string_view("member"));
        if (auto st = ustar(paxName, {}, records.size(), mtime, 'x'); !st) return st;
        if (auto st = put(records.data(), records.size()); !st) return st;
        if (auto st = endMember(records.size()); !st) return st;
        prefix = {};
        rest = name.substr(0, std::min<std::size_t>(name.size(), 100));
        if (!ascii(rest)) rest = paxName;
    }
    return ustar(rest, prefix, size > kMaxUstarSize ? 0 : size, mtime, '0');
}

api::Status TarStream::data(const char* p, std::size_t n)
{
    if (n < kBlockBytes) return put(p, n);
    // A big piece goes to the sink from where it is, after what is
    // buffered: no copy through the block buffer. In pieces of at most
    // kDirectBytes: a file's page cache is allocated in folios as large as
    // each write, and writes of a MiB made the kernel compact memory for them
    // (direct compaction stalls in every dSort on a host whose memory is
    // fragmented; 1 GiB written in 1 MiB writes cost 1.1-1.8 s of CPU there,
    // in 256 KiB writes 0.29 s, in 64 KiB writes 0.32 s).
    if (auto st = flush(); !st) return st;
    for (std::size_t at = 0; at < n; at += kDirectBytes) {
        const auto take = std::min(kDirectBytes, n - at);
        if (auto st = m_sink(p + at, take); !st) {
            m_error = st;
            return st;
        }
        m_out += take;
    }
    return {};
}

api::Status TarStream::endMember(std::uint64_t size)
{
    static constexpr char kZeros[kRecord] = {};
    const auto tail = static_cast<std::size_t>(size % kRecord);
    return tail == 0 ? api::Status{} : put(kZeros, kRecord - tail);
}

api::Status TarStream::finish()
{
    static constexpr char kZeros[2 * kRecord] = {};
    if (auto st = put(kZeros, sizeof kZeros); !st) return st;
    return flush();
}

}  // namespace tessera::archive
