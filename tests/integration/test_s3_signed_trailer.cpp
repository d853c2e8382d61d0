// STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER against a real cluster whose
// proxy verifies signatures (a keys file): a body of signed chunks with a
// signed CRC32C trailer is stored; a tampered chunk, a tampered trailer and
// a trailer signed with another secret are 403 SignatureDoesNotMatch and
// store nothing (the previous version stays). The request is signed here
// with the node's own SigV4 code, which test_s3_sigv4 checks against AWS's
// published example of this form.
#include "local_cluster.h"

#include "api/paths.h"
#include "api/s3_msg.h"
#include "client/http_client.h"
#include "s3/sigv4.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <ctime>

using namespace tessera;
using namespace tessera::daemon::s3;
using client::Body;
using client::Method;

namespace {
constexpr const char* kAccessKey = "AKIDTRAILERTEST";
constexpr const char* kSecret = "trailer-test-secret";

std::string amzNow()
{
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
    return buf;
}

// CRC32C (Castagnoli), base64 of its big-endian bytes, as S3's trailer.
std::string crc32cBase64(const std::string& data)
{
    std::uint32_t crc = 0xffffffffu;
    for (unsigned char c : data) {
        crc ^= c;
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1u)));
    }
    crc ^= 0xffffffffu;
    QByteArray raw;
    for (int shift : {24, 16, 8, 0}) raw.append(static_cast<char>((crc >> shift) & 0xffu));
    return raw.toBase64().toStdString();
}

struct SignedPut {
    client::Headers headers;
    std::string body;
};

// A PUT of `payload` in chunks of `chunkSize`, its CRC32C in a signed
// trailer. `tamper`: 1 changes a byte of the first chunk after signing, 2
// changes the trailer's checksum after signing, 3 signs the trailer with
// another secret.
SignedPut signedTrailerPut(const std::string& hostPort, const std::string& path, const std::string& payload,
                           std::size_t chunkSize, int tamper)
{
    SigV4 sig;
    sig.accessKey = kAccessKey;
    sig.amzDate = amzNow();
    sig.date = sig.amzDate.substr(0, 8);
    sig.region = "us-east-1";
    sig.service = "s3";
    sig.payloadHash = std::string(kStreamingSignedTrailer);
    sig.signedHeaders = {
        "content-encoding", "host", "x-amz-content-sha256", "x-amz-date", "x-amz-decoded-content-length",
        "x-amz-trailer"};
    std::map<std::string, std::string> h{{"content-encoding", "aws-chunked"},
                                         {"host", hostPort},
                                         {"x-amz-content-sha256", sig.payloadHash},
                                         {"x-amz-date", sig.amzDate},
                                         {"x-amz-decoded-content-length", std::to_string(payload.size())},
                                         {"x-amz-trailer", "x-amz-checksum-crc32c"}};
    SignedRequest req;
    req.method = "PUT";
    req.path = path;
    req.header = [&h](std::string_view name) {
        auto it = h.find(std::string(name));
        return it == h.end() ? std::string() : it->second;
    };
    const auto key = signingKey(kSecret, sig);
    sig.signature = hmacHex(key, stringToSign(sig, canonicalRequest(req, sig)));

    std::string body;
    std::string previous = sig.signature;
    const auto addChunk = [&](const std::string& data) {
        previous = chunkSignature(key, sig, previous, sha256Hex(data));
        char size[32];
        std::snprintf(size, sizeof size, "%zx", data.size());
        body += std::string(size) + ";chunk-signature=" + previous + "\r\n" + data + "\r\n";
    };
    for (std::size_t i = 0; i < payload.size(); i += chunkSize) addChunk(payload.substr(i, chunkSize));
    previous = chunkSignature(key, sig, previous, sha256Hex(""));
    body += "0;chunk-signature=" + previous + "\r\n";
    const auto checksum = crc32cBase64(payload);
    const auto trailerKey = tamper == 3 ? signingKey("not-the-secret", sig) : key;
    const auto trailerSig = trailerSignature(trailerKey, sig, previous, "x-amz-checksum-crc32c:" + checksum + "\n");
    body += "x-amz-checksum-crc32c:" + (tamper == 2 ? crc32cBase64(payload + "x") : checksum) + "\r\n";
    body += "x-amz-trailer-signature:" + trailerSig + "\r\n\r\n";
    if (tamper == 1) body[body.find("\r\n") + 5] ^= 1;

    SignedPut out;
    out.body = std::move(body);
    for (const auto& [k, v] : h) {
        if (k != "host") out.headers.emplace_back(k, v);
    }
    std::string signedList;
    for (const auto& s : sig.signedHeaders) signedList += (signedList.empty() ? "" : ";") + s;
    out.headers.emplace_back("Authorization", "AWS4-HMAC-SHA256 Credential=" + sig.accessKey + "/" + sig.scope() +
                                                  ", SignedHeaders=" + signedList + ", Signature=" + sig.signature);
    return out;
}
}  // namespace

