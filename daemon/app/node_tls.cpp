#include "node_tls.h"

#include "common/log.h"
#include "net/tls_context.h"

#include <csignal>
#include <stdexcept>

namespace tessera::daemon {

std::unique_ptr<NodeTls> NodeTls::start(const Config& c, net::HttpServer& server)
{
    if (!c.tlsEnabled()) return nullptr;
    return std::make_unique<NodeTls>(c, server);
}

NodeTls::NodeTls(const Config& c, net::HttpServer& server)
    : m_certFile(c.tlsCertFile), m_keyFile(c.tlsKeyFile), m_server(server), m_hangup(m_ioc, SIGHUP)
{
    if (auto st = reload(); !st) throw std::runtime_error(st.error().message);
    waitForHangup();
    m_thread = std::thread([this] { m_ioc.run(); });
}

NodeTls::~NodeTls()
{
    m_ioc.stop();
    if (m_thread.joinable()) m_thread.join();
}

api::Status NodeTls::reload()
{
    auto ctx = net::makeServerTlsContext(m_certFile, m_keyFile);
    if (!ctx) return ctx.error();
    m_server.setTls(std::move(ctx.value()));
    logInfo("TLS: serving ", m_certFile, " (", net::describeCertificate(m_certFile), ")");
    return {};
}

void NodeTls::waitForHangup()
{
    m_hangup.async_wait([this](const boost::system::error_code& ec, int) {
        if (ec) return;
        if (auto st = reload(); !st)
            logError("TLS reload at SIGHUP failed, the previous certificate stays: ", st.error().message);
        waitForHangup();
    });
}

}  // namespace tessera::daemon
