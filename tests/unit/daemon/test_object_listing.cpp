// Listing the target's object store on real directories (two mountpaths):
// name order across mountpaths, properties, paging, the name snapshot and
// the walk concurrent listings share.
#include "object_store_fixture.h"

#include "api/checksum.h"

#include <QDir>
#include <QFile>
#include <QTest>
#include <cstdio>
#include <fcntl.h>
#include <map>
#include <random>
#include <set>
#include <thread>
#include <unistd.h>

using namespace tessera;
using namespace tessera::daemon::target;
using tessera::daemon::target::test::ObjectStoreFixture;

class TestObjectListing : public QObject, protected ObjectStoreFixture {
    Q_OBJECT

private slots:
    void init() { resetStore(); }

    void listingOrderAcrossMountpaths()
    {
        // "a" is an object and, on the other mountpath, a directory of "a/k.."
        // objects. Byte order: '-' (0x2d) < '.' (0x2e) < '/' (0x2f) < '0' (0x30).
        const auto aChild = childOn("a", mountpathOf("a"), false);
        QVERIFY(!aChild.empty());
        std::vector<std::string> names{"a",     "a-c",   aChild,  "a0",        "a.txt",
                                       "a-b/z", "b/c/d", "b/c/e", "b/cc",      "b.txt",
                                       "z",     "A",     "~",     "m/n/o/p/q", "\xc3\xa9t\xc3\xa9",
                                       "1",     "b/c0"};
        for (const auto& n : names) QVERIFY2(put(n, n).ok(), n.c_str());
        QVERIFY(mountpathOf("a") != mountpathOf(aChild));
        auto sorted = names;
        std::sort(sorted.begin(), sorted.end());
        QCOMPARE(sorted.front(), std::string("1"));
        QCOMPARE(sorted.back(), std::string("\xc3\xa9t\xc3\xa9"));  // bytes >= 0x80 sort last
        for (std::uint32_t ps : {1u, 2u, 3u, 7u, 1000u}) {
            int pages = 0;
            auto got = listAll(ps, {}, &pages);
            QVERIFY2(got == sorted, qPrintable(QString("page size %1").arg(ps)));
            QVERIFY(pages >= static_cast<int>((names.size() + ps - 1) / ps));
        }
        const std::vector<std::string> aNames{"a", "a-b/z", "a-c", "a.txt", aChild, "a0"};
        QCOMPARE(listAll(2, "a"), aNames);
        QCOMPARE(listAll(1, "a/"), std::vector<std::string>{aChild});
        QCOMPARE(listAll(2, "b/c"), (std::vector<std::string>{"b/c/d", "b/c/e", "b/c0", "b/cc"}));
        QCOMPARE(listAll(10, "b/c/"), (std::vector<std::string>{"b/c/d", "b/c/e"}));
        QCOMPARE(listAll(10, "m/n/o/p/q"), std::vector<std::string>{"m/n/o/p/q"});
        QCOMPARE(listAll(10, "nothing"), std::vector<std::string>{});
        QCOMPARE(listAll(10, "b/c/d/"), std::vector<std::string>{});

        // A token in the middle: strictly greater names only, even when the
        // token is itself a "directory" of other names.
        api::ListRequest req;
        req.props = api::kPropName;
        req.continuationToken = "a";
        auto page = m_store->list("b", req);
        QVERIFY(page.ok());
        QCOMPARE(page->entries.front().name, std::string("a-b/z"));
        QVERIFY(page->continuationToken.empty());
        req.continuationToken = "b/c";
        page = m_store->list("b", req);
        QCOMPARE(page->entries.front().name, std::string("b/c/d"));
        req.continuationToken = "\xc3\xa9t\xc3\xa9";
        page = m_store->list("b", req);
        QVERIFY(page->entries.empty());
        QVERIFY(page->continuationToken.empty());

        // Other buckets do not show up.
        QVERIFY(put("zz", "other bucket", {}, "b2").ok());
        QCOMPARE(listAll(1000), sorted);
    }

