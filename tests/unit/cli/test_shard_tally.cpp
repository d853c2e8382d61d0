// The shard modes' counting: members and WebDataset samples of shards in
// every format, shards read from a folder, and the errors for a damaged
// shard or an unusable folder.
#include "archive/archive_writer.h"
#include "bench/shard_tally.h"

#include <QTemporaryDir>
#include <QTest>
#include <fstream>

using namespace tessera;
using namespace tessera::cli::bench;

namespace {

// `samples` samples of `files` files each (key000.bin, key000.cls, ...).
std::string makeShard(archive::ArchiveFormat format, int samples, int files, std::size_t size)
{
    std::string out;
    auto w = archive::ArchiveWriter::create(format, [&](const char* p, std::size_t n) {
        out.append(p, n);
        return api::Status{};
    });
    if (!w) qFatal("writer: %s", w.error().message.c_str());
    const char* exts[] = {".bin", ".cls", ".json"};
    for (int i = 0; i < samples; ++i) {
        char key[32];
        std::snprintf(key, sizeof key, "d/key%03d", i);
        for (int f = 0; f < files; ++f) {
            if (!(*w)->add(std::string(key) + exts[f], std::string(size, char('a' + f)), 0)) qFatal("add");
        }
    }
    if (!(*w)->finish()) qFatal("finish");
    return out;
}

}  // namespace

class TestShardTally : public QObject {
    Q_OBJECT

private slots:
    void countsSamplesInEveryFormat_data()
    {
        QTest::addColumn<int>("format");
        QTest::newRow("tar") << int(archive::ArchiveFormat::Tar);
        QTest::newRow("tgz") << int(archive::ArchiveFormat::TarGz);
        QTest::newRow("tar.lz4") << int(archive::ArchiveFormat::TarLz4);
        QTest::newRow("zip") << int(archive::ArchiveFormat::Zip);
    }

    void countsSamplesInEveryFormat()
    {
        QFETCH(int, format);
        const auto f = static_cast<archive::ArchiveFormat>(format);
        const auto shard = makeShard(f, 25, 3, 700);
        auto t = tallyShard(shard, f);
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().message.c_str());
        QCOMPARE(t->members, std::uint64_t{75});
        QCOMPARE(t->samples, std::uint64_t{25});
        QCOMPARE(t->memberBytes, std::uint64_t{75 * 700});
    }

    void damagedShardIsCorruption()
    {
        auto shard = makeShard(archive::ArchiveFormat::Tar, 10, 1, 1024);
        shard.resize(shard.size() / 2);
        auto t = tallyShard(shard, archive::ArchiveFormat::Tar);
        QVERIFY(!t.ok());
        QCOMPARE(t.kind(), api::ErrorKind::Corruption);
    }

    void loadsShardsOfAFolder()
    {
        QTemporaryDir dir;
        const auto write = [&](const char* name, const std::string& data) {
            std::ofstream(dir.filePath(name).toStdString(), std::ios::binary) << data;
        };
        write("b.tar", makeShard(archive::ArchiveFormat::Tar, 4, 2, 10));
        write("a.tgz", makeShard(archive::ArchiveFormat::TarGz, 3, 2, 10));
        write("notes.txt", "not a shard");
        auto loaded = loadShardDir(dir.path().toStdString(), 1 << 20);
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().message.c_str());
        QCOMPARE(loaded->size(), std::size_t{2});
        QCOMPARE(loaded->at(0).name, std::string("a.tgz"));
        QCOMPARE(loaded->at(0).format, archive::ArchiveFormat::TarGz);
        QCOMPARE(loaded->at(1).name, std::string("b.tar"));
        QCOMPARE(tallyShard(loaded->at(1).data, loaded->at(1).format)->samples, std::uint64_t{4});

        auto tooBig = loadShardDir(dir.path().toStdString(), 100);
        QVERIFY(!tooBig.ok());
        QCOMPARE(tooBig.kind(), api::ErrorKind::BadRequest);
        QVERIFY(tooBig.error().message.find("holds more than 100 bytes") != std::string::npos);

        QTemporaryDir empty;
        auto none = loadShardDir(empty.path().toStdString(), 1 << 20);
        QVERIFY(!none.ok());
        QVERIFY(none.error().message.find("holds no shard") != std::string::npos);
        auto missing = loadShardDir(empty.path().toStdString() + "/nope", 1 << 20);
        QVERIFY(!missing.ok());
        QCOMPARE(missing.kind(), api::ErrorKind::BadRequest);
    }
};

QTEST_APPLESS_MAIN(TestShardTally)
#include "test_shard_tally.moc"
