#include "bench_workload.h"

#include "api/headers.h"
#include "api/hrw.h"
#include "api/object_list.h"
#include "api/paths.h"
#include "api/uri.h"
#include "client/http_client.h"

#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace tessera::cli::bench {

namespace {

std::string indexName(std::uint64_t i)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%08llu", static_cast<unsigned long long>(i));
    return buf;
}

std::shared_ptr<std::string> randomPayload(std::uint64_t size)
{
    auto p = std::make_shared<std::string>(size, '\0');
    std::uint64_t state = 0x9e3779b97f4a7c15ull;
    std::size_t i = 0;
    for (; i + 8 <= size; i += 8) {
        const std::uint64_t v = nextRandom(state);
        std::memcpy(p->data() + i, &v, 8);
    }
    for (; i < size; ++i) (*p)[i] = static_cast<char>(nextRandom(state));
    return p;
}

HostPort hostPortOf(const std::string& url)
{
    auto u = client::parseUrl(url);
    if (!u) throw std::invalid_argument("bad URL \"" + url + "\": " + u.error().message);
    return {u->host, u->port};
}

}  // namespace

std::uint64_t nextRandom(std::uint64_t& state)
{
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 0x2545f4914f6cdd1dull;
}

std::string BenchWorkload::indexedName(const std::string& prefix, std::uint64_t i)
{
    return prefix + "obj-" + indexName(i);
}

std::string BenchWorkload::fileDir(std::uint64_t i) { return "d" + std::to_string(i); }

std::string BenchWorkload::objectTarget(const std::string& bucket, const std::string& name, std::int64_t smapVersion)
{
    std::string t = api::path::object(bucket, name);
    if (smapVersion > 0) t += "?" + std::string(api::kQpSmapVersion) + "=" + std::to_string(smapVersion);
    return t;
}

BenchWorkload::BenchWorkload(const BenchOptions& options, const HostPort& endpoint, const api::Smap* smap,
                             std::vector<std::string> pool)
    : m_options(options), m_endpoints{endpoint}, m_pool(std::move(pool))
{
    if (m_options.direct) {
        if (smap == nullptr || smap->tmap.empty()) throw std::invalid_argument("--direct needs a map with targets");
        m_smap = std::make_unique<api::Smap>(*smap);
        for (const auto& [id, node] : m_smap->tmap) {
            m_targetIds.push_back(id);
            m_endpoints.push_back(hostPortOf(node.publicNet.url));
        }
    }
    m_poolTargets.reserve(m_pool.size());
    for (const auto& name : m_pool) {
        m_poolTargets.push_back(placeObject(name));
        if (m_options.mode == BenchMode::ShardRead) {
            const auto format = archive::formatFromName(name);
            if (!format) throw std::invalid_argument("\"" + name + "\" is not a shard (.tar, .tgz, .tar.lz4, .zip)");
            m_poolTargets.back().format = *format;
        }
    }
    if (m_options.mode == BenchMode::Put || m_options.mode == BenchMode::Mixed) {
        m_payload = randomPayload(m_options.maxSize);
    } else {
        m_payload = std::make_shared<std::string>();
    }
}

BenchWorkload::BenchWorkload(const BenchOptions& options) : m_options(options)
{
    if (m_options.mode == BenchMode::FilePut) {
        m_payload = randomPayload(m_options.maxSize);
        return;
    }
    auto u = client::parseUrl(m_options.url);
    if (!u) throw std::invalid_argument("bad URL \"" + m_options.url + "\": " + u.error().message);
    m_endpoints.push_back({u->host, u->port});
    const auto brace = u->target.find("{i}");
    if (brace != std::string::npos && m_options.countObjects > 0) {
        m_urlIndexed = true;
        m_urlBefore = u->target.substr(0, brace);
        m_urlAfter = u->target.substr(brace + 3);
    } else {
        m_urlBefore = u->target;
    }
    m_payload =
        m_options.mode == BenchMode::UrlPut ? randomPayload(m_options.maxSize) : std::make_shared<std::string>();
}

BenchWorkload::BenchWorkload(const BenchOptions& options, std::vector<LoadedShard> shards)
    : m_options(options), m_payload(std::make_shared<std::string>()), m_shards(std::move(shards))
{
    if (m_shards.empty()) throw std::invalid_argument("shard-scan needs at least one shard");
}

