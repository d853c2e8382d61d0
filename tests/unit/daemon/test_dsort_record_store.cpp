// dSort's record bytes and record store: the codec round trip through the
// stream parser in pieces of any size, its refusal of truncated or
// nonsensical input; the store keeping records in memory up to the
// budget and spilling beyond it, references into a .tar read in place, the
// same encoded bytes whichever way a record is kept (whole, or in pieces with
// file regions left on disk), and the spill file gone with the store.
#include "dsort/record_codec.h"
#include "dsort/record_store.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <fcntl.h>
#include <unistd.h>

using namespace tessera;
using namespace tessera::daemon::dsort;
using tessera::daemon::UniqueFd;

namespace {

std::vector<RecordFile> sampleRecord(int i, std::size_t size)
{
    return {
        {"sample-" + std::to_string(i) + ".bin", 1700000000 + i, std::string(size, static_cast<char>('a' + i % 26))},
        {"sample-" + std::to_string(i) + ".cls", 1700000000, std::to_string(i % 10)}};
}

}  // namespace

class TestDsortRecordStore : public QObject {
    Q_OBJECT

private slots:
    // Two records back to back, given to the stream parser in pieces of
    // every size from 1 byte to all at once: the same files, names, mtimes
    // and bytes come out, and it ends at a record's end.
    void codecRoundTrip()
    {
        const auto a = sampleRecord(3, 1000);
        const auto b = sampleRecord(4, 0);
        const auto enc = encodeRecord(a) + encodeRecord(b);
        for (std::size_t piece : {std::size_t{1}, std::size_t{3}, std::size_t{7}, std::size_t{500}, enc.size()}) {
            std::vector<RecordFile> got;
            RecordStreamParser parser(
                [&](std::string_view name, std::int64_t mtime, std::uint64_t size) {
                    got.push_back({std::string(name), mtime, {}});
                    got.back().data.reserve(size);
                    return api::Status{};
                },
                [&](const char* p, std::size_t n) {
                    got.back().data.append(p, n);
                    return api::Status{};
                });
            for (std::size_t at = 0; at < enc.size(); at += piece) {
                QVERIFY(parser.feed(enc.data() + at, std::min(piece, enc.size() - at)).ok());
            }
            QVERIFY(parser.atRecordEnd().ok());
            QCOMPARE(parser.records(), std::uint64_t{2});
            QCOMPARE(got.size(), std::size_t{4});
            for (std::size_t i = 0; i < 4; ++i) {
                const auto& want = i < 2 ? a[i] : b[i - 2];
                QCOMPARE(got[i].name, want.name);
                QCOMPARE(got[i].mtime, want.mtime);
                QVERIFY(got[i].data == want.data);
            }
        }
    }

    // Bytes that stop inside a record are not a whole answer; no bytes at
    // all are zero records.
    void codecRefusesTruncation()
    {
        const auto enc = encodeRecord(sampleRecord(1, 100));
        auto none = [](auto...) { return api::Status{}; };
        for (std::size_t cut : {std::size_t{0}, std::size_t{3}, std::size_t{10}, enc.size() - 1, enc.size()}) {
            RecordStreamParser parser(none, none);
            QVERIFY(parser.feed(enc.data(), cut).ok());
            if (cut == 0 || cut == enc.size()) {
                QVERIFY(parser.atRecordEnd().ok());
                QCOMPARE(parser.records(), cut == 0 ? std::uint64_t{0} : std::uint64_t{1});
                continue;
            }
            QCOMPARE(parser.atRecordEnd().kind(), api::ErrorKind::Corruption);
            QCOMPARE(parser.records(), std::uint64_t{0});
        }
    }

    // A name longer than any record holds is refused at once, and so is
    // everything after it; a handler's error stops the parser the same way.
    void codecRefusesNonsenseAndStopsOnErrors()
    {
        auto none = [](auto...) { return api::Status{}; };
        RecordStreamParser parser(none, none);
        const char bad[] = {1, 0, 0, 0, 0, 0, 0, 1};  // one file, a name of 16 MiB
        QCOMPARE(parser.feed(bad, sizeof bad).kind(), api::ErrorKind::Corruption);
        QCOMPARE(parser.feed(bad, 1).kind(), api::ErrorKind::Corruption);
        QVERIFY(!parser.atRecordEnd().ok());

        int files = 0;
        RecordStreamParser refusing(
            [&](std::string_view, std::int64_t, std::uint64_t) {
                ++files;
                return api::Status(api::Error::noSpace("disk full"));
            },
            none);
        const auto enc = encodeRecord(sampleRecord(2, 10)) + encodeRecord(sampleRecord(3, 10));
        QCOMPARE(refusing.feed(enc.data(), enc.size()).kind(), api::ErrorKind::NoSpace);
        QCOMPARE(files, 1);
        QCOMPARE(refusing.feed(enc.data(), 4).kind(), api::ErrorKind::NoSpace);
    }

