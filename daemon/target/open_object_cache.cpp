#include "open_object_cache.h"

#include <functional>
#include <sys/stat.h>

namespace tessera::daemon::target {

namespace {
constexpr std::size_t kShards = 8;
}

OpenObjectCache::OpenObjectCache(Options options)
    : m_options(options), m_perShard((options.capacity + kShards - 1) / kShards), m_shards(kShards)
{
}

std::string OpenObjectCache::key(std::string_view bucket, std::string_view name)
{
    // Bucket names hold no '/', so bucket + '/' + name is unambiguous.
    std::string k;
    k.reserve(bucket.size() + 1 + name.size());
    k.append(bucket).push_back('/');
    k.append(name);
    return k;
}

OpenObjectCache::Shard& OpenObjectCache::shardFor(const std::string& k)
{
    return m_shards[std::hash<std::string>{}(k) % kShards];
}

std::optional<OpenObject> OpenObjectCache::find(std::string_view bucket, std::string_view name)
{
    if (m_perShard == 0) return std::nullopt;
    const auto k = key(bucket, name);
    auto& shard = shardFor(k);
    std::optional<OpenObject> out;
    {
        std::lock_guard lock(shard.mutex);
        auto it = shard.map.find(k);
        if (it == shard.map.end()) return std::nullopt;
        if (std::chrono::steady_clock::now() >= it->second.expires) {
            shard.lru.erase(it->second.lru);
            shard.map.erase(it);
            return std::nullopt;
        }
        shard.lru.splice(shard.lru.begin(), shard.lru, it->second.lru);
        out = it->second.obj;
    }
    struct stat st {};
    const auto ns = [](const timespec& t) { return static_cast<std::int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec; };
    if (::fstat(out->fd->get(), &st) != 0 || st.st_nlink == 0 || ns(st.st_ctim) != out->ctimeNs ||
        st.st_size != out->meta.size) {
        drop(k, *out);
        return std::nullopt;
    }
    out->meta.atimeNs = ns(st.st_atim);
    out->mtimeNs = ns(st.st_mtim);
    return out;
}

void OpenObjectCache::drop(const std::string& k, const OpenObject& stale)
{
    auto& shard = shardFor(k);
    std::lock_guard lock(shard.mutex);
    auto it = shard.map.find(k);
    // Only the entry found stale: another thread may have cached a newer one.
    if (it == shard.map.end() || it->second.obj.fd != stale.fd) return;
    shard.lru.erase(it->second.lru);
    shard.map.erase(it);
}

void OpenObjectCache::insert(std::string_view bucket, std::string_view name, const OpenObject& obj,
                             std::uint64_t epochBefore)
{
    if (m_perShard == 0) return;
    auto k = key(bucket, name);
    auto& shard = shardFor(k);
    std::lock_guard lock(shard.mutex);
    // An invalidation takes the shard's lock of its key and bumps the epoch
    // under it: if none happened since the caller's open began, the file the
    // caller opened is still the current one.
    if (m_epoch.load(std::memory_order_acquire) != epochBefore) return;
    const auto expires = std::chrono::steady_clock::now() + m_options.ttl;
    if (auto it = shard.map.find(k); it != shard.map.end()) {
        it->second.obj = obj;
        it->second.expires = expires;
        shard.lru.splice(shard.lru.begin(), shard.lru, it->second.lru);
        return;
    }
    while (shard.map.size() >= m_perShard && !shard.lru.empty()) {
        shard.map.erase(shard.lru.back());
        shard.lru.pop_back();
    }
    shard.lru.push_front(k);
    shard.map.emplace(std::move(k), Entry{obj, expires, shard.lru.begin()});
}

void OpenObjectCache::invalidate(std::string_view bucket, std::string_view name)
{
    const auto k = key(bucket, name);
    auto& shard = shardFor(k);
    std::lock_guard lock(shard.mutex);
    if (auto it = shard.map.find(k); it != shard.map.end()) {
        shard.lru.erase(it->second.lru);
        shard.map.erase(it);
    }
    m_epoch.fetch_add(1, std::memory_order_acq_rel);
}

void OpenObjectCache::clear()
{
    for (auto& shard : m_shards) {
        std::lock_guard lock(shard.mutex);
        shard.map.clear();
        shard.lru.clear();
        m_epoch.fetch_add(1, std::memory_order_acq_rel);
    }
}

std::size_t OpenObjectCache::size() const
{
    std::size_t n = 0;
    for (const auto& shard : m_shards) {
        std::lock_guard lock(shard.mutex);
        n += shard.map.size();
    }
    return n;
}

}  // namespace tessera::daemon::target
