#include "tar_index.h"

#include "archive_reader.h"

#include <cstring>

namespace tessera::archive {

namespace {

constexpr std::string_view kMagic = "TSRIDX01";

template <typename T>
void put(std::string& out, T v)
{
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out.append(b, sizeof(T));
}

template <typename T>
bool take(std::string_view& in, T& v)
{
    if (in.size() < sizeof(T)) return false;
    std::memcpy(&v, in.data(), sizeof(T));
    in.remove_prefix(sizeof(T));
    return true;
}

}  // namespace

TarIndex::TarIndex(const TarIndex& o) : m_entries(o.m_entries), m_endOffset(o.m_endOffset) { buildLookup(); }

TarIndex& TarIndex::operator=(const TarIndex& o)
{
    if (this != &o) {
        m_entries = o.m_entries;
        m_endOffset = o.m_endOffset;
        buildLookup();
    }
    return *this;
}

api::Result<TarIndex> TarIndex::build(int fd, std::uint64_t size, const ArchiveLimits& limits)
{
    auto reader = ArchiveReader::openFd(fd, size, ArchiveFormat::Tar, limits);
    if (!reader) return reader.error();
    TarIndex idx;
    for (;;) {
        auto m = (*reader)->next();
        if (!m) return m.error();
        if (!m->has_value()) break;
        auto& info = **m;
        if (info.endOffset > size) {
            return api::Error::corruption("damaged tar shard: member \"" + info.name + "\" runs past the end");
        }
        idx.m_entries.push_back({std::move(info.name), info.dataOffset, info.size, info.mtime});
    }
    idx.m_endOffset = (*reader)->endOffset();
    idx.buildLookup();
    return idx;
}

void TarIndex::buildLookup()
{
    m_byName.clear();
    m_byName.reserve(m_entries.size());
    for (std::size_t i = 0; i < m_entries.size(); ++i) m_byName[m_entries[i].name] = i;  // the last one wins
}

const TarIndexEntry* TarIndex::find(std::string_view name) const
{
    auto it = m_byName.find(name);
    return it == m_byName.end() ? nullptr : &m_entries[it->second];
}

std::string TarIndex::serialize() const
{
    std::string out;
    out.reserve(kMagic.size() + 16 + m_entries.size() * 40);
    out.append(kMagic);
    put<std::uint64_t>(out, m_entries.size());
    put<std::uint64_t>(out, m_endOffset);
    for (const auto& e : m_entries) {
        put<std::uint32_t>(out, static_cast<std::uint32_t>(e.name.size()));
        out.append(e.name);
        put<std::uint64_t>(out, e.offset);
        put<std::uint64_t>(out, e.size);
        put<std::int64_t>(out, e.mtime);
    }
    return out;
}

api::Result<TarIndex> TarIndex::deserialize(std::string_view in)
{
    const auto bad = [] { return api::Error::corruption("damaged shard index"); };
    if (in.substr(0, kMagic.size()) != kMagic) return bad();
    in.remove_prefix(kMagic.size());
    std::uint64_t count = 0;
    TarIndex idx;
    if (!take(in, count) || !take(in, idx.m_endOffset)) return bad();
    // Every entry takes at least 28 bytes: a count beyond that is damage.
    if (count > in.size() / 28) return bad();
    idx.m_entries.reserve(count);
    for (std::uint64_t i = 0; i < count; ++i) {
        std::uint32_t len = 0;
        if (!take(in, len) || in.size() < len) return bad();
        TarIndexEntry e;
        e.name = std::string(in.substr(0, len));
        in.remove_prefix(len);
        if (!take(in, e.offset) || !take(in, e.size) || !take(in, e.mtime)) return bad();
        idx.m_entries.push_back(std::move(e));
    }
    if (!in.empty()) return bad();
    idx.buildLookup();
    return idx;
}

std::size_t TarIndex::memoryBytes() const
{
    std::size_t n = sizeof(*this);
    for (const auto& e : m_entries) n += sizeof(TarIndexEntry) + e.name.capacity() + 48;
    return n;
}

}  // namespace tessera::archive
