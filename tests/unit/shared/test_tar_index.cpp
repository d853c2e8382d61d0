// shared/archive TarIndex: offsets that read back the exact member bytes (our
// writer's shards and GNU tar's), serialization with damage detection, the
// last-of-duplicates rule, and appending at the end offset.

#include "archive/archive_reader.h"
#include "archive/archive_writer.h"
#include "archive/tar_index.h"

#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <fcntl.h>
#include <fstream>
#include <random>
#include <unistd.h>

using namespace tessera;
using namespace tessera::archive;

namespace {

std::string makeTar(const std::vector<std::pair<std::string, std::string>>& members)
{
    std::string out;
    auto w = ArchiveWriter::create(ArchiveFormat::Tar, [&out](const char* p, std::size_t n) {
        out.append(p, n);
        return api::Status();
    });
    for (const auto& [n, d] : members) {
        if (!(*w)->add(n, d, 1).ok()) qFatal("add");
    }
    if (!(*w)->finish().ok()) qFatal("finish");
    return out;
}

// A file holding `bytes`, open for reading (closed with the object).
struct TempFile {
    QTemporaryDir dir;
    std::string path;
    int fd = -1;
    explicit TempFile(const std::string& bytes)
    {
        path = dir.filePath("shard.tar").toStdString();
        std::ofstream(path, std::ios::binary) << bytes;
        fd = ::open(path.c_str(), O_RDONLY);
    }
    ~TempFile()
    {
        if (fd >= 0) ::close(fd);
    }
};

std::string readAt(int fd, std::uint64_t off, std::uint64_t n)
{
    std::string s(n, '\0');
    if (::pread(fd, s.data(), n, static_cast<off_t>(off)) != static_cast<ssize_t>(n)) return {};
    return s;
}

}  // namespace

class TestTarIndex : public QObject {
    Q_OBJECT
private slots:
    void offsetsReadExactBytes()
    {
        std::mt19937_64 rng(3);
        std::vector<std::pair<std::string, std::string>> ms;
        for (int i = 0; i < 200; ++i) {
            std::string d(rng() % 5000, '\0');
            for (auto& c : d) c = static_cast<char>(rng());
            ms.emplace_back((i % 7 == 0 ? std::string(120, 'L') + "/" : std::string("s/")) + std::to_string(i) + ".bin",
                            d);
        }
        const auto bytes = makeTar(ms);
        TempFile f(bytes);
        auto idx = TarIndex::build(f.fd, bytes.size(), {});
        QVERIFY2(idx.ok(), idx.ok() ? "" : idx.error().message.c_str());
        QCOMPARE(idx->entries().size(), ms.size());
        for (std::size_t i = 0; i < ms.size(); ++i) {
            const auto* e = idx->find(ms[i].first);
            QVERIFY(e != nullptr);
            QCOMPARE(e->size, ms[i].second.size());
            QVERIFY(readAt(f.fd, e->offset, e->size) == ms[i].second);
        }
        QCOMPARE(idx->endOffset() + kTarEndBytes, bytes.size());
        QVERIFY(idx->find("missing") == nullptr);
    }

    void gnuTarShard()
    {
        const auto tar = QStandardPaths::findExecutable("tar");
        if (tar.isEmpty()) QSKIP("GNU tar is not installed");
        QTemporaryDir dir;
        const QString root = dir.filePath("src");
        QDir().mkpath(root + "/sub/" + QString(130, 'd'));
        std::map<std::string, std::string> files{{"sub/a.jpg", std::string(10000, 'a')},
                                                 {"sub/a.cls", "3"},
                                                 {"sub/" + std::string(130, 'd') + "/long.bin", "long"}};
        for (const auto& [n, d] : files) std::ofstream((root + "/" + QString::fromStdString(n)).toStdString()) << d;
        for (const char* fmt : {"gnu", "pax", "ustar"}) {
            if (QString(fmt) == "ustar")
                files.erase("sub/" + std::string(130, 'd') + "/long.bin"),
                    QDir(root + "/sub/" + QString(130, 'd')).removeRecursively();
            const QString out = dir.filePath(QString("x-%1.tar").arg(fmt));
            QCOMPARE(QProcess::execute(tar, {"-C", root, QString("--format=%1").arg(fmt), "-cf", out, "."}), 0);
            const int fd = ::open(out.toStdString().c_str(), O_RDONLY);
            const auto size = static_cast<std::uint64_t>(QFileInfo(out).size());
            auto idx = TarIndex::build(fd, size, {});
            QVERIFY2(idx.ok(), idx.ok() ? "" : idx.error().message.c_str());
            QCOMPARE(idx->entries().size(), files.size());
            for (const auto& [n, d] : files) {
                const auto* e = idx->find(n);
                QVERIFY2(e != nullptr, n.c_str());
                QVERIFY(readAt(fd, e->offset, e->size) == d);
            }
            ::close(fd);
        }
    }

