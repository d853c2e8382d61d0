// dSort's record bytes and record store: the codec round trip and its
// refusal of truncated input; the store keeping records in memory up to the
// budget and spilling beyond it, references into a .tar read in place, the
// same encoded bytes whichever way a record is kept, and the spill file
// gone with the store.
#include "dsort/record_codec.h"
#include "dsort/record_store.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <fcntl.h>

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
    void codecRoundTrip()
    {
        const auto files = sampleRecord(3, 1000);
        const auto enc = encodeRecord(files);
        std::size_t used = 0;
        auto dec = decodeRecord(enc + "trailing", used);
        QVERIFY2(dec.ok(), dec.ok() ? "" : dec.error().message.c_str());
        QCOMPARE(used, enc.size());
        QCOMPARE(dec->size(), std::size_t{2});
        QCOMPARE(std::string((*dec)[0].name), files[0].name);
        QCOMPARE((*dec)[0].mtime, files[0].mtime);
        QVERIFY((*dec)[0].data == files[0].data);
        QCOMPARE(std::string((*dec)[1].data), std::string("3"));
    }

    void codecRefusesTruncation()
    {
        const auto enc = encodeRecord(sampleRecord(1, 100));
        for (std::size_t cut : {std::size_t{0}, std::size_t{3}, std::size_t{10}, enc.size() - 1}) {
            std::size_t used = 0;
            auto dec = decodeRecord(std::string_view(enc).substr(0, cut), used);
            QVERIFY2(!dec.ok(), std::to_string(cut).c_str());
            QCOMPARE(dec.kind(), api::ErrorKind::Corruption);
        }
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
            std::string out = "x";
            QVERIFY(store.appendTo(9, out).ok());
            QVERIFY(out == "x" + encoded[9]);
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
    }
};

QTEST_GUILESS_MAIN(TestDsortRecordStore)
#include "test_dsort_record_store.moc"
