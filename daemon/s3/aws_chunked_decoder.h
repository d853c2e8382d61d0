#pragma once
// Decodes an aws-chunked request body (x-amz-content-sha256:
// STREAMING-AWS4-HMAC-SHA256-PAYLOAD): "<hex size>;chunk-signature=<sig>\r\n
// <bytes>\r\n" repeated, ending with a chunk of size 0 and an empty line.
// Each chunk's signature chains from the previous one, starting with the
// request's seed signature; with a signing key every one is checked, without
// one (auth off) each is only parsed. Bytes go out as they arrive: memory is
// one chunk-header line (at most 1 KiB), never a chunk.
//
// The unsigned form (STREAMING-UNSIGNED-PAYLOAD-TRAILER): "<hex size>\r\n
// <bytes>\r\n" repeated, the chunk of size 0, then trailer lines
// "<name>:<value>\r\n" (at most 8 of at most 1 KiB) and an empty line; the
// checksum named by x-amz-trailer must be among them and match the bytes
// (BadDigest otherwise).
//
// The signed form with a trailer (STREAMING-AWS4-HMAC-SHA256-PAYLOAD-
// TRAILER): signed chunks as above, the final chunk's header line, then the
// trailer lines, the last of them "x-amz-trailer-signature:<64 hex>", and an
// empty line. The trailer signature chains from the final chunk's and covers
// every other trailer line; with a signing key it is checked before the
// checksum is (so a changed trailer is SignatureDoesNotMatch, not BadDigest).
//
// Not thread-safe: one decoder per request body.

#include "api/result.h"
#include "sigv4.h"
#include "trailer_checksum.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace tessera::daemon::s3 {

class AwsChunkedDecoder {
public:
    using Out = std::function<api::Status(const char* data, std::size_t size)>;

    // `key`: the request's signing key (signingKey()), empty to skip checks.
    // `trailer` set: the signed form with a trailer, checked with it.
    AwsChunkedDecoder(std::string key, SigV4 sig, std::unique_ptr<TrailerChecksum> trailer = nullptr);
    // The unsigned form, its trailer checked with `trailer`.
    explicit AwsChunkedDecoder(std::unique_ptr<TrailerChecksum> trailer);
    ~AwsChunkedDecoder();

    // Decodes `size` more bytes, handing the payload to `out`. BadRequest for
    // a malformed body (IncompleteBody / bad chunk header), Forbidden for a
    // chunk whose signature does not match; an error of `out` is returned.
    api::Status feed(const char* data, std::size_t size, const Out& out);
    // The final chunk and its empty line arrived.
    bool done() const { return m_state == State::Done; }
    std::uint64_t decodedBytes() const { return m_decoded; }

private:
    enum class State { Header, Data, DataCr, DataLf, Trailer, Done };
    api::Status onHeader();
    api::Status endChunk();
    api::Status onTrailerLine();

    std::string m_key;
    SigV4 m_sig;
    std::string m_previous;  // the last verified signature
    std::string m_line;
    std::string m_chunkSig;
    std::uint64_t m_left = 0;
    bool m_final = false;
    std::uint64_t m_decoded = 0;
    State m_state = State::Header;
    struct Hash;
    std::unique_ptr<Hash> m_hash;
    bool m_signed = true;                        // chunk signatures (both signed forms)
    std::unique_ptr<TrailerChecksum> m_trailer;  // set: a form with a trailer
    std::string m_trailerValue;                  // the checksum the trailer carried
    bool m_trailerSeen = false;
    std::string m_canonicalTrailers;  // signed: the lines the trailer signature covers
    bool m_trailerSigned = false;     // signed: x-amz-trailer-signature came (and matched)
    int m_trailerLines = 0;
    api::Status endTrailer();
};

}  // namespace tessera::daemon::s3
