// The proxy's merge of target listing pages, with shard members (archive
// flag) kept right after their shard and pages cut between objects only.
#include "proxy/list_merge.h"

#include <QTest>

#include <random>
#include <set>

using namespace tessera;
using tessera::daemon::proxy::mergeListPages;
using tessera::daemon::proxy::mergeRawListPages;
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

// The proxy's JSON answer from the pages' text (mergeRawListPages) is the
// text of the decoded merge's page: checked for every page set the tests
// merge whose text the raw scan takes (no stamps, no escapes).
api::ObjectList merge(std::vector<api::ObjectList> pages, std::uint32_t pageSize)
{
    std::vector<api::RawObjectList> raw;
    bool exact = true;
    for (const auto& p : pages) {
        auto& r = raw.emplace_back();
        r.body = api::dumpObjectList(p);
        exact = exact && api::scanRawObjectList(r);
    }
    auto out = mergeListPages(std::move(pages), pageSize);
    if (exact) {
        out.uuid = "listing-id";
        const auto text = mergeRawListPages(raw, pageSize, out.uuid);
        if (text != api::dumpObjectList(out)) {
            qWarning("raw: %s\ndecoded: %s", text.c_str(), api::dumpObjectList(out).c_str());
            QTest::qFail("the raw merge wrote another page than the decoded one", __FILE__, __LINE__);
        }
    }
    return out;
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
        auto out = merge({page({obj("b"), obj("d")}), page({obj("a"), obj("c")})}, 10);
        QCOMPARE(names(out), (std::vector<std::string>{"a", "b", "c", "d"}));
        QVERIFY(out.continuationToken.empty());
    }

    // "a.tar-x" sorts before "a.tar/m" by full name; members still follow
    // their shard and precede the next object.
    void membersStayWithTheirShard()
    {
        auto t1 = page({obj("a.tar"), member("a.tar/m1"), member("a.tar/m0"), obj("c.tar"), member("c.tar/z")});
        auto t2 = page({obj("a.tar-x"), obj("b")});
        auto out = merge({t1, t2}, 10);
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
        auto out = merge({t1, t2}, 2);
        QCOMPARE(names(out), (std::vector<std::string>{"a.tar", "a.tar/1", "a.tar/2", "b.tar", "b.tar/1"}));
        QCOMPARE(out.continuationToken, std::string("b.tar"));
    }

    // A target that stopped early bounds what the page may hold.
    void coveredUpToTheSmallestToken()
    {
        auto t1 = page({obj("a.tar"), member("a.tar/x"), obj("b.tar"), member("b.tar/y")}, "b.tar");
        auto t2 = page({obj("a1"), obj("c")});
        auto out = merge({t1, t2}, 10);
        QCOMPARE(names(out), (std::vector<std::string>{"a.tar", "a.tar/x", "a1", "b.tar", "b.tar/y"}));
        QCOMPARE(out.continuationToken, std::string("b.tar"));
    }

    void duplicateObjectListedOnce()
    {
        auto t1 = page({obj("s.tar"), member("s.tar/a")});
        auto t2 = page({obj("s.tar"), member("s.tar/a")});
        auto out = merge({t1, t2}, 10);
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
        auto out = merge({t1, t2, t3}, 3);
        QCOMPARE(names(out), (std::vector<std::string>{"b", "c", "d"}));
        QCOMPARE(out.entries[0].size, std::int64_t{7});
        QCOMPARE(out.entries[1].size, std::int64_t{9});
        for (const auto& e : out.entries) {
            QCOMPARE(e.stamp, std::int64_t{0});
            QCOMPARE(e.flags, 0u);
        }
        QCOMPARE(out.continuationToken, std::string("d"));
        // Only deletions left: an empty, complete page.
        auto gone = merge({page({deleted("x", 2)}), page({stamped("x", 1)})}, 10);
        QVERIFY(gone.entries.empty());
        QVERIFY(gone.continuationToken.empty());
    }

    void errorFlagKept()
    {
        auto bad = obj("bad.tar");
        bad.flags = api::kEntryArchError;
        bad.error = "damaged tar shard";
        auto out = merge({page({bad, obj("ok")})}, 10);
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
        auto out = merge({a, b}, 10);
        QCOMPARE(names(out), (std::vector<std::string>{"a1", "a2"}));
        QCOMPARE(out.continuationToken, std::string("a2"));
    }

    // Random listings: names spread over 3 targets (some on two, as a
    // placement change leaves them), shards with members, sizes and other
    // props; each target sends its share and its token. The raw merge
    // (checked in merge()) writes the decoded merge's page every time, and
    // walking the pages lists every name once, in order.
    void randomListingsRawAndDecodedAgree()
    {
        std::mt19937 rng(5);
        auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
        for (int round = 0; round < 60; ++round) {
            std::vector<std::vector<api::ObjEntry>> held(3);
            std::set<std::string> all;
            for (std::size_t i = 0, n = 1 + pick(400); i < n; ++i) {
                const bool shard = pick(5) == 0;
                auto name =
                    "d" + std::to_string(pick(4)) + "/o-" + std::to_string(pick(100000)) + (shard ? ".tar" : "");
                if (!all.insert(name).second) continue;
                std::vector<api::ObjEntry> entries{obj(name, static_cast<std::int64_t>(pick(5000)))};
                if (pick(3) == 0) entries[0].checksum = "00112233aabbccdd";
                if (pick(4) == 0) entries[0].version = "2";
                entries[0].flags = api::kEntryIsCached | (shard ? api::kEntryIsArchive : 0u);
                for (std::size_t m = 0, k = shard ? pick(4) : 0; m < k; ++m) {
                    entries.push_back(member(name + "/" + std::to_string(m) + ".jpg"));
                }
                const auto owner = pick(3);
                held[owner].insert(held[owner].end(), entries.begin(), entries.end());
                if (pick(10) == 0)
                    held[(owner + 1) % 3].insert(held[(owner + 1) % 3].end(), entries.begin(), entries.end());
            }
            const auto byName = [](const api::ObjEntry& a, const api::ObjEntry& b) { return a.name < b.name; };
            for (auto& h : held) {
                // Objects in name order, each followed by its members.
                std::vector<std::vector<api::ObjEntry>> objects;
                for (auto& e : h) {
                    if (e.flags & api::kEntryInArch) objects.back().push_back(e);
                    else objects.push_back({e});
                }
                std::sort(objects.begin(), objects.end(), [&](auto& a, auto& b) { return byName(a[0], b[0]); });
                h.clear();
                for (auto& o : objects) h.insert(h.end(), o.begin(), o.end());
            }
            const std::uint32_t pageSize = 1 + static_cast<std::uint32_t>(pick(120));
            const auto share = perTargetPageSize(pageSize, 3);
            std::string token;
            std::vector<std::string> listed;
            for (int pages = 0;; ++pages) {
                QVERIFY(pages < 1000);
                std::vector<api::ObjectList> targetPages;
                for (const auto& h : held) {
                    api::ObjectList p;
                    std::uint32_t objects = 0;
                    for (const auto& e : h) {
                        const bool isMember = (e.flags & api::kEntryInArch) != 0;
                        if (!isMember && e.name <= token) continue;
                        if (isMember && p.entries.empty()) continue;  // a member of a skipped object
                        if (!isMember && objects == share) {
                            for (auto it = p.entries.rbegin(); it != p.entries.rend(); ++it) {
                                if (!(it->flags & api::kEntryInArch)) {
                                    p.continuationToken = it->name;
                                    break;
                                }
                            }
                            break;
                        }
                        p.entries.push_back(e);
                        objects += isMember ? 0 : 1;
                    }
                    targetPages.push_back(std::move(p));
                }
                auto out = merge(std::move(targetPages), pageSize);
                for (const auto& e : out.entries) {
                    if (!(e.flags & api::kEntryInArch)) listed.push_back(e.name);
                }
                if (out.continuationToken.empty()) break;
                token = out.continuationToken;
            }
            QCOMPARE(listed, std::vector<std::string>(all.begin(), all.end()));
        }
    }

    void orphanMemberDropped()
    {
        auto out = merge({page({member("x.tar/a"), obj("y")})}, 10);
        QCOMPARE(names(out), (std::vector<std::string>{"y"}));
    }
};

QTEST_GUILESS_MAIN(TestListMerge)
#include "test_list_merge.moc"
