// HRW placement: stable, even, and minimal movement when a target joins.
#include "api/hrw.h"

#include <QTest>
#include <map>

using namespace tessera::api;

namespace {
Smap makeSmap(int targets)
{
    Smap s;
    s.version = 1;
    for (int i = 0; i < targets; ++i) {
        Snode n;
        n.id = "t" + std::to_string(1000 + i * 7919);
        n.type = "target";
        n.publicNet.url = "http://127.0.0.1:" + std::to_string(9000 + i);
        s.tmap[n.id] = n;
    }
    return s;
}
}  // namespace

class TestHrw : public QObject {
    Q_OBJECT

private slots:
    void stable()
    {
        const auto a = makeSmap(5);
        const auto b = makeSmap(5);
        for (int i = 0; i < 1000; ++i) {
            const auto key = objectUname("bucket", "obj-" + std::to_string(i));
            const auto* x = hrwTarget(a, key);
            QVERIFY(x != nullptr);
            QCOMPARE(x->id, hrwTarget(a, key)->id);
            QCOMPARE(x->id, hrwTarget(b, key)->id);
        }
        QCOMPARE(objectUname("b", "x/y"), std::string("b/x/y"));
        QVERIFY(hrwTarget(Smap{}, "b/x") == nullptr);
    }

    void evenSpread_data()
    {
        QTest::addColumn<int>("targets");
        QTest::newRow("3") << 3;
        QTest::newRow("10") << 10;
    }
    void evenSpread()
    {
        QFETCH(int, targets);
        const auto smap = makeSmap(targets);
        constexpr int kKeys = 100000;
        std::map<std::string, int> count;
        for (int i = 0; i < kKeys; ++i) {
            ++count[hrwTarget(smap, objectUname("imagenet", "train/n" + std::to_string(i) + ".jpg"))->id];
        }
        QCOMPARE(static_cast<int>(count.size()), targets);
        const double expected = static_cast<double>(kKeys) / targets;
        for (const auto& [id, n] : count) {
            const double dev = std::abs(n - expected) / expected;
            QVERIFY2(dev < 0.05, qPrintable(QString("target %1 has %2 keys, expected %3")
                                                .arg(QString::fromStdString(id)).arg(n).arg(expected)));
        }
    }

    void minimalMovementOnJoin()
    {
        const auto before = makeSmap(3);
        auto after = before;
        Snode added;
        added.id = "t-new";
        added.type = "target";
        after.tmap[added.id] = added;
        constexpr int kKeys = 100000;
        int moved = 0;
        for (int i = 0; i < kKeys; ++i) {
            const auto key = objectUname("b", "k" + std::to_string(i));
            const auto& from = hrwTarget(before, key)->id;
            const auto& to = hrwTarget(after, key)->id;
            if (from != to) {
                ++moved;
                QCOMPARE(to, added.id);  // keys only ever move to the newcomer
            }
        }
        const double share = static_cast<double>(moved) / kKeys;
        QVERIFY2(share > 0.25 * 0.95 && share < 0.25 * 1.05, qPrintable(QString::number(share)));
    }

    void mountpathIndex()
    {
        const std::vector<std::string> mps{"/mnt/a", "/mnt/b", "/mnt/c", "/mnt/d"};
        std::vector<int> count(mps.size(), 0);
        for (int i = 0; i < 40000; ++i) {
            const auto key = objectUname("b", std::to_string(i));
            const auto idx = hrwIndex(mps, key);
            QVERIFY(idx < mps.size());
            QCOMPARE(idx, hrwIndex(mps, key));
            ++count[idx];
        }
        for (int c : count) QVERIFY(std::abs(c - 10000) < 500);
        QCOMPARE(hrwIndex({"/only"}, "b/x"), std::size_t{0});
    }
};

QTEST_APPLESS_MAIN(TestHrw)
#include "test_hrw.moc"
