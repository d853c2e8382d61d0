#pragma once
// Fetches the source objects of a shard build ahead of the writer, so that
// building shards from objects on other targets is not one round trip per
// object. A few worker threads (each with its own HTTP client) take the
// items in order, a chunk at a time, within a window of items and of
// buffered bytes; next() hands them back in the original order.
//   - a name this target owns is opened, not read: the writer reads the fd;
//     a name another target owns is asked of its owner first, and opened
//     here only when the owner has none (a rebalance not done yet);
//   - the remote objects of a chunk come from each owner in one batch
//     (BatchGetApi), up to kMaxInMemory bytes each; a larger one is left
//     for the writer to stream (streamLater), so memory stays bounded by
//     the window; what a batch did not carry is fetched with a GET.
//
// Thread safety: next() from one thread (the job's); the destructor stops
// the workers (an in-flight GET finishes or times out) and joins them.

#include "client/http_client.h"
#include "job_runner.h"
#include "target/meta_cache.h"
#include "target/object_store.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace tessera::daemon::jobs {

class SourceFetcher {
public:
    static constexpr std::uint64_t kMaxInMemory = std::uint64_t{4} << 20;
    struct Options {
        unsigned workers = 4;
        // Items a worker takes at once, and the bytes they may add up to
        // (by the sizes the items were given; an unknown one counts as
        // kUnknownSizeGuess): one batch call per owner carries many small
        // objects, and a chunk of large ones stays a few MiB.
        std::size_t chunk = 256;
        std::uint64_t chunkBytes = std::uint64_t{8} << 20;
        std::size_t maxAhead = 1024;  // items fetched but not yet taken
        std::uint64_t maxBufferedBytes = std::uint64_t{64} << 20;
        std::chrono::milliseconds peerTimeout{5000};
        // Presented to the peers (tessera-cluster-key): with auth on they
        // take a node's reads only with it.
        std::string clusterKey;
    };

    struct Item {
        std::string bucket;
        std::string object;
        std::int64_t size = -1;  // as planned; -1 when not known
    };
    static constexpr std::uint64_t kUnknownSizeGuess = 64 << 10;

    struct Fetched {
        api::Status status;  // NotFound: no such object anywhere it should be
        std::optional<target::OpenObject> local;
        std::string data;          // a remote object fetched whole
        bool streamLater = false;  // a remote object too large to buffer
        std::string ownerUrl;      // remote: its owner's base URL
        std::uint64_t size() const { return local ? local->meta.size : data.size(); }
    };

    SourceFetcher(const target::ObjectStore& store, const target::MetaCache& cache, std::string selfId,
                  std::vector<Item> items, const JobContext& ctx, Options options);
    ~SourceFetcher();
    SourceFetcher(const SourceFetcher&) = delete;
    SourceFetcher& operator=(const SourceFetcher&) = delete;

    // The next item in order; blocks until it is fetched. nullopt after the
    // last one, or when the job was aborted.
    std::optional<Fetched> next();

private:
    void work();
    std::vector<Fetched> fetchChunk(std::size_t begin, std::size_t count, client::HttpClient& http) const;
    Fetched fetchOne(const Item& item, client::HttpClient& http) const;
    Fetched fetchLocal(const Item& item) const;  // NotFound when this target has no copy

    const target::ObjectStore& m_store;
    const target::MetaCache& m_cache;
    std::string m_selfId;
    std::vector<Item> m_items;
    const JobContext& m_ctx;
    Options m_options;

    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::size_t m_nextToFetch = 0;
    std::size_t m_nextToTake = 0;
    std::uint64_t m_buffered = 0;
    std::map<std::size_t, Fetched> m_ready;
    bool m_stop = false;
    std::vector<std::thread> m_threads;
};

}  // namespace tessera::daemon::jobs
