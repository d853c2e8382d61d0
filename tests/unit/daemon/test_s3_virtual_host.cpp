// Virtual-host style S3 (daemon/s3/virtual_host.h): which Host headers name a
// bucket, the path each request is routed by on the proxy's port ("/s3")
// and on the S3 port (""), and the suffixes the config accepts.
#include "s3/virtual_host.h"

#include <QTest>

using namespace tessera::daemon::s3;

class TestS3VirtualHost : public QObject {
    Q_OBJECT

private slots:
    void routedPaths()
    {
        const auto at = [](const char* host, const char* path, const char* prefix) {
            auto p = virtualHostPath(host, path, "s3.local", prefix);
            return p ? *p : std::string("(as is)");
        };
        // A bucket in the Host: the path is the key.
        QCOMPARE(at("imgs.s3.local", "/cat/1.jpg", "/s3"), std::string("/s3/imgs/cat/1.jpg"));
        QCOMPARE(at("imgs.s3.local:8080", "/cat/1.jpg", ""), std::string("/imgs/cat/1.jpg"));
        QCOMPARE(at("imgs.s3.local:9000", "/", ""), std::string("/imgs"));
        QCOMPARE(at("imgs.s3.local", "/", "/s3"), std::string("/s3/imgs"));
        QCOMPARE(at("imgs.s3.local", "", "/s3"), std::string("/s3/imgs"));
        QCOMPARE(at("imgs.s3.local", "/dir/", "/s3"), std::string("/s3/imgs/dir/"));
        QCOMPARE(at("IMGS.S3.Local:80", "/k%20x", "/s3"), std::string("/s3/imgs/k%20x"));  // case-blind, escapes kept
        QCOMPARE(at("my.dotted-bucket.s3.local", "/k", ""), std::string("/my.dotted-bucket/k"));
        // The suffix itself: the service (path style under it).
        QCOMPARE(at("s3.local", "/", "/s3"), std::string("/s3"));
        QCOMPARE(at("s3.local:8080", "/", ""), std::string("/"));
        QCOMPARE(at("s3.local", "/imgs/k", "/s3"), std::string("/s3/imgs/k"));
        // Anything else is routed as it is.
        QCOMPARE(at("127.0.0.1:8080", "/v1/buckets", "/s3"), std::string("(as is)"));
        QCOMPARE(at("evils3.local", "/k", "/s3"), std::string("(as is)"));
        QCOMPARE(at("s3.local.example", "/k", "/s3"), std::string("(as is)"));
        QCOMPARE(at(".s3.local", "/k", "/s3"), std::string("(as is)"));
        QCOMPARE(at("a_b.s3.local", "/k", "/s3"), std::string("(as is)"));
        QCOMPARE(at("a%2fb.s3.local", "/k", "/s3"), std::string("(as is)"));
        QCOMPARE(at("[::1]:8080", "/k", "/s3"), std::string("(as is)"));
        QCOMPARE(at("", "/k", "/s3"), std::string("(as is)"));
        QVERIFY(!virtualHostPath("imgs.s3.local", "/k", "", "/s3"));  // off
    }

    void suffixes()
    {
        for (const char* ok : {"s3.local", "localhost", "s3.example.com", "a-b.c0"}) {
            QVERIFY2(!checkVirtualHostSuffix(ok), ok);
        }
        for (const char* bad :
             {"", "S3.local", "s3..local", ".s3", "s3.", "-a.b", "a-.b", "a_b.c", "s3.local:80", "a b"}) {
            QVERIFY2(checkVirtualHostSuffix(bad), bad);
        }
        QVERIFY(checkVirtualHostSuffix(std::string(64, 'a') + ".b"));
        QVERIFY(!checkVirtualHostSuffix(std::string(63, 'a') + ".b"));
    }
};

QTEST_GUILESS_MAIN(TestS3VirtualHost)
#include "test_s3_virtual_host.moc"