    void concurrentListingsShareOneWalk()
    {
        // Names made on the mountpaths directly (the walk only reads
        // directory entries): enough that the walk lasts while the other
        // listings arrive.
        QVERIFY(put("seed", "x").ok());
        const auto mps = mountpaths();
        for (const auto& mp : mps) QVERIFY(QDir().mkpath(QString::fromStdString(mp + "/buckets/b")));
        constexpr int kNames = 20000;
        for (int i = 0; i < kNames; ++i) {
            char name[32];
            std::snprintf(name, sizeof name, "n-%06d", i);
            const auto path = mps[static_cast<std::size_t>(i) % mps.size()] + "/buckets/b/" + name;
            const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
            QVERIFY(fd >= 0);
            ::close(fd);
        }
        // The same name on both mountpaths (a copy left behind) lists once.
        for (const auto& mp : mps) {
            const int fd = ::open((mp + "/buckets/b/n-dup").c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
            QVERIFY(fd >= 0);
            ::close(fd);
        }
        const auto walksBefore = m_store->nameWalks();
        api::ListRequest req;
        req.props = api::kPropName;
        req.pageSize = 5;
        constexpr int kListings = 4;
        std::vector<api::Result<api::ObjectList>> pages(kListings, api::Error::unavailable("not run"));
        std::vector<std::thread> threads;
        for (int t = 0; t < kListings; ++t) {
            threads.emplace_back([&, t] { pages[static_cast<std::size_t>(t)] = m_store->list("b", req); });
        }
        for (auto& t : threads) t.join();
        QCOMPARE(m_store->nameWalks() - walksBefore, std::uint64_t{1});
        for (const auto& p : pages) {
            QVERIFY(p.ok());
            QCOMPARE(p->entries.size(), std::size_t{5});
            QCOMPARE(p->entries.front().name, std::string("n-000000"));
            QCOMPARE(p->continuationToken, std::string("n-000004"));
        }
        std::size_t count = 0, dups = 0;
        std::string token;
        do {
            req.pageSize = 10000;
            req.continuationToken = token;
            auto page = m_store->list("b", req);
            QVERIFY(page.ok());
            for (const auto& e : page->entries) dups += e.name == "n-dup";
            count += page->entries.size();
            token = page->continuationToken;
        } while (!token.empty());
        QCOMPARE(count, std::size_t{kNames + 2});  // + n-dup and seed
        QCOMPARE(dups, std::size_t{1});
        // Paging reused the snapshot; a write retires it.
        QCOMPARE(m_store->nameWalks() - walksBefore, std::uint64_t{1});
        QVERIFY(put("seed2", "y").ok());
        req.continuationToken.clear();
        QVERIFY(m_store->list("b", req).ok());
        QCOMPARE(m_store->nameWalks() - walksBefore, std::uint64_t{2});
    }

    void listingProps()
    {
        QVERIFY(put("p1", "abc").ok());
        QVERIFY(put("p1", "abcd").ok());  // version 2
        api::ListRequest req;
        req.props = api::kPropName | api::kPropSize | api::kPropChecksum | api::kPropVersion | api::kPropAtime;
        req.timeFormat = "2006-01-02T15:04:05.000000000Z07:00";  // a Go layout (AIStore's LsoMsg time_format)
        auto page = m_store->list("b", req);
        QVERIFY(page.ok());
        QCOMPARE(page->entries.size(), std::size_t{1});
        const auto& e = page->entries.front();
        QCOMPARE(e.name, std::string("p1"));
        QCOMPARE(e.size, 4);
        QCOMPARE(e.checksum, api::xxhash64Hex("abcd"));
        QCOMPARE(e.version, std::string("2"));
        QVERIFY(e.atime.size() == 30 && e.atime.back() == 'Z');  // 2026-01-02T03:04:05.123456789Z
        QCOMPARE(e.flags, api::kEntryIsCached);
        QVERIFY(page->continuationToken.empty());
        // Without a format: AIStore's default, RFC822 in UTC ("02 Jan 26 03:04 UTC").
        req.timeFormat.clear();
        page = m_store->list("b", req);
        QVERIFY2(page->entries.front().atime.size() == 19 && page->entries.front().atime.ends_with(" UTC"),
                 page->entries.front().atime.c_str());
        // Name only: no size (-1 means "not asked"), no metadata.
        req.props = api::kPropName;
        page = m_store->list("b", req);
        QCOMPARE(page->entries.front().size, -1);
        QVERIFY(page->entries.front().checksum.empty());
        QVERIFY(page->entries.front().version.empty());
    }

    // Sizes are learned once per snapshot: a listing that pages through the
    // bucket again reads them instead of a stat per name, and a write to the
    // bucket retires them with the names.
    void sizesLastAsLongAsTheSnapshot()
    {
        std::map<std::string, std::int64_t> want;
        for (int i = 0; i < 40; ++i) {
            const auto n = "s/" + std::to_string(100 + i);
            QVERIFY(put(n, std::string(static_cast<std::size_t>(i * 7), 'x')).ok());
            want[n] = i * 7;
        }
        const auto sized = [&](std::uint32_t pageSize, std::uint32_t props) {
            std::map<std::string, std::int64_t> got;
            api::ListRequest req;
            req.props = props;
            req.pageSize = pageSize;
            while (true) {
                auto page = m_store->list("b", req);
                if (!page) return std::map<std::string, std::int64_t>{{"<error>", 0}};
                for (const auto& e : page->entries) got[e.name] = e.size;
                if (page->continuationToken.empty()) break;
                req.continuationToken = page->continuationToken;
            }
            return got;
        };
        const auto sizeProps = api::kPropName | api::kPropSize;
        QCOMPARE(sized(7, sizeProps), want);
        QCOMPARE(sized(1000, sizeProps), want);
        // Changed behind the store's back (not a write it knows of): the
        // snapshot's sizes stand, as its names do...
        const auto victim = std::string("s/110");
        QCOMPARE(::truncate(m_store->objectPath("b", victim).c_str(), 3), 0);
        QCOMPARE(sized(1000, sizeProps).at(victim), want.at(victim));
        // ...except where a stat is made anyway (atime).
        QCOMPARE(sized(1000, sizeProps | api::kPropAtime).at(victim), 3);
        // A write to the bucket retires them: every size is read again.
        QVERIFY(put("s/200", "12345").ok());
        want[victim] = 3;
        want["s/200"] = 5;
        QCOMPARE(sized(3, sizeProps), want);
        // An overwrite is a write too.
        QVERIFY(put("s/101", std::string(1000, 'y')).ok());
        want["s/101"] = 1000;
        QCOMPARE(sized(1000, sizeProps), want);
        // Removed: gone from the names and the sizes.
        QVERIFY(m_store->remove("b", "s/102").ok());
        want.erase("s/102");
        QCOMPARE(sized(1000, sizeProps), want);
    }

    void pagingRandomTree()
    {
        // A few hundred names in a random tree; names that would be both an
        // object and a directory on one mountpath are refused and left out.
        std::mt19937 rng(42);
        const char* parts[] = {"a", "a0", "a-", "b", "b.c", "c", "x", "x-y", "z"};
        std::set<std::string> stored;
        for (int i = 0; i < 400; ++i) {
            std::string n;
            const int depth = 1 + static_cast<int>(rng() % 4);
            for (int d = 0; d < depth; ++d) {
                if (d) n += '/';
                n += parts[rng() % std::size(parts)];
                if (rng() % 3 == 0) n += std::to_string(rng() % 5);
            }
            auto m = put(n, "v");
            if (m.ok()) stored.insert(n);
            else QCOMPARE(m.kind(), api::ErrorKind::Conflict);
        }
        QVERIFY(stored.size() > 100);
        const std::vector<std::string> all(stored.begin(), stored.end());
        for (std::uint32_t ps : {1u, 2u, 7u, 1000u}) {
            QVERIFY2(listAll(ps) == all, qPrintable(QString("page size %1").arg(ps)));
        }
        for (const std::string prefix : {"a", "a/", "a0", "x-", "x/y", "b.c/"}) {
            std::vector<std::string> want;
            for (const auto& n : all) {
                if (n.rfind(prefix, 0) == 0) want.push_back(n);
            }
            for (std::uint32_t ps : {1u, 3u, 1000u}) {
                QVERIFY2(listAll(ps, prefix) == want,
                         qPrintable(QString("prefix %1 page size %2").arg(QString::fromStdString(prefix)).arg(ps)));
            }
        }
    }

    void exactlyFullPageThenEmpty()
    {
        for (const char* n : {"n1", "n2", "n3", "n4"}) QVERIFY(put(n, n).ok());
        api::ListRequest req;
        req.pageSize = 2;
        auto page = m_store->list("b", req);
        QCOMPARE(page->entries.size(), std::size_t{2});
        QCOMPARE(page->continuationToken, std::string("n2"));
        req.continuationToken = page->continuationToken;
        page = m_store->list("b", req);
        QCOMPARE(page->entries.size(), std::size_t{2});
        QCOMPARE(page->continuationToken, std::string("n4"));  // full page: more may follow
        req.continuationToken = page->continuationToken;
        page = m_store->list("b", req);
        QVERIFY(page->entries.empty());
        QVERIFY(page->continuationToken.empty());  // complete
        // pageSize 0 means the default (1000).
        req = {};
        req.pageSize = 0;
        page = m_store->list("b", req);
        QCOMPARE(page->entries.size(), std::size_t{4});
        QVERIFY(page->continuationToken.empty());
    }

    void droppedEntryDoesNotEndTheListing()
    {
        // list() drops a walked name it cannot open for its properties (an
        // object deleted between the walk and the open; here, deterministically,
        // a file on a mountpath other than its HRW one, as left behind when a
        // target's mountpath set changes). Dropping it must not end the listing.
        QVERIFY(put("t1", "1").ok());
        QVERIFY(put("t2", "2").ok());
        const std::size_t other = 1 - mountpathOf("s0");
        const auto stray = QString::fromStdString(m_store->bucketRoot(other, "b") + "/s0");
        QVERIFY(QDir().mkpath(QFileInfo(stray).path()));
        QFile f(stray);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        QCOMPARE(m_store->stat("b", "s0").kind(), api::ErrorKind::NotFound);  // not reachable by name

        const auto sized = api::kPropName | api::kPropSize;
        QCOMPARE(listAll(1000, {}, nullptr, sized), (std::vector<std::string>{"t1", "t2"}));
        api::ListRequest req;
        req.pageSize = 1;
        auto page = m_store->list("b", req);  // default props: name,size -> opens each name
        QVERIFY(page.ok());
        // The walk's page {"s0"} is full and s0 is dropped: the page must still
        // carry a token (t1 and t2 follow), not read "empty and complete".
        QVERIFY(!page->continuationToken.empty() || !page->entries.empty());
    }
};

QTEST_GUILESS_MAIN(TestObjectListing)
#include "test_object_listing.moc"
