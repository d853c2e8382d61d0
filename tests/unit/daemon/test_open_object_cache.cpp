// The open-object cache on its own (hits, the epoch rule, LRU and TTL
// bounds, files changed or unlinked behind its back) and inside the object
// store (every change made through the store is seen by the next open).
#include "target/object_store.h"
#include "target/open_object_cache.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace tessera;
using namespace tessera::daemon;
using namespace tessera::daemon::target;

class TestOpenObjectCache : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    // An OpenObject of a new file `name` holding `data`, as openAt makes it.
    OpenObject openFile(const QString& name, const QByteArray& data)
    {
        const auto path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(data) != data.size()) qFatal("cannot write %s", qPrintable(path));
        f.close();
        OpenObject o;
        o.fd = std::make_shared<UniqueFd>(::open(path.toLocal8Bit().constData(), O_RDONLY | O_CLOEXEC));
        struct stat st {};
        ::fstat(o.fd->get(), &st);
        o.meta.size = st.st_size;
        o.ctimeNs = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
        return o;
    }

    static std::string readAll(const OpenObject& o)
    {
        std::string s(static_cast<std::size_t>(o.meta.size), '\0');
        if (::pread(o.fd->get(), s.data(), s.size(), 0) != static_cast<ssize_t>(s.size())) return "<short>";
        return s;
    }

private slots:
    void hitsAndInvalidation()
    {
        OpenObjectCache cache({16, std::chrono::milliseconds(60000)});
        QVERIFY(!cache.find("b", "x"));
        const auto e = cache.epoch();
        const auto o = openFile("x", "hello");
        cache.insert("b", "x", o, e);
        auto hit = cache.find("b", "x");
        QVERIFY(hit);
        QCOMPARE(hit->fd, o.fd);
        QCOMPARE(readAll(*hit), std::string("hello"));
        QVERIFY(!cache.find("b2", "x"));
        cache.invalidate("b", "x");
        QVERIFY(!cache.find("b", "x"));
        QCOMPARE(cache.size(), std::size_t{0});
    }

    // An open that began before an invalidation may hold the old file: it
    // is not cached.
    void epochRule()
    {
        OpenObjectCache cache({16, std::chrono::milliseconds(60000)});
        const auto before = cache.epoch();
        const auto o = openFile("e", "old");
        cache.invalidate("b", "other");  // any change in between
        cache.insert("b", "e", o, before);
        QVERIFY(!cache.find("b", "e"));
        cache.insert("b", "e", o, cache.epoch());
        QVERIFY(cache.find("b", "e"));
        cache.clear();
        QVERIFY(!cache.find("b", "e"));
    }

    void boundedByCapacity()
    {
        OpenObjectCache cache({8, std::chrono::milliseconds(60000)});
        for (int i = 0; i < 100; ++i) {
            const auto n = QString("c%1").arg(i);
            cache.insert("b", n.toStdString(), openFile(n, "x"), cache.epoch());
        }
        QVERIFY(cache.size() <= 8);
        QVERIFY(cache.find("b", "c99"));  // the newest stays
        QVERIFY(!cache.find("b", "c0"));
        OpenObjectCache off({0, std::chrono::milliseconds(60000)});
        off.insert("b", "c1", openFile("c1", "x"), off.epoch());
        QVERIFY(!off.find("b", "c1"));
    }

    void expiresAfterTtl()
    {
        OpenObjectCache cache({16, std::chrono::milliseconds(30)});
        cache.insert("b", "t", openFile("t", "x"), cache.epoch());
        QVERIFY(cache.find("b", "t"));
        QTRY_VERIFY_WITH_TIMEOUT(!cache.find("b", "t"), 5000);
    }

    // fstat of the kept descriptor catches a file truncated, rewritten or
    // unlinked by hand.
    void changedBehindItsBack()
    {
        OpenObjectCache cache({16, std::chrono::milliseconds(60000)});
        cache.insert("b", "t", openFile("trunc", "0123456789"), cache.epoch());
        QVERIFY(QFile::resize(m_dir.filePath("trunc"), 4));
        QVERIFY(!cache.find("b", "t"));

        cache.insert("b", "u", openFile("unl", "abc"), cache.epoch());
        QVERIFY(QFile::remove(m_dir.filePath("unl")));
        QVERIFY(!cache.find("b", "u"));
    }

    void storeSeesEveryChange()
    {
        ObjectStore::Options opts;
        opts.mountpaths = {(m_dir.path() + "/mp1").toStdString(), (m_dir.path() + "/mp2").toStdString()};
        opts.fsync = false;
        auto store = ObjectStore::create(opts);
        QVERIFY(store);
        const auto put = [&](const std::string& bucket, const std::string& name, const std::string& data) {
            auto w = (*store)->beginPut(bucket, name, {});
            QVERIFY(w);
            QVERIFY((*w)->write(data.data(), data.size()));
            QVERIFY((*w)->commit());
        };
        put("bk", "obj", "first");
        auto a = (*store)->open("bk", "obj");
        QVERIFY(a);
        auto b = (*store)->open("bk", "obj");
        QVERIFY(b);
        QCOMPARE(b->fd, a->fd);  // served from the cache
        QCOMPARE(b->meta.checksumValue, a->meta.checksumValue);

        put("bk", "obj", "second, longer");
        auto c = (*store)->open("bk", "obj");
        QVERIFY(c);
        QCOMPARE(readAll(*c), std::string("second, longer"));
        QCOMPARE(readAll(*a), std::string("first"));  // a reader of the old copy keeps it

        QVERIFY((*store)->remove("bk", "obj"));
        QCOMPARE((*store)->open("bk", "obj").kind(), api::ErrorKind::NotFound);

        put("bk", "gone", "x");
        QVERIFY((*store)->open("bk", "gone"));
        QVERIFY((*store)->destroyBucket("bk"));
        QCOMPARE((*store)->open("bk", "gone").kind(), api::ErrorKind::NotFound);
    }
};

QTEST_GUILESS_MAIN(TestOpenObjectCache)
#include "test_open_object_cache.moc"
