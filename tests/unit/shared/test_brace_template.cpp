// Brace templates: expansion order, padding, steps, several ranges, and a
// BadRequest naming the problem for every malformed template.
#include "spec/brace_template.h"

#include <QTest>

using namespace tessera;
using spec::BraceTemplate;

namespace {
BraceTemplate parsed(const char* text)
{
    auto t = BraceTemplate::parse(text);
    if (!t) qFatal("%s: %s", text, t.error().message.c_str());
    return t.value();
}
}  // namespace

class TestBraceTemplate : public QObject {
    Q_OBJECT

private slots:
    void zeroPaddedRange()
    {
        auto t = parsed("shard-{0000..0999}.tar");
        QCOMPARE(t.count(), std::uint64_t{1000});
        QCOMPARE(t.at(0), std::string("shard-0000.tar"));
        QCOMPARE(t.at(7), std::string("shard-0007.tar"));
        QCOMPARE(t.at(999), std::string("shard-0999.tar"));
        QVERIFY(t.hasRanges());
        QCOMPARE(t.text(), std::string("shard-{0000..0999}.tar"));
    }

    void widthOfEqualLengthBounds()
    {
        auto t = parsed("{00..15}");
        QCOMPARE(t.count(), std::uint64_t{16});
        QCOMPARE(t.at(0), std::string("00"));
        QCOMPARE(t.at(15), std::string("15"));
        // "{0..15}": no padding (A has no leading zero and is narrower than B).
        auto u = parsed("{0..15}");
        QCOMPARE(u.at(0), std::string("0"));
        QCOMPARE(u.at(9), std::string("9"));
        QCOMPARE(u.at(15), std::string("15"));
        auto w = parsed("p{8..12}");
        QCOMPARE(w.at(0), std::string("p8"));
        QCOMPARE(w.at(4), std::string("p12"));
    }

    void steps()
    {
        auto t = parsed("img-{0..100..10}.jpg");
        QCOMPARE(t.count(), std::uint64_t{11});
        QCOMPARE(t.at(1), std::string("img-10.jpg"));
        QCOMPARE(t.at(10), std::string("img-100.jpg"));
        // The end is not reached by the step: the last name is below it.
        auto u = parsed("{0..10..3}");
        auto all = u.expand(100);
        QVERIFY(all);
        QCOMPARE(*all, (std::vector<std::string>{"0", "3", "6", "9"}));
        auto v = parsed("{000..100..50}");
        QCOMPARE(*v.expand(10), (std::vector<std::string>{"000", "050", "100"}));
    }

    void severalRangesLastFastest()
    {
        auto t = parsed("d{0..2}/part-{00..15}.tar");
        QCOMPARE(t.count(), std::uint64_t{48});
        QCOMPARE(t.at(0), std::string("d0/part-00.tar"));
        QCOMPARE(t.at(1), std::string("d0/part-01.tar"));
        QCOMPARE(t.at(16), std::string("d1/part-00.tar"));
        QCOMPARE(t.at(47), std::string("d2/part-15.tar"));
        auto all = t.expand(48);
        QVERIFY(all);
        QCOMPARE(all->size(), std::size_t{48});
        for (std::uint64_t i = 0; i < 48; ++i) QCOMPARE((*all)[i], t.at(i));
    }

    void plainText()
    {
        auto t = parsed("just-one.tar");
        QCOMPARE(t.count(), std::uint64_t{1});
        QVERIFY(!t.hasRanges());
        QCOMPARE(t.at(0), std::string("just-one.tar"));
    }

    void expandOverLimit()
    {
        auto t = parsed("x{0..999}");
        auto r = t.expand(999);
        QVERIFY(!r);
        QCOMPARE(r.kind(), api::ErrorKind::BadRequest);
        QVERIFY(r.error().message.find("1000") != std::string::npos);
        QVERIFY(t.expand(1000));
    }

    void errors_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("says");
        QTest::newRow("empty") << ""
                               << "empty";
        QTest::newRow("open brace") << "a-{0..3"
                                    << "'{' without '}'";
        QTest::newRow("close brace") << "a}b"
                                     << "'}' without '{'";
        QTest::newRow("nested") << "{{0..1}}"
                                << "nested";
        QTest::newRow("start > end") << "s-{5..1}"
                                     << "greater than its end";
        QTest::newRow("step 0") << "{0..5..0}"
                                << "step";
        QTest::newRow("step garbage") << "{0..5..x}"
                                      << "step";
        QTest::newRow("not a number") << "{a..b}"
                                      << "not a decimal number";
        QTest::newRow("negative") << "{-1..3}"
                                  << "not a decimal number";
        QTest::newRow("no dots") << "{0-5}"
                                 << "{A..B}";
        QTest::newRow("too many dots") << "{0..1..2..3}"
                                       << "too many '..'";
        QTest::newRow("empty range") << "{}"
                                     << "{A..B}";
        QTest::newRow("nine ranges") << "{0..1}{0..1}{0..1}{0..1}{0..1}{0..1}{0..1}{0..1}{0..1}"
                                     << "more than 8 ranges";
        QTest::newRow("too many names") << "{0..99999}{0..99999}"
                                        << "more than 100000000 names";
        QTest::newRow("too long") << QString(1025, 'a') << "longer than 1024";
    }

    void errors()
    {
        QFETCH(QString, text);
        QFETCH(QString, says);
        auto t = BraceTemplate::parse(text.toStdString());
        QVERIFY2(!t, qPrintable(text));
        QCOMPARE(t.kind(), api::ErrorKind::BadRequest);
        QVERIFY2(t.error().message.find(says.toStdString()) != std::string::npos, t.error().message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestBraceTemplate)
#include "test_brace_template.moc"
