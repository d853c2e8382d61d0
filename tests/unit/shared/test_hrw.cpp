// HRW placement: stable, even, and minimal movement when a target joins or leaves.
#include "api/hrw.h"

#include <QTest>
#include <algorithm>
#include <map>
#include <random>

using namespace tessera::api;

namespace {
Snode makeTarget(const std::string& id, int port)
{
    Snode n;
    n.id = id;
    n.type = std::string(kRoleTarget);
    n.publicNet = NetInfo{"127.0.0.1", port, "http://127.0.0.1:" + std::to_string(port)};
    return n;
}

std::string targetId(int i) { return "t" + std::to_string(1000 + i * 7919); }

Smap makeSmap(int targets)
{
    Smap s;
    s.version = 1;
    for (int i = 0; i < targets; ++i) {
        auto n = makeTarget(targetId(i), 9000 + i);
        s.tmap[n.id] = n;
    }
    return s;
}

std::string key(int i) { return objectUname("imagenet", "train/n" + std::to_string(i) + ".jpg"); }

QString spreadReport(const std::map<std::string, int>& count, double expected)
{
    QString s;
    for (const auto& [id, n] : count) {
        s += QString("%1=%2 ").arg(QString::fromStdString(id)).arg(n);
    }
    return s + QString("(expected %1 each)").arg(expected);
}
}  // namespace

class TestHrw : public QObject {
    Q_OBJECT

private slots:
    void uname()
    {
        QCOMPARE(objectUname("b", "x/y"), std::string("b/x/y"));
        QCOMPARE(objectUname("b", ""), std::string("b/"));
    }

    void winnerHasHighestWeight()
    {
        // The definition, checked literally: the owner is the argmax of hrwWeight.
        const auto smap = makeSmap(7);
        for (int i = 0; i < 2000; ++i) {
            const auto k = key(i);
            std::string best;
            std::uint64_t bestWeight = 0;
            for (const auto& [id, node] : smap.tmap) {
                const auto w = hrwWeight(id, k);
                if (best.empty() || w > bestWeight) {
                    best = id;
                    bestWeight = w;
                }
            }
            QCOMPARE(hrwTarget(smap, k)->id, best);
        }
        // The weight depends on both the node and the key.
        QVERIFY(hrwWeight("t1", "b/o") != hrwWeight("t2", "b/o"));
        QVERIFY(hrwWeight("t1", "b/o") != hrwWeight("t1", "b/p"));
        QCOMPARE(hrwWeight("t1", "b/o"), hrwWeight("t1", "b/o"));
    }

    void stable()
    {
        const auto a = makeSmap(5);
        // The same ids, inserted in reverse order, with other URLs and a newer version.
        Smap b;
        b.version = 42;
        for (int i = 4; i >= 0; --i) {
            auto n = makeTarget(targetId(i), 20000 + i);
            b.tmap[n.id] = n;
        }
        for (int i = 0; i < 5000; ++i) {
            const auto k = key(i);
            const auto* x = hrwTarget(a, k);
            QVERIFY(x != nullptr);
            QCOMPARE(x->id, hrwTarget(a, k)->id);
            QCOMPARE(x->id, hrwTarget(b, k)->id);
            QCOMPARE(x->id, hrwTarget(makeSmap(5), k)->id);
        }
        // The result is a pointer into the map it was given.
        const auto* owner = hrwTarget(a, key(1));
        QCOMPARE(owner, &a.tmap.at(owner->id));
    }

    void noTargets()
    {
        QVERIFY(hrwTarget(Smap{}, "b/x") == nullptr);
        Smap proxiesOnly;
        Snode p;
        p.id = "p1";
        p.type = std::string(kRoleProxy);
        proxiesOnly.pmap[p.id] = p;
        proxiesOnly.primary = p;
        QVERIFY(hrwTarget(proxiesOnly, "b/x") == nullptr);
    }

