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
        QTest::newRow("tabs") << "\tbytes=10-19\t" << 100ull << 1 << 10ull << 10ull;
        QTest::newRow("end at last byte") << "bytes=0-99" << 100ull << 1 << 0ull << 100ull;
        QTest::newRow("end one past") << "bytes=0-100" << 100ull << 1 << 0ull << 100ull;
        QTest::newRow("suffix equals size") << "bytes=-100" << 100ull << 1 << 0ull << 100ull;
        QTest::newRow("one-byte object") << "bytes=0-0" << 1ull << 1 << 0ull << 1ull;
        QTest::newRow("one-byte object suffix") << "bytes=-1" << 1ull << 1 << 0ull << 1ull;
        QTest::newRow("empty object no header") << "" << 0ull << 0 << 0ull << 0ull;
        QTest::newRow("huge end clamps") << "bytes=10-9999999999999999999" << 100ull << 1 << 10ull << 90ull;
        QTest::newRow("huge suffix clamps") << "bytes=-9999999999999999999" << 100ull << 1 << 0ull << 100ull;
        QTest::newRow("leading zeros") << "bytes=0010-0019" << 100ull << 1 << 10ull << 10ull;
        QTest::newRow("reversed") << "bytes=5-2" << 100ull << 400 << 0ull << 0ull;
        QTest::newRow("start at size") << "bytes=100-" << 100ull << 416 << 0ull << 0ull;
        QTest::newRow("start beyond") << "bytes=200-300" << 100ull << 416 << 0ull << 0ull;
        QTest::newRow("zero suffix") << "bytes=-0" << 100ull << 416 << 0ull << 0ull;
        QTest::newRow("empty object") << "bytes=0-" << 0ull << 416 << 0ull << 0ull;
        QTest::newRow("empty object suffix") << "bytes=-1" << 0ull << 416 << 0ull << 0ull;
        QTest::newRow("empty object first byte") << "bytes=0-0" << 0ull << 416 << 0ull << 0ull;
        QTest::newRow("empty object zero suffix") << "bytes=-0" << 0ull << 416 << 0ull << 0ull;
        QTest::newRow("huge start") << "bytes=9999999999999999999-" << 100ull << 416 << 0ull << 0ull;
        QTest::newRow("multi") << "bytes=0-1,4-5" << 100ull << 400 << 0ull << 0ull;
        QTest::newRow("multi with spaces") << "bytes=0-1 , 4-5" << 100ull << 400 << 0ull << 0ull;
        QTest::newRow("trailing comma") << "bytes=0-1," << 100ull << 400 << 0ull << 0ull;
        QTest::newRow("no unit") << "0-1" << 100ull << 400 << 0ull << 0ull;
        QTest::newRow("unit only") << "bytes=" << 100ull << 400 << 0ull << 0ull;
        QTest::newRow("dash only") << "bytes=-" << 100ull << 400 << 0ull << 0ull;
        QTest::newRow("double dash") << "bytes=--5" << 100ull << 400 << 0ull << 0ull;
        QTest::newRow("plus sign") << "bytes=+1-5" << 100ull << 400 << 0ull << 0ull;
        QTest::newRow("hex") << "bytes=0x10-0x20" << 100ull << 400 << 0ull << 0ull;
        QTest::newRow("other unit") << "items=0-1" << 100ull << 400 << 0ull << 0ull;
        QTest::newRow("no dash") << "bytes=5" << 100ull << 400 << 0ull << 0ull;
        QTest::newRow("letters") << "bytes=a-b" << 100ull << 400 << 0ull << 0ull;
        QTest::newRow("negative") << "bytes=-1-5" << 100ull << 400 << 0ull << 0ull;
        // Positions past 2^64-1 are valid syntax: a first one is past any
        // object (416), a last one is clipped (206 of the rest).
        QTest::newRow("huge number") << "bytes=0-99999999999999999999999" << 100ull << 1 << 0ull << 100ull;
        QTest::newRow("20-digit end") << "bytes=0-18446744073709551616" << 100ull << 1 << 0ull << 100ull;
        QTest::newRow("20-digit start") << "bytes=18446744073709551616-" << 100ull << 416 << 0ull << 0ull;
        QTest::newRow("20-digit both") << "bytes=18446744073709551616-18446744073709551617" << 100ull << 416 << 0ull
                                       << 0ull;
        QTest::newRow("20-digit suffix") << "bytes=-18446744073709551616" << 100ull << 1 << 0ull << 100ull;
        QTest::newRow("huge suffix number") << "bytes=-99999999999999999999999" << 100ull << 1 << 0ull << 100ull;
        QTest::newRow("huge start number") << "bytes=99999999999999999999999-" << 100ull << 416 << 0ull << 0ull;
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
        if (outcome == 1 || outcome == 0) {
            if (!r.ok()) QFAIL(r.error().message.c_str());
        }
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
        default: QFAIL("bad test row");
        }
    }

    // Whatever the header, a satisfiable range lies inside the object.
    void alwaysInsideObject()
    {
        const std::uint64_t sizes[] = {1, 2, 7, 100, 4096};
        const char* specs[] = {"0-0", "0-", "1-", "-1", "-3", "3-5", "5-3", "6-", "0-6", "99-", "-99", "4095-4095"};
        for (auto size : sizes) {
            for (const char* spec : specs) {
                auto r = parseRange(std::string("bytes=") + spec, size);
                if (!r.ok()) {
                    QVERIFY(r.kind() == ErrorKind::BadRequest || r.kind() == ErrorKind::RangeNotSatisfiable);
                    continue;
                }
                QVERIFY(r->has_value());
                const auto& br = **r;
                QVERIFY2(br.length >= 1 && br.offset + br.length <= size, spec);
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestByteRange)
#include "test_byte_range.moc"
