// Streaming xxhash64 equals the one-shot hash whatever the chunking.
#include "api/checksum.h"

#include <QTest>
#include <random>

using namespace tessera::api;

class TestChecksum : public QObject {
    Q_OBJECT

private slots:
    void knownVectors()
    {
        QCOMPARE(xxhash64Hex(""), std::string("ef46db3751d8e999"));
        Xxh64Stream s;
        QCOMPARE(s.hex(), std::string("ef46db3751d8e999"));
        QCOMPARE(toHex64(0), std::string("0000000000000000"));
        QCOMPARE(toHex64(0xdeadbeefULL), std::string("00000000deadbeef"));
        QCOMPARE(toHex64(~0ULL), std::string("ffffffffffffffff"));
    }

    void chunkedEqualsOneShot_data()
    {
        QTest::addColumn<int>("chunk");
        for (int c : {1, 7, 31, 32, 33, 4096, 65536, 1 << 20}) QTest::newRow(std::to_string(c).c_str()) << c;
    }
    void chunkedEqualsOneShot()
    {
        QFETCH(int, chunk);
        std::mt19937_64 rng(5);
        std::string data(3 * 1024 * 1024 + 17, '\0');
        for (auto& c : data) c = static_cast<char>(rng());
        Xxh64Stream s;
        for (std::size_t off = 0; off < data.size(); off += static_cast<std::size_t>(chunk)) {
            const auto n = std::min<std::size_t>(static_cast<std::size_t>(chunk), data.size() - off);
            s.update(data.data() + off, n);
        }
        QCOMPARE(s.hex(), xxhash64Hex(data));
        QCOMPARE(s.digest(), xxhash64(data));
        s.reset();
        s.update("abc", 3);
        QCOMPARE(s.hex(), xxhash64Hex("abc"));
        QVERIFY(xxhash64Hex("abc") != xxhash64Hex("abd"));
    }
};

QTEST_APPLESS_MAIN(TestChecksum)
#include "test_checksum.moc"