    // A decommissioning target owns nothing and holds no copies; the others
    // keep their HRW order (the hash is the same), and those it owned go to
    // their next target.
    void decommissioningSkipped()
    {
        const auto all = makeSmap(5);
        auto leaving = all;
        const auto gone = targetId(2);
        leaving.tmap.at(gone).flags |= kSnodeDecommissioning;
        for (int i = 0; i < 2000; ++i) {
            const auto k = key(i);
            const auto full = hrwTargets(all, k, 5);
            std::vector<std::string> expected;
            for (const auto* n : full) {
                if (n->id != gone) expected.push_back(n->id);
            }
            std::vector<std::string> got;
            for (const auto* n : hrwTargets(leaving, k, 5)) got.push_back(n->id);
            QCOMPARE(got, expected);
            QCOMPARE(hrwTarget(leaving, k)->id, expected.front());
            if (full.front()->id != gone) QCOMPARE(hrwTarget(leaving, k)->id, full.front()->id);
        }
        // Every target leaving: no owner.
        Smap none = makeSmap(2);
        for (auto& [id, n] : none.tmap) n.flags |= kSnodeDecommissioning;
        QVERIFY(hrwTarget(none, key(1)) == nullptr);
        QVERIFY(hrwTargets(none, key(1), 2).empty());
    }

    void singleTarget()
    {
        const auto smap = makeSmap(1);
        for (int i = 0; i < 100; ++i) QCOMPARE(hrwTarget(smap, key(i))->id, targetId(0));
    }

    void evenSpread_data()
    {
        QTest::addColumn<int>("targets");
        QTest::newRow("3 targets") << 3;
        QTest::newRow("10 targets") << 10;
    }
    void evenSpread()
    {
        QFETCH(int, targets);
        const auto smap = makeSmap(targets);
        constexpr int kKeys = 100000;
        std::map<std::string, int> count;
        for (int i = 0; i < kKeys; ++i) ++count[hrwTarget(smap, key(i))->id];
        QCOMPARE(static_cast<int>(count.size()), targets);
        const double expected = static_cast<double>(kKeys) / targets;
        for (const auto& [id, n] : count) {
            const double dev = std::abs(n - expected) / expected;
            QVERIFY2(dev <= 0.05, qPrintable(spreadReport(count, expected)));
        }
    }

    void minimalMovementOnJoin()
    {
        const auto before = makeSmap(3);
        auto after = before;
        const auto added = makeTarget("t-new", 9100);
        after.tmap[added.id] = added;
        after.version = before.version + 1;
        constexpr int kKeys = 100000;
        int moved = 0;
        for (int i = 0; i < kKeys; ++i) {
            const auto k = key(i);
            const auto& from = hrwTarget(before, k)->id;
            const auto& to = hrwTarget(after, k)->id;
            if (from != to) {
                ++moved;
                QCOMPARE(to, added.id);  // keys only ever move to the newcomer
            }
        }
        // With 4 targets the newcomer should take 1/4 of the keys (±5% relative).
        const double share = static_cast<double>(moved) / kKeys;
        QVERIFY2(share >= 0.25 * 0.95 && share <= 0.25 * 1.05, qPrintable(QString("moved share %1").arg(share)));
    }

    void minimalMovementOnLeave()
    {
        const auto before = makeSmap(4);
        auto after = before;
        const auto gone = targetId(2);
        after.tmap.erase(gone);
        constexpr int kKeys = 50000;
        int moved = 0;
        for (int i = 0; i < kKeys; ++i) {
            const auto k = key(i);
            const auto& from = hrwTarget(before, k)->id;
            const auto& to = hrwTarget(after, k)->id;
            if (from == gone) {
                ++moved;
                QVERIFY(to != gone);
            } else {
                QCOMPARE(to, from);  // keys of the surviving targets stay where they are
            }
        }
        const double share = static_cast<double>(moved) / kKeys;
        QVERIFY2(share >= 0.25 * 0.95 && share <= 0.25 * 1.05, qPrintable(QString("moved share %1").arg(share)));
    }

    void mountpathIndex()
    {
        const std::vector<std::string> mps{"/mnt/a", "/mnt/b", "/mnt/c", "/mnt/d"};
        std::vector<int> count(mps.size(), 0);
        constexpr int kKeys = 40000;
        for (int i = 0; i < kKeys; ++i) {
            const auto k = key(i);
            const auto idx = hrwIndex(mps, k);
            QVERIFY(idx < mps.size());
            QCOMPARE(idx, hrwIndex(mps, k));
            ++count[idx];
        }
        for (int c : count) {
            QVERIFY2(std::abs(c - kKeys / 4) <= kKeys / 4 / 20, qPrintable(QString::number(c)));
        }
        QCOMPARE(hrwIndex({"/only"}, "b/x"), std::size_t{0});
    }

