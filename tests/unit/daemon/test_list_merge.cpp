// The proxy's merge of target listing pages, with shard members (archive
// flag) kept right after their shard and pages cut between objects only.
#include "proxy/list_merge.h"

#include <QTest>

using namespace tessera;
using tessera::daemon::proxy::mergeListPages;
using tessera::daemon::proxy::perTargetPageSize;

namespace {

api::ObjEntry obj(const std::string& name, std::int64_t size = 1)
{
    api::ObjEntry e;
    e.name = name;
    e.size = size;
    return e;
}

api::ObjEntry member(const std::string& name, std::int64_t size = 1)
{
    auto e = obj(name, size);
    e.flags = api::kEntryInArch;
    return e;
}

api::ObjectList page(std::vector<api::ObjEntry> entries, std::string token = {})
{
    api::ObjectList p;
    p.entries = std::move(entries);
    p.continuationToken = std::move(token);
    return p;
}

std::vector<std::string> names(const api::ObjectList& l)
{
    std::vector<std::string> out;
    for (const auto& e : l.entries) out.push_back(e.name);
    return out;
}

}  // namespace

class TestListMerge : public QObject {
    Q_OBJECT

private slots:
    void plainNamesInOrder()
    {
        auto out = mergeListPages({page({obj("b"), obj("d")}), page({obj("a"), obj("c")})}, 10);
        QCOMPARE(names(out), (std::vector<std::string>{"a", "b", "c", "d"}));
        QVERIFY(out.continuationToken.empty());
    }

    // "a.tar-x" sorts before "a.tar/m" by full name; members still follow
    // their shard and precede the next object.
    void membersStayWithTheirShard()
    {
        auto t1 = page({obj("a.tar"), member("a.tar/m1"), member("a.tar/m0"), obj("c.tar"), member("c.tar/z")});
        auto t2 = page({obj("a.tar-x"), obj("b")});
        auto out = mergeListPages({t1, t2}, 10);
        QCOMPARE(names(out),
                 (std::vector<std::string>{"a.tar", "a.tar/m1", "a.tar/m0", "a.tar-x", "b", "c.tar", "c.tar/z"}));
        QCOMPARE(out.entries[1].flags, api::kEntryInArch);
        QCOMPARE(out.entries[0].flags, 0u);
    }

    // The page size counts objects; the token is the last object's name.
    void pageCutBetweenObjects()
    {
        auto t1 = page({obj("a.tar"), member("a.tar/1"), member("a.tar/2"), obj("c")});
        auto t2 = page({obj("b.tar"), member("b.tar/1")});
        auto out = mergeListPages({t1, t2}, 2);
        QCOMPARE(names(out), (std::vector<std::string>{"a.tar", "a.tar/1", "a.tar/2", "b.tar", "b.tar/1"}));
        QCOMPARE(out.continuationToken, std::string("b.tar"));
    }

    // A target that stopped early bounds what the page may hold.
    void coveredUpToTheSmallestToken()
    {
        auto t1 = page({obj("a.tar"), member("a.tar/x"), obj("b.tar"), member("b.tar/y")}, "b.tar");
        auto t2 = page({obj("a1"), obj("c")});
        auto out = mergeListPages({t1, t2}, 10);
        QCOMPARE(names(out), (std::vector<std::string>{"a.tar", "a.tar/x", "a1", "b.tar", "b.tar/y"}));
        QCOMPARE(out.continuationToken, std::string("b.tar"));
    }

    void duplicateObjectListedOnce()
    {
        auto t1 = page({obj("s.tar"), member("s.tar/a")});
        auto t2 = page({obj("s.tar"), member("s.tar/a")});
        auto out = mergeListPages({t1, t2}, 10);
        QCOMPARE(names(out), (std::vector<std::string>{"s.tar", "s.tar/a"}));
    }

