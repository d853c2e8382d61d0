#include "aws_chunked_decoder.h"

#include "auth/hmac_sha256.h"

#include <openssl/evp.h>

namespace tessera::daemon::s3 {

namespace {
constexpr std::size_t kMaxHeaderLine = 1024;
constexpr std::uint64_t kMaxChunk = std::uint64_t{1} << 30;
constexpr int kMaxTrailerLines = 8;
}  // namespace

struct AwsChunkedDecoder::Hash {
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx{EVP_MD_CTX_new(), &EVP_MD_CTX_free};
    void reset() { EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr); }
    void update(const char* p, std::size_t n) { EVP_DigestUpdate(ctx.get(), p, n); }
    std::string hex()
    {
        unsigned char md[EVP_MAX_MD_SIZE];
        unsigned int n = 0;
        EVP_DigestFinal_ex(ctx.get(), md, &n);
        static constexpr char kDigits[] = "0123456789abcdef";
        std::string out;
        for (unsigned int i = 0; i < n; ++i) {
            out.push_back(kDigits[md[i] >> 4]);
            out.push_back(kDigits[md[i] & 15]);
        }
        return out;
    }
};

AwsChunkedDecoder::AwsChunkedDecoder(std::string key, SigV4 sig, std::unique_ptr<TrailerChecksum> trailer)
    : m_key(std::move(key)), m_sig(std::move(sig)), m_previous(m_sig.signature), m_hash(std::make_unique<Hash>()),
      m_trailer(std::move(trailer))
{
}

AwsChunkedDecoder::AwsChunkedDecoder(std::unique_ptr<TrailerChecksum> trailer)
    : m_hash(std::make_unique<Hash>()), m_signed(false), m_trailer(std::move(trailer))
{
}

AwsChunkedDecoder::~AwsChunkedDecoder() = default;

