// AWS SigV4 as the S3 front end reads it (daemon/s3/sigv4.h), from any
// request. The input is "METHOD\nPATH\nQUERY\nheader: value\n...".
// The first byte picks what happens to it:
//   0  parsed as sent: a parsed signature is well formed (64 hex digits, a
//      scope of four parts, signed headers that include host), and it never
//      verifies with the fuzz secret (the fuzzer cannot sign);
//   1  parsed, then signed here with the secret: the re-signed request
//      verifies at its own time, and fails with another method, another path,
//      another secret or (header form) a clock 16 minutes away.

#include "fuzz_check.h"

#include "s3/sigv4.h"

#include <algorithm>
#include <cctype>
#include <map>

using namespace tessera;
using namespace tessera::daemon::s3;

namespace {

// Not the secret of AWS's published examples (the seeds are those requests).
constexpr std::string_view kSecret = "tessera fuzz secret, unknown to every input";

struct Parsed {
    SignedRequest req;
    std::map<std::string, std::string, std::less<>> headers;
};

bool buildRequest(std::string_view text, Parsed& p)
{
    const auto lines = fuzz::splitAll(text, '\n');
    if (lines.size() < 3) return false;
    p.req.method = std::string(lines[0]);
    p.req.path = std::string(lines[1]);
    auto q = api::parseQuery(lines[2]);
    if (!q) return false;
    p.req.query = std::move(*q);
    for (std::size_t i = 3; i < lines.size(); ++i) {
        const auto colon = lines[i].find(':');
        if (colon == std::string_view::npos) continue;
        std::string name(lines[i].substr(0, colon));
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
        auto value = lines[i].substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
        p.headers[name] = std::string(value);
    }
    return true;
}

void bindHeaders(Parsed& p)
{
    p.req.header = [&h = p.headers](std::string_view name) {
        std::string lower(name);
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
        const auto it = h.find(lower);
        return it == h.end() ? std::string() : it->second;
    };
}

bool isLowerHex(std::string_view s)
{
    return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size == 0 || size > 8192) return 0;
    const bool sign = data[0] % 2 == 1;
    Parsed p;
    if (!buildRequest(fuzz::asText(data + 1, size - 1), p)) return 0;
    bindHeaders(p);

    const auto parsed = parseSigV4(p.req);
    if (!parsed) {
        FUZZ_CHECK(parsed.kind() == api::ErrorKind::BadRequest, fuzz::errorText(parsed));
        return 0;
    }
    if (!*parsed) return 0;  // anonymous
    auto sig = **parsed;
    FUZZ_CHECK(sig.signature.size() == 64 && isLowerHex(sig.signature), sig.signature);
    FUZZ_CHECK(!sig.accessKey.empty() && !sig.date.empty() && !sig.region.empty() && !sig.service.empty(), sig.scope());
    FUZZ_CHECK(std::find(sig.signedHeaders.begin(), sig.signedHeaders.end(), "host") != sig.signedHeaders.end(),
               "signed headers without host");
    FUZZ_CHECK(!sig.presigned || (sig.expires > 0 && sig.expires <= kMaxPresignSeconds), sig.signature);

    const auto when = parseAmzDate(sig.amzDate);
    if (!when) return 0;  // verification refuses it; nothing more to check
    if (!sign) {
        FUZZ_CHECK(!verifySigV4(p.req, sig, kSecret, *when), "a signature the fuzzer could not make verified");
        return 0;
    }

    sig.signature = hmacHex(signingKey(kSecret, sig), stringToSign(sig, canonicalRequest(p.req, sig)));
    const auto ok = verifySigV4(p.req, sig, kSecret, *when);
    FUZZ_CHECK(ok, ok ? std::string() : ok.error().message);
    FUZZ_CHECK(!verifySigV4(p.req, sig, "another secret", *when), "another secret verified");
    if (!sig.presigned) FUZZ_CHECK(!verifySigV4(p.req, sig, kSecret, *when + 16 * 60), "a skewed clock verified");

    auto other = p;
    bindHeaders(other);
    other.req.method += "X";
    FUZZ_CHECK(!verifySigV4(other.req, sig, kSecret, *when), "another method verified");
    other.req.method = p.req.method;
    other.req.path += "x";
    FUZZ_CHECK(!verifySigV4(other.req, sig, kSecret, *when), "another path verified");
    return 0;
}
