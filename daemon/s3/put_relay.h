#pragma once
// A PUT's body on its way to the target (PutObject, UploadPart):
// aws-chunked decoded, hashed when the client asked for a check, and written
// through except for its last byte, which goes only once every check passed.
// A check that fails drops the connection to the target with the body
// incomplete, and the target stores nothing.
//
// Thread safety: one thread at a time (the HTTP session hands it from
// worker to worker, one call after the other).

#include "aws_chunked_decoder.h"
#include "md5_stream.h"
#include "s3_context.h"
#include "target_call.h"

#include "net/response.h"
#include "net/upload_sink.h"

#include <functional>
#include <memory>
#include <openssl/evp.h>
#include <optional>
#include <string>
#include <variant>

namespace tessera::daemon::s3 {

class PutRelay : public net::UploadSink {
public:
    struct Checks {
        std::string sha256;  // hex of the payload (signed payload), empty: none
        std::string md5;     // Content-MD5 (base64), empty: none
    };
    // The S3 answer to the target's 200 (`head`, `body` its small body).
    using Answer = std::function<net::Response(const TargetHead& head, const std::string& body)>;
    // `notFoundCode`: the S3 code of a target's 404 without a code of its own.
    using Started = std::variant<net::Response, std::unique_ptr<net::UploadSink>>;
    // Reads the payload's length (Content-Length, or for aws-chunked
    // x-amz-decoded-content-length), refuses more than `maxLength`
    // (EntityTooLarge, `what` says of what), opens `method` `target` on
    // `baseUrl` with `headers` and returns the relay of the body.
    static Started start(const net::Request& req, const S3Context::Caller& caller, const std::string& resource,
                         std::uint64_t maxLength, const std::string& what, const std::string& baseUrl,
                         const std::string& target, const client::Headers& headers, std::chrono::milliseconds timeout,
                         std::string notFoundCode, Answer answer);

    PutRelay(std::unique_ptr<TargetCall> call, std::uint64_t length, std::unique_ptr<AwsChunkedDecoder> decoder,
             Checks checks, std::string resource, std::string notFoundCode, Answer answer);

    api::Status write(const char* data, std::size_t size) override;
    net::Response finish() override;
    bool writesBlock() const override { return true; }

private:
    api::Status forward(const char* p, std::size_t n);

    std::unique_ptr<TargetCall> m_call;
    std::uint64_t m_length;
    std::unique_ptr<AwsChunkedDecoder> m_decoder;
    Checks m_checks;
    std::string m_resource;
    std::string m_notFoundCode;
    Answer m_answer;
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> m_sha{nullptr, &EVP_MD_CTX_free};
    std::optional<Md5Stream> m_md5;
    std::uint64_t m_received = 0;
    char m_last = 0;
    std::optional<api::Error> m_refused;  // a check failed after the whole payload arrived
};

}  // namespace tessera::daemon::s3
