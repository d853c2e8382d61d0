// Slices of erasure-coded objects on real directories: the version rule
// (an older stamp never replaces a newer slice, nor a deletion at least as
// new; the same version at another index does), damaged bytes refused,
// removal by stamp, an older whole copy dropped when a newer slice arrives,
// and the file codec (ec_stream) rebuilding an object from any D slices.
#include "ec/ec_stream.h"
#include "ec/slice_store.h"

#include "api/checksum.h"

#include <QTemporaryDir>
#include <QTest>
#include <fcntl.h>
#include <random>
#include <unistd.h>

using namespace tessera;
using namespace tessera::daemon;
using namespace tessera::daemon::ec;

namespace {

std::string randomBytes(std::size_t n, std::uint32_t seed)
{
    std::mt19937 gen(seed);
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(gen() & 0xff);
    return s;
}

std::string readFd(int fd, std::size_t n)
{
    std::string s(n, '\0');
    if (n > 0 && ::pread(fd, s.data(), n, 0) != static_cast<ssize_t>(n)) return "<short>";
    return s;
}

}  // namespace

class TestSliceStore : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<target::ObjectStore> m_store;
    std::unique_ptr<SliceStore> m_slices;

    // Slice `index` of a 2+1 object `object` stamped `stamp`: its meta and bytes.
    std::pair<SliceMeta, std::string> slice(const std::string& object, int index, std::int64_t stamp)
    {
        auto codec = EcCodec::create(2, 1);
        const auto bytes = codec->encode(object)[static_cast<std::size_t>(index)];
        SliceMeta m;
        m.object.size = static_cast<std::int64_t>(object.size());
        m.object.checksumValue = api::xxhash64Hex(object);
        m.object.stamp = stamp;
        m.object.version = "1";
        m.index = index;
        m.data = 2;
        m.parity = 1;
        m.sliceSize = bytes.size();
        m.sliceChecksum = api::xxhash64Hex(bytes);
        return {m, bytes};
    }
    // Stores it; true when stored, false when superseded; an error otherwise.
    api::Result<bool> store(const SliceMeta& m, const std::string& bytes, const std::string& name = "n")
    {
        auto w = m_slices->beginPut("b", name, m);
        if (!w) return w.error();
        if (auto st = (*w)->write(bytes.data(), bytes.size()); !st) return st.error();
        if (auto st = (*w)->commit(); !st) return st.error();
        return !(*w)->superseded();
    }
    std::int64_t stampHere(const std::string& name = "n")
    {
        auto s = m_slices->open("b", name);
        return s ? s->meta.object.stamp : -1;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        target::ObjectStore::Options o;
        o.mountpaths = {(m_dir.path() + "/mp1").toStdString(), (m_dir.path() + "/mp2").toStdString()};
        o.fsync = true;
        auto s = target::ObjectStore::create(o);
        QVERIFY(s);
        m_store = std::move(s.value());
        m_slices = std::make_unique<SliceStore>(*m_store);
    }

    void newerReplacesOlderNeverTheReverse()
    {
        const auto obj = randomBytes(10001, 1);
        auto [m10, b10] = slice(obj, 0, 10);
        QCOMPARE(*store(m10, b10), true);
        QCOMPARE(stampHere(), std::int64_t{10});
        auto [m5, b5] = slice(randomBytes(777, 2), 0, 5);
        QCOMPARE(*store(m5, b5), false);  // older: superseded
        QCOMPARE(stampHere(), std::int64_t{10});
        QCOMPARE(*store(m10, b10), false);  // the same slice again
        auto [m10b, b10b] = slice(obj, 2, 10);
        QCOMPARE(*store(m10b, b10b), true);  // the same version, another index (the holders changed)
        QCOMPARE(m_slices->open("b", "n")->meta.index, 2);
        auto [m20, b20] = slice(randomBytes(3, 3), 1, 20);
        QCOMPARE(*store(m20, b20), true);
        auto s = m_slices->open("b", "n");
        QVERIFY(s);
        QVERIFY(s->meta == m20);
        QCOMPARE(readFd(s->fd->get(), b20.size()), b20);
        QVERIFY(m_slices->verify(*s));
        // The file is where the layout says, on the name's mountpath.
        QVERIFY(QFile::exists(QString::fromStdString(m_slices->slicePath("b", "n"))));
    }

    void damagedBytesAreRefused()
    {
        auto [m, b] = slice(randomBytes(5000, 4), 1, 100);
        b[7] ^= 1;
        auto r = store(m, b, "damaged");
        QVERIFY(!r);
        QCOMPARE(r.kind(), api::ErrorKind::Corruption);
        QCOMPARE(m_slices->open("b", "damaged").kind(), api::ErrorKind::NotFound);
        // Longer than announced: refused while it arrives.
        auto w = m_slices->beginPut("b", "long", m);
        QVERIFY(w);
        const std::string more(b.size() + 1, 'x');
        QCOMPARE((*w)->write(more.data(), more.size()).kind(), api::ErrorKind::TooLarge);
        // Inconsistent metadata never gets a writer.
        auto bad = m;
        bad.sliceSize += 1;
        QCOMPARE(m_slices->beginPut("b", "x", bad).kind(), api::ErrorKind::BadRequest);
        bad = m;
        bad.index = 3;
        QCOMPARE(m_slices->beginPut("b", "x", bad).kind(), api::ErrorKind::BadRequest);
    }

    void flippedByteIsFoundByVerify()
    {
        auto [m, b] = slice(randomBytes(5000, 5), 0, 100);
        QCOMPARE(*store(m, b, "flip"), true);
        const auto path = m_slices->slicePath("b", "flip");
        const int fd = ::open(path.c_str(), O_RDWR);
        QVERIFY(fd >= 0);
        const char x = static_cast<char>(b[10] ^ 0x40);
        QCOMPARE(::pwrite(fd, &x, 1, 10), ssize_t{1});
        ::close(fd);
        auto s = m_slices->open("b", "flip");
        QVERIFY(s);
        QCOMPARE(m_slices->verify(*s).kind(), api::ErrorKind::Corruption);
    }

    void removalFollowsStamps()
    {
        auto [m, b] = slice(randomBytes(4000, 6), 0, 50);
        QCOMPARE(*store(m, b, "gone"), true);
        QCOMPARE(m_slices->remove("b", "gone", 40).kind(), api::ErrorKind::Conflict);  // the slice is newer
        QCOMPARE(stampHere("gone"), std::int64_t{50});
        QVERIFY(m_slices->removeOlder("b", "gone", 50));  // not older: stays
        QCOMPARE(stampHere("gone"), std::int64_t{50});
        QVERIFY(m_slices->remove("b", "gone", 60));
        QCOMPARE(m_slices->open("b", "gone").kind(), api::ErrorKind::NotFound);
        QVERIFY(m_slices->remove("b", "gone", 60));  // none: OK
        // A deletion recorded here (tombstone 70) keeps an older slice out.
        QVERIFY(m_store->removeCopy("b", "gone", 70));
        QCOMPARE(*store(m, b, "gone"), false);
        auto [m80, b80] = slice(randomBytes(4000, 7), 0, 80);
        QCOMPARE(*store(m80, b80, "gone"), true);
    }

    // A slice of a newer version leaves an older whole copy here: it may be
    // what the version the new one replaces is read from until every slice
    // of it is kept (the owner then has it dropped: removeCopyIfOlder).
    void newerSliceKeepsAnOlderWholeCopy()
    {
        target::PutParams p;
        p.transferStamp = 30;
        p.transferVersion = "1";
        auto w = m_store->beginPut("b", "was-small", p);
        QVERIFY(w);
        QVERIFY((*w)->write("tiny", 4));
        QVERIFY((*w)->commit());
        QVERIFY(m_store->open("b", "was-small"));
        auto [m, b] = slice(randomBytes(9000, 8), 1, 31);
        QCOMPARE(*store(m, b, "was-small"), true);
        QVERIFY(m_store->open("b", "was-small"));
        QVERIFY(m_store->removeCopyIfOlder("b", "was-small", 30));  // not older: stays
        QVERIFY(m_store->open("b", "was-small"));
        QVERIFY(m_store->removeCopyIfOlder("b", "was-small", 31));
        QCOMPARE(m_store->open("b", "was-small").kind(), api::ErrorKind::NotFound);
        QVERIFY(!m_store->tombstone("b", "was-small").has_value());  // no deletion recorded
    }

    void filesRoundTripFromAnyTwoSlices()
    {
        auto codec = EcCodec::create(2, 1);
        QVERIFY(codec);
        // Over one stripe chunk (1 MiB per slice) so chunking is exercised.
        const auto object = randomBytes((std::size_t{5} << 20) + 3, 9);
        const auto mk = [this]() -> api::Result<UniqueFd> {
            UniqueFd fd(::open((m_dir.path() + "/mp1/.tessera/work").toLocal8Bit().constData(),
                               O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
            if (!fd.valid()) return api::Error::ioError("tmpfile");
            return fd;
        };
        auto in = mk();
        QVERIFY(in);
        QCOMPARE(::pwrite(in->get(), object.data(), object.size(), 0), static_cast<ssize_t>(object.size()));
        auto slices = encodeSlices(*codec, in->get(), object.size(), mk);
        QVERIFY(slices);
        QCOMPARE(slices->size(), std::size_t{3});
        const auto inMemory = codec->encode(object);
        for (std::size_t i = 0; i < 3; ++i) {
            QCOMPARE((*slices)[i].checksum, api::xxhash64Hex(inMemory[i]));
        }
        for (int lost = 0; lost < 3; ++lost) {
            std::map<int, int> fds;
            for (int i = 0; i < 3; ++i) {
                if (i != lost) fds.emplace(i, (*slices)[static_cast<std::size_t>(i)].fd.get());
            }
            auto out = mk();
            QVERIFY(out);
            QVERIFY(decodeSlices(*codec, fds, object.size(), out->get()));
            QVERIFY(readFd(out->get(), object.size()) == object);
        }
        std::map<int, int> one{{0, (*slices)[0].fd.get()}};
        auto out = mk();
        QCOMPARE(decodeSlices(*codec, one, object.size(), out->get()).kind(), api::ErrorKind::Unavailable);
    }
};

QTEST_APPLESS_MAIN(TestSliceStore)
#include "test_slice_store.moc"
