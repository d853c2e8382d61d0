#include "tls_context.h"

#include <cstdio>
#include <memory>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

namespace tessera::daemon::net {

namespace ssl = boost::asio::ssl;

namespace {

std::string reason(const boost::system::error_code& ec)
{
    std::string r = ec.message();
    if (const unsigned long e = ERR_get_error(); e != 0) {
        char buf[256];
        ERR_error_string_n(e, buf, sizeof buf);
        r = buf;
    }
    ERR_clear_error();
    return r;
}

}  // namespace

api::Result<std::shared_ptr<ssl::context>> makeServerTlsContext(const std::string& certFile, const std::string& keyFile)
{
    auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
    boost::system::error_code ec;
    ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                         ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 | ssl::context::single_dh_use |
                         ssl::context::no_compression,
                     ec);
    if (ec) return api::Error::badRequest("cannot set up TLS: " + reason(ec));
    SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION);
    if (ctx->use_certificate_chain_file(certFile, ec); ec) {
        return api::Error::badRequest("cannot use the TLS certificate " + certFile + ": " + reason(ec));
    }
    if (ctx->use_private_key_file(keyFile, ssl::context::pem, ec); ec) {
        return api::Error::badRequest("cannot use the TLS key " + keyFile + ": " + reason(ec));
    }
    if (SSL_CTX_check_private_key(ctx->native_handle()) != 1) {
        ERR_clear_error();
        return api::Error::badRequest("the TLS key " + keyFile + " does not match the certificate " + certFile);
    }
    return ctx;
}

std::string describeCertificate(const std::string& certFile)
{
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(certFile.c_str(), "r"), &std::fclose);
    if (!f) return {};
    std::unique_ptr<X509, void (*)(X509*)> cert(PEM_read_X509(f.get(), nullptr, nullptr, nullptr), &X509_free);
    if (!cert) {
        ERR_clear_error();
        return {};
    }
    char subject[256] = {};
    X509_NAME_oneline(X509_get_subject_name(cert.get()), subject, sizeof subject);
    std::string until;
    std::unique_ptr<BIO, int (*)(BIO*)> bio(BIO_new(BIO_s_mem()), &BIO_free);
    if (bio && ASN1_TIME_print(bio.get(), X509_get0_notAfter(cert.get())) == 1) {
        char* data = nullptr;
        const long n = BIO_get_mem_data(bio.get(), &data);
        if (n > 0) until.assign(data, static_cast<std::size_t>(n));
    }
    return std::string(subject) + (until.empty() ? "" : ", valid until " + until);
}

}  // namespace tessera::daemon::net
