// Bucket and object name validation tables, and percent-decoding tricks.
#include "api/names.h"
#include "api/uri.h"

#include <QTest>

using namespace tessera::api;

Q_DECLARE_METATYPE(std::string)

class TestNames : public QObject {
    Q_OBJECT

private slots:
    void bucketNames_data()
    {
        QTest::addColumn<std::string>("name");
        QTest::addColumn<bool>("valid");
        QTest::newRow("3 chars") << std::string("abc") << true;
        QTest::newRow("63 chars") << std::string(63, 'a') << true;
        QTest::newRow("dots and dashes") << std::string("my.data-set.v2") << true;
        QTest::newRow("digits") << std::string("2024") << true;
        QTest::newRow("2 chars") << std::string("ab") << false;
        QTest::newRow("64 chars") << std::string(64, 'a') << false;
        QTest::newRow("empty") << std::string() << false;
        QTest::newRow("uppercase") << std::string("Data") << false;
        QTest::newRow("underscore") << std::string("my_data") << false;
        QTest::newRow("slash") << std::string("a/bc") << false;
        QTest::newRow("leading dash") << std::string("-abc") << false;
        QTest::newRow("trailing dash") << std::string("abc-") << false;
        QTest::newRow("leading dot") << std::string(".abc") << false;
        QTest::newRow("trailing dot") << std::string("abc.") << false;
        QTest::newRow("double dot") << std::string("a..b") << false;
        QTest::newRow("ipv4") << std::string("192.168.1.1") << false;
        QTest::newRow("ip-like but 5 groups") << std::string("1.2.3.4.5") << true;
        QTest::newRow("space") << std::string("a bc") << false;
        QTest::newRow("unicode") << std::string("caf\xc3\xa9") << false;
    }
    void bucketNames()
    {
        QFETCH(std::string, name);
        QFETCH(bool, valid);
        auto st = validateBucketName(name);
        QCOMPARE(st.ok(), valid);
        if (!valid) {
            QCOMPARE(st.kind(), ErrorKind::BadRequest);
            QVERIFY(!st.error().message.empty());
        }
    }

    void objectNames_data()
    {
        QTest::addColumn<std::string>("name");
        QTest::addColumn<bool>("valid");
        QTest::newRow("simple") << std::string("a") << true;
        QTest::newRow("nested") << std::string("train/n0144/img_1.jpg") << true;
        QTest::newRow("unicode") << std::string("daten/\xc3\xbc\x62\x65r/\xe6\x97\xa5\xe6\x9c\xac.txt") << true;
        QTest::newRow("dots inside") << std::string("a..b/c...d") << true;
        QTest::newRow("1024 bytes") << std::string(4, 'x') + "/" + std::string(255, 'a') + "/" + std::string(255, 'b') +
                                           "/" + std::string(255, 'c') + "/" + std::string(251, 'd')
                                    << true;
        QTest::newRow("1025 bytes") << std::string(4, 'x') + "/" + std::string(255, 'a') + "/" + std::string(255, 'b') +
                                           "/" + std::string(255, 'c') + "/" + std::string(252, 'd')
                                    << false;
        QTest::newRow("component 255") << std::string(255, 'c') << true;
        QTest::newRow("component 256") << std::string(256, 'c') << false;
        QTest::newRow("empty") << std::string() << false;
        QTest::newRow("dotdot") << std::string("..") << false;
        QTest::newRow("dotdot inside") << std::string("a/../b") << false;
        QTest::newRow("dot") << std::string("a/./b") << false;
        QTest::newRow("leading slash") << std::string("/etc/passwd") << false;
        QTest::newRow("trailing slash") << std::string("a/b/") << false;
        QTest::newRow("double slash") << std::string("a//b") << false;
        QTest::newRow("nul") << std::string("a\0b", 3) << false;
        QTest::newRow("newline") << std::string("a\nb") << false;
        QTest::newRow("del") << std::string("a\x7f") << false;
        QTest::newRow("backslash") << std::string("a\\..\\b") << false;
        QTest::newRow("overlong utf8") << std::string("\xc0\xaf") << false;
        QTest::newRow("surrogate") << std::string("\xed\xa0\x80") << false;
        QTest::newRow("truncated utf8") << std::string("ab\xe6\x97") << false;
        QTest::newRow("stray continuation") << std::string("\x80") << false;
    }
    void objectNames()
    {
        QFETCH(std::string, name);
        QFETCH(bool, valid);
        auto st = validateObjectName(name);
        QCOMPARE(st.ok(), valid);
        if (!valid) QCOMPARE(st.kind(), ErrorKind::BadRequest);
    }

    void percentEncodedTricks_data()
    {
        QTest::addColumn<std::string>("raw");
        QTest::addColumn<std::string>("decoded");
        QTest::newRow("dotdot") << std::string("%2e%2e/x") << std::string("../x");
        QTest::newRow("mixed case") << std::string("%2E.%2f") << std::string("../");
        QTest::newRow("nul") << std::string("a%00") << std::string("a\0", 2);
        QTest::newRow("plus stays") << std::string("a+b") << std::string("a+b");
    }
    void percentEncodedTricks()
    {
        QFETCH(std::string, raw);
        QFETCH(std::string, decoded);
        auto d = percentDecode(raw);
        QVERIFY(d.ok());
        QCOMPARE(*d, decoded);
        if (decoded != "a+b") QVERIFY(!validateObjectName(*d).ok());
    }

    void malformedEscapes_data()
    {
        QTest::addColumn<std::string>("raw");
        QTest::newRow("lone percent") << std::string("%");
        QTest::newRow("one digit") << std::string("%4");
        QTest::newRow("not hex") << std::string("%zz");
        QTest::newRow("at end") << std::string("abc%2");
    }
    void malformedEscapes()
    {
        QFETCH(std::string, raw);
        auto d = percentDecode(raw);
        QVERIFY(!d.ok());
        QCOMPARE(d.kind(), ErrorKind::BadRequest);
    }

    void encodeRoundTrip()
    {
        const std::string name = "dir with space/\xc3\xa9t\xc3\xa9?#%&=+.jpg";
        const auto enc = percentEncode(name, true);
        QVERIFY(enc.find(' ') == std::string::npos);
        QVERIFY(enc.find('?') == std::string::npos);
        QVERIFY(enc.find('/') != std::string::npos);
        QCOMPARE(*percentDecode(enc), name);
        QVERIFY(percentEncode("a/b").find('/') == std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestNames)
#include "test_names.moc"
