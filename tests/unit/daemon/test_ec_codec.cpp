// The erasure codec over ISA-L: every pattern of up to P lost slices
// decodes to the exact bytes, for 2+1, 4+2 and 6+3 and sizes at the edges
// of the slice arithmetic (0, 1, D-1, 4095, 1 MiB + 7); the data slices are
// the object's own bytes; fewer than D slices, a bad index, a slice of the
// wrong size and D or P out of range are named errors.
#include "ec/ec_codec.h"

#include <QTest>
#include <random>

using namespace tessera;
using namespace tessera::daemon::ec;

namespace {

std::string randomBytes(std::size_t n, std::uint32_t seed)
{
    std::mt19937 gen(seed);
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(gen() & 0xff);
    return s;
}

// Every subset of {0..n-1} with at most `k` members, as bit masks.
std::vector<std::uint32_t> lossPatterns(int n, int k)
{
    std::vector<std::uint32_t> out;
    for (std::uint32_t m = 0; m < (1u << n); ++m) {
        if (__builtin_popcount(m) <= k) out.push_back(m);
    }
    return out;
}

}  // namespace

class TestEcCodec : public QObject {
    Q_OBJECT

private slots:
    void everyLossPatternDecodes_data()
    {
        QTest::addColumn<int>("d");
        QTest::addColumn<int>("p");
        QTest::addColumn<qulonglong>("size");
        for (const auto& [d, p] : std::vector<std::pair<int, int>>{{2, 1}, {4, 2}, {6, 3}}) {
            const std::vector<qulonglong> sizes{0, 1, static_cast<qulonglong>(d - 1), 4095, (1u << 20) + 7};
            for (auto size : sizes) {
                const auto tag = std::to_string(d) + "+" + std::to_string(p) + " size " + std::to_string(size);
                QTest::newRow(tag.c_str()) << d << p << size;
            }
        }
    }
    void everyLossPatternDecodes()
    {
        QFETCH(int, d);
        QFETCH(int, p);
        QFETCH(qulonglong, size);
        auto codec = EcCodec::create(d, p);
        QVERIFY(codec);
        const auto object = randomBytes(size, static_cast<std::uint32_t>(size * 31 + d));
        const auto slices = codec->encode(object);
        QCOMPARE(slices.size(), static_cast<std::size_t>(d + p));
        const auto s = codec->sliceSize(size);
        QCOMPARE(s, (size + d - 1) / d);
        for (const auto& slice : slices) QCOMPARE(slice.size(), s);
        int patterns = 0;
        for (const auto lost : lossPatterns(d + p, p)) {
            std::map<int, std::string> kept;
            for (int i = 0; i < d + p; ++i) {
                if ((lost & (1u << i)) == 0) kept.emplace(i, slices[static_cast<std::size_t>(i)]);
            }
            auto back = codec->decode(kept, size);
            QVERIFY2(back, back ? "" : back.error().message.c_str());
            QVERIFY2(*back == object, ("lost slice mask " + std::to_string(lost)).c_str());
            ++patterns;
        }
        // Sum over k <= P of C(D+P, k): every pattern was tried.
        int expected = 0;
        for (int k = 0, c = 1; k <= p; ++k) {
            expected += c;
            c = c * (d + p - k) / (k + 1);
        }
        QCOMPARE(patterns, expected);
    }

    void dataSlicesAreTheObjectsBytes()
    {
        auto codec = EcCodec::create(4, 2);
        QVERIFY(codec);
        const auto object = randomBytes(4095, 7);
        const auto slices = codec->encode(object);
        const std::size_t s = 1024;
        for (std::size_t i = 0; i < 4; ++i) {
            const auto part = object.substr(i * s, s);
            QCOMPARE(slices[i].substr(0, part.size()), part);
        }
        // The padding of the last data slice is zeroes.
        QCOMPARE(slices[3].back(), '\0');
    }

    void fewerThanDSlicesIsUnavailable()
    {
        auto codec = EcCodec::create(4, 2);
        QVERIFY(codec);
        const auto object = randomBytes(10000, 3);
        const auto slices = codec->encode(object);
        std::map<int, std::string> kept{{0, slices[0]}, {3, slices[3]}, {5, slices[5]}};
        auto back = codec->decode(kept, object.size());
        QVERIFY(!back);
        QCOMPARE(back.kind(), api::ErrorKind::Unavailable);
        QCOMPARE(back.error().message,
                 std::string("cannot rebuild the object: 3 slice(s) at hand, 4 needed (any 4 of the 6)"));
        // A slice named twice counts once.
        auto dec = codec->decoder({0, 0, 3, 5});
        QVERIFY(!dec);
        QCOMPARE(dec.kind(), api::ErrorKind::Unavailable);
    }

    void badSlicesAreRefused()
    {
        auto codec = EcCodec::create(2, 1);
        QVERIFY(codec);
        auto dec = codec->decoder({0, 3});
        QVERIFY(!dec);
        QCOMPARE(dec.kind(), api::ErrorKind::BadRequest);
        QCOMPARE(dec.error().message, std::string("slice index 3 is out of range 0..2"));
        const auto slices = codec->encode("hello world");
        auto back = codec->decode({{0, slices[0]}, {1, slices[1] + "x"}}, 11);
        QVERIFY(!back);
        QCOMPARE(back.kind(), api::ErrorKind::BadRequest);
    }

    void limitsAreChecked()
    {
        QVERIFY(EcCodec::create(1, 1));
        QVERIFY(EcCodec::create(16, 8));
        for (const auto& [d, p] : std::vector<std::pair<int, int>>{{0, 1}, {17, 1}, {2, 0}, {2, 9}}) {
            auto c = EcCodec::create(d, p);
            QVERIFY(!c);
            QCOMPARE(c.kind(), api::ErrorKind::BadRequest);
        }
    }

    void widestCodeDecodesFromParityOnlyRows()
    {
        // 16+8: 8 data slices lost, rebuilt from the 8 parity slices and the rest.
        auto codec = EcCodec::create(16, 8);
        QVERIFY(codec);
        const auto object = randomBytes(100001, 11);
        const auto slices = codec->encode(object);
        std::map<int, std::string> kept;
        for (int i = 8; i < 24; ++i) kept.emplace(i, slices[static_cast<std::size_t>(i)]);
        auto back = codec->decode(kept, object.size());
        QVERIFY(back);
        QVERIFY(*back == object);
    }
};

QTEST_APPLESS_MAIN(TestEcCodec)
#include "test_ec_codec.moc"
