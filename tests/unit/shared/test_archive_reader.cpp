// shared/archive: round trips through every format, and the table of
// hostile and damaged shards the reader must refuse with a Corruption error.

#include "archive/archive_reader.h"
#include "archive/archive_writer.h"
#include "shard_bytes.h"

#include <QtTest>
#include <archive.h>
#include <archive_entry.h>
#include <random>
#include <string>
#include <vector>

using namespace tessera;
using namespace tessera::archive;
using test::Member;
using test::writeShard;

namespace {

std::string randomBytes(std::mt19937_64& rng, std::size_t n)
{
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(rng() & 0xff);
    return s;
}

// Reads every member; the first error's kind and message, or the members.
api::Result<std::vector<Member>> readShard(std::string_view bytes, ArchiveFormat f, const ArchiveLimits& limits = {})
{
    auto r = ArchiveReader::openMemory(bytes, f, limits);
    if (!r) return r.error();
    std::vector<Member> out;
    for (;;) {
        auto m = (*r)->next();
        if (!m) return m.error();
        if (!m->has_value()) break;
        auto data = (*r)->readAll();
        if (!data) return data.error();
        out.push_back({(**m).name, std::move(*data)});
    }
    return out;
}

// A raw libarchive entry, for shards ArchiveWriter would never write.
struct RawEntry {
    RawEntry(std::string n, unsigned t = AE_IFREG, std::string d = {}, std::string sl = {}, std::string hl = {},
             std::int64_t declared = -1)
        : name(std::move(n)), type(t), data(std::move(d)), symlink(std::move(sl)), hardlink(std::move(hl)),
          declaredSize(declared)
    {
    }
    std::string name;
    unsigned type;
    std::string data;
    std::string symlink;
    std::string hardlink;
    std::int64_t declaredSize;  // -1: data.size()
};

std::string writeRaw(const std::vector<RawEntry>& entries, ArchiveFormat f = ArchiveFormat::Tar)
{
    std::string out;
    struct archive* a = archive_write_new();
    if (f == ArchiveFormat::Zip) {
        archive_write_set_format_zip(a);
    } else {
        archive_write_set_format_pax_restricted(a);
        if (f == ArchiveFormat::TarGz) archive_write_add_filter_gzip(a);
    }
    archive_write_set_bytes_in_last_block(a, 1);
    archive_write_open(
        a, &out, nullptr,
        [](struct archive*, void* c, const void* b, size_t n) -> la_ssize_t {
            static_cast<std::string*>(c)->append(static_cast<const char*>(b), n);
            return static_cast<la_ssize_t>(n);
        },
        nullptr);
    for (const auto& e : entries) {
        struct archive_entry* en = archive_entry_new();
        archive_entry_set_pathname(en, e.name.c_str());
        archive_entry_set_filetype(en, e.type);
        archive_entry_set_perm(en, 0644);
        if (!e.symlink.empty()) archive_entry_set_symlink(en, e.symlink.c_str());
        if (!e.hardlink.empty()) archive_entry_set_hardlink(en, e.hardlink.c_str());
        const auto size = e.declaredSize >= 0 ? e.declaredSize : static_cast<std::int64_t>(e.data.size());
        archive_entry_set_size(en, e.type == AE_IFREG && e.hardlink.empty() ? size : 0);
        archive_write_header(a, en);
        if (!e.data.empty()) archive_write_data(a, e.data.data(), e.data.size());
        archive_entry_free(en);
    }
    archive_write_close(a);
    archive_write_free(a);
    return out;
}

}  // namespace

class TestArchiveReader : public QObject {
    Q_OBJECT
private slots:
    void roundTrip_data()
    {
        QTest::addColumn<int>("format");
        QTest::newRow("tar") << static_cast<int>(ArchiveFormat::Tar);
        QTest::newRow("tgz") << static_cast<int>(ArchiveFormat::TarGz);
        QTest::newRow("tar.lz4") << static_cast<int>(ArchiveFormat::TarLz4);
        QTest::newRow("zip") << static_cast<int>(ArchiveFormat::Zip);
    }
    void roundTrip()
    {
        QFETCH(int, format);
        const auto f = static_cast<ArchiveFormat>(format);
        std::mt19937_64 rng(42);
        std::vector<Member> members;
        for (int i = 0; i < 60; ++i) {
            std::string name =
                "dir" + std::to_string(i % 3) + "/sample_" + std::to_string(i) + (i % 2 ? ".jpg" : ".cls");
            members.push_back({name, randomBytes(rng, rng() % 70000)});
        }
        members.push_back({"empty.txt", ""});
        members.push_back({std::string(180, 'n') + "/long-name.bin", randomBytes(rng, 777)});
        members.push_back({"unicode/\xc3\xa9t\xc3\xa9.txt", "summer"});
        const auto bytes = writeShard(f, members);
        auto back = readShard(bytes, f);
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
        QCOMPARE(back->size(), members.size());
        for (std::size_t i = 0; i < members.size(); ++i) {
            QCOMPARE(QString::fromStdString((*back)[i].name), QString::fromStdString(members[i].name));
            QVERIFY((*back)[i].data == members[i].data);
        }
    }

