// Size strings: units in both bases, fractions, zero, overflow and junk.
#include "spec/size_string.h"

#include <QTest>

using namespace tessera;

class TestSizeString : public QObject {
    Q_OBJECT

private slots:
    void sizes_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<quint64>("bytes");
        QTest::newRow("plain") << "4096" << quint64{4096};
        QTest::newRow("B") << "17B" << quint64{17};
        QTest::newRow("KB") << "2KB" << quint64{2000};
        QTest::newRow("MB") << "100MB" << quint64{100'000'000};
        QTest::newRow("GB") << "3GB" << quint64{3'000'000'000};
        QTest::newRow("TB") << "1TB" << quint64{1'000'000'000'000};
        QTest::newRow("KiB") << "1KiB" << quint64{1024};
        QTest::newRow("MiB") << "16MiB" << quint64{16} * 1024 * 1024;
        QTest::newRow("GiB") << "2GiB" << (quint64{2} << 30);
        QTest::newRow("TiB") << "1TiB" << (quint64{1} << 40);
        QTest::newRow("PiB") << "1.5PiB" << (quint64{3} << 49);
        QTest::newRow("PB") << "2PB" << quint64{2'000'000'000'000'000};
        QTest::newRow("case") << "16mib" << quint64{16} * 1024 * 1024;
        QTest::newRow("space") << "16 MiB" << quint64{16} * 1024 * 1024;
        QTest::newRow("fraction") << "1.5GiB" << quint64{1610612736};
        QTest::newRow("half KiB") << "0.5KiB" << quint64{512};
        QTest::newRow("rounded down") << "1.0001KiB" << quint64{1024};  // 1024.1 -> 1024
        QTest::newRow("decimal fraction") << "1.001KB" << quint64{1001};
        QTest::newRow("just under the limit") << "4194303TiB" << ((quint64{1} << 62) - (quint64{1} << 40));
    }

    void sizes()
    {
        QFETCH(QString, text);
        QFETCH(quint64, bytes);
        auto r = spec::parseSize(text.toStdString());
        QVERIFY2(r, r ? "" : r.error().message.c_str());
        QCOMPARE(quint64{*r}, bytes);
    }

    void zero()
    {
        auto r = spec::parseSize("0");
        QVERIFY(!r);
        QVERIFY(r.error().message.find("greater than zero") != std::string::npos);
        auto z = spec::parseSize("0KiB", true);
        QVERIFY(z);
        QCOMPARE(*z, std::uint64_t{0});
        // A fraction that rounds down to nothing is zero too.
        QVERIFY(!spec::parseSize("0.0001KiB"));
    }

    void errors_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("says");
        QTest::newRow("empty") << ""
                               << "must start with a number";
        QTest::newRow("unit only") << "MiB"
                                   << "must start with a number";
        QTest::newRow("negative") << "-1"
                                  << "must start with a number";
        QTest::newRow("unknown unit") << "12x"
                                      << "unknown unit";
        QTest::newRow("trailing junk") << "16MiB!"
                                       << "unknown unit";
        QTest::newRow("exponent") << "1e3"
                                  << "unknown unit";
        QTest::newRow("two units") << "1KiBMiB"
                                   << "unknown unit";
        QTest::newRow("fraction of bytes") << "1.5"
                                           << "a fraction needs a unit";
        QTest::newRow("dot without digits") << "1.MiB"
                                            << "followed by digits";
        QTest::newRow("too many decimals") << "1.0000000001GiB"
                                           << "too many decimals";
        QTest::newRow("too many digits") << "1234567890123456789"
                                         << "too many digits";
        QTest::newRow("2^62") << "4194304TiB"
                              << "too large";
        QTest::newRow("overflow") << "99999999999TiB"
                                  << "too large";
    }

    void errors()
    {
        QFETCH(QString, text);
        QFETCH(QString, says);
        auto r = spec::parseSize(text.toStdString());
        QVERIFY2(!r, qPrintable(text));
        QCOMPARE(r.kind(), api::ErrorKind::BadRequest);
        QVERIFY2(r.error().message.find(says.toStdString()) != std::string::npos, r.error().message.c_str());
    }

    void format()
    {
        QCOMPARE(spec::formatSize(100), std::string("100B"));
        QCOMPARE(spec::formatSize(1536), std::string("1.5KiB"));
        QCOMPARE(spec::formatSize(1048576), std::string("1MiB"));
        QCOMPARE(*spec::parseSize(spec::formatSize(std::uint64_t{16} << 20)), std::uint64_t{16} << 20);
        // From 1 PiB on formatSize writes PiB, which reads back too.
        QCOMPARE(spec::formatSize(std::uint64_t{3} << 50), std::string("3PiB"));
        QCOMPARE(*spec::parseSize(spec::formatSize(std::uint64_t{3} << 50)), std::uint64_t{3} << 50);
    }
};

QTEST_GUILESS_MAIN(TestSizeString)
#include "test_size_string.moc"