    // A budget of 3 records' bytes: the rest go to the spill file, and every
    // record reads back the same.
    void spillsBeyondTheBudget()
    {
        QTemporaryDir dir;
        const auto spill = dir.filePath("spill").toStdString();
        std::vector<std::string> encoded;
        for (int i = 0; i < 10; ++i) encoded.push_back(encodeRecord(sampleRecord(i, 4000)));
        {
            RecordStore store(encoded[0].size() * 3, spill);
            for (int i = 0; i < 10; ++i) {
                auto idx = store.add(encoded[static_cast<std::size_t>(i)]);
                QVERIFY(idx.ok());
                QCOMPARE(*idx, static_cast<std::uint64_t>(i));
            }
            const auto st = store.stats();
            QCOMPARE(st.records, std::uint64_t{10});
            QCOMPARE(st.spilledRecords, std::uint64_t{7});
            QVERIFY(st.memoryBytes <= encoded[0].size() * 3);
            for (std::uint64_t i = 0; i < 10; ++i) {
                auto got = store.get(i);
                QVERIFY(got.ok());
                QVERIFY(*got == encoded[i]);
                QCOMPARE(store.length(i), static_cast<std::uint64_t>(encoded[i].size()));
            }
            // A spilled record is one region of the spill file when it is
            // long enough, else read with the rest.
            QCOMPARE(joinedPieces(store, 9, 1), encoded[9]);
            QCOMPARE(joinedPieces(store, 9, encoded[9].size() + 1), encoded[9]);
            QCOMPARE(regionCount(store, 9, 1), 1);
            QCOMPARE(regionCount(store, 9, encoded[9].size() + 1), 0);
            QCOMPARE(regionCount(store, 0, 1), 0);  // in memory: bytes only
            QCOMPARE(store.pieces(10, 1, nullptr, nullptr).kind(), api::ErrorKind::NotFound);
            QCOMPARE(store.get(10).kind(), api::ErrorKind::NotFound);
            QCOMPARE(store.length(10), std::uint64_t{0});
            QVERIFY(QDir(QString::fromStdString(spill)).exists());
        }
        QVERIFY(!QDir(QString::fromStdString(spill)).exists());  // gone with the store
    }

    // A record kept by reference reads back as the same encoded bytes as
    // one kept in memory.
    void referencesReadInPlace()
    {
        QTemporaryDir dir;
        const auto files = sampleRecord(5, 700);
        QFile f(dir.filePath("input.bin"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("HEADER--");
        f.write(files[0].data.data(), static_cast<qint64>(files[0].data.size()));
        f.write("pad");
        f.write(files[1].data.data(), static_cast<qint64>(files[1].data.size()));
        f.close();
        auto fd = std::make_shared<UniqueFd>(::open(f.fileName().toLocal8Bit().constData(), O_RDONLY | O_CLOEXEC));
        QVERIFY(fd->valid());
        RecordStore store(0, dir.filePath("spill").toStdString());
        const auto idx = store.addRef(fd, {{files[0].name, files[0].mtime, 8, files[0].data.size()},
                                           {files[1].name, files[1].mtime, 8 + 700 + 3, files[1].data.size()}});
        QCOMPARE(store.stats().referencedRecords, std::uint64_t{1});
        auto got = store.get(idx);
        QVERIFY2(got.ok(), got.ok() ? "" : got.error().message.c_str());
        QVERIFY(*got == encodeRecord(files));
        QCOMPARE(store.length(idx), static_cast<std::uint64_t>(encodeRecord(files).size()));
        // In pieces: the 700-byte file as a region of the shard (it is not
        // copied), the 1-byte one read with the headers around it.
        QCOMPARE(joinedPieces(store, idx, 100), encodeRecord(files));
        QCOMPARE(regionCount(store, idx, 100), 1);
        QCOMPARE(regionCount(store, idx, 1), 2);
        QCOMPARE(regionCount(store, idx, 701), 0);
        QCOMPARE(joinedPieces(store, idx, 1), encodeRecord(files));
    }

private:
    // The record's pieces, regions read from their files, joined.
    static std::string joinedPieces(const RecordStore& store, std::uint64_t idx, std::uint64_t inlineBelow)
    {
        std::string out;
        auto st = store.pieces(
            idx, inlineBelow,
            [&](std::string_view b) {
                out.append(b);
                return api::Status{};
            },
            [&](const RecordStore::Region& r) {
                std::string buf(r.length, '\0');
                if (::pread(r.fd->get(), buf.data(), buf.size(), static_cast<off_t>(r.offset)) !=
                    static_cast<ssize_t>(buf.size()))
                    return api::Status(api::Error::ioError("short read", ""));
                out += buf;
                return api::Status{};
            });
        if (!st) return "error: " + st.error().message;
        return out;
    }
    static int regionCount(const RecordStore& store, std::uint64_t idx, std::uint64_t inlineBelow)
    {
        int n = 0;
        auto st = store.pieces(
            idx, inlineBelow, [](std::string_view) { return api::Status{}; },
            [&](const RecordStore::Region&) {
                ++n;
                return api::Status{};
            });
        return st ? n : -1;
    }
};

QTEST_GUILESS_MAIN(TestDsortRecordStore)
#include "test_dsort_record_store.moc"
