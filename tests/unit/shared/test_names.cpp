// Bucket and object name validation tables, and percent-decoding tricks.
#include "api/names.h"
#include "api/uri.h"

#include <QTest>

using namespace tessera::api;

Q_DECLARE_METATYPE(std::string)

namespace {
// "日" x 85 (255 bytes) three times, then 84 of them plus "ab" (254 bytes), then
// a last component that brings the total to `total` bytes (1024 or more).
std::string multibyteName(std::size_t total)
{
    std::string c;
    for (int i = 0; i < 85; ++i) c += "\xe6\x97\xa5";
    std::string s = c + "/" + c + "/" + c + "/" + c.substr(0, 252) + "ab" + "/";
    return s + std::string(total - s.size(), 'x');
}
}  // namespace

class TestNames : public QObject {
    Q_OBJECT

private slots:
    void bucketNames_data()
    {
        QTest::addColumn<std::string>("name");
        QTest::addColumn<bool>("valid");
        QTest::newRow("3 chars") << std::string("abc") << true;
        QTest::newRow("3 chars with dash") << std::string("a-b") << true;
        QTest::newRow("63 chars") << std::string(63, 'a') << true;
        QTest::newRow("dots and dashes") << std::string("my.data-set.v2") << true;
        QTest::newRow("digits") << std::string("2024") << true;
        QTest::newRow("2 chars") << std::string("ab") << false;
        QTest::newRow("1 char") << std::string("a") << false;
        QTest::newRow("64 chars") << std::string(64, 'a') << false;
        QTest::newRow("empty") << std::string() << false;
        QTest::newRow("uppercase") << std::string("Data") << false;
        QTest::newRow("all uppercase") << std::string("DATA") << false;
        QTest::newRow("underscore") << std::string("my_data") << false;
        QTest::newRow("slash") << std::string("a/bc") << false;
        QTest::newRow("leading dash") << std::string("-abc") << false;
        QTest::newRow("trailing dash") << std::string("abc-") << false;
        QTest::newRow("leading dot") << std::string(".abc") << false;
        QTest::newRow("trailing dot") << std::string("abc.") << false;
        QTest::newRow("double dot") << std::string("a..b") << false;
        QTest::newRow("ipv4") << std::string("192.168.1.1") << false;
        QTest::newRow("ipv4 short groups") << std::string("1.2.3.4") << false;
        QTest::newRow("ip-like but 5 groups") << std::string("1.2.3.4.5") << true;
        QTest::newRow("ip-like but 3 groups") << std::string("10.0.1") << true;
        QTest::newRow("ip-like with a letter") << std::string("192.168.1.a") << true;
        QTest::newRow("ip-like with a 4-digit group") << std::string("1921.168.1.1") << true;
        QTest::newRow("63 chars dashed") << std::string("a") + std::string(61, '-') + "z" << true;
        QTest::newRow("dot-dash mix") << std::string("a.b-c.d") << true;
        QTest::newRow("space") << std::string("a bc") << false;
        QTest::newRow("nul") << std::string("ab\0c", 4) << false;
        QTest::newRow("percent") << std::string("ab%20c") << false;
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
        QTest::newRow("dot prefixed file") << std::string(".hidden/.x") << true;
        QTest::newRow("three dots") << std::string("a/.../b") << true;
        QTest::newRow("space and symbols") << std::string("my file (1) #2 & 50%.txt") << true;
        QTest::newRow("emoji 4-byte") << std::string("\xf0\x9f\x90\xb1.png") << true;
        QTest::newRow("max code point") << std::string("x\xf4\x8f\xbf\xbf") << true;
        QTest::newRow("1024 bytes multibyte") << multibyteName(1024) << true;
        QTest::newRow("1025 bytes multibyte") << multibyteName(1025) << false;
        QTest::newRow("1024 bytes") << std::string(4, 'x') + "/" + std::string(255, 'a') + "/" + std::string(255, 'b') +
                                           "/" + std::string(255, 'c') + "/" + std::string(251, 'd')
                                    << true;
        QTest::newRow("1025 bytes") << std::string(4, 'x') + "/" + std::string(255, 'a') + "/" + std::string(255, 'b') +
                                           "/" + std::string(255, 'c') + "/" + std::string(252, 'd')
                                    << false;
        QTest::newRow("component 255") << std::string(255, 'c') << true;
        QTest::newRow("component 256") << std::string(256, 'c') << false;
        QTest::newRow("inner component 256") << "a/" + std::string(256, 'c') + "/b" << false;
        QTest::newRow("component 255 inside") << "a/" + std::string(255, 'c') + "/b" << true;
        QTest::newRow("one byte") << std::string("x") << true;
        QTest::newRow("slash only") << std::string("/") << false;
        QTest::newRow("empty") << std::string() << false;
        QTest::newRow("dotdot") << std::string("..") << false;
        QTest::newRow("dot alone") << std::string(".") << false;
        QTest::newRow("leading dotdot") << std::string("../etc/passwd") << false;
        QTest::newRow("trailing dotdot") << std::string("a/..") << false;
        QTest::newRow("trailing dot") << std::string("a/.") << false;
        QTest::newRow("dotdot inside") << std::string("a/../b") << false;
        QTest::newRow("dot") << std::string("a/./b") << false;
        QTest::newRow("leading slash") << std::string("/etc/passwd") << false;
        QTest::newRow("trailing slash") << std::string("a/b/") << false;
        QTest::newRow("double slash") << std::string("a//b") << false;
        QTest::newRow("nul") << std::string("a\0b", 3) << false;
        QTest::newRow("nul at end") << std::string("ab\0", 3) << false;
        QTest::newRow("newline") << std::string("a\nb") << false;
        QTest::newRow("tab") << std::string("a\tb") << false;
        QTest::newRow("carriage return") << std::string("a\rb") << false;
        QTest::newRow("escape") << std::string("a\x1b[31m") << false;
        QTest::newRow("unit separator") << std::string("a\x1f") << false;
        QTest::newRow("del") << std::string("a\x7f") << false;
        QTest::newRow("backslash") << std::string("a\\..\\b") << false;
        QTest::newRow("lone backslash") << std::string("dir\\file") << false;
        QTest::newRow("overlong 2-byte slash") << std::string("\xc0\xaf") << false;
        QTest::newRow("overlong 2-byte dot") << std::string("\xc0\xae\xc0\xae/x") << false;
        QTest::newRow("overlong 3-byte") << std::string("\xe0\x80\xaf") << false;
        QTest::newRow("overlong 4-byte") << std::string("\xf0\x80\x80\xaf") << false;
        QTest::newRow("overlong NUL") << std::string("a\xc0\x80") << false;
        QTest::newRow("high surrogate") << std::string("\xed\xa0\x80") << false;
        QTest::newRow("low surrogate") << std::string("\xed\xbf\xbf") << false;
        QTest::newRow("surrogate pair as CESU-8") << std::string("\xed\xa0\xbd\xed\xb8\x80") << false;
        QTest::newRow("beyond U+10FFFF") << std::string("\xf4\x90\x80\x80") << false;
        QTest::newRow("5-byte lead") << std::string("\xf8\x88\x80\x80\x80") << false;
        QTest::newRow("0xff byte") << std::string("a\xff") << false;
        QTest::newRow("truncated 3-byte") << std::string("ab\xe6\x97") << false;
        QTest::newRow("truncated 2-byte at end") << std::string("ab\xc3") << false;
        QTest::newRow("truncated then ascii") << std::string("\xe6\x97x") << false;
        QTest::newRow("stray continuation") << std::string("\x80") << false;
        QTest::newRow("latin-1 byte") << std::string("caf\xe9") << false;
    }
    void objectNames()
    {
        QFETCH(std::string, name);
        QFETCH(bool, valid);
        auto st = validateObjectName(name);
        QCOMPARE(st.ok(), valid);
        if (!valid) QCOMPARE(st.kind(), ErrorKind::BadRequest);
    }

