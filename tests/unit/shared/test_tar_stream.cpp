// The .tar written directly (TarStream, behind ArchiveWriter for .tar):
// libarchive and Tessera's own index read back every name and byte, the
// headers carry valid checksums, names that do not fit ustar go into a pax
// header (split at a '/' when they can), sizes from 8 GiB up too, and the
// sink gets whole blocks.
#include "archive/archive_reader.h"
#include "archive/archive_writer.h"
#include "archive/tar_index.h"
#include "archive/tar_stream.h"
#include "shard_bytes.h"

#include <QTemporaryFile>
#include <QTest>
#include <cstring>

using namespace tessera;
using namespace tessera::archive;
using test::Member;

namespace {

// The checksum a ustar header at `at` carries, and the one its bytes give.
std::pair<unsigned, unsigned> checksums(const std::string& tar, std::size_t at)
{
    unsigned sum = 0;
    for (std::size_t i = 0; i < 512; ++i) {
        sum += (i >= 148 && i < 156) ? unsigned(' ') : static_cast<unsigned char>(tar[at + i]);
    }
    return {static_cast<unsigned>(std::stoul(tar.substr(at + 148, 7), nullptr, 8)), sum};
}

}  // namespace

class TestTarStream : public QObject {
    Q_OBJECT

private slots:
    void readBackByLibarchiveAndTheIndex()
    {
        const std::vector<Member> members = {
            {"a.txt", ""},
            {"dir/sub/b.bin", std::string(700, 'b')},
            {std::string(120, 'd') + "/file.txt", std::string(512, 'c')},  // split: prefix + name
            {std::string(130, 'x') + ".nosplit", std::string(1, 'x')},     // pax path
            {"\xc3\xbcn\xc3\xaf"
             "c\xc3\xb6"
             "d\xc3\xa9/\xf0\x9f\x99\x82.txt",
             std::string(1025, 'u')},                                       // UTF-8: pax path
            {std::string(155, 'p') + "/" + std::string(100, 'q'), "edge"},  // longest ustar split
            {std::string(156, 'p') + "/" + std::string(100, 'q'), "over"},  // one byte more: pax
        };
        const auto tar = test::writeShard(ArchiveFormat::Tar, members);
        QCOMPARE(tar.size() % 512, std::size_t{0});
        QCOMPARE(tar.substr(tar.size() - 1024), std::string(1024, '\0'));

        auto r = ArchiveReader::openMemory(tar, ArchiveFormat::Tar, {});
        QVERIFY(r);
        for (const auto& want : members) {
            auto m = (*r)->next();
            QVERIFY(m && m->has_value());
            QCOMPARE((**m).name, want.name);
            QCOMPARE((**m).size, static_cast<std::uint64_t>(want.data.size()));
            auto data = (*r)->readAll();
            QVERIFY(data);
            QCOMPARE(*data, want.data);
        }
        auto end = (*r)->next();
        QVERIFY(end && !end->has_value());

        // Tessera's own index (what archpath reads use) finds every member.
        QTemporaryFile file;
        QVERIFY(file.open());
        QCOMPARE(file.write(tar.data(), static_cast<qint64>(tar.size())), static_cast<qint64>(tar.size()));
        QVERIFY(file.flush());
        auto index = TarIndex::build(file.handle(), tar.size(), {});
        QVERIFY2(index, index ? "" : index.error().message.c_str());
        QCOMPARE(index->endOffset(), tar.size() - 1024);

        // Every header's checksum is its bytes' (the first two: no pax).
        for (std::size_t at : {std::size_t{0}, std::size_t{512}}) {
            const auto [stored, computed] = checksums(tar, at);
            QCOMPARE(stored, computed);
        }
        QCOMPARE(tar.substr(257, 8), std::string("ustar\0"
                                                 "00",
                                                 8));
    }

    void hugeSizesGoInPax()
    {
        std::string out;
        TarStream t([&out](const char* p, std::size_t n) {
            out.append(p, n);
            return api::Status();
        });
        const std::uint64_t size = std::uint64_t{1} << 33;  // 8 GiB: one more than 11 octal digits hold
        QVERIFY(t.header("big.bin", size, 0));
        QVERIFY(t.finish());
        QCOMPARE(out[156], 'x');  // the pax header first
        QCOMPARE(out.substr(512, 19), std::string("19 size=8589934592\n"));
        QCOMPARE(out[1024 + 156], '0');
        QCOMPARE(out.substr(1024, 7), std::string("big.bin"));
        QCOMPARE(out.substr(1024 + 124, 11), std::string(11, '0'));
        const auto [stored, computed] = checksums(out, 1024);
        QCOMPARE(stored, computed);
    }

    // Small members reach the sink in whole blocks; a member's data given in
    // a piece of a block or more goes to the sink from where it is (no copy
    // through the block buffer), after what was buffered before it, in
    // pieces of at most kDirectBytes.
    void sinkGetsWholeBlocksOrBigPiecesAndItsErrorStops()
    {
        std::vector<std::size_t> calls;
        std::vector<test::Member> small;
        for (int i = 0; i < 300; ++i) small.push_back({"s" + std::to_string(i) + ".txt", std::string(700, 'x')});
        test::writeShard(ArchiveFormat::Tar, small, &calls);
        QVERIFY(calls.size() >= 2);
        for (std::size_t i = 0; i + 1 < calls.size(); ++i) QCOMPARE(calls[i], TarStream::kBlockBytes);

        calls.clear();
        const auto tar = test::writeShard(
            ArchiveFormat::Tar, {{"a.bin", std::string(200000, 'a')}, {"b.bin", std::string(70000, 'b')}}, &calls);
        const std::vector<std::size_t> want{512, 200000, 512 - 200000 % 512 + 512, 70000, 512 - 70000 % 512 + 1024};
        QCOMPARE(calls, want);
        QCOMPARE(tar.size(), std::size_t{512 + 200000 + 192 + 512 + 70000 + 144 + 1024});
        calls.clear();
        test::writeShard(ArchiveFormat::Tar, {{"c.bin", std::string(600000, 'c')}}, &calls);
        const std::vector<std::size_t> pieces{512, 262144, 262144, 600000 - 2 * 262144, 512 - 600000 % 512 + 1024};
        QCOMPARE(calls, pieces);

        int sinkCalls = 0;
        auto w = ArchiveWriter::create(ArchiveFormat::Tar, [&sinkCalls](const char*, std::size_t) {
            ++sinkCalls;
            return api::Status(api::Error::noSpace("disk full"));
        });
        QVERIFY(w);
        auto st = (*w)->add("a.bin", std::string(200000, 'a'), 0);
        QCOMPARE(st.kind(), api::ErrorKind::NoSpace);
        QCOMPARE(sinkCalls, 1);
        QVERIFY(!(*w)->add("b.bin", "b", 0));  // a failed writer stays failed
        QVERIFY(!(*w)->finish());
        QCOMPARE(sinkCalls, 1);
    }
};

QTEST_APPLESS_MAIN(TestTarStream)
#include "test_tar_stream.moc"
