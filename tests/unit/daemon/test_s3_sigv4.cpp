// SigV4 against the examples of AWS's S3 documentation (header form,
// presigned URL, the chunks of a STREAMING-AWS4-HMAC-SHA256-PAYLOAD upload,
// and the chunks and trailer of a ...-PAYLOAD-TRAILER one), with AWS's
// example keys; and the refusals: a changed header, a wrong secret, an
// expired URL, a skewed clock, malformed headers, SigV2, a tampered or
// truncated chunk, a tampered or unsigned trailer.
#include "s3/aws_chunked_decoder.h"
#include "s3/sigv4.h"

#include <QTest>
#include <map>

using namespace tessera;
using namespace tessera::daemon::s3;

namespace {
constexpr const char* kSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
constexpr std::int64_t kWhen = 1369353600;  // 20130524T000000Z

SignedRequest request(std::string method, std::string path, std::map<std::string, std::string> headers,
                      api::QueryMap query = {})
{
    SignedRequest r;
    r.method = std::move(method);
    r.path = std::move(path);
    r.query = std::move(query);
    r.header = [headers = std::move(headers)](std::string_view name) {
        std::string n(name);
        for (auto& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        auto it = headers.find(n);
        return it == headers.end() ? std::string() : it->second;
    };
    return r;
}

std::map<std::string, std::string> getHeaders()
{
    return {{"host", "examplebucket.s3.amazonaws.com"},
            {"range", "bytes=0-9"},
            {"x-amz-content-sha256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
            {"x-amz-date", "20130524T000000Z"},
            {"authorization",
             "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
             "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
             "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"}};
}

std::map<std::string, std::string> streamingHeaders()
{
    return {{"host", "s3.amazonaws.com"},
            {"x-amz-date", "20130524T000000Z"},
            {"x-amz-storage-class", "REDUCED_REDUNDANCY"},
            {"content-encoding", "aws-chunked"},
            {"x-amz-decoded-content-length", "66560"},
            {"content-length", "66824"},
            {"x-amz-content-sha256", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"},
            {"authorization",
             "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
             "SignedHeaders=content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;"
             "x-amz-decoded-content-length;x-amz-storage-class,"
             "Signature=4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9"}};
}

std::string chunk(std::size_t n, const std::string& sig)
{
    char size[32];
    std::snprintf(size, sizeof size, "%zx", n);
    return std::string(size) + ";chunk-signature=" + sig + "\r\n" + std::string(n, 'a') + "\r\n";
}

std::string streamingBody()
{
    return chunk(65536, "ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648") +
           chunk(1024, "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497") +
           "0;chunk-signature=b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9\r\n\r\n";
}

QString errorOf(const api::Status& st) { return st ? QString() : QString::fromStdString(st.error().message); }
}  // namespace

class TestS3SigV4 : public QObject {
    Q_OBJECT

private slots:
    void headerFormMatchesAwsExample()
    {
        const auto req = request("GET", "/test.txt", getHeaders());
        auto sig = parseSigV4(req);
        QVERIFY(sig && *sig);
        QCOMPARE(QString::fromStdString((*sig)->accessKey), QStringLiteral("AKIAIOSFODNN7EXAMPLE"));
        QCOMPARE(QString::fromStdString((*sig)->scope()), QStringLiteral("20130524/us-east-1/s3/aws4_request"));
        QVERIFY2(verifySigV4(req, **sig, kSecret, kWhen), "AWS's example signature");
        // The same request a minute later (within the skew) still holds.
        QVERIFY(verifySigV4(req, **sig, kSecret, kWhen + 60));
    }

    void refusesChangedRequestsAndWrongKeys()
    {
        auto h = getHeaders();
        h["range"] = "bytes=0-10";
        auto changed = request("GET", "/test.txt", h);
        auto sig = parseSigV4(changed);
        QVERIFY(sig && *sig);
        QVERIFY(errorOf(verifySigV4(changed, **sig, kSecret, kWhen)).startsWith("SignatureDoesNotMatch"));
        const auto req = request("GET", "/test.txt", getHeaders());
        auto good = parseSigV4(req);
        QVERIFY(errorOf(verifySigV4(req, **good, "another secret", kWhen)).startsWith("SignatureDoesNotMatch"));
        QCOMPARE(verifySigV4(req, **good, kSecret, kWhen + 3600).error().kind, api::ErrorKind::Forbidden);
        QVERIFY(errorOf(verifySigV4(req, **good, kSecret, kWhen + 3600)).startsWith("RequestTimeTooSkewed"));
        auto otherPath = request("GET", "/test2.txt", getHeaders());
        QVERIFY(!verifySigV4(otherPath, **good, kSecret, kWhen));
    }

    void presignedMatchesAwsExample()
    {
        api::QueryMap q{{"X-Amz-Algorithm", "AWS4-HMAC-SHA256"},
                        {"X-Amz-Credential", "AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request"},
                        {"X-Amz-Date", "20130524T000000Z"},
                        {"X-Amz-Expires", "86400"},
                        {"X-Amz-SignedHeaders", "host"},
                        {"X-Amz-Signature", "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"}};
        const auto req = request("GET", "/test.txt", {{"host", "examplebucket.s3.amazonaws.com"}}, q);
        auto sig = parseSigV4(req);
        QVERIFY(sig && *sig);
        QVERIFY((*sig)->presigned);
        QVERIFY2(verifySigV4(req, **sig, kSecret, kWhen + 100), "AWS's presigned example");
        QVERIFY(errorOf(verifySigV4(req, **sig, kSecret, kWhen + 86401)).contains("expired"));
    }

    void streamingChunksMatchAwsExample()
    {
        const auto req = request("PUT", "/examplebucket/chunkObject.txt", streamingHeaders());
        auto sig = parseSigV4(req);
        QVERIFY(sig && *sig);
        QVERIFY((*sig)->streaming());
        QVERIFY2(verifySigV4(req, **sig, kSecret, kWhen), "seed signature");
        const auto body = streamingBody();
        // Fed in odd pieces: the decoder keeps its state across calls.
        for (std::size_t piece : {std::size_t{1}, std::size_t{7}, std::size_t{4096}, body.size()}) {
            AwsChunkedDecoder d(signingKey(kSecret, **sig), **sig);
            std::string out;
            for (std::size_t i = 0; i < body.size(); i += piece) {
                auto st = d.feed(body.data() + i, std::min(piece, body.size() - i), [&](const char* p, std::size_t n) {
                    out.append(p, n);
                    return api::Status{};
                });
                QVERIFY2(st, st ? "" : st.error().message.c_str());
            }
            QVERIFY(d.done());
            QCOMPARE(out.size(), std::size_t{66560});
            QCOMPARE(out, std::string(66560, 'a'));
        }
    }

    void streamingRefusesTamperedAndTruncatedBodies()
    {
        const auto req = request("PUT", "/examplebucket/chunkObject.txt", streamingHeaders());
        auto sig = parseSigV4(req);
        const auto key = signingKey(kSecret, **sig);
        const auto sink = [](const char*, std::size_t) { return api::Status{}; };
        auto tampered = streamingBody();
        tampered[200] = 'b';
        AwsChunkedDecoder d1(key, **sig);
        auto st = d1.feed(tampered.data(), tampered.size(), sink);
        QVERIFY(errorOf(st).startsWith("SignatureDoesNotMatch"));
        // Without a key (auth off) the same body passes: signatures only parsed.
        AwsChunkedDecoder open({}, **sig);
        QVERIFY(open.feed(tampered.data(), tampered.size(), sink));
        QVERIFY(open.done());
        const auto body = streamingBody();
        AwsChunkedDecoder d2(key, **sig);
        QVERIFY(d2.feed(body.data(), body.size() - 10, sink));
        QVERIFY(!d2.done());
        AwsChunkedDecoder d3(key, **sig);
        const std::string garbage = "zz;chunk-signature=abc\r\n";
        QVERIFY(errorOf(d3.feed(garbage.data(), garbage.size(), sink)).startsWith("IncompleteBody"));
    }

    // STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER with the values of AWS's
    // example (docs "Signature calculations for trailing headers"): its seed
    // signature, the three chunk signatures chained from it, and the
    // x-amz-trailer-signature over "x-amz-checksum-crc32c:sOO8/Q==\n".
    void signedTrailerMatchesAwsExample()
    {
        SigV4 sig;
        sig.accessKey = "AKIAIOSFODNN7EXAMPLE";
        sig.date = "20130524";
        sig.region = "us-east-1";
        sig.service = "s3";
        sig.amzDate = "20130524T000000Z";
        sig.signature = "106e2a8a18243abcf37539882f36619c00e2dfc72633413f02d3b74544bfeb8e";
        sig.payloadHash = std::string(kStreamingSignedTrailer);
        QVERIFY(sig.signedTrailer() && sig.awsChunked() && !sig.streaming());
        const auto key = signingKey(kSecret, sig);
        const std::string finalChunk =
            "0;chunk-signature=2ca2aba2005185cf7159c6277faf83795951dd77a3a99e6e65d5c9f85863f992\r\n";
        const auto body = [&](const std::string& checksum, const std::string& trailerSig) {
            return chunk(65536, "b474d8862b1487a5145d686f57f013e54db672cee1c953b3010fb58501ef5aa2") +
                   chunk(1024, "1c1344b170168f8e65b41376b44b20fe354e373826ccbbe2c1d40a8cae51e5c7") + finalChunk +
                   "x-amz-checksum-crc32c:" + checksum + "\r\nx-amz-trailer-signature:" + trailerSig + "\r\n\r\n";
        };
        const std::string goodSig = "d81f82fc3505edab99d459891051a732e8730629a2e4a59689829ca17fe2e435";
        QCOMPARE(trailerSignature(key, sig, "2ca2aba2005185cf7159c6277faf83795951dd77a3a99e6e65d5c9f85863f992",
                                  "x-amz-checksum-crc32c:sOO8/Q==\n"),
                 goodSig);
        const auto good = body("sOO8/Q==", goodSig);
        const auto decoder = [&](const std::string& k) {
            return AwsChunkedDecoder(k, sig, std::move(TrailerChecksum::create("x-amz-checksum-crc32c").value()));
        };
        for (std::size_t piece : {std::size_t{1}, std::size_t{13}, good.size()}) {
            auto d = decoder(key);
            std::string out;
            for (std::size_t i = 0; i < good.size(); i += piece) {
                auto st = d.feed(good.data() + i, std::min(piece, good.size() - i), [&](const char* p, std::size_t n) {
                    out.append(p, n);
                    return api::Status{};
                });
                QVERIFY2(st, st ? "" : st.error().message.c_str());
            }
            QVERIFY(d.done());
            QCOMPARE(out, std::string(66560, 'a'));
        }
        const auto sink = [](const char*, std::size_t) { return api::Status{}; };
        const auto refusal = [&](const std::string& b, const std::string& k = {}) {
            auto d = decoder(k.empty() ? key : k);
            return errorOf(d.feed(b.data(), b.size(), sink));
        };
        // A tampered chunk: its signature fails before the trailer is read.
        auto tampered = good;
        tampered[300] = 'b';
        QVERIFY(refusal(tampered).startsWith("SignatureDoesNotMatch: a chunk"));
        // A tampered trailer (another checksum with the old signature): the
        // trailer signature fails first, not the checksum.
        QVERIFY(refusal(body("AAAAAA==", goodSig)).startsWith("SignatureDoesNotMatch: the trailer"));
        QVERIFY(refusal(body("sOO8/Q==", std::string(64, '0'))).startsWith("SignatureDoesNotMatch: the trailer"));
        // The trailer signature missing, malformed, or followed by another line.
        const auto prefix = good.substr(0, good.find("x-amz-checksum-crc32c"));
        QVERIFY(refusal(prefix + "x-amz-checksum-crc32c:sOO8/Q==\r\n\r\n").startsWith("IncompleteBody"));
        QVERIFY(refusal(prefix + "x-amz-checksum-crc32c:sOO8/Q==\r\nx-amz-trailer-signature:abc\r\n\r\n")
                    .startsWith("IncompleteBody"));
        QVERIFY(refusal(prefix + "x-amz-checksum-crc32c:sOO8/Q==\r\nx-amz-trailer-signature:" + goodSig +
                        "\r\nx-amz-meta-a:b\r\n\r\n")
                    .startsWith("IncompleteBody"));
        // Signed by another secret.
        const auto otherKey = signingKey("another-secret-key", sig);
        QVERIFY(refusal(good, otherKey).startsWith("SignatureDoesNotMatch"));
        // Auth off: signatures parsed, not checked; the checksum still is.
        auto open = AwsChunkedDecoder({}, sig, std::move(TrailerChecksum::create("x-amz-checksum-crc32c").value()));
        const auto wrongSum = body("AAAAAA==", goodSig);
        QVERIFY(errorOf(open.feed(wrongSum.data(), wrongSum.size(), sink)).startsWith("BadDigest"));
        auto open2 = AwsChunkedDecoder({}, sig, std::move(TrailerChecksum::create("x-amz-checksum-crc32c").value()));
        const auto otherSig = body("sOO8/Q==", std::string(64, '0'));
        QVERIFY(open2.feed(otherSig.data(), otherSig.size(), sink));
        QVERIFY(open2.done());
        // An unsigned body may not carry a trailer signature.
        const std::string unsignedWithSig =
            "5\r\nhello\r\n0\r\nx-amz-checksum-crc32:NhCmhg==\r\nx-amz-trailer-signature:" + goodSig + "\r\n\r\n";
        AwsChunkedDecoder u(std::move(TrailerChecksum::create("x-amz-checksum-crc32").value()));
        QVERIFY(errorOf(u.feed(unsignedWithSig.data(), unsignedWithSig.size(), sink)).startsWith("IncompleteBody"));
    }

    // STREAMING-UNSIGNED-PAYLOAD-TRAILER (awscli over https): unsigned
    // chunks, then the checksum x-amz-trailer names, checked against the bytes.
    void unsignedTrailerBodies_data()
    {
        QTest::addColumn<QString>("trailer");
        QTest::addColumn<QString>("value");
        QTest::newRow("crc32") << "x-amz-checksum-crc32"
                               << "DUoRhQ==";
        QTest::newRow("crc32c") << "X-Amz-Checksum-CRC32C"
                                << "yZRlqg==";
        QTest::newRow("sha1") << "x-amz-checksum-sha1"
                              << "Kq5sNclPz7QV2+lfQIuc6R7oRu0=";
        QTest::newRow("sha256") << "x-amz-checksum-sha256"
                                << "uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek=";
    }

    void unsignedTrailerBodies()
    {
        QFETCH(QString, trailer);
        QFETCH(QString, value);
        const auto name = trailer.toLower().toStdString();
        const auto body = [&](const std::string& v) {
            return "5\r\nhello\r\n6\r\n world\r\n0\r\n" + name + ":" + v + "\r\n\r\n";
        };
        const auto good = body(value.toStdString());
        for (std::size_t piece : {std::size_t{1}, std::size_t{3}, good.size()}) {
            auto checksum = TrailerChecksum::create(trailer.toStdString());
            QVERIFY(checksum);
            AwsChunkedDecoder d(std::move(checksum.value()));
            std::string out;
            for (std::size_t i = 0; i < good.size(); i += piece) {
                auto st = d.feed(good.data() + i, std::min(piece, good.size() - i), [&](const char* p, std::size_t n) {
                    out.append(p, n);
                    return api::Status{};
                });
                QVERIFY2(st, st ? "" : st.error().message.c_str());
            }
            QVERIFY(d.done());
            QCOMPARE(out, std::string("hello world"));
        }
        const auto sink = [](const char*, std::size_t) { return api::Status{}; };
        // Other bytes than the checksum says.
        const auto bad = body("AAAAAA==");
        AwsChunkedDecoder d1(std::move(TrailerChecksum::create(trailer.toStdString()).value()));
        QVERIFY(errorOf(d1.feed(bad.data(), bad.size(), sink)).startsWith("BadDigest"));
        // The trailer missing, or the body cut before it.
        const std::string none = "5\r\nhello\r\n0\r\n\r\n";
        AwsChunkedDecoder d2(std::move(TrailerChecksum::create(trailer.toStdString()).value()));
        QVERIFY(errorOf(d2.feed(none.data(), none.size(), sink)).startsWith("IncompleteBody"));
        AwsChunkedDecoder d3(std::move(TrailerChecksum::create(trailer.toStdString()).value()));
        QVERIFY(d3.feed(good.data(), good.size() - 3, sink));
        QVERIFY(!d3.done());
        // A signed chunk header in an unsigned body.
        const std::string signedChunk = "5;chunk-signature=" + std::string(64, 'a') + "\r\nhello\r\n";
        AwsChunkedDecoder d4(std::move(TrailerChecksum::create(trailer.toStdString()).value()));
        QVERIFY(errorOf(d4.feed(signedChunk.data(), signedChunk.size(), sink)).startsWith("IncompleteBody"));
    }

    void unsupportedTrailerAlgorithm()
    {
        auto c = TrailerChecksum::create("x-amz-checksum-md5");
        QVERIFY(!c);
        QVERIFY(QString::fromStdString(c.error().message).startsWith("InvalidArgument"));
        // The payload marker is accepted, and says the body is aws-chunked.
        auto headers = streamingHeaders();
        headers["x-amz-content-sha256"] = "STREAMING-UNSIGNED-PAYLOAD-TRAILER";
        auto sig = parseSigV4(request("PUT", "/examplebucket/chunkObject.txt", headers));
        QVERIFY(sig && sig->has_value());
        QVERIFY((*sig)->unsignedTrailer() && (*sig)->awsChunked() && !(*sig)->streaming());
    }

    void malformedHeaders_data()
    {
        QTest::addColumn<QString>("authorization");
        QTest::addColumn<QString>("error");
        QTest::newRow("sigv2") << "AWS AKID:c2lnbmF0dXJl"
                               << "Signature Version 2 is not supported";
        QTest::newRow("other scheme") << "Bearer abc"
                                      << "must start with AWS4-HMAC-SHA256";
        QTest::newRow("no signature") << "AWS4-HMAC-SHA256 Credential=A/20130524/us-east-1/s3/aws4_request,"
                                         "SignedHeaders=host"
                                      << "needs Credential, SignedHeaders and Signature";
        QTest::newRow("short credential") << "AWS4-HMAC-SHA256 Credential=A/20130524/s3/aws4_request,"
                                             "SignedHeaders=host,Signature=" +
                                                 QString(64, 'a')
                                          << "the credential must be";
        QTest::newRow("no host") << "AWS4-HMAC-SHA256 Credential=A/20130524/us-east-1/s3/aws4_request,"
                                    "SignedHeaders=x-amz-date,Signature=" +
                                        QString(64, 'a')
                                 << "must include host";
        QTest::newRow("bad signature") << "AWS4-HMAC-SHA256 Credential=A/20130524/us-east-1/s3/aws4_request,"
                                          "SignedHeaders=host,Signature=xyz"
                                       << "64 lowercase hex";
    }
    void malformedHeaders()
    {
        QFETCH(QString, authorization);
        QFETCH(QString, error);
        auto h = getHeaders();
        h["authorization"] = authorization.toStdString();
        auto r = parseSigV4(request("GET", "/t", h));
        QVERIFY(!r);
        QCOMPARE(r.kind(), api::ErrorKind::BadRequest);
        QVERIFY2(QString::fromStdString(r.error().message).contains(error), r.error().message.c_str());
    }

    void anonymousIsNoSignature()
    {
        auto r = parseSigV4(request("GET", "/t", {{"host", "h"}}));
        QVERIFY(r);
        QVERIFY(!*r);
    }
};

QTEST_APPLESS_MAIN(TestS3SigV4)
#include "test_s3_sigv4.moc"