    void memberInfo()
    {
        const auto bytes = writeShard(ArchiveFormat::Tar, {{"a.txt", "hello"}, {"b.bin", std::string(600, 'x')}});
        auto r = ArchiveReader::openMemory(bytes, ArchiveFormat::Tar, {});
        QVERIFY(r.ok());
        auto a = (*r)->next();
        QVERIFY(a.ok() && a->has_value());
        QCOMPARE((**a).size, 5u);
        QCOMPARE((**a).dataOffset, 512u);
        QCOMPARE((**a).mtime, 1700000000);
        QCOMPARE(bytes.substr((**a).dataOffset, 5), std::string("hello"));
        auto b = (*r)->next();  // a's data is skipped without reading it
        QVERIFY(b.ok() && b->has_value());
        QCOMPARE((**b).dataOffset, 1536u);
        QCOMPARE((**b).endOffset, 1536u + 1024u);
        auto end = (*r)->next();
        QVERIFY(end.ok() && !end->has_value());
        QCOMPARE((*r)->endOffset(), 2560u);
        QCOMPARE(bytes.size(), std::size_t{2560 + kTarEndBytes});
    }

    void sizeEstimateIsExactForShortNames()
    {
        std::vector<Member> ms{{"k1.jpg", std::string(1000, 'a')}, {"k1.cls", "7"}, {"k2.jpg", ""}};
        std::uint64_t est = kTarEndBytes;
        for (const auto& m : ms) est += tarMemberBytes(m.name, m.data.size());
        QCOMPARE(writeShard(ArchiveFormat::Tar, ms).size(), std::size_t(est));
        // Long names: an upper bound.
        std::vector<Member> longNames{{std::string(300, 'q') + ".jpg", "x"}};
        QVERIFY(writeShard(ArchiveFormat::Tar, longNames).size() <=
                tarMemberBytes(longNames[0].name, 1) + kTarEndBytes);
    }

    void skipsDirectoriesAndInsideLinks()
    {
        const auto bytes = writeRaw({{"./", AE_IFDIR},
                                     {"./a/", AE_IFDIR},
                                     {"./a/x.txt", AE_IFREG, "data"},
                                     {"a/link", AE_IFLNK, "", "x.txt"},
                                     {"a/b/up", AE_IFLNK, "", "../x.txt"},
                                     {"a/hard", AE_IFREG, "", "", "a/x.txt"}});
        auto back = readShard(bytes, ArchiveFormat::Tar);
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
        QCOMPARE(back->size(), std::size_t{1});
        QCOMPARE(QString::fromStdString((*back)[0].name), QString("a/x.txt"));
        QCOMPARE(QString::fromStdString((*back)[0].data), QString("data"));
    }

    void hostile_data()
    {
        QTest::addColumn<QByteArray>("shard");
        QTest::addColumn<int>("format");
        QTest::addColumn<QString>("expect");  // a piece of the error message
        const auto tar = static_cast<int>(ArchiveFormat::Tar);
        auto row = [&](const char* n, const std::string& bytes, int f, const char* expect) {
            QTest::newRow(n) << QByteArray(bytes.data(), static_cast<int>(bytes.size())) << f << QString(expect);
        };
        row("absolute path", writeRaw({{"/etc/passwd", AE_IFREG, "root"}}), tar, "absolute");
        row("dot-dot", writeRaw({{"../evil.sh", AE_IFREG, "x"}}), tar, "..");
        row("dot-dot inside", writeRaw({{"a/../../evil.sh", AE_IFREG, "x"}}), tar, "..");
        row("dot-dot directory", writeRaw({{"../up/", AE_IFDIR}}), tar, "..");
        row("symlink absolute", writeRaw({{"link", AE_IFLNK, "", "/etc/passwd"}}), tar, "symbolic link");
        row("symlink escaping", writeRaw({{"a/link", AE_IFLNK, "", "../../x"}}), tar, "symbolic link");
        row("hardlink escaping", writeRaw({{"h", AE_IFREG, "", "", "../x"}}), tar, "hard link");
        row("hardlink absolute", writeRaw({{"h", AE_IFREG, "", "", "/etc/shadow"}}), tar, "hard link");
        row("char device", writeRaw({{"dev/null", AE_IFCHR}}), tar, "not a regular file");
        row("block device", writeRaw({{"dev/sda", AE_IFBLK}}), tar, "not a regular file");
        row("fifo", writeRaw({{"pipe", AE_IFIFO}}), tar, "not a regular file");
        row("control char", writeRaw({{"a\x01.txt", AE_IFREG, "x"}}), tar, "control");
        row("gzip bomb", writeRaw({{"zeros.bin", AE_IFREG, std::string(64 << 20, '\0')}}, ArchiveFormat::TarGz),
            static_cast<int>(ArchiveFormat::TarGz), "expands more than");
        row("zip bomb", writeRaw({{"zeros.bin", AE_IFREG, std::string(64 << 20, '\0')}}, ArchiveFormat::Zip),
            static_cast<int>(ArchiveFormat::Zip), "expands more than");
        const auto good = writeShard(ArchiveFormat::Tar, {{"a.txt", std::string(3000, 'a')}, {"b.txt", "b"}});
        row("truncated in data", good.substr(0, 1200), tar, "");
        row("truncated in header", good.substr(0, 300), tar, "");
        std::mt19937_64 rng(7);
        row("garbage", randomBytes(rng, 5000), tar, "");
        row("garbage tgz", randomBytes(rng, 5000), static_cast<int>(ArchiveFormat::TarGz), "");
        row("garbage zip", randomBytes(rng, 5000), static_cast<int>(ArchiveFormat::Zip), "");
        row("empty", "", tar, "");
    }
    void hostile()
    {
        QFETCH(QByteArray, shard);
        QFETCH(int, format);
        QFETCH(QString, expect);
        auto r = readShard(std::string_view(shard.constData(), static_cast<std::size_t>(shard.size())),
                           static_cast<ArchiveFormat>(format));
        QVERIFY(!r.ok());
        QCOMPARE(r.kind(), api::ErrorKind::Corruption);
        QVERIFY2(r.error().message.find(expect.toStdString()) != std::string::npos, r.error().message.c_str());
    }

