// Shard offset indexes on a target: the file format binds an index to the
// exact bytes it describes; a rewritten shard is re-indexed; the memory
// cache stays within its budget.
#include "archive/archive_writer.h"
#include "target/archive_index_store.h"
#include "target/object_store.h"

#include <QTemporaryDir>
#include <QTest>
#include <fcntl.h>
#include <sys/stat.h>

using namespace tessera;
using namespace tessera::daemon::target;

namespace {

std::string makeTar(const std::vector<std::pair<std::string, std::string>>& members)
{
    std::string out;
    auto w = archive::ArchiveWriter::create(archive::ArchiveFormat::Tar, [&out](const char* p, std::size_t n) {
        out.append(p, n);
        return api::Status();
    });
    if (!w) return {};
    for (const auto& [name, data] : members) {
        if (!(*w)->add(name, data, 1700000000)) return {};
    }
    if (!(*w)->finish()) return {};
    return out;
}

}  // namespace

class TestArchiveIndexStore : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<ObjectStore> m_store;

    OpenObject put(const std::string& name, const std::string& bytes)
    {
        auto w = m_store->beginPut("b", name, {});
        if (!w || !(*w)->write(bytes.data(), bytes.size()) || !(*w)->commit()) return {};
        auto o = m_store->open("b", name);
        return o ? std::move(o.value()) : OpenObject{};
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        ObjectStore::Options o;
        o.mountpaths = {(m_dir.path() + "/mp1").toStdString(), (m_dir.path() + "/mp2").toStdString()};
        o.fsync = false;
        auto s = ObjectStore::create(o);
        QVERIFY(s.ok());
        m_store = std::move(s.value());
    }

    void encodeDecodeRoundTrip()
    {
        const auto tar = makeTar({{"a.txt", "alpha"}, {"dir/b.bin", std::string(1000, 'b')}});
        auto obj = put("rt.tar", tar);
        QVERIFY(obj.fd);
        auto idx = archive::TarIndex::build(obj.fd->get(), tar.size(), {});
        QVERIFY(idx.ok());
        const auto key = ArchiveIndexKey::of(obj);
        const auto bytes = ArchiveIndexStore::encode(key, *idx);
        auto back = ArchiveIndexStore::decode(bytes, key);
        QVERIFY(back.ok());
        QCOMPARE(back->entries().size(), std::size_t{2});
        QCOMPARE(back->find("dir/b.bin")->size, std::uint64_t{1000});
        QCOMPARE(back->endOffset(), idx->endOffset());
    }

    void staleOrDamagedFilesRefused_data()
    {
        QTest::addColumn<int>("change");
        QTest::addColumn<int>("kind");
        QTest::newRow("other size") << 0 << int(api::ErrorKind::NotFound);
        QTest::newRow("other mtime") << 1 << int(api::ErrorKind::NotFound);
        QTest::newRow("other checksum") << 2 << int(api::ErrorKind::NotFound);
        QTest::newRow("truncated") << 3 << int(api::ErrorKind::Corruption);
        QTest::newRow("garbage") << 4 << int(api::ErrorKind::Corruption);
    }
    void staleOrDamagedFilesRefused()
    {
        QFETCH(int, change);
        QFETCH(int, kind);
        const auto tar = makeTar({{"a", "1"}});
        auto obj = put("stale.tar", tar);
        auto idx = archive::TarIndex::build(obj.fd->get(), tar.size(), {});
        QVERIFY(idx.ok());
        auto key = ArchiveIndexKey::of(obj);
        auto bytes = ArchiveIndexStore::encode(key, *idx);
        auto expected = key;
        if (change == 0) expected.size += 1;
        if (change == 1) expected.mtimeNs += 1;
        if (change == 2) expected.checksum = "0123456789abcdef";
        if (change == 3) bytes.resize(bytes.size() - 3);
        if (change == 4) bytes = "tessera-archidx 1 garbage\n";
        auto r = ArchiveIndexStore::decode(bytes, expected);
        QVERIFY(!r.ok());
        QCOMPARE(int(r.kind()), kind);
    }

    // Built once, then from memory; a cold store reads the file; a
    // rewritten shard is rebuilt and serves the new members.
    void sourcesAndRewrite()
    {
        const auto v1 = makeTar({{"m", "one"}});
        auto obj = put("s.tar", v1);
        ArchiveIndexStore store(*m_store, {}, 1 << 20);
        auto first = store.get("b", "s.tar", obj);
        QVERIFY(first.ok());
        QCOMPARE(first->source, IndexSource::Built);
        QVERIFY(QFile::exists(QString::fromStdString(m_store->archiveIndexPath("b", "s.tar"))));
        auto second = store.get("b", "s.tar", obj);
        QVERIFY(second.ok());
        QCOMPARE(second->source, IndexSource::Memory);
        ArchiveIndexStore cold(*m_store, {}, 1 << 20);
        auto third = cold.get("b", "s.tar", obj);
        QVERIFY(third.ok());
        QCOMPARE(third->source, IndexSource::File);

        const auto v2 = makeTar({{"m", "two!"}, {"n", "new"}});
        auto obj2 = put("s.tar", v2);
        // The overwrite removed the index file.
        QVERIFY(!QFile::exists(QString::fromStdString(m_store->archiveIndexPath("b", "s.tar"))));
        auto fourth = store.get("b", "s.tar", obj2);
        QVERIFY(fourth.ok());
        QCOMPARE(fourth->source, IndexSource::Built);
        QCOMPARE(fourth->index->entries().size(), std::size_t{2});
        QCOMPARE(fourth->index->find("m")->size, std::uint64_t{4});
    }

    void deleteRemovesIndexFile()
    {
        auto obj = put("gone.tar", makeTar({{"x", "y"}}));
        ArchiveIndexStore store(*m_store, {}, 1 << 20);
        QVERIFY(store.get("b", "gone.tar", obj).ok());
        const auto path = QString::fromStdString(m_store->archiveIndexPath("b", "gone.tar"));
        QVERIFY(QFile::exists(path));
        QVERIFY(m_store->remove("b", "gone.tar").ok());
        QVERIFY(!QFile::exists(path));
    }

    void cacheWithinBudget()
    {
        ArchiveIndexStore store(*m_store, {}, 4096);
        for (int i = 0; i < 20; ++i) {
            const auto name = "c" + std::to_string(i) + ".tar";
            auto obj = put(name, makeTar({{"member-" + std::to_string(i), "data"}}));
            QVERIFY(store.get("b", name, obj).ok());
            QVERIFY(store.cachedBytes() <= 4096);
        }
        QVERIFY(store.cachedBytes() > 0);
    }

    void damagedShardIsCorruption()
    {
        auto obj = put("bad.tar", std::string(3000, 'z'));
        ArchiveIndexStore store(*m_store, {}, 1 << 20);
        auto r = store.get("b", "bad.tar", obj);
        QVERIFY(!r.ok());
        QCOMPARE(r.kind(), api::ErrorKind::Corruption);
    }
};

QTEST_GUILESS_MAIN(TestArchiveIndexStore)
#include "test_archive_index_store.moc"