api::Status AwsChunkedDecoder::onTrailerLine()
{
    const auto colon = m_line.find(':');
    if (colon == std::string::npos || colon == 0) {
        return api::Error::badRequest("IncompleteBody: malformed aws-chunked trailer line");
    }
    std::string name = m_line.substr(0, colon);
    for (auto& c : name) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    std::string value = m_line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.erase(0, 1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.pop_back();
    m_line.clear();
    if (m_trailerSigned) return api::Error::badRequest("IncompleteBody: a trailer line after x-amz-trailer-signature");
    if (name == "x-amz-trailer-signature") {
        if (!m_signed)
            return api::Error::badRequest("IncompleteBody: an unsigned aws-chunked body has no trailer signature");
        if (value.size() != 64) {
            return api::Error::badRequest("IncompleteBody: x-amz-trailer-signature must be 64 hex digits");
        }
        if (!m_key.empty() &&
            !auth::sameBytes(trailerSignature(m_key, m_sig, m_previous, m_canonicalTrailers), value)) {
            return api::Error::forbidden("SignatureDoesNotMatch: the trailer's signature does not match");
        }
        m_trailerSigned = true;
        return {};
    }
    m_canonicalTrailers += name + ":" + value + "\n";
    if (name == m_trailer->name()) {
        if (m_trailerSeen) return api::Error::badRequest("IncompleteBody: the " + name + " trailer appears twice");
        m_trailerValue = std::move(value);
        m_trailerSeen = true;
    }
    return {};
}

api::Status AwsChunkedDecoder::endTrailer()
{
    if (m_signed && !m_trailerSigned) {
        return api::Error::badRequest("IncompleteBody: the signed trailer ended without x-amz-trailer-signature");
    }
    if (!m_trailerSeen) {
        return api::Error::badRequest("IncompleteBody: the body ended without its " + m_trailer->name() + " trailer");
    }
    if (m_trailerValue != m_trailer->finish()) {
        return api::Error::badRequest("BadDigest: the " + m_trailer->name() +
                                      " trailer does not match the bytes received");
    }
    return {};
}

api::Status AwsChunkedDecoder::onHeader()
{
    // "<hex>;chunk-signature=<64 hex>" (unsigned: "<hex>")
    const auto semi = m_line.find(';');
    const std::string size = m_line.substr(0, semi);
    if (size.empty() || size.size() > 16) return api::Error::badRequest("IncompleteBody: bad aws-chunked chunk size");
    std::uint64_t n = 0;
    for (char c : size) {
        int d = (c >= '0' && c <= '9')   ? c - '0'
                : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                         : -1;
        if (d < 0) return api::Error::badRequest("IncompleteBody: bad aws-chunked chunk size \"" + size + "\"");
        n = n * 16 + static_cast<std::uint64_t>(d);
    }
    if (n > kMaxChunk) return api::Error::badRequest("IncompleteBody: aws-chunked chunk larger than 1 GiB");
    if (!m_signed) {
        if (semi != std::string::npos) {
            return api::Error::badRequest("IncompleteBody: an unsigned aws-chunked chunk has no extensions");
        }
        m_left = n;
        m_final = n == 0;
        m_line.clear();
        return {};
    }
    constexpr std::string_view kSig = "chunk-signature=";
    if (semi == std::string::npos || m_line.compare(semi + 1, kSig.size(), kSig) != 0) {
        return api::Error::badRequest("IncompleteBody: aws-chunked chunk without chunk-signature");
    }
    m_chunkSig = m_line.substr(semi + 1 + kSig.size());
    if (m_chunkSig.size() != 64) return api::Error::badRequest("IncompleteBody: chunk-signature must be 64 hex digits");
    m_left = n;
    m_final = n == 0;
    m_hash->reset();
    m_line.clear();
    return {};
}

api::Status AwsChunkedDecoder::endChunk()
{
    if (!m_signed) return {};
    const auto digest = m_hash->hex();
    if (!m_key.empty()) {
        const auto expected = chunkSignature(m_key, m_sig, m_previous, digest);
        if (!auth::sameBytes(expected, m_chunkSig)) {
            return api::Error::forbidden("SignatureDoesNotMatch: a chunk's signature does not match");
        }
    }
    m_previous = m_chunkSig;
    return {};
}

api::Status AwsChunkedDecoder::feed(const char* data, std::size_t size, const Out& out)
{
    std::size_t i = 0;
    while (i < size) {
        switch (m_state) {
        case State::Header: {
            const char c = data[i++];
            if (c == '\n') {
                if (m_line.empty() || m_line.back() != '\r') {
                    return api::Error::badRequest("IncompleteBody: aws-chunked header line without CRLF");
                }
                m_line.pop_back();
                if (auto st = onHeader(); !st) return st;
                if (m_final) {
                    if (auto st = endChunk(); !st) return st;
                    m_state = State::Trailer;
                } else {
                    m_state = State::Data;
                }
                break;
            }
            if (m_line.size() == kMaxHeaderLine) {
                return api::Error::badRequest("IncompleteBody: aws-chunked header line longer than 1 KiB");
            }
            m_line.push_back(c);
            break;
        }
        case State::Data: {
            const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(m_left, size - i));
            if (m_trailer) m_trailer->update(data + i, n);
            if (m_signed) m_hash->update(data + i, n);
            if (auto st = out(data + i, n); !st) return st;
            m_decoded += n;
            m_left -= n;
            i += n;
            if (m_left == 0) m_state = State::DataCr;
            break;
        }
        case State::DataCr:
            if (data[i++] != '\r')
                return api::Error::badRequest("IncompleteBody: aws-chunked chunk longer than announced");
            m_state = State::DataLf;
            break;
        case State::DataLf:
            if (data[i++] != '\n')
                return api::Error::badRequest("IncompleteBody: aws-chunked chunk longer than announced");
            if (auto st = endChunk(); !st) return st;
            m_state = State::Header;
            break;
        case State::Trailer: {
            const char c = data[i++];
            if (m_trailer) {
                // Trailer lines, then an empty one.
                if (c != '\n') {
                    if (m_line.size() == kMaxHeaderLine) {
                        return api::Error::badRequest("IncompleteBody: aws-chunked trailer line longer than 1 KiB");
                    }
                    m_line.push_back(c);
                    break;
                }
                if (m_line.empty() || m_line.back() != '\r') {
                    return api::Error::badRequest("IncompleteBody: aws-chunked trailer line without CRLF");
                }
                m_line.pop_back();
                if (!m_line.empty()) {
                    if (++m_trailerLines > kMaxTrailerLines) {
                        return api::Error::badRequest("IncompleteBody: more than 8 aws-chunked trailer lines");
                    }
                    if (auto st = onTrailerLine(); !st) return st;
                    break;
                }
                if (auto st = endTrailer(); !st) return st;
                m_state = State::Done;
                break;
            }
            // Signed: only the empty line; trailing headers are not supported.
            m_line.push_back(c);
            if (m_line == "\r\n") {
                m_state = State::Done;
                m_line.clear();
            } else if (m_line.size() >= 2) {
                return api::Error::badRequest("IncompleteBody: aws-chunked trailers are not supported");
            }
            break;
        }
        case State::Done: return api::Error::badRequest("IncompleteBody: bytes after the final aws-chunked chunk");
        }
    }
    return {};
}

}  // namespace tessera::daemon::s3
