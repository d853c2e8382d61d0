#include "archive_index_store.h"

#include "api/hrw.h"
#include "common/fd_io.h"
#include "common/log.h"
#include "common/unique_fd.h"
#include "meta/node_identity.h"
#include "store_files.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace tessera::daemon::target {

namespace {

// First line of an index file; the number is bumped when the layout of the
// line changes (TarIndex versions its own payload).
constexpr std::string_view kMagic = "tessera-archidx 1 ";
// An index file bigger than this is not read (a damaged or foreign file).
constexpr std::size_t kMaxIndexFileBytes = std::size_t{1} << 30;

bool parseU64(std::string_view s, std::uint64_t& out)
{
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return !s.empty() && ec == std::errc() && p == s.data() + s.size();
}

bool parseI64(std::string_view s, std::int64_t& out)
{
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return !s.empty() && ec == std::errc() && p == s.data() + s.size();
}

// The whole file, or nullopt when it is absent, unreadable or too big.
std::optional<std::string> readSmallFile(const std::string& path)
{
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    if (!fd.valid()) return std::nullopt;
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    if (static_cast<std::uint64_t>(st.st_size) > kMaxIndexFileBytes) return std::nullopt;
    std::string out(static_cast<std::size_t>(st.st_size), '\0');
    if (preadExact(fd.get(), out.data(), out.size(), 0) != 0) return std::nullopt;
    return out;
}

}  // namespace

ArchiveIndexKey ArchiveIndexKey::of(const OpenObject& obj)
{
    return {static_cast<std::uint64_t>(obj.meta.size), obj.mtimeNs, obj.meta.checksumValue};
}

std::string_view indexSourceName(IndexSource s)
{
    switch (s) {
    case IndexSource::Memory: return "memory";
    case IndexSource::File: return "file";
    case IndexSource::Built: return "built";
    }
    return "built";
}

ArchiveIndexStore::ArchiveIndexStore(const ObjectStore& store, archive::ArchiveLimits limits, std::uint64_t cacheBytes)
    : m_store(store), m_limits(limits), m_cacheBytes(cacheBytes)
{
}

std::string ArchiveIndexStore::encode(const ArchiveIndexKey& key, const archive::TarIndex& index)
{
    std::string out(kMagic);
    out += std::to_string(key.size) + " " + std::to_string(key.mtimeNs) + " " +
           (key.checksum.empty() ? std::string("-") : key.checksum) + "\n";
    out += index.serialize();
    return out;
}

api::Result<archive::TarIndex> ArchiveIndexStore::decode(std::string_view bytes, const ArchiveIndexKey& expected)
{
    const auto nl = bytes.find('\n');
    if (nl == std::string_view::npos || nl > 256 || bytes.substr(0, kMagic.size()) != kMagic) {
        return api::Error::corruption("not a shard index file");
    }
    std::string_view line = bytes.substr(kMagic.size(), nl - kMagic.size());
    std::string_view fields[3];
    for (int i = 0; i < 3; ++i) {
        const auto sp = line.find(' ');
        fields[i] = line.substr(0, sp);
        line = sp == std::string_view::npos ? std::string_view() : line.substr(sp + 1);
        if (sp == std::string_view::npos && i < 2) return api::Error::corruption("shard index header is incomplete");
    }
    ArchiveIndexKey key;
    if (!parseU64(fields[0], key.size) || !parseI64(fields[1], key.mtimeNs) || fields[2].empty()) {
        return api::Error::corruption("shard index header is malformed");
    }
    key.checksum = fields[2] == "-" ? std::string() : std::string(fields[2]);
    if (!(key == expected)) return api::Error::notFound("shard index describes an older version of the shard");
    return archive::TarIndex::deserialize(bytes.substr(nl + 1));
}

