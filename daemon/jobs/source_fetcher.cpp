#include "source_fetcher.h"

#include "api/checksum.h"
#include "api/headers.h"
#include "api/hrw.h"
#include "api/http_error.h"
#include "batch_get_api.h"
#include "net/request_params.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace tessera::daemon::jobs {

namespace {
// How often a blocked worker or next() looks at the job's abort flag (it is
// an atomic without a notification).
constexpr std::chrono::milliseconds kAbortCheck{50};
}  // namespace

SourceFetcher::SourceFetcher(const target::ObjectStore& store, const target::MetaCache& cache, std::string selfId,
                             std::vector<Item> items, const JobContext& ctx, Options options)
    : m_store(store), m_cache(cache), m_selfId(std::move(selfId)), m_items(std::move(items)), m_ctx(ctx),
      m_options(options)
{
    const auto n = std::max(1u, std::min<unsigned>(m_options.workers, static_cast<unsigned>(m_items.size())));
    for (unsigned i = 0; i < n && !m_items.empty(); ++i) m_threads.emplace_back([this] { work(); });
}

SourceFetcher::~SourceFetcher()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_cv.notify_all();
    for (auto& t : m_threads) t.join();
}

std::optional<SourceFetcher::Fetched> SourceFetcher::next()
{
    std::unique_lock lock(m_mutex);
    if (m_nextToTake >= m_items.size()) return std::nullopt;
    while (!m_ready.count(m_nextToTake)) {
        if (m_stop || m_ctx.aborted()) return std::nullopt;
        m_cv.wait_for(lock, kAbortCheck);
    }
    auto node = m_ready.extract(m_nextToTake);
    ++m_nextToTake;
    m_buffered -= node.mapped().data.size();
    lock.unlock();
    m_cv.notify_all();
    return std::move(node.mapped());
}

void SourceFetcher::work()
{
    client::HttpClient::Options o;
    o.connectTimeout = m_options.peerTimeout;
    o.ioTimeout = std::max(m_options.peerTimeout, std::chrono::milliseconds(30000));
    client::HttpClient http(o);
    while (true) {
        std::size_t begin = 0, count = 0;
        {
            std::unique_lock lock(m_mutex);
            while (true) {
                if (m_stop || m_ctx.aborted() || m_nextToFetch >= m_items.size()) return;
                if (m_nextToFetch < m_nextToTake + m_options.maxAhead && m_buffered < m_options.maxBufferedBytes) break;
                m_cv.wait_for(lock, kAbortCheck);
            }
            begin = m_nextToFetch;
            const auto most =
                std::min({m_options.chunk, m_items.size() - begin, m_nextToTake + m_options.maxAhead - begin});
            std::uint64_t bytes = 0;
            for (count = 0; count < most; ++count) {
                const auto size = m_items[begin + count].size;
                bytes += size < 0 ? kUnknownSizeGuess : static_cast<std::uint64_t>(size);
                if (count > 0 && bytes > m_options.chunkBytes) break;
            }
            m_nextToFetch += count;
        }
        auto fetched = fetchChunk(begin, count, http);
        {
            std::lock_guard lock(m_mutex);
            for (std::size_t k = 0; k < count; ++k) {
                m_buffered += fetched[k].data.size();
                m_ready.emplace(begin + k, std::move(fetched[k]));
            }
        }
        m_cv.notify_all();
    }
}

