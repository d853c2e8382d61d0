// The target's object store on real directories: atomic PUT, metadata,
// deletion, listing order and paging, crash leftovers, conflicts, corruption.
#include "target/object_store.h"

#include "api/checksum.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <set>

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
    api::Result<api::ObjectMeta> put(const std::string& name, const std::string& data, PutParams params = {})
    {
        auto w = m_store->beginPut("b", name, std::move(params));
        if (!w) return w.error();
        auto st = (*w)->write(data.data(), data.size());
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
    int workFiles() const
    {
        int n = 0;
        for (const auto& mp : mountpaths()) {
            n += static_cast<int>(QDir(QString::fromStdString(mp + "/.tessera/work")).entryList(QDir::Files).size());
        }
        return n;
    }
    std::vector<std::string> listAll(std::uint32_t pageSize, const std::string& prefix = {})
    {
        std::vector<std::string> out;
        api::ListRequest req;
        req.pageSize = pageSize;
        req.prefix = prefix;
        for (int guard = 0; guard < 10000; ++guard) {
            auto page = m_store->list("b", req);
            if (!page) return {"<error>"};
            for (const auto& e : page->entries) out.push_back(e.name);
            if (page->continuationToken.empty()) break;
            req.continuationToken = page->continuationToken;
        }
        return out;
    }

private slots:
    void init()
    {
        QVERIFY(m_dir.isValid());
        QDir(m_dir.path()).removeRecursively();
        QDir().mkpath(m_dir.path());
        ObjectStore::Options o;
        o.mountpaths = mountpaths();
        o.fsync = false;
        auto s = ObjectStore::create(o);
        QVERIFY2(s.ok(), s.ok() ? "" : s.error().message.c_str());
        m_store = std::move(s.value());
    }

    void putThenRead()
    {
        auto m = put("dir/obj", "hello world");
        QVERIFY(m.ok());
        QCOMPARE(m->size, 11);
        QCOMPARE(m->checksumValue, api::xxhash64Hex("hello world"));
        QCOMPARE(m->version, std::string("1"));
        QCOMPARE(read("dir/obj"), std::string("hello world"));
        auto st = m_store->stat("b", "dir/obj");
        QVERIFY(st.ok());
        QCOMPARE(st->checksumValue, m->checksumValue);
        m = put("dir/obj", "second");
        QCOMPARE(m->version, std::string("2"));
        QCOMPARE(read("dir/obj"), std::string("second"));
        QCOMPARE(workFiles(), 0);
        QCOMPARE(m_store->stat("b", "nope").kind(), api::ErrorKind::NotFound);
        QCOMPARE(m_store->stat("b", "dir").kind(), api::ErrorKind::NotFound);  // a directory is not an object
    }

    void abandonedPutLeavesNothing()
    {
        {
            auto w = m_store->beginPut("b", "half", {});
            QVERIFY(w.ok());
            QVERIFY((*w)->write("partial", 7).ok());
            QCOMPARE(workFiles(), 1);
        }
        QCOMPARE(workFiles(), 0);
        QCOMPARE(m_store->stat("b", "half").kind(), api::ErrorKind::NotFound);
    }

    void checksumMismatchStoresNothing()
    {
        PutParams p;
        p.expectedChecksum = api::xxhash64Hex("something else");
        auto m = put("cksum", "data", p);
        QVERIFY(!m.ok());
        QCOMPARE(m.kind(), api::ErrorKind::BadRequest);
        QCOMPARE(m_store->stat("b", "cksum").kind(), api::ErrorKind::NotFound);
        p.expectedChecksum = api::xxhash64Hex("data");
        QVERIFY(put("cksum", "data", p).ok());
    }

    void removePrunesEmptyDirectories()
    {
        QVERIFY(put("x/y/z/obj", "1").ok());
        QVERIFY(m_store->remove("b", "x/y/z/obj").ok());
        QCOMPARE(m_store->remove("b", "x/y/z/obj").kind(), api::ErrorKind::NotFound);
        const auto path = QString::fromStdString(m_store->objectPath("b", "x/y/z/obj"));
        QVERIFY(!QFileInfo::exists(path));
        QVERIFY(!QFileInfo::exists(QFileInfo(path).path()));  // x/y/z pruned
    }

    void listingOrderAndPaging()
    {
        // (no name is also a directory of another: "x" and "x/y" may share a mountpath)
        const std::vector<std::string> names{"a-c", "a/b", "a0", "a.txt", "b/c/d", "b/c/e", "b/cc", "b.txt", "z",
                                             "\xc3\xa9t\xc3\xa9", "m/n/o/p/q"};
        for (const auto& n : names) QVERIFY2(put(n, n).ok(), n.c_str());
        auto sorted = names;
        std::sort(sorted.begin(), sorted.end());
        for (std::uint32_t ps : {1u, 2u, 3u, 7u, 1000u}) {
            auto got = listAll(ps);
            QVERIFY2(got == sorted, qPrintable(QString("page size %1").arg(ps)));
        }
        QCOMPARE(listAll(2, "b/c"), (std::vector<std::string>{"b/c/d", "b/c/e", "b/cc"}));
        QCOMPARE(listAll(10, "b/c/"), (std::vector<std::string>{"b/c/d", "b/c/e"}));
        QCOMPARE(listAll(10, "nothing"), std::vector<std::string>{});
        // Props.
        api::ListRequest req;
        req.props = api::kPropName | api::kPropSize | api::kPropChecksum | api::kPropVersion | api::kPropAtime;
        auto page = m_store->list("b", req);
        QVERIFY(page.ok());
        QCOMPARE(page->entries.front().name, std::string("a-c"));
        QCOMPARE(page->entries.front().size, 3);
        QCOMPARE(page->entries.front().checksum, api::xxhash64Hex("a-c"));
        QCOMPARE(page->entries.front().version, std::string("1"));
        QVERIFY(!page->entries.front().atime.empty());
        QVERIFY(page->continuationToken.empty());
    }

    void crashLeftoversRemovedAtStart()
    {
        QVERIFY(put("kept", "kept").ok());
        for (const auto& mp : mountpaths()) {
            QFile f(QString::fromStdString(mp + "/.tessera/work/123-0-crashed"));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("half an object");
        }
        QCOMPARE(workFiles(), 2);
        m_store.reset();
        ObjectStore::Options o;
        o.mountpaths = mountpaths();
        auto s = ObjectStore::create(o);
        QVERIFY(s.ok());
        m_store = std::move(s.value());
        QCOMPARE(workFiles(), 0);
        QCOMPARE(read("kept"), std::string("kept"));
    }

    void destroyBucket()
    {
        for (int i = 0; i < 20; ++i) QVERIFY(put("d/" + std::to_string(i), "x").ok());
        QVERIFY(m_store->destroyBucket("b").ok());
        QCOMPARE(listAll(100), std::vector<std::string>{});
        QCOMPARE(m_store->stat("b", "d/1").kind(), api::ErrorKind::NotFound);
        QVERIFY(m_store->destroyBucket("b").ok());  // nothing left: still fine
    }

    void nameConflicts()
    {
        // Find two names that land on the same mountpath: "p" and "p/q".
        QVERIFY(put("p", "file").ok());
        if (m_store->objectPath("b", "p").substr(0, 20) == m_store->objectPath("b", "p/q").substr(0, 20) &&
            QFileInfo(QString::fromStdString(m_store->objectPath("b", "p/q"))).path() ==
                QString::fromStdString(m_store->objectPath("b", "p"))) {
            auto m = put("p/q", "nested");
            QVERIFY(!m.ok());
            QCOMPARE(m.kind(), api::ErrorKind::Conflict);
        }
        QVERIFY(put("dirobj/child", "c").ok());
        const auto dirPath = QString::fromStdString(m_store->objectPath("b", "dirobj"));
        if (QFileInfo(dirPath).isDir()) {
            auto m = put("dirobj", "file over a directory");
            QVERIFY(!m.ok());
            QCOMPARE(m.kind(), api::ErrorKind::Conflict);
        }
        QCOMPARE(read("p"), std::string("file"));
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
        f.write("X");
        f.close();
        auto st = m_store->verify(*o);
        QVERIFY(!st.ok());
        QCOMPARE(st.kind(), api::ErrorKind::Corruption);
    }

    void tooLarge()
    {
        m_store.reset();
        ObjectStore::Options o;
        o.mountpaths = mountpaths();
        o.maxObjectSize = 10;
        m_store = std::move(ObjectStore::create(o).value());
        auto w = m_store->beginPut("b", "big", {});
        QVERIFY(w.ok());
        QVERIFY((*w)->write("12345", 5).ok());
        auto st = (*w)->write("678901", 6);
        QCOMPARE(st.kind(), api::ErrorKind::TooLarge);
    }
};

QTEST_APPLESS_MAIN(TestObjectStore)
#include "test_object_store.moc"
