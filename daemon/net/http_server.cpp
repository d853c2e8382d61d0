#include "http_server.h"

#include <algorithm>

#include "common/log.h"
#include "http_session.h"

#include <boost/asio/ip/address.hpp>
#include <boost/asio/strand.hpp>
#include <future>
#include <stdexcept>

namespace tessera::daemon::net {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

std::size_t ServerContext::addressShare() const
{
    if (options.maxConnectionsPerAddress > 0) return options.maxConnectionsPerAddress;
    return std::max<std::size_t>(1, options.maxConnections / 2);
}

bool ServerContext::acquireAddress(const asio::ip::address& a)
{
    std::lock_guard lock(m_addressMutex);
    auto& n = m_perAddress[a];
    if (n >= addressShare()) {
        if (n == 0) m_perAddress.erase(a);
        return false;
    }
    ++n;
    return true;
}

void ServerContext::releaseAddress(const asio::ip::address& a)
{
    std::lock_guard lock(m_addressMutex);
    auto it = m_perAddress.find(a);
    if (it == m_perAddress.end()) return;
    if (--it->second == 0) m_perAddress.erase(it);
}

void ServerContext::requestEnded()
{
    if (inFlight.fetch_sub(1) == 1 && draining.load()) {
        // Under the lock: the drain checks the count under it, so the wake-up is not lost.
        std::lock_guard lock(m_drainMutex);
        m_drainCv.notify_all();
    }
}

std::size_t ServerContext::waitForRequests(std::chrono::steady_clock::time_point deadline)
{
    std::unique_lock lock(m_drainMutex);
    m_drainCv.wait_until(lock, deadline, [this] { return inFlight.load() == 0; });
    return inFlight.load();
}

std::shared_ptr<boost::asio::ssl::context> ServerContext::tlsContext() const
{
    std::lock_guard lock(m_tlsMutex);
    return m_tls;
}

void ServerContext::setTlsContext(std::shared_ptr<boost::asio::ssl::context> c)
{
    std::lock_guard lock(m_tlsMutex);
    m_tls = std::move(c);
}

void ServerContext::addSession(const std::shared_ptr<HttpSession>& s)
{
    std::lock_guard lock(m_sessionMutex);
    m_sessions[s.get()] = s;
}

void ServerContext::removeSession(const HttpSession* s)
{
    std::lock_guard lock(m_sessionMutex);
    m_sessions.erase(s);
}

std::vector<std::shared_ptr<HttpSession>> ServerContext::sessions()
{
    std::vector<std::shared_ptr<HttpSession>> out;
    std::lock_guard lock(m_sessionMutex);
    out.reserve(m_sessions.size());
    for (const auto& [p, weak] : m_sessions) {
        if (auto s = weak.lock()) out.push_back(std::move(s));
    }
    return out;
}

HttpServer::HttpServer(ServerOptions options, const Router& router)
    : m_acceptor(m_ioc), m_workers(options.workerThreads),
      m_internalWorkers(std::max<std::size_t>(2, options.workerThreads / 2)),
      m_commitWorkers(std::max<std::size_t>(1, options.commitThreads)), m_ctx(std::make_shared<ServerContext>())
{
    m_ctx->options = std::move(options);
    m_ctx->router = &router;
    m_ctx->workers = &m_workers;
    m_ctx->internalWorkers = &m_internalWorkers;
    m_ctx->commitWorkers = &m_commitWorkers;
    m_ctx->stats = m_ctx->options.countOps ? &m_stats : nullptr;
}

HttpServer::~HttpServer()
{
    stop();
    wait();
}

void HttpServer::listen()
{
    boost::system::error_code ec;
    auto addr = asio::ip::make_address(m_ctx->options.host, ec);
    if (ec) throw std::runtime_error("bad listen address \"" + m_ctx->options.host + "\": " + ec.message());
    tcp::endpoint ep(addr, m_ctx->options.port);
    m_acceptor.open(ep.protocol(), ec);
    if (ec) throw std::runtime_error("open: " + ec.message());
    m_acceptor.set_option(asio::socket_base::reuse_address(true), ec);
    m_acceptor.bind(ep, ec);
    if (ec) {
        throw std::runtime_error("bind " + m_ctx->options.host + ":" + std::to_string(m_ctx->options.port) + ": " +
                                 ec.message());
    }
    m_acceptor.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) throw std::runtime_error("listen: " + ec.message());
    m_port = m_acceptor.local_endpoint().port();
}

void HttpServer::start()
{
    const unsigned n = std::max(1u, m_ctx->options.ioThreads);
    // The first context too: once a drain closed the acceptor, it may have
    // nothing pending while a worker prepares an answer to post to it.
    m_guards.push_back(asio::make_work_guard(m_ioc));
    for (unsigned i = 1; i < n; ++i) {
        m_more.push_back(std::make_unique<asio::io_context>(1));
        m_guards.push_back(asio::make_work_guard(*m_more.back()));
    }
    doAccept();
    m_threads.emplace_back([this] { m_ioc.run(); });
    for (auto& ctx : m_more) {
        m_threads.emplace_back([c = ctx.get()] { c->run(); });
    }
}

asio::io_context& HttpServer::nextContext()
{
    const std::size_t i = m_nextContext++ % (m_more.size() + 1);
    return i == 0 ? m_ioc : *m_more[i - 1];
}

void HttpServer::stop()
{
    if (m_stopped.exchange(true)) return;
    asio::post(m_ioc, [this] {
        boost::system::error_code ec;
        m_acceptor.close(ec);
    });
    m_ioc.stop();
    for (auto& ctx : m_more) ctx->stop();
}

void HttpServer::wait()
{
    for (auto& t : m_threads) {
        if (t.joinable()) t.join();
    }
    m_threads.clear();
    m_workers.join();
    m_internalWorkers.join();
    m_commitWorkers.join();
}

std::size_t HttpServer::drain(std::chrono::milliseconds timeout)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    m_ctx->draining = true;
    // The acceptor belongs to the first I/O thread: close it there and wait,
    // so that the port is free (a restart may bind it) when this returns.
    std::promise<void> closed;
    asio::post(m_ioc, [this, &closed] {
        boost::system::error_code ec;
        m_acceptor.close(ec);
        closed.set_value();
    });
    closed.get_future().wait();
    // Sessions made after the list was taken see `draining` themselves.
    for (auto& s : m_ctx->sessions()) HttpSession::closeIfIdle(std::move(s));
    return m_ctx->waitForRequests(deadline);
}

void HttpServer::doAccept()
{
    // A connection lives on one io_context, which one thread runs: its
    // handlers never run concurrently, so it needs no strand (a strand's
    // lock and type-erased wrapper cost about 4% of a small GET).
    m_acceptor.async_accept(nextContext(), [this](boost::system::error_code ec, Socket socket) {
        if (ec) {
            if (ec == asio::error::operation_aborted || !m_acceptor.is_open()) return;
            logWarn("accept: ", ec.message());
        } else if (m_ctx->connections.load() >= m_ctx->options.maxConnections) {
            HttpSession::rejectBusy(std::move(socket), m_ctx->tlsContext() != nullptr);
        } else {
            boost::system::error_code aec;
            const auto peer = socket.remote_endpoint(aec).address();
            if (aec) {
                socket.close(aec);  // gone already
            } else if (!m_ctx->acquireAddress(peer)) {
                HttpSession::rejectBusy(std::move(socket), m_ctx->tlsContext() != nullptr);
            } else {
                HttpSession::start(std::move(socket), m_ctx, peer);
            }
        }
        doAccept();
    });
}

}  // namespace tessera::daemon::net