class TestS3SignedTrailer : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<tests::LocalCluster> m_cluster;
    client::HttpClient m_http;

    std::string hostPort() const
    {
        const auto url = m_cluster->proxyUrl();
        return url.substr(url.find("://") + 3);
    }
    client::Response put(const std::string& key, const std::string& payload, int tamper)
    {
        const std::string path = "/s3/trailed/" + key;
        auto p = signedTrailerPut(hostPort(), path, payload, 64 * 1024, tamper);
        auto r = m_http.send(Method::Put, m_cluster->proxyUrl() + path, Body::string(p.body), p.headers);
        if (!r) qFatal("PUT: %s", r.error().message.c_str());
        return *r;
    }
    // The object's bytes, read through the native API (no S3 signature needed).
    std::string stored(const std::string& key, int* status)
    {
        auto r = m_http.send(Method::Get, m_cluster->proxyUrl() + api::path::object("trailed", key));
        *status = r ? r->status : 0;
        return r ? r->body : std::string();
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const QString keys = m_dir.path() + "/keys.json";
        QFile f(keys);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray("{\"keys\":[{\"access_key\":\"") + kAccessKey + "\",\"secret_key\":\"" + kSecret +
                "\",\"user\":\"tester\"}]}");
        f.close();
        tests::LocalCluster::Options o;
        o.targets = 1;
        o.extraProxyArgs = {"--s3-keys-file", keys};
        m_cluster = std::make_unique<tests::LocalCluster>(o);
        QVERIFY2(m_cluster->start(), m_cluster->error().c_str());
        QCOMPARE(m_http
                     .send(Method::Post, m_cluster->proxyUrl() + "/v1/buckets/trailed",
                           Body::string("{\"action\":\"create-bck\"}"), {{"Content-Type", "application/json"}})
                     ->status,
                 200);
    }

    void signedTrailerIsStored()
    {
        std::string payload;
        for (int i = 0; payload.size() < 200 * 1024; ++i) payload += "line " + std::to_string(i) + "\n";
        auto r = put("obj", payload, 0);
        QVERIFY2(r.status == 200, r.body.c_str());
        int status = 0;
        QCOMPARE(stored("obj", &status), payload);
        QCOMPARE(status, 200);
    }

    void tamperedBodiesStoreNothing_data()
    {
        QTest::addColumn<int>("tamper");
        QTest::addColumn<QString>("reason");
        QTest::newRow("chunk") << 1 << "a chunk's signature";
        QTest::newRow("trailer value") << 2 << "the trailer's signature";
        QTest::newRow("trailer key") << 3 << "the trailer's signature";
    }

    void tamperedBodiesStoreNothing()
    {
        QFETCH(int, tamper);
        QFETCH(QString, reason);
        const std::string previous = "the version before";
        auto first = put("kept", previous, 0);
        QVERIFY2(first.status == 200, first.body.c_str());
        auto r = put("kept", std::string(150 * 1024, 'z'), tamper);
        QCOMPARE(r.status, 403);
        auto e = api::parseS3Error(r.body);
        QVERIFY2(e, r.body.c_str());
        QCOMPARE(e->code, std::string("SignatureDoesNotMatch"));
        QVERIFY2(QString::fromStdString(e->message).contains(reason), e->message.c_str());
        int status = 0;
        QCOMPARE(stored("kept", &status), previous);
        // A new key refused the same way leaves no object at all.
        r = put("never-" + std::to_string(tamper), std::string(70 * 1024, 'q'), tamper);
        QCOMPARE(r.status, 403);
        stored("never-" + std::to_string(tamper), &status);
        QCOMPARE(status, 404);
    }
};

QTEST_GUILESS_MAIN(TestS3SignedTrailer)
#include "test_s3_signed_trailer.moc"
