#pragma once
// S3 answers built in one place: XML documents, S3 error documents with
// S3's codes, and the mapping of Tessera's errors (api::Error kinds, a
// target's or the native API's JSON error) onto them. An api::Error whose
// message starts with an S3 code and ": " ("NoSuchKey: ...") keeps that code.

#include "api/result.h"
#include "client/http_client.h"
#include "net/response.h"

#include <string>

namespace tessera::daemon::s3 {

net::Response xmlResponse(int status, std::string body);
net::Response s3Error(int status, const std::string& code, const std::string& message, const std::string& resource);
net::Response fromError(const api::Error& e, const std::string& resource);
// A non-2xx answer of a target or of the native API (`body` its JSON error);
// 404 becomes `notFoundCode`.
net::Response fromStatus(int status, const std::string& body, const std::string& resource,
                         const std::string& notFoundCode);
net::Response fromNative(const client::Response& r, const std::string& resource, const std::string& notFoundCode);

}  // namespace tessera::daemon::s3
