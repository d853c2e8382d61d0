#include "source_fetcher.h"

#include "api/hrw.h"
#include "api/http_error.h"
#include "daemon/api/request_params.h"

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
        std::size_t i = 0;
        {
            std::unique_lock lock(m_mutex);
            while (true) {
                if (m_stop || m_ctx.aborted() || m_nextToFetch >= m_items.size()) return;
                if (m_nextToFetch < m_nextToTake + m_options.maxAhead && m_buffered < m_options.maxBufferedBytes) break;
                m_cv.wait_for(lock, kAbortCheck);
            }
            i = m_nextToFetch++;
        }
        auto f = fetchOne(m_items[i], http);
        {
            std::lock_guard lock(m_mutex);
            m_buffered += f.data.size();
            m_ready.emplace(i, std::move(f));
        }
        m_cv.notify_all();
    }
}

SourceFetcher::Fetched SourceFetcher::fetchOne(const Item& item, client::HttpClient& http) const
{
    Fetched f;
    const auto what = item.bucket + "/" + item.object;
    // A copy here is used whoever owns the name (a rebalance may not have
    // moved it yet); otherwise the owner is asked.
    if (auto local = m_store.open(item.bucket, item.object); local) {
        f.local = std::move(local.value());
        return f;
    } else if (local.kind() != api::ErrorKind::NotFound) {
        f.status = api::Error{local.kind(), "cannot read " + what + ": " + local.error().message, {}};
        return f;
    }
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
    auto r = http.send(client::Method::Get, url, {}, {}, &sink);
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
    }
    return f;
}

}  // namespace tessera::daemon::jobs
