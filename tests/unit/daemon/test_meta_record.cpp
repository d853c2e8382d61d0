// The on-disk metadata record (daemon/target/meta_record.h): exact round
// trips of every field, the legacy JSON form still read, every cut or
// damaged record refused as Corruption, and the size that lets ext4 keep it
// inside the inode. Then through the object store: a PUT writes the binary
// record, and an object whose attribute holds the old JSON is served with
// its metadata.
#include "target/meta_record.h"
#include "target/object_store.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>
#include <fcntl.h>
#include <sys/xattr.h>
#include <unistd.h>

using namespace tessera;
using namespace tessera::daemon::target;

namespace {

api::ObjectMeta typical()
{
    api::ObjectMeta m;
    m.size = 2048;
    m.checksumType = "xxhash";
    m.checksumValue = "0f1e2d3c4b5a6978";
    m.version = "1";
    m.atimeNs = 1795697832591440794;
    m.stamp = 1795697832591440001;
    return m;
}

}  // namespace

class TestMetaRecord : public QObject {
    Q_OBJECT

private slots:
    void roundTripsEveryField_data()
    {
        QTest::addColumn<int>("variant");
        QTest::newRow("typical") << 0;
        QTest::newRow("custom entries") << 1;
        QTest::newRow("no checksum") << 2;
        QTest::newRow("other checksum type") << 3;
        QTest::newRow("uppercase hex kept as text") << 4;
        QTest::newRow("zero times, long version") << 5;
        QTest::newRow("largest values") << 6;
    }
    void roundTripsEveryField()
    {
        QFETCH(int, variant);
        auto m = typical();
        switch (variant) {
        case 1: m.custom = {{"ETag", "\"abc\""}, {"label", "7"}, {"empty", ""}}; break;
        case 2: m.checksumValue.clear(); break;
        case 3:
            m.checksumType = "md5";
            m.checksumValue = "9e107d9d372bb6826bd81d3542a419d6";
            break;
        case 4: m.checksumValue = "0F1E2D3C4B5A6978"; break;
        case 5:
            m.atimeNs = 0;
            m.stamp = 0;
            m.size = 0;
            m.version = std::string(300, 'v');
            break;
        case 6:
            m.size = std::numeric_limits<std::int64_t>::max();
            m.atimeNs = std::numeric_limits<std::int64_t>::max();
            m.stamp = std::numeric_limits<std::int64_t>::max();
            break;
        default: break;
        }
        const auto rec = encodeMetaRecord(m);
        QCOMPARE(static_cast<unsigned char>(rec.front()), kMetaRecordV1);
        auto back = decodeMetaRecord(rec);
        QVERIFY2(back.ok(), back ? "" : back.error().message.c_str());
        QVERIFY(*back == m);
    }

    // ext4 with 256-byte inodes keeps an attribute of up to about 60 bytes
    // (with this name) in the inode; JSON metadata took a 4 KiB block.
    void typicalRecordFitsTheInode()
    {
        const auto rec = encodeMetaRecord(typical());
        QVERIFY2(rec.size() <= 40, std::to_string(rec.size()).c_str());
        QVERIFY(rec.size() * 4 < nlohmann::json(typical()).dump().size());
    }

    void readsTheLegacyJson()
    {
        auto m = typical();
        m.custom = {{"k", "v"}};
        const auto json = nlohmann::json(m).dump();
        auto back = decodeMetaRecord(json);
        QVERIFY2(back.ok(), back ? "" : back.error().message.c_str());
        QVERIFY(*back == m);
    }

    void refusesEveryCutAndDamagedRecord()
    {
        auto m = typical();
        m.custom = {{"key", "value"}};
        const auto rec = encodeMetaRecord(m);
        for (std::size_t n = 0; n < rec.size(); ++n) {
            auto r = decodeMetaRecord(std::string_view(rec).substr(0, n));
            QVERIFY2(!r.ok(), std::to_string(n).c_str());
            QCOMPARE(r.kind(), api::ErrorKind::Corruption);
        }
        auto longer = rec + "x";
        QCOMPARE(decodeMetaRecord(longer).kind(), api::ErrorKind::Corruption);
        auto badFlags = rec;
        badFlags[1] = static_cast<char>(0x80);
        QCOMPARE(decodeMetaRecord(badFlags).kind(), api::ErrorKind::Corruption);
        QCOMPARE(decodeMetaRecord("{\"size\":").kind(), api::ErrorKind::Corruption);
        QCOMPARE(decodeMetaRecord(std::string(1, '\x02')).kind(), api::ErrorKind::Corruption);
        // A varint that never ends.
        QCOMPARE(decodeMetaRecord(std::string("\x01\x00", 2) + std::string(12, '\xff')).kind(),
                 api::ErrorKind::Corruption);
    }

    void theStoreWritesRecordsAndReadsJson()
    {
        QTemporaryDir dir;
        ObjectStore::Options o;
        o.mountpaths = {(dir.path() + "/mp1").toStdString()};
        o.fsync = false;
        auto store = ObjectStore::create(o);
        QVERIFY2(store.ok(), store ? "" : store.error().message.c_str());
        auto w = (*store)->beginPut("b", "new", {});
        QVERIFY(w.ok());
        QVERIFY((*w)->write("hello", 5).ok());
        auto committed = (*w)->commit();
        QVERIFY(committed.ok());

        char buf[256];
        const auto path = (*store)->objectPath("b", "new");
        const auto n = ::getxattr(path.c_str(), "user.tessera.meta", buf, sizeof buf);
        QVERIFY(n > 0);
        QCOMPARE(static_cast<unsigned char>(buf[0]), kMetaRecordV1);
        auto opened = (*store)->open("b", "new");
        QVERIFY(opened.ok());
        QCOMPARE(opened->meta.checksumValue, committed->checksumValue);
        QCOMPARE(opened->meta.stamp, committed->stamp);

        // An object written by an older version: JSON in the attribute.
        auto old = typical();
        old.size = 5;
        old.version = "4";
        old.custom = {{"source", "legacy"}};
        const auto oldPath = (*store)->objectPath("b", "old");
        {
            const int fd = ::open(oldPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            QVERIFY(fd >= 0);
            QCOMPARE(::write(fd, "hello", 5), ssize_t{5});
            const auto json = nlohmann::json(old).dump();
            QCOMPARE(::fsetxattr(fd, "user.tessera.meta", json.data(), json.size(), 0), 0);
            ::close(fd);
        }
        auto legacy = (*store)->open("b", "old");
        QVERIFY2(legacy.ok(), legacy ? "" : legacy.error().message.c_str());
        QCOMPARE(legacy->meta.version, std::string("4"));
        QCOMPARE(legacy->meta.checksumValue, old.checksumValue);
        QCOMPARE(legacy->meta.custom.at("source"), std::string("legacy"));
    }
};

QTEST_GUILESS_MAIN(TestMetaRecord)
#include "test_meta_record.moc"