    // Names arrive percent-encoded in the URL path; validation runs on the
    // decoded bytes, so an encoded "..", "/" or NUL is caught after decoding.
    void percentDecodeThenValidate_data()
    {
        QTest::addColumn<std::string>("raw");
        QTest::addColumn<std::string>("decoded");
        QTest::addColumn<bool>("nameValid");
        QTest::newRow("dotdot") << std::string("%2e%2e/x") << std::string("../x") << false;
        QTest::newRow("dotdot alone") << std::string("%2E%2E") << std::string("..") << false;
        QTest::newRow("dotdot inside") << std::string("a/%2e%2e/b") << std::string("a/../b") << false;
        QTest::newRow("mixed case") << std::string("%2E.%2f") << std::string("../") << false;
        QTest::newRow("leading slash") << std::string("%2fetc/passwd") << std::string("/etc/passwd") << false;
        QTest::newRow("double slash") << std::string("a%2F%2Fb") << std::string("a//b") << false;
        QTest::newRow("backslash") << std::string("a%5cb") << std::string("a\\b") << false;
        QTest::newRow("nul") << std::string("a%00") << std::string("a\0", 2) << false;
        QTest::newRow("newline") << std::string("a%0Ab") << std::string("a\nb") << false;
        QTest::newRow("overlong slash") << std::string("a%c0%afb") << std::string("a\xc0\xaf") + "b" << false;
        QTest::newRow("plus stays") << std::string("a+b") << std::string("a+b") << true;
        QTest::newRow("space") << std::string("a%20b") << std::string("a b") << true;
        QTest::newRow("utf-8") << std::string("%C3%A9t%c3%a9") << std::string("\xc3\xa9t\xc3\xa9") << true;
        QTest::newRow("encoded percent") << std::string("100%25") << std::string("100%") << true;
        QTest::newRow("nothing to decode") << std::string("a/b.c") << std::string("a/b.c") << true;
    }
    void percentDecodeThenValidate()
    {
        QFETCH(std::string, raw);
        QFETCH(std::string, decoded);
        QFETCH(bool, nameValid);
        auto d = percentDecode(raw);
        QVERIFY(d.ok());
        QCOMPARE(*d, decoded);
        auto st = validateObjectName(*d);
        QCOMPARE(st.ok(), nameValid);
        if (!nameValid) QCOMPARE(st.kind(), ErrorKind::BadRequest);
    }

