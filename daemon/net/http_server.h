#pragma once
// The node's HTTP/1.1 server: an acceptor, I/O threads each running its own
// io_context (connections are dealt to them in turn, and stay there, so a
// connection needs no strand), and a separate worker pool for handlers that may
// block (disk walks, calls to other nodes). One io_context per thread rather
// than one shared by all: with a shared one, every completion could wake
// another thread, and a 1 KiB GET paid for the wake-ups in CPU.

#include "router.h"
#include "stats/stats_recorder.h"

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tessera::daemon::net {

class HttpSession;
class Authorizer;

struct ServerOptions {
    std::string host = "127.0.0.1";
    unsigned short port = 0;  // 0: the kernel picks a free port
    unsigned ioThreads = 2;
    unsigned workerThreads = 8;
    // Threads of the commit pool (UploadSink::finishWaitsOnDisk): they only
    // wait for fsync, so there are many more of them than workers.
    unsigned commitThreads = 64;
    std::size_t maxConnections = 1024;
    std::chrono::milliseconds idleTimeout{60000};  // waiting for (the rest of) a request header
    // Slowloris defences. One client address holds at most this many of the
    // connection slots (0: half of maxConnections), and once half of the
    // slots are taken a connection must deliver its whole request head
    // within headerTimeout of starting to wait for it (idle keep-alive
    // connections are the first to go when slots run out).
    std::size_t maxConnectionsPerAddress = 0;
    std::chrono::milliseconds headerTimeout{10000};
    std::chrono::milliseconds ioTimeout{60000};  // each body read or response write step
    std::size_t headerLimit = 16 * 1024;
    bool countOps = true;  // record routes' operations in stats()
};

// Shared by every session of one server.
struct ServerContext {
    ServerOptions options;
    const Router* router = nullptr;
    // Auth on: checks each matched route's Access before anything else
    // (nullptr: auth off, nothing checked).
    const Authorizer* authorizer = nullptr;
    // Told of every answered request that changes the cluster's control
    // state (isAuditedChange): the proxy's audit trail. Null: none. Called on
    // the connection's I/O thread; it must not block.
    std::function<void(const Request&, int status)> auditor;
    boost::asio::thread_pool* workers = nullptr;
    // Work that never waits on another node (see UploadSink::receivesFromPeer).
    boost::asio::thread_pool* internalWorkers = nullptr;
    // Finishes that wait on the disk (see UploadSink::finishWaitsOnDisk).
    boost::asio::thread_pool* commitWorkers = nullptr;
    stats::StatsRecorder* stats = nullptr;
    std::atomic<std::size_t> connections{0};  // HTTP sessions and WebSocket sessions
    std::atomic<std::uint64_t> requests{0};
    // Requests whose head was read and whose answer is not yet written (or
    // whose connection has not yet ended): what a drain waits for.
    std::atomic<std::size_t> inFlight{0};
    // Set by HttpServer::drain: answers close their connection, idle
    // connections are closed.
    std::atomic<bool> draining{false};

    void requestStarted() { inFlight.fetch_add(1); }
    void requestEnded();
    // Waits until no request is in flight or `deadline`; returns how many
    // still are.
    std::size_t waitForRequests(std::chrono::steady_clock::time_point deadline);

    // The live HTTP sessions, so that a drain can reach the idle ones.
    void addSession(const std::shared_ptr<HttpSession>& s);
    void removeSession(const HttpSession* s);
    std::vector<std::shared_ptr<HttpSession>> sessions();

    // TLS (null: plain HTTP). A reload replaces it whole; a session keeps
    // the context it started with.
    std::shared_ptr<boost::asio::ssl::context> tlsContext() const;
    void setTlsContext(std::shared_ptr<boost::asio::ssl::context> c);

    // Connections per client address. acquire() is false when the address
    // has its share already (the caller refuses the connection).
    bool acquireAddress(const boost::asio::ip::address& a);
    void releaseAddress(const boost::asio::ip::address& a);
    std::size_t addressShare() const;

private:
    mutable std::mutex m_tlsMutex;
    std::shared_ptr<boost::asio::ssl::context> m_tls;
    std::mutex m_addressMutex;
    std::map<boost::asio::ip::address, std::size_t> m_perAddress;
    std::mutex m_drainMutex;
    std::condition_variable m_drainCv;
    std::mutex m_sessionMutex;
    std::map<const HttpSession*, std::weak_ptr<HttpSession>> m_sessions;
};

class HttpServer {
public:
    HttpServer(ServerOptions options, const Router& router);
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    // Binds and listens; throws std::runtime_error on failure (start-up only).
    void listen();
    unsigned short port() const { return m_port; }
    // Starts the I/O threads; returns immediately.
    void start();
    void stop();
    // Blocks until stop() (or a signal handler calling it).
    void wait();
    // A graceful end, called from a thread that is not one of the server's:
    // closes the listening socket (the port is free when it returns), then
    // lets every request already read be answered, closing each connection
    // after its answer and the idle ones at once, for at most `timeout`.
    // Returns how many requests were still in flight at the deadline (0: all
    // answered). stop() and wait() end the server afterwards.
    std::size_t drain(std::chrono::milliseconds timeout);

    // The acceptor's context (the first I/O thread's).
    boost::asio::io_context& ioContext() { return m_ioc; }
    boost::asio::thread_pool& workers() { return m_workers; }
    const ServerContext& context() const { return *m_ctx; }
    // Shared with sessions that outlive a request (WebSocket upgrades).
    std::shared_ptr<ServerContext> sharedContext() { return m_ctx; }
    stats::StatsRecorder& stats() { return m_stats; }
    // Before start(); `a` must outlive the server.
    void setAuthorizer(const Authorizer* a) { m_ctx->authorizer = a; }
    // Set before the server runs.
    void setAuditor(std::function<void(const Request&, int status)> f) { m_ctx->auditor = std::move(f); }
    // Serves TLS with `c` from the next connection on (any time; null: plain).
    void setTls(std::shared_ptr<boost::asio::ssl::context> c) { m_ctx->setTlsContext(std::move(c)); }

private:
    void doAccept();
    // The context of the next connection, in turn.
    boost::asio::io_context& nextContext();

    stats::StatsRecorder m_stats;
    boost::asio::io_context m_ioc{1};  // each context is run by exactly one thread
    // The other I/O threads' contexts; every context is kept running while
    // idle by the guards.
    std::vector<std::unique_ptr<boost::asio::io_context>> m_more;
    std::vector<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> m_guards;
    std::size_t m_nextContext = 0;  // touched by the accept handler only
    boost::asio::ip::tcp::acceptor m_acceptor;
    boost::asio::thread_pool m_workers;
    boost::asio::thread_pool m_internalWorkers;
    boost::asio::thread_pool m_commitWorkers;
    std::shared_ptr<ServerContext> m_ctx;
    std::vector<std::thread> m_threads;
    unsigned short m_port = 0;
    std::atomic<bool> m_stopped{false};
};

}  // namespace tessera::daemon::net
