// shared/archive: member name rules, WebDataset keys and extensions, and the
// archregx/archmode matchers.

#include "archive/archive_format.h"
#include "archive/member_match.h"
#include "archive/member_name.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::archive;

class TestMemberName : public QObject {
    Q_OBJECT
private slots:
    void validNames()
    {
        for (const char* n : {"a", "a/b.jpg", "./a.txt", "x..y", "a/.hidden", "\xc3\xa9t\xc3\xa9.png", "a b/c d"}) {
            QVERIFY2(validateMemberName(n).ok(), n);
        }
    }
    void invalidNames_data()
    {
        QTest::addColumn<QByteArray>("name");
        QTest::newRow("empty") << QByteArray("");
        QTest::newRow("absolute") << QByteArray("/etc/passwd");
        QTest::newRow("dotdot") << QByteArray("..");
        QTest::newRow("dotdot prefix") << QByteArray("../a");
        QTest::newRow("dotdot middle") << QByteArray("a/../../b");
        QTest::newRow("dotdot end") << QByteArray("a/..");
        QTest::newRow("only dot slash") << QByteArray("./");
        QTest::newRow("trailing slash") << QByteArray("a/");
        QTest::newRow("nul") << QByteArray("a\0b", 3);
        QTest::newRow("newline") << QByteArray("a\nb");
        QTest::newRow("bad utf8") << QByteArray("\xff\xfe");
        QTest::newRow("too long") << QByteArray(5000, 'a');
    }
    void invalidNames()
    {
        QFETCH(QByteArray, name);
        auto st = validateMemberName(std::string_view(name.constData(), static_cast<std::size_t>(name.size())));
        QVERIFY(!st.ok());
        QCOMPARE(st.kind(), api::ErrorKind::BadRequest);
    }
    void normalize()
    {
        QCOMPARE(normalizeMemberName("./a/b"), std::string_view("a/b"));
        QCOMPARE(normalizeMemberName("././a"), std::string_view("a"));
        QCOMPARE(normalizeMemberName("a/./b"), std::string_view("a/./b"));
    }
    void keys()
    {
        QCOMPARE(wdsKey("n01440764_10026.jpg"), std::string_view("n01440764_10026"));
        QCOMPARE(wdsExtension("n01440764_10026.jpg"), std::string_view(".jpg"));
        QCOMPARE(wdsKey("train/a.seg.png"), std::string_view("train/a"));
        QCOMPARE(wdsExtension("train/a.seg.png"), std::string_view(".seg.png"));
        QCOMPARE(wdsKey("dir.v2/sample"), std::string_view("dir.v2/sample"));
        QCOMPARE(wdsExtension("dir.v2/sample"), std::string_view(""));
        QCOMPARE(wdsKey("dir.v2/s.cls"), std::string_view("dir.v2/s"));
        QCOMPARE(wdsKey(".hidden"), std::string_view(""));
    }
    void matchers()
    {
        auto m = MemberMatcher::create("prefix", "img/");
        QVERIFY(m.ok());
        QVERIFY(m->matches("img/a.jpg") && !m->matches("x/img/a.jpg"));
        m = MemberMatcher::create("suffix", ".jpg");
        QVERIFY(m->matches("a.jpg") && !m->matches("a.jpg.txt") && !m->matches("jpg"));
        m = MemberMatcher::create("substr", "00_");
        QVERIFY(m->matches("a/100_x") && !m->matches("a/10_x"));
        m = MemberMatcher::create("wdskey", "train/k1");
        QVERIFY(m->matches("train/k1.jpg") && m->matches("train/k1.seg.png") && !m->matches("train/k10.jpg"));
        m = MemberMatcher::create("", "^a[0-9]+\\.cls$");
        QVERIFY(m.ok());
        QCOMPARE(m->mode(), MatchMode::Regexp);
        QVERIFY(m->matches("a12.cls") && !m->matches("a12.clsx") && !m->matches("ba1.cls"));
        m = MemberMatcher::create("regexp", "[0-9]");
        QVERIFY(m->matches("x7y"));  // found anywhere
    }
    void matcherErrors()
    {
        QCOMPARE(MemberMatcher::create("glob", "*").kind(), api::ErrorKind::BadRequest);
        QCOMPARE(MemberMatcher::create("regexp", "(unclosed").kind(), api::ErrorKind::BadRequest);
        QCOMPARE(MemberMatcher::create("prefix", "").kind(), api::ErrorKind::BadRequest);
        QCOMPARE(MemberMatcher::create("prefix", std::string(2000, 'a')).kind(), api::ErrorKind::BadRequest);
    }
    void formats()
    {
        QCOMPARE(*formatFromName("a/b.tar"), ArchiveFormat::Tar);
        QCOMPARE(*formatFromName("b.tgz"), ArchiveFormat::TarGz);
        QCOMPARE(*formatFromName("b.tar.gz"), ArchiveFormat::TarGz);
        QCOMPARE(*formatFromName("b.tar.lz4"), ArchiveFormat::TarLz4);
        QCOMPARE(*formatFromName("b.zip"), ArchiveFormat::Zip);
        QVERIFY(!formatFromName("b.jpg").has_value());
        QVERIFY(!formatFromName(".tar").has_value());
        QVERIFY(!formatFromName("b.TAR").has_value());
        QCOMPARE(*resolveFormat("x.bin", "application/x-tar"), ArchiveFormat::Tar);
        QCOMPARE(*resolveFormat("x.tar", ".zip"), ArchiveFormat::Zip);
        QCOMPARE(resolveFormat("x.bin", "").kind(), api::ErrorKind::BadRequest);
        QCOMPARE(resolveFormat("x.tar", "rar").kind(), api::ErrorKind::BadRequest);
        QCOMPARE(formatExtension(ArchiveFormat::TarLz4), std::string_view(".tar.lz4"));
    }
};

QTEST_APPLESS_MAIN(TestMemberName)
#include "test_member_name.moc"
