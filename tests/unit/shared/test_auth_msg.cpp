// The security messages: each round-trips through JSON unchanged, and bad
// input (missing field, wrong type, unknown field, unknown permission,
// bad user name, oversized password or token) is a BadRequest naming the
// field.
#include "api/auth_msg.h"
#include "api/wire.h"

#include <QTest>
#include <nlohmann/json.hpp>

using namespace tessera::api;
using nlohmann::json;

namespace {

template <typename T>
T roundTrip(const T& v, const char* what)
{
    auto back = parseMessage<T>(json(v).dump(), what);
    if (!back) qFatal("%s did not round-trip: %s", what, back.error().message.c_str());
    return *back;
}

template <typename T>
std::string errorOf(const std::string& body)
{
    auto r = parseMessage<T>(body, "msg");
    if (r) return "(accepted)";
    if (r.kind() != ErrorKind::BadRequest) return "(wrong kind)";
    return r.error().message;
}

}  // namespace

class TestAuthMsg : public QObject {
    Q_OBJECT

private slots:
    void roundTrips()
    {
        const LoginRequest login{"alice", "s3cret-pass"};
        QCOMPARE(roundTrip(login, "login"), login);
        QCOMPARE(json(login).dump(), std::string(R"({"password":"s3cret-pass","user":"alice"})"));

        TokenReply reply{"a.b.c", 1700000900, std::string("d.e.f"), std::int64_t{1700086400}};
        QCOMPARE(roundTrip(reply, "token"), reply);
        const TokenReply accessOnly{"a.b.c", 1700000900, std::nullopt, std::nullopt};
        QCOMPARE(roundTrip(accessOnly, "token"), accessOnly);
        QCOMPARE(json(accessOnly).dump(), std::string(R"({"expires_at":1700000900,"token":"a.b.c"})"));

        const TokenHeader header{"HS256", "JWT", "0123456789abcdef"};
        QCOMPARE(roundTrip(header, "header"), header);
        QCOMPARE(json(header).dump(), std::string("{\"alg\":\"HS256\",\"kid\":\"0123456789abcdef\",\"typ\":\"JWT\"}"));
        const TokenHeader noTyp{"HS256", "", "k1"};
        QCOMPARE(roundTrip(noTyp, "header"), noTyp);
        QCOMPARE(errorOf<TokenHeader>("{\"alg\":\"none\",\"kid\":\"k\",\"jku\":\"http://x\"}"),
                 std::string("msg: /jku: unknown field"));
        QVERIFY(errorOf<TokenHeader>("{\"alg\":\"HS256\"}").find("kid") != std::string::npos);

        const TokenClaimsWire claims{"alice", 1700000000, 1700000900, "00ff", true, "access"};
        QCOMPARE(roundTrip(claims, "claims"), claims);
        QCOMPARE(json(claims).dump(), std::string("{\"admin\":true,\"exp\":1700000900,\"iat\":1700000000,\"jti\":"
                                                  "\"00ff\",\"sub\":\"alice\",\"use\":\"access\"}"));
        QVERIFY(
            errorOf<TokenClaimsWire>("{\"sub\":\"a\",\"iat\":1,\"exp\":2,\"jti\":\"x\",\"admin\":false}").find("use") !=
            std::string::npos);

        const RefreshRequest refresh{"d.e.f"};
        QCOMPARE(roundTrip(refresh, "refresh"), refresh);
        const RevokeRequest revoke{"a.b.c"};
        QCOMPARE(roundTrip(revoke, "revoke"), revoke);

        const Grant grant{"imgs", {Permission::Read, Permission::AdminBucket}};
        QCOMPARE(roundTrip(grant, "grant"), grant);
        QCOMPARE(json(grant).dump(), std::string(R"({"bucket":"imgs","permissions":["read","admin-bucket"]})"));

        const UserInfo user{"bob", false, {grant, Grant{"*", {Permission::List}}}};
        QCOMPARE(roundTrip(user, "user"), user);
        const NewUser newUser{"carol", "password1", true};
        QCOMPARE(roundTrip(newUser, "new user"), newUser);

        const RevokedTokens revoked{{{"00ff", 1700000900}, {"11ee", 1700000901}}};
        QCOMPARE(roundTrip(revoked, "revoked"), revoked);
        QCOMPARE(roundTrip(RevokedTokens{}, "revoked"), RevokedTokens{});
        const NewPassword pw{"a-new-password"};
        QCOMPARE(roundTrip(pw, "password"), pw);
    }

    void permissionNames()
    {
        for (auto p : kAllPermissions) QCOMPARE(*permissionFromName(permissionName(p)), p);
        QVERIFY(!permissionFromName("READ").has_value());
        QVERIFY(!permissionFromName("admin").has_value());
    }

