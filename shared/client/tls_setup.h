#pragma once
// The TLS pieces HttpClient and FeedClient share: the client context built
// from Options::tls, the check of one connection's peer, and the words for a
// handshake that failed. Error messages start with the prefixes below, which
// failedBeforeSending() and failedOnCertificate() recognise.

#include "api/result.h"
#include "http_client.h"

#include <boost/asio/ssl/context.hpp>
#include <boost/system/error_code.hpp>
#include <openssl/ssl.h>

#include <string>
#include <string_view>

namespace tessera::client::tls {

inline constexpr std::string_view kHandshakeFailed = "TLS handshake with ";
inline constexpr std::string_view kCaFileFailed = "cannot load the CA file ";
inline constexpr std::string_view kCertificateRefused = "certificate verify failed";

// A client context: TLS 1.2 at least; the peer's chain checked against
// `options.caFile` (else the system's store) unless `options.insecure`.
// BadRequest naming the file when the CA file cannot be read or holds no
// certificate.
api::Result<boost::asio::ssl::context> makeContext(const HttpClient::Options::Tls& options);

// Before one connection's handshake: the host name or IP address the
// certificate must name (unless insecure), and SNI for a host name.
api::Status preparePeer(SSL* ssl, const std::string& host, const HttpClient::Options::Tls& options);

// The error for a handshake with `hostPort` that failed with `ec`: Timeout,
// or Unavailable with the reason a person can act on (the certificate's
// verify result, a server that does not speak TLS).
api::Error handshakeError(const boost::system::error_code& ec, SSL* ssl, const std::string& hostPort,
                          const HttpClient::Options::Tls& options);

// OpenSSL's reason for `ec` without the library name asio appends.
std::string reason(const boost::system::error_code& ec);

}  // namespace tessera::client::tls