BenchWorkload::Target BenchWorkload::placeObject(const std::string& name) const
{
    if (!m_smap) return {0, objectTarget(m_options.bucket, name, 0)};
    const auto* owner = api::hrwTarget(*m_smap, api::objectUname(m_options.bucket, name));
    std::uint32_t index = 0;
    for (std::size_t i = 0; i < m_targetIds.size(); ++i) {
        if (owner != nullptr && m_targetIds[i] == owner->id) index = static_cast<std::uint32_t>(i + 1);
    }
    return {index, objectTarget(m_options.bucket, name, m_smap->version)};
}

std::uint64_t BenchWorkload::pickSize(WorkerState& w) const
{
    if (m_options.fixedSize()) return m_options.minSize;
    return m_options.minSize + nextRandom(w.rng) % (m_options.maxSize - m_options.minSize + 1);
}

void BenchWorkload::next(WorkerState& w, PlannedOp& op) const
{
    namespace http = boost::beast::http;
    op.size = 0;
    op.mayRedirect = false;
    switch (m_options.mode) {
    case BenchMode::UrlGet: {
        op.kind = OpKind::Get;
        op.verb = http::verb::get;
        op.endpoint = 0;
        if (m_urlIndexed) {
            op.target = m_urlBefore + indexName(nextRandom(w.rng) % m_options.countObjects) + m_urlAfter;
        } else if (op.target.empty()) {
            op.target = m_urlBefore;
        }
        return;
    }
    case BenchMode::UrlPut: {
        op.kind = OpKind::Put;
        op.verb = http::verb::put;
        op.endpoint = 0;
        op.size = pickSize(w);
        // A URL ending in '/' is a folder: each PUT a new file in it.
        if (!m_urlBefore.empty() && m_urlBefore.back() == '/') {
            op.target = m_urlBefore + "obj-" + indexName(m_putSeq.fetch_add(1, std::memory_order_relaxed));
        } else {
            op.target = m_urlBefore;
        }
        return;
    }
    case BenchMode::List: {
        op.kind = OpKind::List;
        op.verb = http::verb::get;
        op.endpoint = 0;
        api::ListRequest req;
        req.prefix = m_options.prefix;
        req.props = m_options.listProps;
        if (m_options.pageSize != 0) req.pageSize = m_options.pageSize;
        req.continuationToken = w.listToken;
        op.target = api::path::bucket(m_options.bucket) + "?" + api::buildQuery(api::listRequestToQuery(req));
        return;
    }
    case BenchMode::FilePut: {
        op.kind = OpKind::Put;
        op.verb = http::verb::put;
        op.endpoint = 0;
        op.size = pickSize(w);
        const auto seq = m_putSeq.fetch_add(1, std::memory_order_relaxed);
        op.target = fileDir(seq % m_options.dirs) + "/" + indexedName("", seq);
        return;
    }
    case BenchMode::ShardScan: {
        op.kind = OpKind::Get;
        op.verb = http::verb::get;
        op.shard = static_cast<std::size_t>(nextRandom(w.rng) % m_shards.size());
        return;
    }
    case BenchMode::Get:
    case BenchMode::Mixed:
    case BenchMode::Put:
    case BenchMode::ShardRead:
    case BenchMode::LooseRead: break;
    }
    const bool put = m_options.mode == BenchMode::Put ||
                     (m_options.mode == BenchMode::Mixed && nextRandom(w.rng) % 100 < m_options.pctPut);
    op.mayRedirect = !m_options.direct;
    if (!put) {
        const auto& t = m_poolTargets[nextRandom(w.rng) % m_poolTargets.size()];
        op.kind = OpKind::Get;
        op.verb = http::verb::get;
        op.endpoint = t.endpoint;
        op.target = t.target;
        op.format = t.format;
        return;
    }
    op.kind = OpKind::Put;
    op.verb = http::verb::put;
    op.size = pickSize(w);
    const auto seq = m_putSeq.fetch_add(1, std::memory_order_relaxed);
    if (m_options.mode == BenchMode::Mixed) {
        // Mixed overwrites the objects it reads: the listing stays the same.
        const auto& t = m_poolTargets[seq % m_poolTargets.size()];
        op.endpoint = t.endpoint;
        op.target = t.target;
        return;
    }
    const auto place = placeObject(indexedName(m_options.prefix, seq));
    op.endpoint = place.endpoint;
    op.target = place.target;
}

void BenchWorkload::pageDone(WorkerState& w, const std::string& continuationToken) const
{
    w.listToken = continuationToken;
    if (continuationToken.empty()) ++w.listPasses;
}

}  // namespace tessera::cli::bench
