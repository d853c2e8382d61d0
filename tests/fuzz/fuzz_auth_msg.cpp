// The security messages (shared/api/auth_msg.h): logins, token answers,
// refresh and revoke requests, users and grants, and the revoked-token list
// and the token-key ring that travel with the cluster metadata. Strict reading: each accepted
// message reads back equal from what its to_json writes.

#include "fuzz_check.h"

#include "api/auth_msg.h"

using namespace tessera;

namespace {

template <typename T>
void roundTrip(std::string_view text, const char* what)
{
    const auto v = api::parseMessage<T>(text, what);
    if (!v) {
        FUZZ_CHECK(v.kind() == api::ErrorKind::BadRequest, fuzz::errorText(v));
        return;
    }
    const auto written = api::dumpJson(nlohmann::json(*v));
    const auto again = api::parseMessage<T>(written, what);
    FUZZ_CHECK(again && *again == *v, written + " " + fuzz::errorText(again));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto text = fuzz::asText(data, size);
    roundTrip<api::LoginRequest>(text, "login");
    roundTrip<api::TokenReply>(text, "token");
    roundTrip<api::RefreshRequest>(text, "refresh");
    roundTrip<api::RevokeRequest>(text, "revoke");
    roundTrip<api::Grant>(text, "grant");
    roundTrip<api::UserInfo>(text, "user");
    roundTrip<api::NewUser>(text, "new user");
    roundTrip<api::RevokedTokens>(text, "revoked tokens");
    roundTrip<api::NewPassword>(text, "password");
    roundTrip<api::TokenKeyRing>(text, "token keys");

    // A valid user name is one a token's subject and a path can carry.
    if (api::validateUserName(text)) {
        FUZZ_CHECK(!text.empty() && text.size() <= api::auth_limits::kMaxUserNameBytes, std::string(text));
        FUZZ_CHECK(text.find_first_of("/?%#\"\\ \n") == std::string_view::npos, std::string(text));
    }
    // A valid key id is one a path and a JWT header carry unescaped.
    if (api::validateKeyId(text)) {
        FUZZ_CHECK(!text.empty() && text.size() <= api::auth_limits::kMaxKeyIdBytes, std::string(text));
        FUZZ_CHECK(text.find_first_of("/?%#\"\\ \n") == std::string_view::npos, std::string(text));
    }
    if (const auto p = api::permissionFromName(text)) FUZZ_CHECK(api::permissionName(*p) == text, std::string(text));
    return 0;
}
