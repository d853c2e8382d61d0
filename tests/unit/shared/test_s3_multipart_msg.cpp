// The messages between the S3 front end and the target that keeps an
// upload's parts (shared/api/s3_multipart_msg.h): each one round-trips
// exactly, and a malformed one is refused naming its field.
#include "api/s3_multipart_msg.h"

#include <QTest>

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
std::string errorOf(const json& j)
{
    auto r = readMessage<T>(j, "msg");
    return r ? std::string("(accepted)") : r.error().message;
}

const std::string kId = "0123456789abcdef0123456789abcdef";
const std::string kMd5 = "900150983cd24fb0d6963f7d28e17f72";

MultipartUpload upload()
{
    return MultipartUpload{"imgs", "train/shard-0001.tar", kId, 1764115200123456789, {{"s3-ct", "application/x-tar"}}};
}

}  // namespace

class TestS3MultipartMsg : public QObject {
    Q_OBJECT

private slots:
    void createAndUpload()
    {
        const MultipartCreate c{{{"s3m.origin", "boto3"}, {"s3-ct", "text/plain"}}};
        QVERIFY(roundTrip(c, "create") == c);
        QVERIFY(roundTrip(MultipartCreate{}, "create").custom.empty());
        const auto u = upload();
        QVERIFY(roundTrip(u, "upload") == u);
        auto j = json(u);
        j["upload_id"] = "XYZ";
        QCOMPARE(errorOf<MultipartUpload>(j), std::string("msg: /upload_id: must be 32 lowercase hex digits"));
        j = json(u);
        j["key"] = "a/../b";
        QVERIFY(errorOf<MultipartUpload>(j).rfind("msg: /key: ", 0) == 0);
        j = json(u);
        j["extra"] = 1;
        QVERIFY(errorOf<MultipartUpload>(j).find("extra") != std::string::npos);
        QVERIFY(validMultipartId(kId));
        QVERIFY(!validMultipartId(kId.substr(1)));
        QVERIFY(!validMultipartId("0123456789ABCDEF0123456789abcdef"));
    }

    void partsAndLists()
    {
        const MultipartPart p{3, kMd5, 5u << 20, 1764115200000000000};
        QVERIFY(roundTrip(p, "part") == p);
        QCOMPARE(errorOf<MultipartPart>(json{{"number", 0}, {"etag", kMd5}, {"size", 1}, {"mtime_ns", 1}}),
                 std::string("msg: /number: must be 1..10000"));
        QCOMPARE(errorOf<MultipartPart>(json{{"number", 10001}, {"etag", kMd5}, {"size", 1}, {"mtime_ns", 1}}),
                 std::string("msg: /number: must be 1..10000"));
        QCOMPARE(
            errorOf<MultipartPart>(json{{"number", 1}, {"etag", "\"" + kMd5 + "\""}, {"size", 1}, {"mtime_ns", 1}}),
            std::string("msg: /etag: must be an MD5 in 32 lowercase hex digits"));
        QCOMPARE(errorOf<MultipartPart>(
                     json{{"number", 1}, {"etag", kMd5}, {"size", (std::uint64_t{5} << 30) + 1}, {"mtime_ns", 1}}),
                 std::string("msg: /size: is larger than 5 GiB"));
        const MultipartPartList l{upload(), {p, MultipartPart{4, kMd5, 1, 2}}};
        QVERIFY(roundTrip(l, "parts") == l);
        const MultipartUploadList ul{{upload(), upload()}};
        QVERIFY(roundTrip(ul, "uploads") == ul);
        QVERIFY(roundTrip(MultipartUploadList{}, "uploads").uploads.empty());
        QCOMPARE(errorOf<MultipartUploadList>(json{{"uploads", json::array({json{{"bucket", "b"}}})}}),
                 std::string("msg: /uploads/0/key: required"));
    }

    void partCopy()
    {
        const MultipartPartCopy whole{"src", "a/b.bin", std::nullopt, std::nullopt};
        QVERIFY(roundTrip(whole, "copy") == whole);
        QVERIFY(!json(whole).contains("first"));
        const MultipartPartCopy range{"src", "a/b.bin", 0, (5u << 20) - 1};
        QVERIFY(roundTrip(range, "copy") == range);
        QCOMPARE(errorOf<MultipartPartCopy>(json{{"bucket", "src"}, {"key", "k"}, {"first", 1}}),
                 std::string("msg: /last: first and last go together"));
        QCOMPARE(errorOf<MultipartPartCopy>(json{{"bucket", "src"}, {"key", "k"}, {"first", 9}, {"last", 3}}),
                 std::string("msg: /last: must not be less than first"));
        QCOMPARE(errorOf<MultipartPartCopy>(
                     json{{"bucket", "src"}, {"key", "k"}, {"first", 0}, {"last", std::uint64_t{5} << 30}}),
                 std::string("msg: /last: the range is larger than 5 GiB"));
        QVERIFY(errorOf<MultipartPartCopy>(json{{"bucket", "src"}, {"key", "/abs"}}).rfind("msg: /key: ", 0) == 0);
    }

    void completion()
    {
        const MultipartComplete c{{{1, kMd5}, {2, "\"" + kMd5 + "\""}}};
        QVERIFY(roundTrip(c, "complete") == c);
        QCOMPARE(errorOf<MultipartComplete>(json{{"parts", json::array()}}),
                 std::string("msg: /parts: must name at least one part"));
        QCOMPARE(errorOf<MultipartComplete>(json{{"parts", json::array({json{{"number", 0}, {"etag", kMd5}}})}}),
                 std::string("msg: /parts/0/number: must be 1..10000"));
        json many = json::array();
        for (int i = 0; i < 10001; ++i) many.push_back(json{{"number", 1}, {"etag", kMd5}});
        QCOMPARE(errorOf<MultipartComplete>(json{{"parts", many}}), std::string("msg: /parts: more than 10000 parts"));
        const MultipartCompleted done{kMd5 + "-13", 104857600, 1764115200000000000};
        QVERIFY(roundTrip(done, "completed") == done);
        QCOMPARE(errorOf<MultipartCompleted>(json{{"etag", kMd5}, {"size", -1}, {"mtime_ns", 0}}),
                 std::string("msg: /size: must be a non-negative whole number"));
    }

    void paths()
    {
        QCOMPARE(path::multipartUploads("imgs"), std::string("/v1/internal/s3/uploads/imgs"));
        QCOMPARE(path::multipartUpload("imgs", "a b/c"), std::string("/v1/internal/s3/uploads/imgs/a%20b/c"));
        QCOMPARE(path::multipartPart("imgs", "k"), std::string("/v1/internal/s3/parts/imgs/k"));
        QCOMPARE(path::multipartComplete("imgs", "k"), std::string("/v1/internal/s3/complete/imgs/k"));
        QCOMPARE(path::multipartPartCopy("imgs", "k"), std::string("/v1/internal/s3/part-copy/imgs/k"));
    }
};

QTEST_GUILESS_MAIN(TestS3MultipartMsg)
#include "test_s3_multipart_msg.moc"