    // Stand-in pages of an erasure-coded bucket (its owner away): a holder
    // that missed an interrupted deletion lists the name from its slice,
    // another recorded the deletion, newer: the name is gone and does not
    // count against the page. A version newer than a deletion stands, the
    // newest entry's fields win, and no stamp is passed on.
    void newestStandInEntryWins()
    {
        const auto stamped = [](const std::string& name, std::int64_t stamp, std::int64_t size = 1) {
            auto e = obj(name, size);
            e.stamp = stamp;
            return e;
        };
        const auto deleted = [](const std::string& name, std::int64_t stamp) {
            api::ObjEntry e;
            e.name = name;
            e.size = -1;
            e.flags = api::kEntryStatusDeleted;
            e.stamp = stamp;
            return e;
        };
        auto t1 = page({stamped("a", 10), stamped("b", 30, 7), deleted("c", 40), stamped("d", 5)});
        auto t2 = page({deleted("a", 20), stamped("b", 20, 3), stamped("c", 50, 9), obj("e")});
        auto t3 = page({stamped("a", 10), deleted("b", 25), deleted("f", 60)});
        auto out = mergeListPages({t1, t2, t3}, 3);
        QCOMPARE(names(out), (std::vector<std::string>{"b", "c", "d"}));
        QCOMPARE(out.entries[0].size, std::int64_t{7});
        QCOMPARE(out.entries[1].size, std::int64_t{9});
        for (const auto& e : out.entries) {
            QCOMPARE(e.stamp, std::int64_t{0});
            QCOMPARE(e.flags, 0u);
        }
        QCOMPARE(out.continuationToken, std::string("d"));
        // Only deletions left: an empty, complete page.
        auto gone = mergeListPages({page({deleted("x", 2)}), page({stamped("x", 1)})}, 10);
        QVERIFY(gone.entries.empty());
        QVERIFY(gone.continuationToken.empty());
    }

    void errorFlagKept()
    {
        auto bad = obj("bad.tar");
        bad.flags = api::kEntryArchError;
        bad.error = "damaged tar shard";
        auto out = mergeListPages({page({bad, obj("ok")})}, 10);
        QCOMPARE(out.entries.size(), std::size_t{2});
        QCOMPARE(out.entries[0].flags, api::kEntryArchError);
        QCOMPARE(out.entries[0].error, std::string("damaged tar shard"));
    }

    void perTargetShare()
    {
        QCOMPARE(perTargetPageSize(10000, 3), 3581u);  // 3334 + ceil(4 * sqrt(3334)) + 16
        QCOMPARE(perTargetPageSize(10000, 2), 5299u);  // 5000 + 283 + 16
        QCOMPARE(perTargetPageSize(10000, 1), 10000u);
        QCOMPARE(perTargetPageSize(3, 3), 3u);          // never more than the page
        QCOMPARE(perTargetPageSize(0, 2), 606u);        // the default page of 1000: 500 + 90 + 16
        QCOMPARE(perTargetPageSize(10000, 100), 141u);  // a quarter (25) is less than 4 x sqrt(100)
        QCOMPARE(perTargetPageSize(100, 3), 58u);       // the same: 34 + 8 + 16
    }

    // Short target pages: the page is cut at the smallest target token and
    // the next call continues from there.
    void shortTargetPagesCutAtSmallestToken()
    {
        auto a = page({obj("a1"), obj("a2")}, "a2");
        auto b = page({obj("b1"), obj("b2")}, "b2");
        auto out = mergeListPages({a, b}, 10);
        QCOMPARE(names(out), (std::vector<std::string>{"a1", "a2"}));
        QCOMPARE(out.continuationToken, std::string("a2"));
    }

    void orphanMemberDropped()
    {
        auto out = mergeListPages({page({member("x.tar/a"), obj("y")})}, 10);
        QCOMPARE(names(out), (std::vector<std::string>{"y"}));
    }
};

QTEST_GUILESS_MAIN(TestListMerge)
#include "test_list_merge.moc"
