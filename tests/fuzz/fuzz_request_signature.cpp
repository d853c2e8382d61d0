// Redirect signatures (daemon/auth/request_signature.h): the tsig and texp
// query parameters of a redirected request, as anyone can write them. The
// input is "method\nbucket\nobject\ntsig\ntexp". A signature the fuzzer
// writes is refused unless it is the one the proxy would have made; the
// proxy's own signature for the same request verifies, and not for another
// object.

#include "fuzz_check.h"

#include "auth/request_signature.h"

using namespace tessera;
using daemon::auth::RequestSignature;

namespace {

constexpr std::int64_t kNow = 1'800'000'000;

const RequestSignature& signer()
{
    static const auto s = RequestSignature::create(std::string(RequestSignature::kMinKeyBytes, 'k'));
    return *s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    auto parts = fuzz::splitAll(fuzz::asText(data, size), '\n');
    parts.resize(5);
    const auto method = parts[0];
    const auto bucket = parts[1];
    const auto object = parts[2];
    const auto tsig = parts[3];
    const auto texp = parts[4];
    const auto& s = signer();

    const auto st = s.verify(method, bucket, object, tsig, texp, kNow);
    if (!st) {
        FUZZ_CHECK(st.kind() == api::ErrorKind::Unauthorized, fuzz::errorText(st));
    } else {
        // Accepted: texp is in the window and tsig is exactly the proxy's
        // (signed at a `now` that makes the same expiry: sign() gives at
        // least one second).
        const auto expires = std::stoll(std::string(texp));
        FUZZ_CHECK(expires >= kNow && expires - kNow <= RequestSignature::kMaxLifetime, std::string(texp));
        const auto query = s.sign(method, bucket, object, expires - 1, 1);
        const auto amp = query.find('&');
        FUZZ_CHECK(query.substr(5, amp - 5) == tsig, query);
    }

    // The proxy's signature for this request, read back from its query.
    const auto query = s.sign(method, bucket, object, kNow, 30);
    const auto amp = query.find('&');
    const auto sig = std::string_view(query).substr(5, amp - 5);
    const auto exp = std::string_view(query).substr(amp + 6);
    const auto own = s.verify(method, bucket, object, sig, exp, kNow);
    FUZZ_CHECK(own.ok(), query + " " + fuzz::errorText(own));
    FUZZ_CHECK(!s.verify(method, bucket, std::string(object) + "x", sig, exp, kNow), query);
    FUZZ_CHECK(!s.verify(method, bucket, object, sig, exp, kNow + 31), query);
    return 0;
}