std::vector<SourceFetcher::Fetched> SourceFetcher::fetchChunk(std::size_t begin, std::size_t count,
                                                              client::HttpClient& http) const
{
    std::vector<Fetched> out(count);
    const auto smap = m_cache.smap();
    // Remote items by (owner, bucket), in order.
    std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> remote;
    std::map<std::string, std::string> urls;
    for (std::size_t k = 0; k < count; ++k) {
        const auto& item = m_items[begin + k];
        auto& f = out[k];
        // The owner is asked first: probing this target for the two thirds of
        // the names it does not own costs a failed open and the mountpath
        // check that tells a missing file from a missing disk.
        const auto* owner = api::hrwTarget(*smap, api::objectUname(item.bucket, item.object));
        if (owner != nullptr && owner->id != m_selfId) {
            f.ownerUrl = owner->publicNet.url;
            urls[owner->id] = owner->publicNet.url;
            remote[{owner->id, item.bucket}].push_back(k);
            continue;
        }
        if (auto local = m_store.openUncached(item.bucket, item.object); local) {
            f.local = std::move(local.value());
        } else if (local.kind() != api::ErrorKind::NotFound) {
            f.status = api::Error{
                local.kind(), "cannot read " + item.bucket + "/" + item.object + ": " + local.error().message, {}};
        } else if (owner == nullptr) {
            f.status = api::Error::unavailable("no targets in the cluster map");
        } else {
            f.status = api::Error::notFound("source object " + item.bucket + "/" + item.object + " does not exist");
        }
    }
    for (const auto& [key, ks] : remote) {
        if (m_stop || m_ctx.aborted()) {
            for (auto k : ks) out[k].status = api::Error::unavailable("aborted");
            continue;
        }
        api::BatchGetRequest body{key.second, {}};
        for (auto k : ks) body.names.push_back(m_items[begin + k].object);
        auto r =
            http.send(client::Method::Post, urls[key.first] + api::BatchGet::kPath,
                      client::Body::string(nlohmann::json(body).dump()),
                      {{"Content-Type", "application/json"}, {std::string(api::kHdrClusterKey), m_options.clusterKey}});
        std::size_t done = 0;  // records received, in the order asked
        if (r && r->isSuccess()) {
            std::string_view in = r->body;
            api::BatchGet::Record rec;
            while (done < ks.size()) {
                const auto used = api::BatchGet::parseRecord(in, rec);
                if (used == 0) break;
                in.remove_prefix(used);
                const auto k = ks[done];
                const auto& item = m_items[begin + k];
                if (rec.name != item.object) break;  // out of step: the rest one by one
                auto& f = out[k];
                const auto what = item.bucket + "/" + item.object;
                switch (rec.status) {
                case api::BatchGet::kOk: f.data = std::move(rec.data); break;
                case api::BatchGet::kNotFound:
                    // A copy here counts (a rebalance may not have moved it yet).
                    f = fetchLocal(item);
                    break;
                case api::BatchGet::kTooLarge: f.streamLater = true; break;
                case api::BatchGet::kError:
                    f.status = api::Error::ioError("cannot fetch " + what + " from " + key.first, rec.data);
                    break;
                case api::BatchGet::kCorrupt: f.status = api::Error::corruption(rec.data); break;
                case api::BatchGet::kNotSent:
                default: f = fetchOne(item, http); break;
                }
                ++done;
            }
        }
        // A peer without batches, a failed call or a short answer: one by one.
        for (; done < ks.size(); ++done) out[ks[done]] = fetchOne(m_items[begin + ks[done]], http);
    }
    return out;
}

SourceFetcher::Fetched SourceFetcher::fetchLocal(const Item& item) const
{
    Fetched f;
    const auto what = item.bucket + "/" + item.object;
    if (auto local = m_store.openUncached(item.bucket, item.object); local) {
        f.local = std::move(local.value());
    } else if (local.kind() == api::ErrorKind::NotFound) {
        f.status = api::Error::notFound("source object " + what + " does not exist");
    } else {
        f.status = api::Error{local.kind(), "cannot read " + what + ": " + local.error().message, {}};
    }
    return f;
}

SourceFetcher::Fetched SourceFetcher::fetchOne(const Item& item, client::HttpClient& http) const
{
    // A copy here is used whoever owns the name (a rebalance may not have
    // moved it yet); otherwise the owner is asked.
    if (auto f = fetchLocal(item); f.local || f.status.kind() != api::ErrorKind::NotFound) return f;
    Fetched f;
    const auto what = item.bucket + "/" + item.object;
    const auto smap = m_cache.smap();
    const auto* owner = api::hrwTarget(*smap, api::objectUname(item.bucket, item.object));
    if (owner == nullptr) {
        f.status = api::Error::unavailable("no targets in the cluster map");
        return f;
    }
    if (owner->id == m_selfId) {
        f.status = api::Error::notFound("source object " + what + " does not exist");
        return f;
    }
    f.ownerUrl = owner->publicNet.url;
    const auto url = f.ownerUrl + api_util::objectTarget({item.bucket, item.object}, {}, smap->version);
    bool tooLarge = false;
    client::Sink sink = [&](const char* data, std::size_t n) -> api::Status {
        if (f.data.size() + n > kMaxInMemory) {
            tooLarge = true;
            return api::Error{api::ErrorKind::TooLarge, "buffer full", {}};
        }
        f.data.append(data, n);
        return {};
    };
    auto r = http.send(client::Method::Get, url, {}, {{std::string(api::kHdrClusterKey), m_options.clusterKey}}, &sink);
    if (tooLarge) {
        f.data.clear();
        f.streamLater = true;
        return f;
    }
    if (!r) {
        f.status = api::Error{r.kind(), "cannot fetch " + what + " from " + owner->id + ": " + r.error().message, {}};
        return f;
    }
    if (r->status == 404) {
        f.status = api::Error::notFound("source object " + what + " does not exist");
    } else if (!r->isSuccess()) {
        auto e = api::errorFromResponse(r->status, r->body);
        f.status = api::Error{e.kind, "cannot fetch " + what + " from " + owner->id + ": " + e.message, {}};
    } else if (const auto stored = r->header(std::string(api::kHdrChecksumValue));
               !stored.empty() && api::xxhash64Hex(f.data) != stored) {
        // The owner served bytes that do not match the checksum it stored.
        f.status = api::Error::corruption("object " + what + " is corrupted: stored checksum " + stored +
                                          ", its bytes hash to " + api::xxhash64Hex(f.data));
        f.data.clear();
    }
    return f;
}

}  // namespace tessera::daemon::jobs
