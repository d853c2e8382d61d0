#include "bench_worker.h"

#include "api/object_list.h"
#include "client/http_client.h"
#include "file_put.h"
#include "shard_tally.h"

#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <exception>

namespace tessera::cli::bench {

namespace asio = boost::asio;
namespace http = boost::beast::http;

BenchWorker::BenchWorker(asio::io_context& io, asio::ssl::context* tls, const BenchWorkload& workload,
                         const BenchOptions& options, RunControl& control, BenchStats& stats, unsigned index)
    : m_io(io), m_tls(tls), m_workload(workload), m_options(options), m_control(control), m_stats(stats),
      m_byEndpoint(workload.endpoints().size())
{
    m_state.index = index;
    m_state.rng = 0x9e3779b97f4a7c15ull * (index + 1) + 1;  // distinct, never zero
}

std::uint64_t BenchWorker::connects() const
{
    std::uint64_t n = 0;
    for (const auto& c : m_byEndpoint) n += c ? c->connects() : 0;
    for (const auto& c : m_others) n += c->connects();
    return n;
}

BenchConnection& BenchWorker::connection(std::uint32_t endpoint)
{
    auto& c = m_byEndpoint[endpoint];
    if (!c) {
        const auto& hp = m_workload.endpoints()[endpoint];
        c = std::make_unique<BenchConnection>(m_io, hp.host, hp.port, m_tls);
        c->setAuthorization(m_options.authorization);
    }
    return *c;
}

BenchConnection& BenchWorker::connection(const std::string& host, const std::string& port)
{
    for (std::size_t i = 0; i < m_byEndpoint.size(); ++i) {
        const auto& hp = m_workload.endpoints()[i];
        if (hp.host == host && hp.port == port) return connection(static_cast<std::uint32_t>(i));
    }
    for (auto& c : m_others) {
        if (c->host() == host && c->port() == port) return *c;
    }
    m_others.push_back(std::make_unique<BenchConnection>(m_io, host, port, m_tls));
    return *m_others.back();
}

void BenchWorker::checkTimeout(std::chrono::steady_clock::time_point now)
{
    if (m_active != nullptr && now > m_deadline) {
        m_active->abortForTimeout();
        m_active = nullptr;
    }
}

asio::awaitable<void> BenchWorker::run()
{
    using Clock = std::chrono::steady_clock;
    while (m_control.claim()) {
        m_workload.next(m_state, m_op);
        const auto t0 = Clock::now();
        Outcome out;
        try {
            out = co_await perform(m_op);
        } catch (const std::exception& e) {
            // A bug or an allocation failure: count it, never take the run down.
            out.error = std::string("internal: ") + e.what();
        }
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
        m_stats.record(m_op.kind, static_cast<std::uint64_t>(ns), out.bytes, out.items, out.error);
    }
}

asio::awaitable<BenchWorker::Outcome> BenchWorker::perform(const PlannedOp& op)
{
    Outcome out;
    if (m_options.mode == BenchMode::ShardScan) {
        // No transfer: the shard is already in memory.
        const auto& shard = m_workload.shards()[op.shard];
        if (auto t = tallyShard(shard.data, shard.format)) {
            out.bytes = shard.data.size();
            out.items = t->samples;
        } else {
            out.error = shard.name + ": " + t.error().message;
        }
        // Lets the lane's other workers (and its watchdog) have a turn.
        co_await asio::post(m_io, asio::use_awaitable);
        co_return out;
    }
    if (m_options.mode == BenchMode::FilePut) {
        // No transfer: the lane's thread blocks in the syncs, as a target's
        // commit thread does.
        out.error = writeCommittedFile(m_options.dir, op.target, std::string_view(m_workload.payload().data(), op.size),
                                       m_options.fsync);
        if (out.error.empty()) out.bytes = op.size;
        co_await asio::post(m_io, asio::use_awaitable);
        co_return out;
    }
    RequestSpec spec;
    spec.verb = op.verb;
    spec.target = op.target;
    spec.keepalive = m_options.keepalive;
    spec.expectContinue = op.mayRedirect;
    if (op.verb == http::verb::put) {
        spec.body = m_workload.payload().data();
        spec.bodySize = op.size;
    }
    const bool verify = m_options.verify && op.kind == OpKind::Get;
    const bool keepBody = op.kind == OpKind::List || m_options.mode == BenchMode::ShardRead;

    BenchConnection* conn = &connection(op.endpoint);
    std::string redirected;  // owns spec.target after a redirect
    for (int hop = 0;; ++hop) {
        SinkBody::value_type sink;
        if (verify) {
            m_hash.reset();
            sink.hash = &m_hash;
        }
        if (keepBody) {
            m_body.clear();
            sink.keep = &m_body;
        }
        m_active = conn;
        m_deadline = std::chrono::steady_clock::now() + m_options.timeout;
        auto r = co_await conn->exchange(spec, sink);
        if (r.transportError && r.reused && m_active != nullptr) {
            // The server closed an idle keep-alive connection as we reused
            // it; a fresh connection gets one more try.
            r = co_await conn->exchange(spec, sink);
        }
        m_active = nullptr;
        if (!r.error.empty()) {
            out.error = r.error;
            co_return out;
        }
        if (r.status == 301 || r.status == 302 || r.status == 307 || r.status == 308) {
            if (hop >= kMaxRedirects) {
                out.error = "more than " + std::to_string(kMaxRedirects) + " redirects";
                co_return out;
            }
            auto u = client::parseUrl(r.location);
            if (u && u->tls != (m_tls != nullptr)) {
                // A run speaks one scheme: its connections are pooled by host and port.
                out.error = "redirect to \"" + r.location + "\" changes the scheme of the run";
                co_return out;
            }
            if (!u) {
                out.error = "redirect to an unusable Location \"" + r.location + "\"";
                co_return out;
            }
            redirected = u->target;
            spec.target = redirected;
            conn = &connection(u->host, u->port);
            continue;
        }
        if (r.status < 200 || r.status >= 300) {
            out.error = "HTTP " + std::to_string(r.status) + " from " + conn->host() + ":" + conn->port();
            co_return out;
        }
        if (verify) {
            if (r.checksum.empty()) {
                out.error = "no ais-checksum-value header to verify against";
                co_return out;
            }
            if (r.checksum != api::toHex64(m_hash.digest())) {
                out.error = "checksum mismatch";
                co_return out;
            }
        }
        if (m_options.mode == BenchMode::ShardRead) {
            auto t = tallyShard(m_body, op.format);
            if (!t) {
                out.error.assign("reading the shard ").append(spec.target).append(": ").append(t.error().message);
                co_return out;
            }
            out.items = t->samples;
        } else if (m_options.mode == BenchMode::LooseRead) {
            out.items = 1;
        } else if (keepBody) {
            auto page = api::parseObjectList(m_body);
            if (!page) {
                out.error = "bad listing page: " + page.error().message;
                co_return out;
            }
            out.items = page->entries.size();
            m_workload.pageDone(m_state, page->continuationToken);
        }
        out.bytes = op.verb == http::verb::put ? op.size : r.bodyBytes;
        co_return out;
    }
}

}  // namespace tessera::cli::bench
