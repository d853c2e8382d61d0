// The commit log of small PUTs with fsync on (daemon/target/commit_log.h),
// on real files: records durable and read back in order, a torn or stale
// tail ignored, checkpoints that wait for their records' objects; and the
// object store around it: a version whose file did not reach the disk is
// written again at start, never over a newer version or a deletion.
#include "target/commit_log.h"
#include "target/object_store.h"

#include "api/checksum.h"

#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <fcntl.h>
#include <filesystem>
#include <set>
#include <sys/xattr.h>
#include <thread>
#include <unistd.h>

using namespace tessera;
using namespace tessera::daemon::target;

namespace {

std::string dataOf(int i, std::size_t size)
{
    std::string s(size, '\0');
    for (std::size_t k = 0; k < size; ++k) s[k] = static_cast<char>('a' + (i * 7 + static_cast<int>(k)) % 26);
    return s;
}

}  // namespace

class TestCommitLog : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string logDir() const { return (m_dir.path() + "/log").toStdString(); }
    std::unique_ptr<CommitLog> openLog(CommitLog::Options o, std::vector<CommitLog::Record>* left)
    {
        auto log = CommitLog::open(logDir(), m_dir.path().toStdString(), o, left);
        if (!log) qWarning("%s", log.error().message.c_str());
        return log ? std::move(log.value()) : nullptr;
    }
    static CommitLog::Options smallLog(std::uint64_t segment = 1 << 20)
    {
        CommitLog::Options o;
        o.segmentBytes = segment;
        o.checkpointAfter = std::chrono::hours(1);  // only when full or asked
        return o;
    }