    void serializeRoundTrip()
    {
        const auto bytes = makeTar({{"a", "1"}, {"b/c.txt", std::string(700, 'c')}, {"\xc3\xa9.bin", "e"}});
        TempFile f(bytes);
        auto idx = TarIndex::build(f.fd, bytes.size(), {});
        QVERIFY(idx.ok());
        const auto ser = idx->serialize();
        auto back = TarIndex::deserialize(ser);
        QVERIFY(back.ok());
        QCOMPARE(back->entries().size(), idx->entries().size());
        for (std::size_t i = 0; i < idx->entries().size(); ++i) {
            QCOMPARE(back->entries()[i].name, idx->entries()[i].name);
            QCOMPARE(back->entries()[i].offset, idx->entries()[i].offset);
            QCOMPARE(back->entries()[i].size, idx->entries()[i].size);
        }
        QCOMPARE(back->endOffset(), idx->endOffset());
        QVERIFY(back->find("b/c.txt") != nullptr);
        // A copy keeps a working lookup.
        TarIndex copy = *back;
        QVERIFY(copy.find("a") != nullptr && copy.find("a")->size == 1);

        for (std::size_t cut : {std::size_t{0}, std::size_t{5}, ser.size() / 2, ser.size() - 1}) {
            auto d = TarIndex::deserialize(std::string_view(ser).substr(0, cut));
            QVERIFY(!d.ok());
            QCOMPARE(d.kind(), api::ErrorKind::Corruption);
        }
        auto extra = TarIndex::deserialize(ser + "x");
        QCOMPARE(extra.kind(), api::ErrorKind::Corruption);
        std::string wrongMagic = ser;
        wrongMagic[0] = 'X';
        QCOMPARE(TarIndex::deserialize(wrongMagic).kind(), api::ErrorKind::Corruption);
    }

    void appendAtEndOffset()
    {
        const auto first = makeTar({{"a.txt", "one"}, {"b.txt", std::string(1000, 'b')}});
        TempFile f(first);
        auto idx = TarIndex::build(f.fd, first.size(), {});
        QVERIFY(idx.ok());
        // The old bytes up to the end marker, then a new member and a new end.
        std::string appended = first.substr(0, idx->endOffset()) + makeTar({{"a.txt", "two"}, {"c.txt", "c"}});
        TempFile g(appended);
        auto idx2 = TarIndex::build(g.fd, appended.size(), {});
        QVERIFY(idx2.ok());
        QCOMPARE(idx2->entries().size(), std::size_t{4});
        QCOMPARE(readAt(g.fd, idx2->find("a.txt")->offset, 3), std::string("two"));  // the later one wins
        QCOMPARE(readAt(g.fd, idx2->find("b.txt")->offset, 1000), std::string(1000, 'b'));
        QCOMPARE(idx2->endOffset() + kTarEndBytes, appended.size());
        const auto tar = QStandardPaths::findExecutable("tar");
        if (!tar.isEmpty()) {
            QProcess p;
            p.start(tar, {"-tf", QString::fromStdString(g.path)});
            QVERIFY(p.waitForFinished());
            QCOMPARE(p.exitCode(), 0);
            QCOMPARE(QString(p.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts),
                     QStringList({"a.txt", "b.txt", "a.txt", "c.txt"}));
        }
    }

    void damagedShard()
    {
        const auto bytes = makeTar({{"a.txt", std::string(5000, 'a')}});
        TempFile f(bytes.substr(0, 2000));
        auto idx = TarIndex::build(f.fd, 2000, {});
        QVERIFY(!idx.ok());
        QCOMPARE(idx.kind(), api::ErrorKind::Corruption);
    }
};

QTEST_APPLESS_MAIN(TestTarIndex)
#include "test_tar_index.moc"
