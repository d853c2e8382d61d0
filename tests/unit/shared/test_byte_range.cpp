// Range header parsing against an object size.
#include "api/byte_range.h"

#include <QTest>

using namespace tessera::api;

class TestByteRange : public QObject {
    Q_OBJECT

private slots:
    void parse_data()
    {
        QTest::addColumn<QString>("header");
        QTest::addColumn<qulonglong>("size");
        QTest::addColumn<int>("outcome");  // 0 whole, 1 range, 400, 416
        QTest::addColumn<qulonglong>("offset");
        QTest::addColumn<qulonglong>("length");
        QTest::newRow("empty") << "" << 100ull << 0 << 0ull << 0ull;
        QTest::newRow("spaces only") << "  " << 100ull << 0 << 0ull << 0ull;
        QTest::newRow("first byte") << "bytes=0-0" << 100ull << 1 << 0ull << 1ull;
        QTest::newRow("open end") << "bytes=0-" << 100ull << 1 << 0ull << 100ull;
        QTest::newRow("suffix") << "bytes=-5" << 100ull << 1 << 95ull << 5ull;
        QTest::newRow("suffix larger than size") << "bytes=-500" << 100ull << 1 << 0ull << 100ull;
        QTest::newRow("end clamped") << "bytes=90-1000" << 100ull << 1 << 90ull << 10ull;
        QTest::newRow("last byte") << "bytes=99-99" << 100ull << 1 << 99ull << 1ull;
        QTest::newRow("whitespace") << " bytes= 10 - 19 " << 100ull << 1 << 10ull << 10ull;
        QTest::newRow("reversed") << "bytes=5-2" << 100ull << 400 << 0ull << 0ull;
        QTest::newRow("start at size") << "bytes=100-" << 100ull << 416 << 0ull << 0ull;
        QTest::newRow("start beyond") << "bytes=200-300" << 100ull << 416 << 0ull << 0ull;
        QTest::newRow("zero suffix") << "bytes=-0" << 100ull << 416 << 0ull << 0ull;
        QTest::newRow("empty object") << "bytes=0-" << 0ull << 416 << 0ull << 0ull;
        QTest::newRow("empty object suffix") << "bytes=-1" << 0ull << 416 << 0ull << 0ull;
        QTest::newRow("multi") << "bytes=0-1,4-5" << 100ull << 400 << 0ull << 0ull;
        QTest::newRow("other unit") << "items=0-1" << 100ull << 400 << 0ull << 0ull;
        QTest::newRow("no dash") << "bytes=5" << 100ull << 400 << 0ull << 0ull;
        QTest::newRow("letters") << "bytes=a-b" << 100ull << 400 << 0ull << 0ull;
        QTest::newRow("negative") << "bytes=-1-5" << 100ull << 400 << 0ull << 0ull;
        QTest::newRow("huge number") << "bytes=0-99999999999999999999999" << 100ull << 400 << 0ull << 0ull;
        QTest::newRow("big but valid") << "bytes=1000000000000-" << 2000000000000ull << 1 << 1000000000000ull
                                       << 1000000000000ull;
    }
    void parse()
    {
        QFETCH(QString, header);
        QFETCH(qulonglong, size);
        QFETCH(int, outcome);
        QFETCH(qulonglong, offset);
        QFETCH(qulonglong, length);
        auto r = parseRange(header.toStdString(), size);
        switch (outcome) {
        case 0:
            QVERIFY(r.ok());
            QVERIFY(!r->has_value());
            break;
        case 1:
            QVERIFY(r.ok());
            QVERIFY(r->has_value());
            QCOMPARE(static_cast<qulonglong>((*r)->offset), offset);
            QCOMPARE(static_cast<qulonglong>((*r)->length), length);
            break;
        case 400:
            QVERIFY(!r.ok());
            QCOMPARE(r.kind(), ErrorKind::BadRequest);
            break;
        case 416:
            QVERIFY(!r.ok());
            QCOMPARE(r.kind(), ErrorKind::RangeNotSatisfiable);
            break;
        }
    }
};

QTEST_APPLESS_MAIN(TestByteRange)
#include "test_byte_range.moc"