private slots:
    void init() { std::filesystem::remove_all(logDir()); }

    // Concurrent appends, each durable when append() returns; a restart
    // without a checkpoint finds every record, in the order appended.
    void appendsAreReadBackAfterARestart()
    {
        std::vector<CommitLog::Record> left;
        auto log = openLog(smallLog(), &left);
        QVERIFY(log);
        QVERIFY(left.empty());
        constexpr int kThreads = 8, kEach = 25;
        std::atomic<int> failures{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t) {
            threads.emplace_back([&, t] {
                for (int i = 0; i < kEach; ++i) {
                    const int n = t * kEach + i;
                    auto ticket = log->append("b", "obj-" + std::to_string(n), "meta-" + std::to_string(n),
                                              dataOf(n, 100 + static_cast<std::size_t>(n)));
                    if (ticket.error() != 0) ++failures;
                }
            });
        }
        for (auto& th : threads) th.join();
        QCOMPARE(failures.load(), 0);
        QCOMPARE(log->appended(), std::uint64_t{kThreads * kEach});
        QVERIFY(log->syncs() >= 1);
        QVERIFY(log->syncs() <= log->appended());
        log.reset();  // no checkpoint: as after a crash

        log = openLog(smallLog(), &left);
        QVERIFY(log);
        QCOMPARE(left.size(), std::size_t{kThreads * kEach});
        std::set<std::string> names;
        for (std::size_t i = 0; i < left.size(); ++i) {
            const auto& r = left[i];
            if (i > 0) QCOMPARE(r.seq, left[i - 1].seq + 1);
            const int n = std::stoi(r.name.substr(4));
            QCOMPARE(r.bucket, std::string("b"));
            QCOMPARE(r.meta, "meta-" + std::to_string(n));
            QCOMPARE(r.data, dataOf(n, 100 + static_cast<std::size_t>(n)));
            names.insert(r.name);
        }
        QCOMPARE(names.size(), left.size());
        // Cleared: the next start finds nothing.
        QCOMPARE(log->clearLeftovers(), 0);
        log.reset();
        log = openLog(smallLog(), &left);
        QVERIFY(left.empty());
    }

    // The scan stops at the first record that is not whole: a bad byte, a
    // record cut short, another use's record, a sequence that skips.
    void scanStopsAtATornOrStaleRecord()
    {
        const auto path = (m_dir.path() + "/seg").toStdString();
        const auto write = [&](const std::string& bytes) {
            const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
            QVERIFY(fd >= 0);
            QCOMPARE(::pwrite(fd, bytes.data(), bytes.size(), 0), static_cast<ssize_t>(bytes.size()));
            ::close(fd);
        };
        const auto scan = [&] {
            const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
            const auto size = static_cast<std::uint64_t>(::lseek(fd, 0, SEEK_END));
            auto out = CommitLog::scanSegment(fd, size);
            ::close(fd);
            return out;
        };
        const auto rec = [](std::uint64_t use, std::uint64_t seq) {
            return CommitLog::encodeRecord(use, seq, "b", "n" + std::to_string(seq), "m", dataOf(int(seq), 50));
        };
        const std::string three = rec(7, 1) + rec(7, 2) + rec(7, 3);
        write(three);
        QCOMPARE(scan().size(), std::size_t{3});
        auto bad = three;
        bad[rec(7, 1).size() + CommitLog::kHeaderBytes + 3] ^= 0x40;  // a payload byte of the second
        write(bad);
        QCOMPARE(scan().size(), std::size_t{1});
        write(three.substr(0, three.size() - 1));  // the third cut short
        QCOMPARE(scan().size(), std::size_t{2});
        write(rec(7, 1) + rec(8, 2) + rec(7, 3));  // another use in between
        QCOMPARE(scan().size(), std::size_t{1});
        write(rec(7, 1) + rec(7, 3));  // a sequence that skips
        QCOMPARE(scan().size(), std::size_t{1});
        write(rec(0, 1));  // use id 0 is never written
        QCOMPARE(scan().size(), std::size_t{0});
        write(std::string(200, '\0') + three);
        QCOMPARE(scan().size(), std::size_t{0});
        // A new use writes over the start of an older one's records: the
        // older ones behind it are not read as its own.
        write(rec(9, 10) + three.substr(rec(9, 10).size()));
        const auto mixed = scan();
        QCOMPARE(mixed.size(), std::size_t{1});
        QCOMPARE(mixed[0].seq, std::uint64_t{10});
        QCOMPARE(mixed[0].name, std::string("n10"));
    }

    // A checkpoint waits until every record's ticket is released (its
    // object in place), then clears the log.
    void checkpointWaitsForItsRecords()
    {
        std::vector<CommitLog::Record> left;
        auto log = openLog(smallLog(), &left);
        QVERIFY(log);
        auto held = log->append("b", "held", "m", "bytes");
        QCOMPARE(held.error(), 0);
        std::atomic<bool> done{false};
        std::thread cp([&] {
            QCOMPARE(log->checkpoint(), 0);
            done = true;
        });
        QTest::qWait(150);
        QVERIFY(!done);
        QCOMPARE(log->checkpoints(), std::uint64_t{0});
        held.release();
        cp.join();
        QVERIFY(done);
        QCOMPARE(log->checkpoints(), std::uint64_t{1});
        QCOMPARE(log->checkpoint(), 0);  // nothing left: no second one
        QCOMPARE(log->checkpoints(), std::uint64_t{1});
        log.reset();
        log = openLog(smallLog(), &left);
        QVERIFY(left.empty());
    }

    // Small segments: appends go on across many switches and checkpoints;
    // a restart finds at most what the last two segments held, in order.
    void segmentsAreUsedInTurn()
    {
        std::vector<CommitLog::Record> left;
        auto log = openLog(smallLog(16 * 1024), &left);
        QVERIFY(log);
        for (int i = 0; i < 300; ++i) {
            auto t = log->append("b", "o" + std::to_string(i), "m", dataOf(i, 1000));
            QCOMPARE(t.error(), 0);
        }
        QVERIFY2(log->checkpoints() >= 10, std::to_string(log->checkpoints()).c_str());
        log.reset();
        log = openLog(smallLog(16 * 1024), &left);
        QVERIFY(!left.empty());
        QVERIFY(left.size() <= 32);
        QCOMPARE(left.back().name, std::string("o299"));
        for (std::size_t i = 1; i < left.size(); ++i) QCOMPARE(left[i].seq, left[i - 1].seq + 1);
        QCOMPARE(left.back().data, dataOf(299, 1000));
    }

    // Many appenders at once against segments that hold a few records: a
    // batch larger than a segment fills one, switches once, and leaves the
    // rest to the next batch (a second switch would wait for a segment
    // that cannot be checkpointed before this batch is written).
    void batchesLargerThanASegment()
    {
        std::vector<CommitLog::Record> left;
        auto log = openLog(smallLog(4 * 1024), &left);
        QVERIFY(log);
        std::atomic<int> failures{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < 16; ++t) {
            threads.emplace_back([&, t] {
                for (int i = 0; i < 20; ++i) {
                    if (log->append("b", "t" + std::to_string(t) + "-" + std::to_string(i), "m", dataOf(i, 900))
                            .error() != 0) {
                        ++failures;
                    }
                }
            });
        }
        for (auto& th : threads) th.join();
        QCOMPARE(failures.load(), 0);
        QCOMPARE(log->appended(), std::uint64_t{320});
        QVERIFY(log->checkpoints() >= 50);
    }

    void tooLargeAndTimedCheckpoint()
    {
        std::vector<CommitLog::Record> left;
        auto o = smallLog(8 * 1024);
        o.checkpointAfter = std::chrono::milliseconds(30);
        auto log = openLog(o, &left);
        QVERIFY(log);
        QCOMPARE(log->append("b", "big", "m", std::string(9000, 'x')).error(), EFBIG);
        QCOMPARE(log->append("b", "small", "m", "x").error(), 0);
        // Released at once: the segment is checkpointed within its time.
        QTRY_VERIFY_WITH_TIMEOUT(log->checkpoints() >= 1, 5000);
        log.reset();
        log = openLog(o, &left);
        QVERIFY(left.empty());
    }

    // The object store with fsync on: small objects go through the log; a
    // version whose file was lost (as by a crash before the checkpoint) is
    // written again at start; a newer version or a deletion is kept.
    void storeAppliesLostVersionsAtStart()
    {
        const auto mp = (m_dir.path() + "/mp").toStdString();
        std::filesystem::remove_all(mp);
        ObjectStore::Options so;
        so.mountpaths = {mp};
        so.fsync = true;
        so.commitLogOptions.checkpointAfter = std::chrono::hours(1);
        auto store = ObjectStore::create(so);
        QVERIFY(store);
        QVERIFY((*store)->commitLog(0) != nullptr);
        const auto put = [&](ObjectStore& s, const std::string& name, const std::string& data) {
            auto w = s.beginPut("bkt", name, {});
            QVERIFY(w);
            QVERIFY((*w)->write(data.data(), data.size()));
            QVERIFY((*w)->commit());
        };
        put(**store, "lost", "lost bytes");
        put(**store, "torn", "torn bytes");
        put(**store, "dir/kept", "kept");
        put(**store, "replaced", "old small");
        put(**store, "deleted", "gone");
        QCOMPARE((*store)->commitLog(0)->appended(), std::uint64_t{5});
        // Larger than the log takes: committed with its own syncs.
        const std::string large(100 * 1024, 'L');
        put(**store, "replaced", large);
        put(**store, "large-new", large);
        QCOMPARE((*store)->commitLog(0)->appended(), std::uint64_t{5});
        QVERIFY((*store)->remove("bkt", "deleted"));
        store->reset();  // no checkpoint

        // What a crash would have lost: one file entirely, one file's bytes.
        QVERIFY(::unlink((mp + "/buckets/bkt/lost").c_str()) == 0);
        QVERIFY(::truncate((mp + "/buckets/bkt/torn").c_str(), 0) == 0);

        store = ObjectStore::create(so);
        QVERIFY(store);
        QCOMPARE((*store)->replayedAtStart(), std::size_t{2});
        const auto read = [&](const std::string& name) -> std::string {
            auto o = (*store)->open("bkt", name);
            if (!o) return "<" + std::string(api::errorKindName(o.kind())) + ">";
            std::string s(static_cast<std::size_t>(o->meta.size), '\0');
            if (::pread(o->fd->get(), s.data(), s.size(), 0) != static_cast<ssize_t>(s.size())) return "<short>";
            return s;
        };
        QCOMPARE(read("lost"), std::string("lost bytes"));
        QCOMPARE(read("torn"), std::string("torn bytes"));
        QCOMPARE(read("dir/kept"), std::string("kept"));
        QCOMPARE(read("replaced"), large);
        QCOMPARE(read("large-new"), large);
        QCOMPARE(read("deleted"), std::string("<NotFound>"));
        QCOMPARE((*store)->stat("bkt", "lost")->checksumValue, api::xxhash64Hex("lost bytes"));

        // A destroyed bucket's records are checkpointed away first.
        put(**store, "again", "x");
        QVERIFY((*store)->destroyBucket("bkt"));
        store->reset();
        store = ObjectStore::create(so);
        QVERIFY(store);
        QCOMPARE((*store)->replayedAtStart(), std::size_t{0});
        QCOMPARE(read("again"), std::string("<NotFound>"));

        // Off: every PUT syncs on its own.
        so.commitLog = false;
        store->reset();
        store = ObjectStore::create(so);
        QVERIFY(store);
        QVERIFY((*store)->commitLog(0) == nullptr);
        put(**store, "unlogged", "y");
        QCOMPARE(read("unlogged"), std::string("y"));
    }
};

QTEST_GUILESS_MAIN(TestCommitLog)
#include "test_commit_log.moc"