    void mountpathIndexFollowsIdsNotOrder()
    {
        // The winner is a property of the ids: listing the mountpaths in another
        // order must pick the same mountpath.
        const std::vector<std::string> mps{"/data/1", "/data/2", "/data/3", "/data/4", "/data/5"};
        auto shuffled = mps;
        std::mt19937 rng(7);
        std::shuffle(shuffled.begin(), shuffled.end(), rng);
        std::reverse(shuffled.begin(), shuffled.end());
        for (int i = 0; i < 5000; ++i) {
            const auto k = key(i);
            QCOMPARE(shuffled[hrwIndex(shuffled, k)], mps[hrwIndex(mps, k)]);
        }
    }

    void mountpathAddedMovesOnlyToIt()
    {
        const std::vector<std::string> before{"/mnt/a", "/mnt/b"};
        auto after = before;
        after.push_back("/mnt/c");
        int moved = 0;
        constexpr int kKeys = 30000;
        for (int i = 0; i < kKeys; ++i) {
            const auto k = key(i);
            const auto& from = before[hrwIndex(before, k)];
            const auto& to = after[hrwIndex(after, k)];
            if (from != to) {
                ++moved;
                QCOMPARE(to, std::string("/mnt/c"));
            }
        }
        const double share = static_cast<double>(moved) / kKeys;
        QVERIFY2(share >= (1.0 / 3) * 0.95 && share <= (1.0 / 3) * 1.05, qPrintable(QString::number(share)));
    }
    void copyTargetsFollowHrwOrder()
    {
        // The first n of the HRW order: the owner first, then by weight.
        const auto smap = makeSmap(6);
        BucketProps mirrored;
        mirrored.mirror = MirrorConf{true, 3, true, false};
        for (int i = 0; i < 500; ++i) {
            const auto k = key(i);
            const auto all = hrwTargets(smap, k, 10);
            QCOMPARE(all.size(), std::size_t{6});
            QCOMPARE(all.front()->id, hrwTarget(smap, k)->id);
            for (std::size_t j = 1; j < all.size(); ++j) {
                QVERIFY(hrwWeight(all[j - 1]->id, k) > hrwWeight(all[j]->id, k));
            }
            const auto obj = "train/n" + std::to_string(i) + ".jpg";
            const auto three = copyTargets(smap, &mirrored, "imagenet", obj);
            QCOMPARE(three.size(), std::size_t{3});
            for (std::size_t j = 0; j < 3; ++j) QCOMPARE(three[j]->id, all[j]->id);
            QCOMPARE(copyTargets(smap, nullptr, "imagenet", obj).size(), std::size_t{1});
            BucketProps local;
            local.mirror = MirrorConf{true, 3, false, false};  // copies on mountpaths: one target
            QCOMPARE(copyTargets(smap, &local, "imagenet", obj).size(), std::size_t{1});
        }
        QVERIFY(copyTargets(Smap{}, &mirrored, "b", "o").empty());
    }

    // Erasure coding: the owner then the D + P slice holders, distinct, in
    // HRW order; reads of a coded bucket go by that set, of others by the
    // copies; none for a bucket that is not coded.
    void ecTargetsAreTheHrwOrder()
    {
        const auto smap = makeSmap(8);
        BucketProps coded;
        coded.ec.enabled = true;
        coded.ec.dataSlices = 4;
        coded.ec.paritySlices = 2;
        BucketProps plain;
        for (int i = 0; i < 50; ++i) {
            const auto name = "o" + std::to_string(i);
            const auto set = ecTargets(smap, &coded, "b", name);
            QCOMPARE(set.size(), std::size_t{7});
            QCOMPARE(set.front(), hrwTarget(smap, objectUname("b", name)));
            QVERIFY(set == hrwTargets(smap, objectUname("b", name), 7));
            for (std::size_t k = 1; k < set.size(); ++k) {
                QVERIFY(hrwWeight(set[k - 1]->id, objectUname("b", name)) >
                        hrwWeight(set[k]->id, objectUname("b", name)));
            }
            QVERIFY(readTargets(smap, &coded, "b", name) == set);
            QVERIFY(ecTargets(smap, &plain, "b", name).empty());
            QVERIFY(ecTargets(smap, nullptr, "b", name).empty());
            QVERIFY(readTargets(smap, &plain, "b", name) == copyTargets(smap, &plain, "b", name));
        }
        // Fewer targets than the code needs: all of them (the proxy refuses such props).
        QCOMPARE(ecTargets(makeSmap(3), &coded, "b", "x").size(), std::size_t{3});
    }
};

QTEST_APPLESS_MAIN(TestHrw)
#include "test_hrw.moc"
