#include "put_relay.h"

#include "s3_errors.h"
#include "s3_util.h"

namespace tessera::daemon::s3 {

namespace {
std::string base64(const std::string& raw)
{
    std::string out(4 * ((raw.size() + 2) / 3) + 1, '\0');
    const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(raw.data()), static_cast<int>(raw.size()));
    out.resize(static_cast<std::size_t>(n));
    return out;
}
}  // namespace

PutRelay::Started PutRelay::start(const net::Request& req, const S3Context::Caller& caller, const std::string& resource,
                                  std::uint64_t maxLength, const std::string& what, const std::string& baseUrl,
                                  const std::string& target, const client::Headers& headers,
                                  std::chrono::milliseconds timeout, std::string notFoundCode, Answer answer)
{
    // The payload's length: aws-chunked announces it in its own header.
    const auto& sig = caller.sig;
    const bool streaming = sig && sig->awsChunked();
    std::uint64_t length = req.contentLength;
    if (streaming) {
        const auto decoded = req.header("x-amz-decoded-content-length");
        if (!allDigits(decoded, 15)) {
            return s3Error(411, "MissingContentLength", "an aws-chunked body needs x-amz-decoded-content-length",
                           resource);
        }
        length = std::stoull(decoded);
    } else if (req.header("Content-Length").empty() && req.hasBody) {
        return s3Error(411, "MissingContentLength", "You must provide the Content-Length HTTP header.", resource);
    }
    if (length > maxLength) return s3Error(400, "EntityTooLarge", what, resource);
    auto call = TargetCall::start(baseUrl, "PUT", target, headers, length, timeout);
    if (!call) return fromError(call.error(), resource);
    std::unique_ptr<AwsChunkedDecoder> decoder;
    if (streaming && (sig->unsignedTrailer() || sig->signedTrailer())) {
        auto trailer = TrailerChecksum::create(req.header("x-amz-trailer"));
        if (!trailer) return fromError(trailer.error(), resource);
        decoder = sig->signedTrailer()
                      ? std::make_unique<AwsChunkedDecoder>(caller.signingKey, *sig, std::move(trailer.value()))
                      : std::make_unique<AwsChunkedDecoder>(std::move(trailer.value()));
    } else if (streaming) {
        decoder = std::make_unique<AwsChunkedDecoder>(caller.signingKey, *sig);
    }
    Checks checks;
    if (!caller.signingKey.empty() && sig && !streaming && sig->payloadHash != kUnsignedPayload) {
        checks.sha256 = sig->payloadHash;
    }
    checks.md5 = req.header("Content-MD5");
    return std::unique_ptr<net::UploadSink>(std::make_unique<PutRelay>(std::move(call.value()), length,
                                                                       std::move(decoder), std::move(checks), resource,
                                                                       std::move(notFoundCode), std::move(answer)));
}

PutRelay::PutRelay(std::unique_ptr<TargetCall> call, std::uint64_t length, std::unique_ptr<AwsChunkedDecoder> decoder,
                   Checks checks, std::string resource, std::string notFoundCode, Answer answer)
    : m_call(std::move(call)), m_length(length), m_decoder(std::move(decoder)), m_checks(std::move(checks)),
      m_resource(std::move(resource)), m_notFoundCode(std::move(notFoundCode)), m_answer(std::move(answer))
{
    if (!m_checks.sha256.empty()) {
        m_sha = {EVP_MD_CTX_new(), &EVP_MD_CTX_free};
        EVP_DigestInit_ex(m_sha.get(), EVP_sha256(), nullptr);
    }
    if (!m_checks.md5.empty()) m_md5.emplace();
}

api::Status PutRelay::write(const char* data, std::size_t size)
{
    if (m_refused) return {};  // the end of a refused body, read and dropped
    if (!m_decoder) return forward(data, size);
    auto st = m_decoder->feed(data, size, [this](const char* p, std::size_t n) { return forward(p, n); });
    if (!st && (m_received == m_length || st.kind() == api::ErrorKind::Forbidden) &&
        st.kind() != api::ErrorKind::Unavailable) {
        // Refused once every payload byte arrived (the trailer's checksum or
        // signature, the last chunk's signature), or a chunk's signature
        // failed: the rest of the body is read and dropped, the client gets
        // an S3 error document from finish() (an SDK does not retry a 403 as
        // it retries a reset connection), and the target's call is cut short
        // (it never gets the last byte, so it stores nothing).
        m_refused = st.error();
        m_call.reset();
        return {};
    }
    return st;
}

net::Response PutRelay::finish()
{
    if (m_refused) return fromError(*m_refused, m_resource);
    if (m_decoder && !m_decoder->done()) {
        return s3Error(400, "IncompleteBody", "the aws-chunked body ended before its final chunk", m_resource);
    }
    if (m_received != m_length) {
        return s3Error(400, "IncompleteBody", "You did not provide the number of bytes specified by the Content-Length",
                       m_resource);
    }
    if (m_sha) {
        unsigned char md[EVP_MAX_MD_SIZE];
        unsigned int n = 0;
        EVP_DigestFinal_ex(m_sha.get(), md, &n);
        if (hexOf(std::string(reinterpret_cast<char*>(md), n)) != m_checks.sha256) {
            return s3Error(400, "XAmzContentSHA256Mismatch",
                           "The provided 'x-amz-content-sha256' header does not match what was computed.", m_resource);
        }
    }
    if (m_md5) {
        if (base64(m_md5->digest()) != m_checks.md5) {
            return s3Error(400, "BadDigest", "The Content-MD5 you specified did not match what we received.",
                           m_resource);
        }
    }
    if (m_length > 0) {
        if (auto st = m_call->write(&m_last, 1); !st) return fromError(st.error(), m_resource);
    }
    auto th = m_call->readHead();
    if (!th) return fromError(th.error(), m_resource);
    auto body = m_call->readSmallBody(64 * 1024);
    if (th->status != 200) return fromStatus(th->status, body ? *body : "", m_resource, m_notFoundCode);
    return m_answer(*th, body ? *body : std::string());
}

api::Status PutRelay::forward(const char* p, std::size_t n)
{
    if (n == 0) return {};
    if (m_received + n > m_length)
        return api::Error::badRequest("IncompleteBody: more bytes than the announced length");
    if (m_sha) EVP_DigestUpdate(m_sha.get(), p, n);
    if (m_md5) m_md5->update(p, n);
    m_received += n;
    if (m_received == m_length) {
        m_last = p[n - 1];
        --n;
    }
    if (n == 0) return {};
    return m_call->write(p, n);
}

}  // namespace tessera::daemon::s3
