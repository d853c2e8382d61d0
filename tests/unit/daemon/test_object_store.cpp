// The target's object store on real directories (two mountpaths): atomic PUT,
// metadata, deletion, listing order and paging, crash leftovers, name
// conflicts, corruption.
#include "target/object_store.h"

#include "api/checksum.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <cstdio>
#include <fcntl.h>
#include <random>
#include <set>
#include <thread>
#include <unistd.h>

using namespace tessera;
using namespace tessera::daemon::target;

class TestObjectStore : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<ObjectStore> m_store;

    std::vector<std::string> mountpaths() const
    {
        return {(m_dir.path() + "/mp1").toStdString(), (m_dir.path() + "/mp2").toStdString()};
    }
    bool reopen(std::uint64_t maxObjectSize = std::uint64_t{1} << 40)
    {
        m_store.reset();
        ObjectStore::Options o;
        o.mountpaths = mountpaths();
        o.fsync = false;
        o.maxObjectSize = maxObjectSize;
        auto s = ObjectStore::create(o);
        if (!s) {
            qWarning("%s", s.error().message.c_str());
            return false;
        }
        m_store = std::move(s.value());
        return true;
    }
    api::Result<api::ObjectMeta> put(const std::string& name, const std::string& data, PutParams params = {},
                                     const std::string& bucket = "b")
    {
        auto w = m_store->beginPut(bucket, name, std::move(params));
        if (!w) return w.error();
        // Two writes: the checksum is computed over the stream, not one buffer.
        const auto half = data.size() / 2;
        auto st = (*w)->write(data.data(), half);
        if (!st) return st.error();
        st = (*w)->write(data.data() + half, data.size() - half);
        if (!st) return st.error();
        return (*w)->commit();
    }
    std::string read(const std::string& name)
    {
        auto o = m_store->open("b", name);
        if (!o) return "<" + std::string(api::errorKindName(o.kind())) + ">";
        std::string s(static_cast<std::size_t>(o->meta.size), '\0');
        const auto n = ::pread(o->fd->get(), s.data(), s.size(), 0);
        if (n != static_cast<ssize_t>(s.size())) return "<short read>";
        return s;
    }
    // Index of the mountpath an object name lands on.
    std::size_t mountpathOf(const std::string& name) const
    {
        const auto path = m_store->objectPath("b", name);
        const auto& mps = m_store->options().mountpaths;
        for (std::size_t i = 0; i < mps.size(); ++i) {
            if (path.rfind(mps[i] + "/", 0) == 0) return i;
        }
        return mps.size();
    }
    // "<base>/k<i>" for the first i whose mountpath is (or is not) `mp`.
    std::string childOn(const std::string& base, std::size_t mp, bool same) const
    {
        for (int i = 0; i < 1000; ++i) {
            auto n = base + "/k" + std::to_string(i);
            if ((mountpathOf(n) == mp) == same) return n;
        }
        return {};
    }
    int filesIn(const char* sub) const
    {
        int n = 0;
        for (const auto& mp : mountpaths()) {
            n += static_cast<int>(QDir(QString::fromStdString(mp + sub))
                                      .entryList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot)
                                      .size());
        }
        return n;
    }
    int workFiles() const { return filesIn("/.tessera/work"); }
    std::vector<std::string> listAll(std::uint32_t pageSize, const std::string& prefix = {}, int* pages = nullptr,
                                     std::uint32_t props = api::kPropName)
    {
        std::vector<std::string> out;
        api::ListRequest req;
        req.pageSize = pageSize;
        req.prefix = prefix;
        req.props = props;
        for (int guard = 0; guard < 100000; ++guard) {
            auto page = m_store->list("b", req);
            if (!page) return {"<error>"};
            if (pages) ++*pages;
            if (page->entries.size() > pageSize) return {"<page too big>"};
            for (const auto& e : page->entries) out.push_back(e.name);
            if (page->continuationToken.empty()) return out;
            if (page->entries.empty() || page->continuationToken != page->entries.back().name) {
                return {"<token is not the last name>"};
            }
            req.continuationToken = page->continuationToken;
        }
        return {"<no end>"};
    }