    void malformedEscapes_data()
    {
        QTest::addColumn<std::string>("raw");
        QTest::newRow("lone percent") << std::string("%");
        QTest::newRow("one digit") << std::string("%4");
        QTest::newRow("not hex") << std::string("%zz");
        QTest::newRow("at end") << std::string("abc%2");
        QTest::newRow("second not hex") << std::string("%4g");
        QTest::newRow("first not hex") << std::string("%g4");
        QTest::newRow("double percent") << std::string("%%41");
        QTest::newRow("sign") << std::string("%-1");
        QTest::newRow("space") << std::string("% 1");
        QTest::newRow("valid then bad") << std::string("%41%4");
    }
    void malformedEscapes()
    {
        QFETCH(std::string, raw);
        auto d = percentDecode(raw);
        QVERIFY(!d.ok());
        QCOMPARE(d.kind(), ErrorKind::BadRequest);
    }

    void encodeExact()
    {
        QCOMPARE(percentEncode("AZaz09-_.~"), std::string("AZaz09-_.~"));
        QCOMPARE(percentEncode("a b/c", true), std::string("a%20b/c"));
        QCOMPARE(percentEncode("a b/c"), std::string("a%20b%2Fc"));
        QCOMPARE(percentEncode("\xc3\xa9"), std::string("%C3%A9"));
        QCOMPARE(percentEncode("?#%&=+"), std::string("%3F%23%25%26%3D%2B"));
        QCOMPARE(percentEncode(std::string("\0", 1)), std::string("%00"));
        QCOMPARE(percentEncode(""), std::string());
    }

    void encodeRoundTrip()
    {
        const std::string name = "dir with space/\xc3\xa9t\xc3\xa9?#%&=+.jpg";
        const auto enc = percentEncode(name, true);
        QCOMPARE(enc, std::string("dir%20with%20space/%C3%A9t%C3%A9%3F%23%25%26%3D%2B.jpg"));
        QCOMPARE(*percentDecode(enc), name);
        // Every byte value survives encode -> decode.
        std::string all;
        for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
        QCOMPARE(*percentDecode(percentEncode(all)), all);
        QCOMPARE(*percentDecode(percentEncode(all, true)), all);
    }
};

QTEST_APPLESS_MAIN(TestNames)
#include "test_names.moc"
