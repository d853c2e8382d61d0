// Streaming xxhash64 equals the one-shot hash whatever the chunking.
#include "api/checksum.h"

#include <QTest>
#include <algorithm>
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
        QCOMPARE(s.digest(), std::uint64_t{0xef46db3751d8e999ULL});
        QCOMPARE(xxhash64(""), std::uint64_t{0xef46db3751d8e999ULL});
        // Published XXH64 reference values (seed 0).
        QCOMPARE(xxhash64Hex("a"), std::string("d24ec4f1a98c6e5b"));
        QCOMPARE(xxhash64Hex("abc"), std::string("44bc2cf5ad770999"));
        // A seed changes the hash (HRW seeds with the node id's hash).
        QVERIFY(xxhash64("abc", 1) != xxhash64("abc"));
        QCOMPARE(xxhash64("abc", 0), xxhash64("abc"));
    }

    void hexFormatting()
    {
        QCOMPARE(toHex64(0), std::string("0000000000000000"));
        QCOMPARE(toHex64(1), std::string("0000000000000001"));
        QCOMPARE(toHex64(0xdeadbeefULL), std::string("00000000deadbeef"));
        QCOMPARE(toHex64(0x0123456789abcdefULL), std::string("0123456789abcdef"));
        QCOMPARE(toHex64(0xf000000000000000ULL), std::string("f000000000000000"));
        QCOMPARE(toHex64(~0ULL), std::string("ffffffffffffffff"));
        QCOMPARE(xxhash64Hex("abc"), toHex64(xxhash64("abc")));
        QCOMPARE(xxhash64Hex("abc").size(), std::size_t{16});
    }

    void emptyUpdatesChangeNothing()
    {
        Xxh64Stream s;
        s.update("", 0);
        s.update("ab", 2);
        s.update(nullptr, 0);
        s.update("c", 1);
        QCOMPARE(s.hex(), std::string("44bc2cf5ad770999"));
        // digest() does not end the stream: more data may follow.
        s.update("d", 1);
        QCOMPARE(s.hex(), xxhash64Hex("abcd"));
    }

    void chunkedEqualsOneShot_data()
    {
        QTest::addColumn<int>("chunk");
        for (int c : {1, 3, 7, 8, 31, 32, 33, 63, 64, 65, 1000, 4096, 65536, 1 << 20, 4 << 20}) {
            QTest::newRow(std::to_string(c).c_str()) << c;
        }
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

    void irregularChunks()
    {
        // Chunk boundaries that wander across xxhash's 32-byte stripes.
        std::mt19937_64 rng(11);
        std::string data(1024 * 1024 + 5, '\0');
        for (auto& c : data) c = static_cast<char>(rng());
        for (int round = 0; round < 5; ++round) {
            Xxh64Stream s;
            std::size_t off = 0;
            while (off < data.size()) {
                const auto n = std::min<std::size_t>(rng() % 200, data.size() - off);
                s.update(data.data() + off, n);
                off += n;
            }
            QCOMPARE(s.hex(), xxhash64Hex(data));
        }
    }
};

QTEST_APPLESS_MAIN(TestChecksum)
#include "test_checksum.moc"