    void badInput()
    {
        QCOMPARE(errorOf<LoginRequest>(R"({"user":"alice"})"), std::string("msg: /password: required"));
        QCOMPARE(errorOf<LoginRequest>(R"({"user":"alice","password":7})"),
                 std::string("msg: /password: must be a string"));
        QCOMPARE(errorOf<LoginRequest>(R"({"user":"alice","password":"p","role":"admin"})"),
                 std::string("msg: /role: unknown field"));
        QCOMPARE(errorOf<LoginRequest>(R"({"user":"al ice","password":"p"})"),
                 std::string("msg: /user: a user name holds only letters, digits, '.', '_' and '-'"));
        QCOMPARE(errorOf<LoginRequest>(json{{"user", "alice"}, {"password", std::string(1025, 'x')}}.dump()),
                 std::string("msg: /password: is longer than 1024 bytes"));
        QCOMPARE(errorOf<LoginRequest>("{"), std::string("msg: malformed JSON"));
        QCOMPARE(errorOf<LoginRequest>("[]"), std::string("msg: /: must be a JSON object"));

        QCOMPARE(errorOf<Grant>(R"({"bucket":"imgs","permissions":["read","own"]})"),
                 std::string("msg: /permissions/1: \"own\" is not read, list, write, delete or admin-bucket"));
        QCOMPARE(errorOf<Grant>(R"({"bucket":"imgs","permissions":["read","read"]})"),
                 std::string("msg: /permissions/1: \"read\" is named twice"));
        QCOMPARE(errorOf<Grant>(R"({"bucket":"imgs","permissions":[]})"),
                 std::string("msg: /permissions: must name at least one permission"));
        QCOMPARE(errorOf<Grant>(R"({"bucket":"","permissions":["read"]})"),
                 std::string("msg: /bucket: must not be empty"));

        QCOMPARE(errorOf<TokenReply>(R"({"token":"a.b.c","expires_at":"soon"})"),
                 std::string("msg: /expires_at: must be a whole number"));
        QCOMPARE(errorOf<TokenReply>(R"({"token":"a.b.c","expires_at":1,"refresh_token":"x"})"),
                 std::string("msg: /refresh_expires_at: comes with refresh_token, and only with it"));
        QCOMPARE(errorOf<RevokeRequest>(json{{"token", std::string(4097, 'a')}}.dump()),
                 std::string("msg: /token: is longer than 4096 bytes"));
        QCOMPARE(errorOf<RefreshRequest>(R"({"refresh_token":""})"),
                 std::string("msg: /refresh_token: must not be empty"));
        QCOMPARE(errorOf<UserInfo>(R"({"name":"bob","admin":"yes"})"),
                 std::string("msg: /admin: must be true or false"));
        QCOMPARE(errorOf<NewUser>(R"({"name":"","password":"password1"})"),
                 std::string("msg: /name: a user name is 1 to 64 bytes"));
        QCOMPARE(errorOf<RevokedTokens>(R"({"tokens":[{"jti":"","expires_at":1}]})"),
                 std::string("msg: /tokens/0/jti: must be 1 to 64 bytes"));
        QCOMPARE(errorOf<RevokedTokens>(R"({"tokens":[{"jti":"ab"}]})"),
                 std::string("msg: /tokens/0/expires_at: required"));
    }

    void tokenKeyRing()
    {
        QCOMPARE(errorOf<NewPassword>(json{{"password", std::string(1025, 'x')}}.dump()),
                 std::string("msg: /password: is longer than 1024 bytes"));
        const TokenKeyRing ring{3, {"cluster-v1", "0123456789abcdef"}};
        QCOMPARE(json(ring).dump(), std::string(R"({"kids":["cluster-v1","0123456789abcdef"],"version":3})"));
        QCOMPARE(roundTrip(ring, "token keys"), ring);
        QCOMPARE(errorOf<TokenKeyRing>(R"({"version":0,"kids":["a"]})"),
                 std::string("msg: /version: must be at least 1"));
        QCOMPARE(errorOf<TokenKeyRing>(R"({"version":1,"kids":[]})"), std::string("msg: /kids: holds 1 to 8 key ids"));
        QCOMPARE(errorOf<TokenKeyRing>(R"({"version":1,"kids":["a","b","c","d","e","f","g","h","i"]})"),
                 std::string("msg: /kids: holds 1 to 8 key ids"));
        QCOMPARE(errorOf<TokenKeyRing>(R"({"version":1,"kids":["a","a"]})"),
                 std::string("msg: /kids/1: repeats key id \"a\""));
        QCOMPARE(errorOf<TokenKeyRing>(R"({"version":1,"kids":["a b"]})"),
                 std::string("msg: /kids/0: a key id holds only A-Z, a-z, 0-9, '.', '_' and '-'"));
        QCOMPARE(errorOf<TokenKeyRing>(json{{"version", 1}, {"kids", {std::string(65, 'k')}}}.dump()),
                 std::string("msg: /kids/0: a key id is 1 to 64 bytes"));
        QCOMPARE(errorOf<TokenKeyRing>(R"({"version":1,"kids":["a"],"secret":"x"})"),
                 std::string("msg: /secret: unknown field"));
    }
};

QTEST_GUILESS_MAIN(TestAuthMsg)
#include "test_auth_msg.moc"
