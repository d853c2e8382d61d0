// The S3 front end over plain HTTP, without an SDK: exact S3 error documents
// for bad input, and that a refused PUT stores nothing (a truncated
// aws-chunked body, a Content-MD5 or length mismatch leave the previous
// version in place); objects written through S3 and through the native API
// are the same objects; the S3 port of its own serves the root.
#include "local_cluster.h"

#include "api/s3_msg.h"
#include "client/http_client.h"

#include <QTcpServer>
#include <QTest>

using namespace tessera;
using client::Body;
using client::Method;

namespace {
int freePort()
{
    QTcpServer s;
    if (!s.listen(QHostAddress::LocalHost, 0)) return 0;
    return s.serverPort();
}

// A well-formed SigV4 header (auth off: parsed, not verified).
client::Headers signedHeaders(const std::string& payload)
{
    return {{"Authorization",
             "AWS4-HMAC-SHA256 Credential=AKID/20261126/us-east-1/s3/aws4_request, "
             "SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=" +
                 std::string(64, 'a')},
            {"x-amz-date", "20261126T000000Z"},
            {"x-amz-content-sha256", payload}};
}
}  // namespace

class TestS3 : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<tests::LocalCluster> m_cluster;
    client::HttpClient m_http;
    int m_s3Port = 0;

    std::string s3(const std::string& path) const { return m_cluster->proxyUrl() + "/s3" + path; }
    // The S3 error code of an answer ("" when it is not an S3 error).
    static std::string code(const client::Response& r)
    {
        auto e = api::parseS3Error(r.body);
        return e ? e->code : "";
    }
    std::string get(const std::string& path, int* status = nullptr)
    {
        auto r = m_http.send(Method::Get, s3(path));
        if (!r) return "<transport error>";
        if (status) *status = r->status;
        return r->body;
    }

