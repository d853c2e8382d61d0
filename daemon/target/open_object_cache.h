#pragma once
// Open objects kept for the next read: the descriptor and the metadata of
// recently opened objects, so a GET of a hot small object costs no open,
// fstat, getxattr, metadata parse and close (about a fifth of a 1 KiB GET's
// CPU). Like a web server's open-file cache, but exact: every change this
// process makes to an object (PUT commit, delete, bucket destroy) removes
// its entry, and an open that raced with a change is never cached (the
// epoch rule below). A hit costs one fstat of the kept descriptor: a file
// changed behind the node's back (truncated, rewritten, xattr edited:
// its ctime moves) or unlinked is reopened; the one change that fstat
// cannot see, another file renamed over the name by hand, shows up
// within `ttl`.
//
// Bounded by `capacity` entries (each holds one descriptor; in-flight
// responses hold their own reference, so eviction never closes a
// descriptor in use).
//
// Thread safety: all methods may be called concurrently.

#include "open_object.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tessera::daemon::target {

class OpenObjectCache {
public:
    struct Options {
        std::size_t capacity = 4096;  // entries; 0 = no caching
        std::chrono::milliseconds ttl{5000};
    };
    explicit OpenObjectCache(Options options);

    // Read before opening an object; pass to insert().
    std::uint64_t epoch() const { return m_epoch.load(std::memory_order_acquire); }
    // A valid cached copy (size, atime and mtime fresh from the fstat), or
    // nullopt.
    std::optional<OpenObject> find(std::string_view bucket, std::string_view name);
    // Caches `obj`, opened after epoch() returned `epochBefore`, unless
    // anything was invalidated since (the open may have seen the old file).
    void insert(std::string_view bucket, std::string_view name, const OpenObject& obj, std::uint64_t epochBefore);
    void invalidate(std::string_view bucket, std::string_view name);
    void clear();

    std::size_t size() const;

private:
    struct Entry {
        OpenObject obj;
        std::chrono::steady_clock::time_point expires;
        std::list<std::string>::iterator lru;
    };
    struct Shard {
        mutable std::mutex mutex;
        std::unordered_map<std::string, Entry> map;
        std::list<std::string> lru;  // most recently used first
    };
    static std::string key(std::string_view bucket, std::string_view name);
    void drop(const std::string& key, const OpenObject& stale);
    Shard& shardFor(const std::string& key);

    Options m_options;
    std::size_t m_perShard;
    std::atomic<std::uint64_t> m_epoch{0};
    std::vector<Shard> m_shards;
};

}  // namespace tessera::daemon::target
