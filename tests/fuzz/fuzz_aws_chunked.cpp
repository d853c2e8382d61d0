// The aws-chunked body decoder (daemon/s3/aws_chunked_decoder.h).
// The first byte picks what happens to the rest:
//   0  the bytes are a body as a client sends it, decoded without a key
//      (auth off) at once and in pieces of every size from 1 to 16 bytes:
//      each way gives the same payload, the same end state and the same
//      error kind, and a body that ends is never longer than it was fed;
//   1  the bytes are a payload, cut into chunks (sizes from the payload
//      itself) and signed here as a streaming upload: with the key it
//      decodes to exactly the payload; with one signature byte changed
//      it is refused with Forbidden, and what came out is a prefix of the
//      payload (the S3 PUT holds back its last byte until the body checks);
//   3  (mod 4) as 1, with a signed CRC32 trailer
//      (STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER): decoded whole and in
//      pieces of 1..16 bytes it gives the payload; a changed trailer value
//      is refused with Forbidden (the trailer signature), never BadDigest.

#include "fuzz_check.h"

#include "s3/aws_chunked_decoder.h"

#include <cstdio>

using namespace tessera;
using namespace tessera::daemon::s3;

namespace {

SigV4 fuzzSig()
{
    SigV4 s;
    s.accessKey = "AKIDFUZZ";
    s.date = "20130524";
    s.region = "us-east-1";
    s.service = "s3";
    s.amzDate = "20130524T000000Z";
    s.signedHeaders = {"host"};
    s.signature = std::string(64, 'a');
    s.payloadHash = std::string(kStreamingPayload);
    return s;
}

struct Outcome {
    std::string out;
    bool ok = true;
    api::ErrorKind kind = api::ErrorKind::BadRequest;
    bool done = false;
};

Outcome decode(const std::string& key, std::string_view body, std::size_t piece, bool trailer = false)
{
    auto sig = fuzzSig();
    if (trailer) sig.payloadHash = std::string(kStreamingSignedTrailer);
    AwsChunkedDecoder d(key, sig, trailer ? TrailerChecksum::create("x-amz-checksum-crc32").value() : nullptr);
    Outcome o;
    for (std::size_t i = 0; i < body.size(); i += piece) {
        const auto st = d.feed(body.data() + i, std::min(piece, body.size() - i), [&](const char* p, std::size_t n) {
            o.out.append(p, n);
            return api::Status{};
        });
        if (!st) {
            o.ok = false;
            o.kind = st.error().kind;
            break;
        }
    }
    o.done = d.done();
    FUZZ_CHECK(d.decodedBytes() == o.out.size(), "decodedBytes disagrees with the bytes handed out");
    return o;
}

std::string hexSize(std::size_t n)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%zx", n);
    return buf;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size == 0 || size > 65536) return 0;
    const auto text = fuzz::asText(data + 1, size - 1);
    if (data[0] % 2 == 0) {
        const auto whole = decode({}, text, text.size() + 1);
        for (std::size_t piece = 1; piece <= 16; ++piece) {
            const auto cut = decode({}, text, piece);
            FUZZ_CHECK(cut.ok == whole.ok && cut.done == whole.done && cut.out == whole.out,
                       "decoding in pieces of " + std::to_string(piece) + " differs from decoding at once");
            if (!cut.ok) FUZZ_CHECK(cut.kind == whole.kind, "error kinds differ");
        }
        if (!whole.ok) FUZZ_CHECK(whole.kind == api::ErrorKind::BadRequest, "unsigned body refused as not bad");
        FUZZ_CHECK(whole.out.size() <= text.size(), "more payload than body");
        return 0;
    }

    // Sign the payload as a client does: chunks of 1..64 bytes, then the
    // final empty chunk (and, mode 3, the signed trailer).
    const bool withTrailer = data[0] % 4 == 3;
    auto sig = fuzzSig();
    if (withTrailer) sig.payloadHash = std::string(kStreamingSignedTrailer);
    const auto key = signingKey("fuzz secret", sig);
    std::string body;
    std::string previous = sig.signature;
    std::vector<std::size_t> sigOffsets;
    std::size_t at = 0;
    for (bool last = false; !last;) {
        std::size_t n = 0;
        if (at < text.size())
            n = std::min<std::size_t>(1 + static_cast<unsigned char>(text[at]) % 64, text.size() - at);
        last = n == 0;
        const auto chunk = text.substr(at, n);
        previous = chunkSignature(key, sig, previous, sha256Hex(chunk));
        body += hexSize(n) + ";chunk-signature=";
        sigOffsets.push_back(body.size());
        body += previous + "\r\n";
        if (!last || !withTrailer) {
            body.append(chunk);
            body += "\r\n";
        }
        at += n;
    }
    if (withTrailer) {
        auto crc = TrailerChecksum::create("x-amz-checksum-crc32").value();
        crc->update(text.data(), text.size());
        const auto line = "x-amz-checksum-crc32:" + crc->finish();
        const auto valueAt = body.size() + line.find(':') + 1;
        body += line + "\r\nx-amz-trailer-signature:" + trailerSignature(key, sig, previous, line + "\n") + "\r\n\r\n";
        for (std::size_t piece = 1; piece <= 16; ++piece) {
            const auto cut = decode(key, body, piece, true);
            FUZZ_CHECK(cut.ok && cut.done && cut.out == text, "a signed trailer body did not decode in pieces");
        }
        auto changed = body;
        changed[valueAt] = changed[valueAt] == 'A' ? 'B' : 'A';
        const auto refused = decode(key, changed, changed.size(), true);
        FUZZ_CHECK(!refused.ok && refused.kind == api::ErrorKind::Forbidden, "a changed trailer value passed");
    }
    const auto good = decode(key, body, body.size(), withTrailer);
    FUZZ_CHECK(good.ok && good.done && good.out == text, "a correctly signed body did not decode to its payload");
    const auto which = sigOffsets[text.size() % sigOffsets.size()];
    auto bad = body;
    bad[which] = bad[which] == '0' ? '1' : '0';
    const auto refused = decode(key, bad, 7, withTrailer);
    FUZZ_CHECK(!refused.ok && refused.kind == api::ErrorKind::Forbidden, "a changed chunk signature passed");
    FUZZ_CHECK(refused.out.size() <= text.size() && text.compare(0, refused.out.size(), refused.out) == 0,
               "a refused body handed out bytes that are not the payload's");
    return 0;
}