private slots:
    void initTestCase()
    {
        m_s3Port = freePort();
        tests::LocalCluster::Options o;
        o.extraProxyArgs = {"--s3-port", QString::number(m_s3Port)};
        m_cluster = std::make_unique<tests::LocalCluster>(o);
        if (m_cluster->tls()) QSKIP("the S3 front end does not relay to targets over TLS yet");
        QVERIFY2(m_cluster->start(), m_cluster->error().c_str());
        auto r = m_http.send(Method::Put, s3("/s3test"));
        QVERIFY(r);
        QCOMPARE(r->status, 200);
    }

    void missingBucketAndKey()
    {
        auto r = m_http.send(Method::Get, s3("/nobucket/k"));
        QCOMPARE(r->status, 404);
        QCOMPARE(code(*r), std::string("NoSuchBucket"));
        QCOMPARE(r->header("content-type"), std::string("application/xml"));
        r = m_http.send(Method::Get, s3("/s3test/nokey"));
        QCOMPARE(r->status, 404);
        QCOMPARE(code(*r), std::string("NoSuchKey"));
        r = m_http.send(Method::Get, s3("/nobucket"));
        QCOMPARE(code(*r), std::string("NoSuchBucket"));
        r = m_http.send(Method::Put, s3("/Bad_Bucket"));
        QCOMPARE(r->status, 400);
        QCOMPARE(code(*r), std::string("InvalidBucketName"));
    }

    void malformedSignaturesAre400()
    {
        auto h = signedHeaders("UNSIGNED-PAYLOAD");
        h[0].second = "AWS AKID:c2ln";  // SigV2
        auto r = m_http.send(Method::Get, s3("/s3test"), {}, h);
        QCOMPARE(r->status, 400);
        QCOMPARE(code(*r), std::string("AuthorizationHeaderMalformed"));
        QVERIFY(r->body.find("Signature Version 2 is not supported") != std::string::npos);
        h = signedHeaders("not-a-hash");
        r = m_http.send(Method::Put, s3("/s3test/x"), Body::string("abc"), h);
        QCOMPARE(r->status, 400);
        QCOMPARE(code(*r), std::string("AuthorizationHeaderMalformed"));
        // A well-formed signature passes with auth off.
        r = m_http.send(Method::Put, s3("/s3test/signed"), Body::string("abc"), signedHeaders("UNSIGNED-PAYLOAD"));
        QCOMPARE(r->status, 200);
        QCOMPARE(r->header("etag"), std::string("\"900150983cd24fb0d6963f7d28e17f72\""));
    }

    void refusedPutsStoreNothing()
    {
        auto r = m_http.send(Method::Put, s3("/s3test/keep"), Body::string("version one"));
        QCOMPARE(r->status, 200);
        // Content-MD5 of other bytes.
        r = m_http.send(Method::Put, s3("/s3test/keep"), Body::string("version two"),
                        {{"Content-MD5", "AAAAAAAAAAAAAAAAAAAAAA=="}});
        QCOMPARE(r->status, 400);
        QCOMPARE(code(*r), std::string("BadDigest"));
        QCOMPARE(get("/s3test/keep"), std::string("version one"));
        // An aws-chunked body without its final chunk.
        auto h = signedHeaders("STREAMING-AWS4-HMAC-SHA256-PAYLOAD");
        h.emplace_back("x-amz-decoded-content-length", "11");
        const std::string sig = ";chunk-signature=" + std::string(64, 'b') + "\r\n";
        r = m_http.send(Method::Put, s3("/s3test/keep"), Body::string("b" + sig + "version two\r\n"), h);
        QCOMPARE(r->status, 400);
        QCOMPARE(code(*r), std::string("IncompleteBody"));
        QCOMPARE(get("/s3test/keep"), std::string("version one"));
        // Fewer decoded bytes than announced.
        auto h2 = h;
        h2.back().second = "12";
        r = m_http.send(Method::Put, s3("/s3test/keep"), Body::string("b" + sig + "version two\r\n0" + sig + "\r\n"),
                        h2);
        QCOMPARE(r->status, 400);
        QCOMPARE(code(*r), std::string("IncompleteBody"));
        QCOMPARE(get("/s3test/keep"), std::string("version one"));
        // The same body, complete and consistent, is stored.
        r = m_http.send(Method::Put, s3("/s3test/keep"), Body::string("b" + sig + "version two\r\n0" + sig + "\r\n"),
                        h);
        QCOMPARE(r->status, 200);
        QCOMPARE(get("/s3test/keep"), std::string("version two"));
        // Metadata names S3 cannot carry.
        r = m_http.send(Method::Put, s3("/s3test/meta"), Body::string("x"), {{"x-amz-meta-b+d", "1"}});
        QCOMPARE(r->status, 400);
        QCOMPARE(code(*r), std::string("InvalidArgument"));
        int status = 0;
        get("/s3test/meta", &status);
        QCOMPARE(status, 404);
    }

    void badListingAndBatchInput()
    {
        auto r = m_http.send(Method::Get, s3("/s3test?list-type=2&max-keys=-1"));
        QCOMPARE(r->status, 400);
        QCOMPARE(code(*r), std::string("InvalidArgument"));
        r = m_http.send(Method::Get, s3("/s3test?list-type=2&continuation-token=zz"));
        QCOMPARE(code(*r), std::string("InvalidArgument"));
        r = m_http.send(Method::Post, s3("/s3test?delete"), Body::string("<Delete><Object><Key>a</Key></Delete>"));
        QCOMPARE(r->status, 400);
        QCOMPARE(code(*r), std::string("MalformedXML"));
        r = m_http.send(Method::Put, s3("/s3test/mp?partNumber=1&uploadId=0123456789abcdef0123456789abcdef"),
                        Body::string("x"));
        QCOMPARE(r->status, 404);
        QCOMPARE(code(*r), std::string("NoSuchUpload"));
        r = m_http.send(Method::Delete, s3("/s3test"));
        QCOMPARE(r->status, 409);
        QCOMPARE(code(*r), std::string("BucketNotEmpty"));
    }

    void conditionsCopiesAndMultipartRules()
    {
        auto r = m_http.send(Method::Put, s3("/s3test/cond"), Body::string("conditional"));
        QCOMPARE(r->status, 200);
        r = m_http.send(Method::Get, s3("/s3test/cond"), {},
                        {{"If-Unmodified-Since", "Fri, 24 May 2013 00:00:00 GMT"}});
        QCOMPARE(r->status, 412);
        QCOMPARE(code(*r), std::string("PreconditionFailed"));
        r = m_http.send(Method::Get, s3("/s3test?versioning"));
        QCOMPARE(r->status, 200);
        QVERIFY(r->body.find("<VersioningConfiguration") != std::string::npos);
        r = m_http.send(Method::Put, s3("/s3test/cond"), {}, {{"x-amz-copy-source", "/s3test/cond"}});
        QCOMPARE(r->status, 400);
        QCOMPARE(code(*r), std::string("InvalidRequest"));
        r = m_http.send(Method::Put, s3("/s3test/big-meta"), Body::string("x"),
                        {{"x-amz-meta-big", std::string(3000, 'v')}});
        QCOMPARE(r->status, 400);
        QCOMPARE(code(*r), std::string("MetadataTooLarge"));
        // Multipart: a small part that is not the last, parts out of order.
        r = m_http.send(Method::Post, s3("/s3test/mp?uploads"));
        QCOMPARE(r->status, 200);
        auto init = api::parseS3InitiateUpload(r->body);
        QVERIFY(init);
        const auto part = [&](int n, const std::string& body) {
            auto p = m_http.send(Method::Put,
                                 s3("/s3test/mp?partNumber=" + std::to_string(n) + "&uploadId=" + init->uploadId),
                                 Body::string(body));
            return p ? p->header("etag") : std::string();
        };
        api::S3CompleteUpload c;
        c.parts = {{1, part(1, "small"), 0, {}}, {2, part(2, "last"), 0, {}}};
        const auto complete = s3("/s3test/mp?uploadId=" + init->uploadId);
        r = m_http.send(Method::Post, complete, Body::string(api::toXml(c)));
        QCOMPARE(r->status, 400);
        QCOMPARE(code(*r), std::string("EntityTooSmall"));
        std::swap(c.parts[0], c.parts[1]);
        r = m_http.send(Method::Post, complete, Body::string(api::toXml(c)));
        QCOMPARE(code(*r), std::string("InvalidPartOrder"));
        // A single small part is a valid (last) part.
        c.parts = {{1, c.parts[1].etag, 0, {}}};
        r = m_http.send(Method::Post, complete, Body::string(api::toXml(c)));
        QCOMPARE(r->status, 200);
        QCOMPARE(get("/s3test/mp"), std::string("small"));
        r = m_http.send(Method::Delete, s3("/s3test/mp?uploadId=" + init->uploadId));
        QCOMPARE(r->status, 404);
        QCOMPARE(code(*r), std::string("NoSuchUpload"));
    }

    void sameObjectsAsTheNativeApi()
    {
        auto r = m_http.send(Method::Put, s3("/s3test/both/from-s3"), Body::string("written by S3"),
                             {{"x-amz-meta-origin", "s3"}});
        QCOMPARE(r->status, 200);
        r = m_http.send(Method::Get, m_cluster->proxyUrl() + "/v1/objects/s3test/both/from-s3");
        QCOMPARE(r->status, 200);
        QCOMPARE(r->body, std::string("written by S3"));
        QVERIFY(r->header("ais-custom-md").find("s3m.origin=s3") != std::string::npos);
        r = m_http.send(Method::Put, m_cluster->proxyUrl() + "/v1/objects/s3test/both/native",
                        Body::string("written natively"));
        QCOMPARE(r->status, 200);
        const auto xx = r->header("ais-checksum-value");
        r = m_http.send(Method::Get, s3("/s3test/both/native"));
        QCOMPARE(r->status, 200);
        QCOMPARE(r->body, std::string("written natively"));
        // No MD5 was kept for it: the xxhash, marked as not an MD5.
        QCOMPARE(r->header("etag"), "\"" + xx + "-1\"");
        auto list = api::parseS3ObjectList(get("/s3test?list-type=2&prefix=both/"));
        QVERIFY(list);
        QCOMPARE(list->contents.size(), std::size_t{2});
        QCOMPARE(list->contents[0].key, std::string("both/from-s3"));
        QCOMPARE(list->contents[1].key, std::string("both/native"));
        QCOMPARE(list->contents[1].size, std::int64_t{16});
    }

    void s3PortServesTheRoot()
    {
        const std::string root = "http://127.0.0.1:" + std::to_string(m_s3Port);
        auto r = m_http.send(Method::Get, root + "/");
        QCOMPARE(r->status, 200);
        auto buckets = api::parseS3BucketList(r->body);
        QVERIFY(buckets);
        QCOMPARE(buckets->buckets.size(), std::size_t{1});
        QCOMPARE(buckets->buckets[0].name, std::string("s3test"));
        r = m_http.send(Method::Get, root + "/s3test/keep");
        QCOMPARE(r->body, std::string("version two"));
        // Only S3 there: the native API stays on the proxy's own port.
        r = m_http.send(Method::Get, root + "/v1/buckets");
        QCOMPARE(r->status, 404);
    }
};

QTEST_GUILESS_MAIN(TestS3)
#include "test_s3.moc"