private slots:
    void init()
    {
        QVERIFY(m_dir.isValid());
        m_store.reset();
        QDir(m_dir.path()).removeRecursively();
        QVERIFY(QDir().mkpath(m_dir.path()));
        QVERIFY(reopen());
        QCOMPARE(m_store->options().mountpaths.size(), std::size_t{2});
    }

    void layoutCreated()
    {
        for (const auto& mp : mountpaths()) {
            for (const char* sub : {"/buckets", "/.tessera/work", "/.tessera/trash"}) {
                QVERIFY2(QFileInfo(QString::fromStdString(mp + sub)).isDir(), (mp + sub).c_str());
            }
        }
        // Names land under <mp>/buckets/<bucket>/<name>.
        const auto p = m_store->objectPath("b", "x/y.jpg");
        QVERIFY(mountpathOf("x/y.jpg") < 2);
        QVERIFY2(p == m_store->options().mountpaths[mountpathOf("x/y.jpg")] + "/buckets/b/x/y.jpg", p.c_str());
    }

    void mountpathsOnOneFilesystem()
    {
        // Both mountpaths of this test live in one temporary folder: one
        // filesystem, which the capacity figures say (and count once).
        const auto info = m_store->mountpathInfo();
        QCOMPARE(info.size(), std::size_t{2});
        QVERIFY(!info[0].fs.empty());
        QCOMPARE(info[0].fs, info[1].fs);
        QCOMPARE(info[0].fs, filesystemOf(m_dir.path().toStdString()));
        QVERIFY(filesystemOf(m_dir.path().toStdString() + "/no-such-dir").empty());
        QVERIFY(filesystemOf("/proc") != info[0].fs);
    }

    void createRefusesBadMountpaths()
    {
        ObjectStore::Options none;
        QCOMPARE(ObjectStore::create(none).kind(), api::ErrorKind::BadRequest);
        ObjectStore::Options twice;
        twice.mountpaths = {mountpaths()[0], mountpaths()[0] + "/."};
        QCOMPARE(ObjectStore::create(twice).kind(), api::ErrorKind::BadRequest);
    }

    void putThenRead()
    {
        PutParams p;
        p.custom = {{"label", "cat"}, {"source", "camera-1"}};
        auto m = put("dir/obj", "hello world", p);
        QVERIFY2(m.ok(), m.ok() ? "" : m.error().message.c_str());
        QCOMPARE(m->size, 11);
        QCOMPARE(m->checksumType, std::string("xxhash"));
        QCOMPARE(m->checksumValue, api::xxhash64Hex("hello world"));
        QCOMPARE(m->version, std::string("1"));
        QCOMPARE(m->custom, p.custom);
        QVERIFY(m->atimeNs > 0);
        QCOMPARE(read("dir/obj"), std::string("hello world"));

        auto st = m_store->stat("b", "dir/obj");
        QVERIFY(st.ok());
        QCOMPARE(st->size, 11);
        QCOMPARE(st->checksumType, std::string("xxhash"));
        QCOMPARE(st->checksumValue, m->checksumValue);
        QCOMPARE(st->version, std::string("1"));
        QCOMPARE(st->custom, p.custom);

        // Overwrite: new bytes, version + 1, metadata of the new PUT only.
        m = put("dir/obj", "second");
        QVERIFY(m.ok());
        QCOMPARE(m->version, std::string("2"));
        QCOMPARE(read("dir/obj"), std::string("second"));
        QCOMPARE(m_store->stat("b", "dir/obj")->checksumValue, api::xxhash64Hex("second"));
        QVERIFY(m_store->stat("b", "dir/obj")->custom.empty());
        QCOMPARE(put("dir/obj", "third")->version, std::string("3"));
        QCOMPARE(m_store->stat("b", "dir/obj")->version, std::string("3"));

        // Deleted and written again: a new object, version 1.
        QVERIFY(m_store->remove("b", "dir/obj").ok());
        QCOMPARE(put("dir/obj", "fresh")->version, std::string("1"));

        // Empty object.
        m = put("empty", "");
        QVERIFY(m.ok());
        QCOMPARE(m->size, 0);
        QCOMPARE(m->checksumValue, api::xxhash64Hex(""));
        QCOMPARE(read("empty"), std::string());

        QCOMPARE(workFiles(), 0);
        QCOMPARE(m_store->stat("b", "nope").kind(), api::ErrorKind::NotFound);
        QCOMPARE(m_store->stat("b", "dir").kind(), api::ErrorKind::NotFound);  // a directory is not an object
        QCOMPARE(m_store->stat("other", "dir/obj").kind(), api::ErrorKind::NotFound);
    }

    // Metadata is read with a small buffer first; metadata larger than that
    // (many custom keys, ~3 KiB: ext4 keeps an xattr within one 4 KiB block)
    // takes the second, full-size read and comes back whole.
    void largeMetadataRoundTrip()
    {
        PutParams p;
        for (int i = 0; i < 25; ++i) {
            p.custom["key" + std::to_string(i)] = std::string(100, static_cast<char>('a' + i % 26));
        }
        auto m = put("big-meta", "payload", p);
        QVERIFY2(m.ok(), m.ok() ? "" : m.error().message.c_str());
        auto st = m_store->stat("b", "big-meta");
        QVERIFY(st.ok());
        QCOMPARE(st->custom, p.custom);
        auto o = m_store->open("b", "big-meta");
        QVERIFY(o.ok());
        QCOMPARE(o->meta.custom, p.custom);
        QCOMPARE(o->meta.checksumValue, api::xxhash64Hex("payload"));
    }

    void largeObjectRoundTrip()
    {
        std::mt19937_64 rng(7);
        std::string data(3 * 1024 * 1024 + 17, '\0');
        for (auto& c : data) c = static_cast<char>(rng());
        auto w = m_store->beginPut("b", "big", {});
        QVERIFY(w.ok());
        for (std::size_t off = 0; off < data.size(); off += 65536) {
            QVERIFY((*w)->write(data.data() + off, std::min<std::size_t>(65536, data.size() - off)).ok());
        }
        QCOMPARE((*w)->bytesWritten(), std::uint64_t{data.size()});
        auto m = (*w)->commit();
        QVERIFY(m.ok());
        QCOMPARE(m->checksumValue, api::xxhash64Hex(data));
        QVERIFY(read("big") == data);
    }

    void abandonedPutLeavesNothing()
    {
        {
            auto w = m_store->beginPut("b", "half", {});
            QVERIFY(w.ok());
            QVERIFY((*w)->write("partial", 7).ok());
            QCOMPARE(workFiles(), 1);
            QCOMPARE(m_store->stat("b", "half").kind(), api::ErrorKind::NotFound);  // not visible while in flight
        }
        QCOMPARE(workFiles(), 0);
        QCOMPARE(m_store->stat("b", "half").kind(), api::ErrorKind::NotFound);

        // An abandoned overwrite leaves the previous version whole.
        QVERIFY(put("kept", "version one").ok());
        {
            auto w = m_store->beginPut("b", "kept", {});
            QVERIFY(w.ok());
            QVERIFY((*w)->write("version two, never committed", 28).ok());
        }
        QCOMPARE(read("kept"), std::string("version one"));
        QCOMPARE(m_store->stat("b", "kept")->version, std::string("1"));
        QCOMPARE(workFiles(), 0);
    }

    void checksumMismatchStoresNothing()
    {
        PutParams p;
        p.expectedChecksum = api::xxhash64Hex("something else");
        auto m = put("cksum", "data", p);
        QVERIFY(!m.ok());
        QCOMPARE(m.kind(), api::ErrorKind::BadRequest);
        QCOMPARE(m_store->stat("b", "cksum").kind(), api::ErrorKind::NotFound);
        QCOMPARE(workFiles(), 0);
        // Over an existing object: the old bytes stay.
        QVERIFY(put("cksum2", "old").ok());
        QCOMPARE(put("cksum2", "new", p).kind(), api::ErrorKind::BadRequest);
        QCOMPARE(read("cksum2"), std::string("old"));
        p.expectedChecksum = api::xxhash64Hex("data");
        auto ok = put("cksum", "data", p);
        QVERIFY(ok.ok());
        QCOMPARE(ok->checksumValue, p.expectedChecksum);
    }

    void removePrunesEmptyDirectories()
    {
        QVERIFY(put("x/y/z/obj", "1").ok());
        // A sibling on the same mountpath keeps its directory.
        const auto sibling = childOn("x/y", mountpathOf("x/y/z/obj"), true);
        QVERIFY(!sibling.empty());
        QVERIFY(put(sibling, "2").ok());
        const auto path = QString::fromStdString(m_store->objectPath("b", "x/y/z/obj"));
        QVERIFY(m_store->remove("b", "x/y/z/obj").ok());
        QCOMPARE(m_store->remove("b", "x/y/z/obj").kind(), api::ErrorKind::NotFound);
        QCOMPARE(m_store->stat("b", "x/y/z/obj").kind(), api::ErrorKind::NotFound);
        QVERIFY(!QFileInfo::exists(path));
        QVERIFY(!QFileInfo::exists(QFileInfo(path).path()));                   // x/y/z pruned
        QVERIFY(QFileInfo(QFileInfo(QFileInfo(path).path()).path()).isDir());  // x/y kept: it holds the sibling
        QVERIFY(m_store->remove("b", sibling).ok());
        // Everything up to the bucket directory is gone; the bucket directory stays.
        const auto bucketDir = QString::fromStdString(m_store->bucketRoot(mountpathOf(sibling), "b"));
        QVERIFY(!QFileInfo::exists(bucketDir + "/x"));
        QVERIFY(QFileInfo(bucketDir).isDir());
        // A directory is not an object: removing it is NotFound, and it stays.
        QVERIFY(put("d/e", "1").ok());
        QCOMPARE(m_store->remove("b", "d").kind(), api::ErrorKind::NotFound);
        QCOMPARE(read("d/e"), std::string("1"));
    }

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

    void crashLeftoversRemovedAtStart()
    {
        QVERIFY(put("kept", "kept").ok());
        for (const auto& mp : mountpaths()) {
            QFile f(QString::fromStdString(mp + "/.tessera/work/123-0-crashed"));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("half an object");
            f.close();
            QVERIFY(QDir().mkpath(QString::fromStdString(mp + "/.tessera/trash/old-bucket-x/deep")));
            QFile t(QString::fromStdString(mp + "/.tessera/trash/old-bucket-x/deep/obj"));
            QVERIFY(t.open(QIODevice::WriteOnly));
        }
        QCOMPARE(workFiles(), 2);
        QCOMPARE(filesIn("/.tessera/trash"), 2);
        QVERIFY(reopen());
        QCOMPARE(workFiles(), 0);
        QCOMPARE(filesIn("/.tessera/trash"), 0);
        QCOMPARE(read("kept"), std::string("kept"));
        QCOMPARE(listAll(10), std::vector<std::string>{"kept"});
    }

    void destroyBucket()
    {
        for (int i = 0; i < 20; ++i) QVERIFY(put("d/" + std::to_string(i), "x").ok());
        QVERIFY(put("keep", "x", {}, "b2").ok());
        QVERIFY(m_store->destroyBucket("b").ok());
        // Gone at once (the space is freed in the background).
        QCOMPARE(listAll(100), std::vector<std::string>{});
        QCOMPARE(m_store->stat("b", "d/1").kind(), api::ErrorKind::NotFound);
        for (std::size_t mp = 0; mp < 2; ++mp) {
            QVERIFY(!QFileInfo::exists(QString::fromStdString(m_store->bucketRoot(mp, "b"))));
        }
        QVERIFY(m_store->stat("b2", "keep").ok());
        QVERIFY(m_store->destroyBucket("b").ok());  // nothing left: still fine
        // The name is usable again, empty.
        QVERIFY(put("new", "y").ok());
        QCOMPARE(listAll(100), std::vector<std::string>{"new"});
        QVERIFY(QTest::qWaitFor([this] { return filesIn("/.tessera/trash") == 0; }, 5000));
    }

    void putIntoDestroyedBucketFails()
    {
        QVERIFY(put("seed", "x").ok());
        auto w = m_store->beginPut("b", "late/obj", {});
        QVERIFY(w.ok());
        QVERIFY((*w)->write("x", 1).ok());
        QVERIFY(m_store->destroyBucket("b").ok());
        auto m = (*w)->commit();
        QVERIFY(!m.ok());
        QCOMPARE(m.kind(), api::ErrorKind::NotFound);
        w.value().reset();
        QCOMPARE(m_store->stat("b", "late/obj").kind(), api::ErrorKind::NotFound);
        QCOMPARE(workFiles(), 0);
    }

    void objectDirectoryConflicts()
    {
        // Object first, then a name below it on the same mountpath.
        QVERIFY(put("p", "file").ok());
        const auto below = childOn("p", mountpathOf("p"), true);
        QVERIFY(!below.empty());
        auto m = put(below, "nested");
        QVERIFY(!m.ok());
        QCOMPARE(m.kind(), api::ErrorKind::Conflict);
        QCOMPARE(read("p"), std::string("file"));
        // Deeper too: "p/k/x" needs "p" as a directory.
        m = put(below + "/deeper", "nested");
        if (mountpathOf(below + "/deeper") == mountpathOf("p")) QCOMPARE(m.kind(), api::ErrorKind::Conflict);

        // Directory first, then an object of the directory's name.
        const auto dirChild = childOn("q", mountpathOf("q"), true);
        QVERIFY(put(dirChild, "c").ok());
        m = put("q", "file over a directory");
        QVERIFY(!m.ok());
        QCOMPARE(m.kind(), api::ErrorKind::Conflict);
        QCOMPARE(read(dirChild), std::string("c"));
        QCOMPARE(m_store->stat("b", "q").kind(), api::ErrorKind::NotFound);

        // On different mountpaths the two coexist.
        const auto elsewhere = childOn("r", mountpathOf("r"), false);
        QVERIFY(put("r", "file").ok());
        QVERIFY(put(elsewhere, "nested").ok());
        QCOMPARE(read("r"), std::string("file"));
        QCOMPARE(read(elsewhere), std::string("nested"));

        QCOMPARE(workFiles(), 0);
    }

    void verifyDetectsCorruption()
    {
        QVERIFY(put("v", "precious bytes").ok());
        auto o = m_store->open("b", "v");
        QVERIFY(o.ok());
        QVERIFY(m_store->verify(*o).ok());
        QFile f(QString::fromStdString(m_store->objectPath("b", "v")));
        QVERIFY(f.open(QIODevice::ReadWrite));
        f.seek(3);
        f.write("X");  // same size, one byte flipped
        f.close();
        auto st = m_store->verify(*o);
        QVERIFY(!st.ok());
        QCOMPARE(st.kind(), api::ErrorKind::Corruption);
        // A fresh open sees the same stored checksum and the same verdict.
        auto again = m_store->open("b", "v");
        QVERIFY(again.ok());
        QCOMPARE(m_store->verify(*again).kind(), api::ErrorKind::Corruption);
        // Truncation is corruption too.
        QVERIFY(f.resize(5));
        again = m_store->open("b", "v");
        QCOMPARE(again->meta.size, 5);
        QCOMPARE(m_store->verify(*again).kind(), api::ErrorKind::Corruption);
    }

    void tooLarge()
    {
        QVERIFY(reopen(10));
        auto w = m_store->beginPut("b", "big", {});
        QVERIFY(w.ok());
        QVERIFY((*w)->write("12345", 5).ok());
        auto st = (*w)->write("678901", 6);
        QCOMPARE(st.kind(), api::ErrorKind::TooLarge);
        w.value().reset();
        QCOMPARE(m_store->stat("b", "big").kind(), api::ErrorKind::NotFound);
        QVERIFY(put("fits", "1234567890").ok());  // exactly the limit
    }

    void mountpathInfo()
    {
        auto info = m_store->mountpathInfo();
        QCOMPARE(info.size(), std::size_t{2});
        for (std::size_t i = 0; i < info.size(); ++i) {
            QCOMPARE(info[i].path, m_store->options().mountpaths[i]);
            QVERIFY(info[i].total > 0);
            QVERIFY(info[i].available <= info[i].total);
        }
    }

    // Versions: a client write gets version + 1 and a stamp from the clock;
    // a delivered copy keeps its own and is committed only when newer.
    void transfersNeverReplaceANewerVersion()
    {
        QVERIFY(reopen());
        auto v1 = put("ver/x", "one");
        QVERIFY(v1.ok());
        auto v2 = put("ver/x", "two");
        QVERIFY(v2.ok());
        QCOMPARE(v2->version, std::string("2"));
        QVERIFY(v2->stamp > v1->stamp);
        // An older copy (v1's stamp) arriving now is superseded, and says so.
        PutParams old;
        old.transferStamp = v1->stamp;
        old.transferVersion = v1->version;
        auto w = m_store->beginPut("b", "ver/x", old);
        QVERIFY(w.ok());
        QVERIFY((*w)->write("one", 3).ok());
        auto refused = (*w)->commit();
        QCOMPARE(refused.kind(), api::ErrorKind::Conflict);
        QVERIFY((*w)->superseded());
        QCOMPARE(read("ver/x"), std::string("two"));
        // A newer copy replaces it, keeping its stamp and version; the clock
        // moves past it, so the next client write is newer still.
        PutParams newer;
        newer.transferStamp = v2->stamp + 1'000'000'000'000;
        newer.transferVersion = "7";
        auto delivered = put("ver/x", "three", newer);
        QVERIFY2(delivered.ok(), delivered.ok() ? "" : delivered.error().message.c_str());
        QCOMPARE(delivered->version, std::string("7"));
        QCOMPARE(delivered->stamp, newer.transferStamp);
        auto after = put("ver/x", "four");
        QVERIFY(after->stamp > newer.transferStamp);
        QCOMPARE(after->version, std::string("8"));
        // A delivered copy whose bytes do not match its checksum is corrupt.
        PutParams bad;
        bad.transferStamp = after->stamp + 1;
        bad.transferVersion = "9";
        bad.expectedChecksum = api::xxhash64Hex("something else");
        QCOMPARE(put("ver/x", "five", bad).kind(), api::ErrorKind::Corruption);
        QCOMPARE(read("ver/x"), std::string("four"));
    }

    void tombstonesKeepDeletionsFinal()
    {
        QVERIFY(reopen());
        auto v = put("tomb/a", "a");
        QVERIFY(v.ok());
        QVERIFY(!m_store->tombstone("b", "tomb/a"));
        QVERIFY(m_store->remove("b", "tomb/a").ok());
        const auto t = m_store->tombstone("b", "tomb/a");
        QVERIFY(t && *t > v->stamp);
        // The old copy delivered after the delete is refused.
        PutParams old;
        old.transferStamp = v->stamp;
        old.transferVersion = v->version;
        auto w = m_store->beginPut("b", "tomb/a", old);
        QVERIFY((*w)->write("a", 1).ok());
        QCOMPARE((*w)->commit().kind(), api::ErrorKind::Conflict);
        QVERIFY((*w)->superseded());
        QCOMPARE(m_store->open("b", "tomb/a").kind(), api::ErrorKind::NotFound);
        // "a" deleted, then "a/b" created and deleted: both records kept.
        QVERIFY(put("tomb/a/b", "ab").ok());
        QVERIFY(m_store->remove("b", "tomb/a/b").ok());
        QVERIFY(m_store->tombstone("b", "tomb/a/b").has_value());
        QCOMPARE(*m_store->tombstone("b", "tomb/a"), *t);
        // A new PUT of the name works; no tombstone hides it.
        QVERIFY(put("tomb/a/b", "again").ok());
        QCOMPARE(read("tomb/a/b"), std::string("again"));
        // Within the TTL nothing is swept; a bucket's destruction drops them.
        QCOMPARE(m_store->sweepTombstones(), std::size_t{0});
        QVERIFY(m_store->destroyBucket("b").ok());
        QVERIFY(!m_store->tombstone("b", "tomb/a").has_value());
    }

    void removeIfStampKeepsAChangedCopy()
    {
        QVERIFY(reopen());
        auto v1 = put("ris", "one");
        const auto mp = m_store->mountpathFor("b", "ris");
        QVERIFY(put("ris", "two").ok());
        QCOMPARE(m_store->removeIfStamp(mp, "b", "ris", v1->stamp).kind(), api::ErrorKind::Conflict);
        QCOMPARE(read("ris"), std::string("two"));
        const auto now = m_store->stat("b", "ris");
        QVERIFY(m_store->removeIfStamp(mp, "b", "ris", now->stamp).ok());
        QCOMPARE(m_store->open("b", "ris").kind(), api::ErrorKind::NotFound);
        QVERIFY(!m_store->tombstone("b", "ris").has_value());  // moved, not deleted
    }

    // A mountpath whose root is replaced by a file is disabled: its objects
    // are Unavailable naming it, never NotFound; the other one works.
    void deadMountpathIsDisabled()
    {
        QVERIFY(reopen());
        std::string onFirst, onSecond;
        for (int i = 0; onFirst.empty() || onSecond.empty(); ++i) {
            const auto n = "mp/o" + std::to_string(i);
            (m_store->mountpathFor("b", n) == 0 ? onFirst : onSecond) = n;
        }
        QVERIFY(put(onFirst, "1").ok());
        QVERIFY(put(onSecond, "2").ok());
        // A listing now caches the bucket's names: the next one must not
        // serve them from the cache once a disk is gone.
        api::ListRequest all;
        all.props = api::kPropName | api::kPropSize;
        QVERIFY(m_store->list("b", all).ok());
        const auto second = QString::fromStdString(m_store->options().mountpaths[1]);
        QVERIFY(QDir().rename(second, second + ".gone"));
        QFile blocker(second);
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        QCOMPARE(m_store->list("b", all).kind(), api::ErrorKind::Unavailable);  // first: the cached snapshot
        auto gone = m_store->open("b", onSecond);
        QCOMPARE(gone.kind(), api::ErrorKind::Unavailable);
        QVERIFY(gone.error().message.find(second.toStdString()) != std::string::npos);
        QCOMPARE(put(onSecond, "x").kind(), api::ErrorKind::Unavailable);
        QCOMPARE(m_store->remove("b", onSecond).kind(), api::ErrorKind::Unavailable);
        QCOMPARE(m_store->list("b", all).kind(), api::ErrorKind::Unavailable);
        QCOMPARE(read(onFirst), std::string("1"));
        QVERIFY(!m_store->mountpathInfo()[1].disabled.empty());
        QVERIFY(m_store->mountpathInfo()[0].disabled.empty());
        // A restart with the mountpath still broken starts it disabled.
        m_store.reset();
        ObjectStore::Options o;
        o.mountpaths = mountpaths();
        o.fsync = false;
        auto again = ObjectStore::create(o);
        QVERIFY(again.ok());
        QCOMPARE((*again)->open("b", onSecond).kind(), api::ErrorKind::Unavailable);
        again.value().reset();
        QVERIFY(QFile::remove(second));
        QVERIFY(QDir().rename(second + ".gone", second));
        QVERIFY(reopen());
        QCOMPARE(read(onSecond), std::string("2"));
    }

    // A mountpath whose root vanishes (a disk unmounted: nothing in its
    // place) is never re-created by a write: the PUT fails Unavailable and
    // no directory appears where the disk was.
    void vanishedMountpathIsNotRecreated()
    {
        QVERIFY(reopen());
        std::vector<std::string> onSecond;
        for (int i = 0; onSecond.size() < 2; ++i) {
            const auto n = "v/o" + std::to_string(i);
            if (m_store->mountpathFor("b", n) == 1) onSecond.push_back(n);
        }
        QVERIFY(put(onSecond[0], "2").ok());
        const auto second = QString::fromStdString(m_store->options().mountpaths[1]);
        QVERIFY(QDir().rename(second, second + ".gone"));
        QCOMPARE(put(onSecond[1], "x").kind(), api::ErrorKind::Unavailable);
        QCOMPARE(put(onSecond[0], "x").kind(), api::ErrorKind::Unavailable);
        QVERIFY(!QFileInfo::exists(second));
        QVERIFY(QDir().rename(second + ".gone", second));
        QVERIFY(reopen());
        QCOMPARE(read(onSecond[0]), std::string("2"));
    }
};

QTEST_GUILESS_MAIN(TestObjectStore)
#include "test_object_store.moc"
