#pragma once
// The server side of TLS: a context made from a certificate chain and its
// private key (PEM files), TLS 1.2 and newer only.

#include "api/result.h"

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <string>

namespace tessera::daemon::net {

// BadRequest naming the file and OpenSSL's reason when a file cannot be
// read, is not PEM, or the key does not match the certificate.
api::Result<std::shared_ptr<boost::asio::ssl::context>> makeServerTlsContext(const std::string& certFile,
                                                                             const std::string& keyFile);

// "subject, valid until <date>" of the first certificate in `certFile`, for
// the log; empty when it cannot be read.
std::string describeCertificate(const std::string& certFile);

}  // namespace tessera::daemon::net
