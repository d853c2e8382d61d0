// The S3 access-key messages: each round-trips through JSON unchanged with
// its exact wire form, and bad input (missing field, wrong type, unknown
// field, bad access key id, bad user, long description, short secret) is a
// BadRequest naming the field.
#include "api/s3_key_msg.h"
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

class TestS3KeyMsg : public QObject {
    Q_OBJECT

private slots:
    void roundTrips()
    {
        const NewS3Key empty;
        QCOMPARE(roundTrip(empty, "new key"), empty);
        QCOMPARE(json(empty).dump(), std::string("{}"));
        const NewS3Key described{"nightly sync"};
        QCOMPARE(roundTrip(described, "new key"), described);
        QCOMPARE(json(described).dump(), std::string(R"({"description":"nightly sync"})"));

        const S3KeyInfo info{"TKABCDEFGHIJKLMNOPQR", "alice", "", 1700000000};
        QCOMPARE(roundTrip(info, "key"), info);
        QCOMPARE(json(info).dump(),
                 std::string(R"({"access_key":"TKABCDEFGHIJKLMNOPQR","created_at":1700000000,"user":"alice"})"));
        const S3KeyInfo described2{"TK2", "bob.b", "ci", 1};
        QCOMPARE(roundTrip(described2, "key"), described2);

        const S3KeyCreated created{info, "abcdefghijABCDEFGHIJ0123456789abcdefghij"};
        QCOMPARE(roundTrip(created, "created"), created);
        QCOMPARE(json(created).dump(),
                 std::string(R"({"access_key":"TKABCDEFGHIJKLMNOPQR","created_at":1700000000,)"
                             R"("secret_key":"abcdefghijABCDEFGHIJ0123456789abcdefghij","user":"alice"})"));
        // A list of keys is a JSON array of S3KeyInfo.
        auto list = parseMessageList<S3KeyInfo>(json(std::vector<S3KeyInfo>{info, described2}).dump(), "keys");
        QVERIFY(list.ok());
        QCOMPARE(list->size(), std::size_t{2});
        QCOMPARE((*list)[1], described2);
    }

    void refusals()
    {
        QCOMPARE(errorOf<NewS3Key>(R"({"name":"x"})"), std::string("msg: /name: unknown field"));
        QCOMPARE(errorOf<NewS3Key>(R"({"description":7})"), std::string("msg: /description: must be a string"));
        QVERIFY(errorOf<NewS3Key>(json{{"description", std::string(257, 'd')}}.dump()).find("/description") !=
                std::string::npos);
        QCOMPARE(errorOf<NewS3Key>("[]"), std::string("msg: /: must be a JSON object"));

        QVERIFY(errorOf<S3KeyInfo>(R"({"user":"a","created_at":1})").find("/access_key: required") !=
                std::string::npos);
        QVERIFY(errorOf<S3KeyInfo>(R"({"access_key":"TK-1","user":"a","created_at":1})").find("/access_key") !=
                std::string::npos);
        QVERIFY(errorOf<S3KeyInfo>(R"({"access_key":"AB","user":"a","created_at":1})").find("/access_key") !=
                std::string::npos);
        QVERIFY(errorOf<S3KeyInfo>(R"({"access_key":"TKA","user":"a b","created_at":1})").find("/user") !=
                std::string::npos);
        QVERIFY(errorOf<S3KeyInfo>(R"({"access_key":"TKA","user":"a","created_at":-1})").find("/created_at") !=
                std::string::npos);
        QVERIFY(errorOf<S3KeyCreated>(R"({"access_key":"TKA","user":"a","created_at":1,"secret_key":"short"})")
                    .find("/secret_key") != std::string::npos);
        QVERIFY(errorOf<S3KeyCreated>(R"({"access_key":"TKA","user":"a","created_at":1})").find("/secret_key") !=
                std::string::npos);

        QVERIFY(validateS3AccessKey("TKABC123").ok());
        QCOMPARE(validateS3AccessKey("TK/ABC").kind(), ErrorKind::BadRequest);
        QCOMPARE(validateS3AccessKey(std::string(129, 'A')).kind(), ErrorKind::BadRequest);
    }
};

QTEST_GUILESS_MAIN(TestS3KeyMsg)
#include "test_s3_key_msg.moc"
