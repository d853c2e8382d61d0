#include "tls_setup.h"

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/beast/core/error.hpp>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace tessera::client::tls {

namespace asio = boost::asio;
namespace ssl = asio::ssl;

namespace {

bool isIpLiteral(const std::string& host)
{
    boost::system::error_code ec;
    asio::ip::make_address(host, ec);
    return !ec;
}

bool readable(const std::string& path, std::string& why)
{
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!f) why = std::strerror(errno);
    return f != nullptr;
}

}  // namespace

std::string reason(const boost::system::error_code& ec)
{
    if (ec.category() == asio::error::get_ssl_category()) {
        if (const char* r = ERR_reason_error_string(static_cast<unsigned long>(ec.value()))) return r;
    }
    if (ec == ssl::error::stream_truncated) return "the server closed the connection";
    return ec.message();
}

api::Result<ssl::context> makeContext(const HttpClient::Options::Tls& options)
{
    ssl::context ctx(ssl::context::tls_client);
    SSL_CTX_set_min_proto_version(ctx.native_handle(), TLS1_2_VERSION);
    boost::system::error_code ec;
    if (options.insecure) {
        ctx.set_verify_mode(ssl::verify_none, ec);
    } else if (!options.caFile.empty()) {
        // Opened here first for errno's words: OpenSSL's for a missing file
        // are "system lib".
        const std::string file = std::string(kCaFileFailed) + "\"" + options.caFile + "\": ";
        if (std::string why; !readable(options.caFile, why)) return api::Error::badRequest(file + why);
        ctx.load_verify_file(options.caFile, ec);
        if (ec) return api::Error::badRequest(file + reason(ec));
        ctx.set_verify_mode(ssl::verify_peer, ec);
    } else {
        ctx.set_default_verify_paths(ec);
        if (ec) return api::Error::unavailable("cannot load the system's CA certificates: " + reason(ec));
        ctx.set_verify_mode(ssl::verify_peer, ec);
    }
    if (ec) return api::Error::internal("TLS setup: " + reason(ec));
    return ctx;
}

api::Status preparePeer(SSL* ssl, const std::string& host, const HttpClient::Options::Tls& options)
{
    const bool ip = isIpLiteral(host);
    if (!options.insecure) {
        // OpenSSL's own check of the name rather than asio's
        // host_name_verification callback (which would do as well, IP
        // addresses included): a mismatch is then recorded in the verify
        // result, "IP address mismatch", where the callback leaves a bare
        // "certificate verify failed".
        X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
        const int set = ip ? X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str())
                           : X509_VERIFY_PARAM_set1_host(param, host.c_str(), host.size());
        if (set != 1) return api::Error::badRequest("cannot check a certificate for host \"" + host + "\"");
    }
    // Server Name Indication carries DNS names only (RFC 6066).
    if (!ip && SSL_set_tlsext_host_name(ssl, host.c_str()) != 1) {
        return api::Error::badRequest("cannot send the TLS server name \"" + host + "\"");
    }
    return {};
}

api::Error handshakeError(const boost::system::error_code& ec, SSL* ssl, const std::string& hostPort,
                          const HttpClient::Options::Tls& options)
{
    const std::string what = std::string(kHandshakeFailed) + hostPort;
    if (ec == boost::beast::error::timeout) return api::Error::timeout(what + ": timed out");
    const long verify = SSL_get_verify_result(ssl);
    if (!options.insecure && verify != X509_V_OK) {
        return api::Error::unavailable(what + " failed: " + std::string(kCertificateRefused) + " (" +
                                       X509_verify_cert_error_string(verify) + ")");
    }
    std::string why = reason(ec);
    if (ec.category() == asio::error::get_ssl_category() &&
        ERR_GET_REASON(static_cast<unsigned long>(ec.value())) == SSL_R_WRONG_VERSION_NUMBER) {
        why += " (the server does not seem to speak TLS: an http:// endpoint?)";
    }
    return api::Error::unavailable(what + " failed: " + why);
}

}  // namespace tessera::client::tls
