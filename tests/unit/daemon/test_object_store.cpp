// The target's object store on real directories (two mountpaths): atomic PUT,
// metadata, deletion, crash leftovers, name conflicts, corruption. Listing is
// in test_object_listing.cpp.
#include "object_store_fixture.h"

#include "api/checksum.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <random>
#include <unistd.h>

using namespace tessera;
using namespace tessera::daemon::target;
using tessera::daemon::target::test::ObjectStoreFixture;

class TestObjectStore : public QObject, protected ObjectStoreFixture {
    Q_OBJECT

private slots:
    void init() { resetStore(); }

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
            QCOMPARE(workFiles(), 0);  // an unnamed (O_TMPFILE) file until it is linked at commit
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
