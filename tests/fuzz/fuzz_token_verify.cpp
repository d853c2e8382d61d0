// Token verification (daemon/auth/token_service.h) with any token string.
// The first byte picks how the rest becomes a token:
//   0  the bytes are the token as a client sends it: it must be refused
//      (the fuzzer does not hold the key), with Unauthorized;
//   1  the bytes are "header.payload" (base64url), signed here with the
//      service's key: what passes the signature reaches the header and
//      claims checks and libjwt, and whatever it accepts obeys the rules
//      (a known use, a subject and id, unexpired, a lifetime within its
//      kind's maximum, not issued in the future), and once revoked is refused;
//   2  the same with the header and the claims given as JSON text
//      ("header-json\npayload-json"), encoded and signed here;
//   3  the bytes are a user name: a token issued for it verifies to the
//      same claims.

#include "fuzz_check.h"

#include "auth/hmac_sha256.h"
#include "auth/token_service.h"

using namespace tessera;
using daemon::auth::TokenClaims;
using daemon::auth::TokenService;
using daemon::auth::TokenUse;

namespace {

constexpr std::int64_t kNow = 1'800'000'000;
constexpr const char* kKid = "fuzz-key";
const std::string kSecret = "0123456789abcdef0123456789abcdef";  // KeyRing::kKeyBytes

std::string base64Url(std::string_view bytes)
{
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    std::string out;
    std::uint32_t acc = 0;
    int bits = 0;
    for (const char c : bytes) {
        acc = (acc << 8) | static_cast<unsigned char>(c);
        bits += 8;
        while (bits >= 6) {
            bits -= 6;
            out += kAlphabet[(acc >> bits) & 0x3f];
        }
    }
    if (bits > 0) out += kAlphabet[(acc << (6 - bits)) & 0x3f];
    return out;
}

std::string signedToken(std::string_view headerAndPayload)
{
    const auto mac = daemon::auth::hmacSha256(kSecret, headerAndPayload);
    return std::string(headerAndPayload) + "." +
           base64Url(std::string_view(reinterpret_cast<const char*>(mac.data()), mac.size()));
}

void checkAccepted(TokenService& service, const std::string& token, TokenUse use, const TokenClaims& c)
{
    const auto max = c.use == TokenUse::Access ? TokenService::kAccessLifetime : TokenService::kRefreshLifetime;
    FUZZ_CHECK(c.use == use, token);
    FUZZ_CHECK(!c.subject.empty() && !c.jti.empty(), token);
    FUZZ_CHECK(c.expiresAt > kNow && c.expiresAt > c.issuedAt && c.expiresAt - c.issuedAt <= max, token);
    FUZZ_CHECK(c.issuedAt <= kNow + TokenService::kClockSkew, token);
    FUZZ_CHECK(service.revoke(token).ok(), token);
    const auto again = service.verify(token, use);
    FUZZ_CHECK(!again && again.kind() == api::ErrorKind::Unauthorized, token);
}

void verifyBoth(TokenService& service, const std::string& token, bool mayPass)
{
    for (const auto use : {TokenUse::Access, TokenUse::Refresh}) {
        const auto c = service.verify(token, use);
        if (!c) {
            FUZZ_CHECK(c.kind() == api::ErrorKind::Unauthorized, fuzz::errorText(c));
            continue;
        }
        FUZZ_CHECK(mayPass, "a token the fuzzer could not sign was accepted: " + token);
        checkAccepted(service, token, use, *c);
        return;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size == 0) return 0;
    const auto mode = data[0] % 4;
    const auto text = fuzz::asText(data + 1, size - 1);

    // A service per input: revocations of one input do not leak into the next.
    TokenService service([] { return kNow; });
    FUZZ_CHECK(service.addKey(kKid, kSecret).ok(), "addKey");

    switch (mode) {
    case 0: verifyBoth(service, std::string(text), false); break;
    case 1: verifyBoth(service, signedToken(text), true); break;
    case 2: {
        const auto nl = text.find('\n');
        if (nl == std::string_view::npos) break;
        verifyBoth(service, signedToken(base64Url(text.substr(0, nl)) + "." + base64Url(text.substr(nl + 1))), true);
        break;
    }
    default:
        for (const auto use : {TokenUse::Access, TokenUse::Refresh}) {
            const auto issued = service.issue(text, text.size() % 2 == 1, use);
            if (!issued) {
                FUZZ_CHECK(issued.kind() == api::ErrorKind::BadRequest, fuzz::errorText(issued));
                continue;
            }
            const auto c = service.verify(issued->token, use);
            FUZZ_CHECK(c && c->subject == text && c->jti == issued->claims.jti && c->admin == issued->claims.admin &&
                           c->expiresAt == issued->claims.expiresAt,
                       issued->token + " " + fuzz::errorText(c));
            // Neither kind passes for the other.
            const auto other = use == TokenUse::Access ? TokenUse::Refresh : TokenUse::Access;
            FUZZ_CHECK(!service.verify(issued->token, other), issued->token);
        }
    }
    return 0;
}