std::shared_ptr<const archive::TarIndex> ArchiveIndexStore::fromMemory(const std::string& uname,
                                                                       const ArchiveIndexKey& key)
{
    std::lock_guard lock(m_mutex);
    auto it = m_cache.find(uname);
    if (it == m_cache.end()) return nullptr;
    if (!(it->second.key == key)) {
        // A rewritten shard: the entry can never match again.
        m_used -= it->second.bytes;
        m_use.erase(it->second.use);
        m_cache.erase(it);
        return nullptr;
    }
    m_use.splice(m_use.end(), m_use, it->second.use);
    return it->second.index;
}

void ArchiveIndexStore::remember(const std::string& uname, const ArchiveIndexKey& key,
                                 std::shared_ptr<const archive::TarIndex> idx)
{
    const std::size_t bytes = idx->memoryBytes() + uname.size() + 128;
    if (bytes > m_cacheBytes) return;  // would evict everything else; the file serves it
    std::lock_guard lock(m_mutex);
    if (auto it = m_cache.find(uname); it != m_cache.end()) {
        m_used -= it->second.bytes;
        m_use.erase(it->second.use);
        m_cache.erase(it);
    }
    while (m_used + bytes > m_cacheBytes && !m_use.empty()) {
        auto victim = m_cache.find(m_use.front());
        m_used -= victim->second.bytes;
        m_cache.erase(victim);
        m_use.pop_front();
    }
    m_use.push_back(uname);
    m_cache.emplace(uname, Cached{key, std::move(idx), bytes, std::prev(m_use.end())});
    m_used += bytes;
}

void ArchiveIndexStore::persist(const std::string& path, const std::string& bytes) const
{
    // Best effort: without the file the next cold read rebuilds the index.
    namespace fs = std::filesystem;
    // Below the mountpath's archidx directory only: a mountpath whose root
    // is gone is not re-created here.
    const auto root = path.find("/.tessera/archidx/");
    const auto dir = fs::path(path).parent_path().string();
    if (root == std::string::npos) return;
    if (const int e = store_detail::makeDirsUnder(path.substr(0, root + 17), dir)) {
        logDebug("shard index: cannot create ", dir, ": ", std::strerror(e));
        return;
    }
    const std::string tmp = path + ".tmp-" + meta::randomId(8);
    UniqueFd fd(::open(tmp.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644));
    if (!fd.valid()) {
        logDebug("shard index: cannot create ", tmp, ": ", std::strerror(errno));
        return;
    }
    if (writeAll(fd.get(), bytes.data(), bytes.size()) != 0) {
        fd.reset();
        ::unlink(tmp.c_str());
        return;
    }
    fd.reset();
    if (::rename(tmp.c_str(), path.c_str()) != 0) ::unlink(tmp.c_str());
}

api::Result<IndexLookup> ArchiveIndexStore::get(std::string_view bucket, std::string_view name, const OpenObject& obj)
{
    const auto key = ArchiveIndexKey::of(obj);
    const std::string uname = api::objectUname(bucket, name);
    if (auto idx = fromMemory(uname, key)) return IndexLookup{std::move(idx), IndexSource::Memory};
    const auto path = m_store.archiveIndexPath(bucket, name);
    if (auto bytes = readSmallFile(path)) {
        auto idx = decode(*bytes, key);
        if (idx) {
            auto shared = std::make_shared<const archive::TarIndex>(std::move(idx.value()));
            remember(uname, key, shared);
            return IndexLookup{std::move(shared), IndexSource::File};
        }
        if (idx.kind() == api::ErrorKind::Corruption) logWarn("rebuilding damaged shard index ", path);
    }
    auto built = archive::TarIndex::build(obj.fd->get(), key.size, m_limits);
    if (!built) return built.error();
    auto shared = std::make_shared<const archive::TarIndex>(std::move(built.value()));
    persist(path, encode(key, *shared));
    remember(uname, key, shared);
    return IndexLookup{std::move(shared), IndexSource::Built};
}

std::uint64_t ArchiveIndexStore::cachedBytes() const
{
    std::lock_guard lock(m_mutex);
    return m_used;
}

}  // namespace tessera::daemon::target