    void uncompressedUnderACompressedName()
    {
        // libarchive passes a stream that is not compressed straight through:
        // a plain tar named .tgz reads as what it is.
        const auto tar = writeShard(ArchiveFormat::Tar, {{"a.txt", "a"}});
        auto r = readShard(tar, ArchiveFormat::TarGz);
        QVERIFY(r.ok());
        QCOMPARE(r->size(), std::size_t{1});
        // ... but a zip is not a tar, whatever it is called.
        const auto zip = writeShard(ArchiveFormat::Zip, {{"a.txt", "a"}});
        QCOMPARE(readShard(zip, ArchiveFormat::Tar).kind(), api::ErrorKind::Corruption);
    }

    void limits()
    {
        const auto shard = writeShard(
            ArchiveFormat::Tar, {{"a", std::string(100, 'a')}, {"b", std::string(2000, 'b')}, {"c", "c"}, {"d", "d"}});
        ArchiveLimits l;
        l.maxMemberSize = 1000;
        auto r = readShard(shard, ArchiveFormat::Tar, l);
        QVERIFY(!r.ok());
        QCOMPARE(r.kind(), api::ErrorKind::Corruption);
        QVERIFY(r.error().message.find("archive_max_member_size") != std::string::npos);

        l = {};
        l.maxMembers = 3;
        r = readShard(shard, ArchiveFormat::Tar, l);
        QVERIFY(!r.ok());
        QVERIFY(r.error().message.find("archive_max_members") != std::string::npos);

        l = {};
        l.maxTotalSize = 2050;
        r = readShard(shard, ArchiveFormat::Tar, l);
        QVERIFY(!r.ok());
        QVERIFY(r.error().message.find("archive_max_total_size") != std::string::npos);

        l = {};
        l.maxNameBytes = 10;
        r = readShard(writeShard(ArchiveFormat::Tar, {{"a-rather-long-name.txt", "x"}}), ArchiveFormat::Tar, l);
        QVERIFY(!r.ok());
        QCOMPARE(r.kind(), api::ErrorKind::Corruption);

        QVERIFY(readShard(shard, ArchiveFormat::Tar, {}).ok());
    }

    void writerRefusesBadNamesAndSizes()
    {
        std::string out;
        auto w = ArchiveWriter::create(ArchiveFormat::Tar, [&out](const char* p, std::size_t n) {
            out.append(p, n);
            return api::Status();
        });
        QVERIFY(w.ok());
        QCOMPARE((*w)->begin("../x", 1, 0).kind(), api::ErrorKind::BadRequest);
        QCOMPARE((*w)->begin("/abs", 1, 0).kind(), api::ErrorKind::BadRequest);
        QVERIFY((*w)->begin("ok.txt", 3, 0).ok());
        QVERIFY(!(*w)->write("toolong", 7).ok());
        // A member short of its size cannot be finished.
        auto w2 = ArchiveWriter::create(ArchiveFormat::Tar, [](const char*, std::size_t) { return api::Status(); });
        QVERIFY((*w2)->begin("ok.txt", 3, 0).ok());
        QVERIFY((*w2)->write("ab", 2).ok());
        QVERIFY(!(*w2)->finish().ok());
    }

    void sinkErrorStopsTheWriter()
    {
        int calls = 0;
        auto w = ArchiveWriter::create(ArchiveFormat::Tar, [&calls](const char*, std::size_t) {
            ++calls;
            return api::Status(api::Error::noSpace("disk full"));
        });
        QVERIFY(w.ok());
        api::Status st = (*w)->add("a.bin", std::string(200000, 'a'), 0);
        if (st.ok()) st = (*w)->finish();
        QVERIFY(!st.ok());
        QCOMPARE(st.kind(), api::ErrorKind::NoSpace);
        QVERIFY(calls >= 1);
    }
};

QTEST_APPLESS_MAIN(TestArchiveReader)
#include "test_archive_reader.moc"
