#pragma once
// TLS of a node's server: the context made at start from tls.cert_file and
// tls.key_file, and made again from the same files at each SIGHUP (a renewed
// certificate is taken without a restart). A reload that fails keeps the
// certificate in use and logs why; connections already open keep theirs.

#include "config.h"
#include "net/http_server.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <memory>
#include <thread>

namespace tessera::daemon {

class NodeTls {
public:
    // Null when the config has no TLS; installs the context on `server`
    // otherwise. Throws std::runtime_error when the files cannot be used
    // (start-up only). `server` must outlive the result.
    static std::unique_ptr<NodeTls> start(const Config& c, net::HttpServer& server);
    NodeTls(const Config& c, net::HttpServer& server);
    ~NodeTls();
    NodeTls(const NodeTls&) = delete;
    NodeTls& operator=(const NodeTls&) = delete;

    // Reads the files again and installs the new context; the error (the
    // old context stays) when they cannot be used.
    api::Status reload();

private:
    void waitForHangup();

    std::string m_certFile;
    std::string m_keyFile;
    net::HttpServer& m_server;
    boost::asio::io_context m_ioc;
    boost::asio::signal_set m_hangup;
    std::thread m_thread;
};

}  // namespace tessera::daemon
