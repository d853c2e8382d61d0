// The object store's versions for copies kept elsewhere, on real
// directories (two mountpaths): a write prepared before its copies go out
// and committed after (a newer change wins), restamping a name's state, and
// the records of mirrored changes in flight that outlive the process.
#include "object_store_fixture.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>
#include <thread>
#include <unistd.h>

using namespace tessera;
using namespace tessera::daemon::target;
using tessera::daemon::target::test::ObjectStoreFixture;

class TestStoreVersions : public QObject, protected ObjectStoreFixture {
    Q_OBJECT

private slots:
    void init()
    {
        QVERIFY(m_dir.isValid());
        m_store.reset();
        QDir(m_dir.path()).removeRecursively();
        QVERIFY(QDir().mkpath(m_dir.path()));
    }

    // A mirrored write prepared (stamped) before its copies go out, then
    // committed: a newer write or a deletion committed meanwhile wins.
    void preparedWriteLosesToANewerChange()
    {
        QVERIFY(reopen());
        QVERIFY(put("prep/x", "one").ok());
        auto w = m_store->beginPut("b", "prep/x", {});
        QVERIFY(w.ok());
        QVERIFY((*w)->write("two", 3).ok());
        auto prepared = (*w)->prepare();
        QVERIFY(prepared.ok());
        QCOMPARE(prepared->version, std::string("2"));
        QVERIFY((*w)->preparedFd() >= 0);
        QCOMPARE(read("prep/x"), std::string("one"));  // not visible before commit
        auto newer = put("prep/x", "three");
        QVERIFY(newer.ok() && newer->stamp > prepared->stamp);
        QCOMPARE((*w)->commit().kind(), api::ErrorKind::Conflict);
        QVERIFY((*w)->superseded());
        QCOMPARE(read("prep/x"), std::string("three"));
        // Prepared, then the name deleted: the deletion stays.
        auto w2 = m_store->beginPut("b", "prep/x", {});
        QVERIFY((*w2)->write("four", 4).ok());
        QVERIFY((*w2)->prepare().ok());
        QVERIFY(m_store->remove("b", "prep/x").ok());
        QCOMPARE((*w2)->commit().kind(), api::ErrorKind::Conflict);
        QCOMPARE(m_store->open("b", "prep/x").kind(), api::ErrorKind::NotFound);
        // Nothing changed meanwhile: committed with the prepared stamp.
        auto w3 = m_store->beginPut("b", "prep/x", {});
        QVERIFY((*w3)->write("five", 4).ok());
        auto p3 = (*w3)->prepare();
        auto c3 = (*w3)->commit();
        QVERIFY(c3.ok());
        QCOMPARE(c3->stamp, p3->stamp);
        QCOMPARE(m_store->stat("b", "prep/x")->stamp, p3->stamp);
        QCOMPARE(read("prep/x"), std::string("five"));
    }

    // restamp(): the state here becomes newer than anything handed out.
    void restampMakesTheStateNewest()
    {
        QVERIFY(reopen());
        auto v = put("rs/x", "bytes");
        QVERIFY(v.ok());
        QVERIFY(m_store->restamp("b", "rs/x").ok());
        const auto after = m_store->stat("b", "rs/x");
        QVERIFY(after.ok() && after->stamp > v->stamp);
        QCOMPARE(after->version, v->version);
        QCOMPARE(read("rs/x"), std::string("bytes"));
        // Without a version: a deletion newer than before.
        QVERIFY(m_store->remove("b", "rs/x").ok());
        const auto t1 = m_store->tombstone("b", "rs/x");
        QVERIFY(m_store->restamp("b", "rs/x").ok());
        QVERIFY(*m_store->tombstone("b", "rs/x") > *t1);
        QVERIFY(m_store->restamp("b", "rs/never").ok());
        QVERIFY(m_store->tombstone("b", "rs/never").has_value());
    }

    // Records of mirrored changes in flight outlive the process: an
    // unsettled one is a suspect after a restart, a settled one leaves
    // nothing behind.
    void intentsSurviveARestart()
    {
        QVERIFY(reopen());
        auto& in = m_store->intents();
        QVERIFY(!in.anySuspect());
        QVERIFY(in.begin(0, "b", "in/flight").ok());
        QVERIFY(in.begin(1, "b", "in/done").ok());
        QVERIFY(in.begin(1, "b", "in/done").ok());  // two changes of one name
        in.end("b", "in/done", IntentStore::Ended::Settled);
        in.end("b", "in/done", IntentStore::Ended::Settled);
        QVERIFY(in.begin(0, "b", "in/pinned").ok());
        in.end("b", "in/pinned", IntentStore::Ended::Pinned);
        QVERIFY(in.suspect("b", "in/pinned"));
        QVERIFY(!in.mustCompare("b", "in/pinned"));
        QVERIFY(!in.suspect("b", "in/flight"));  // in flight, not a suspect yet
        const auto records = [this] {
            int n = 0;
            for (const auto& mp : mountpaths()) {
                n += static_cast<int>(
                    QDir(QString::fromStdString(mp + "/.tessera/intent")).entryList(QDir::Files).size());
            }
            return n;
        };
        QCOMPARE(records(), 2);
        QVERIFY(reopen());  // the process died with "in/flight" in flight
        auto& again = m_store->intents();
        QVERIFY(again.suspect("b", "in/flight"));
        QVERIFY(again.mustCompare("b", "in/flight"));
        QVERIFY(again.mustCompare("b", "in/pinned"));  // after a restart, compared like any other
        QVERIFY(!again.suspect("b", "in/done"));
        QCOMPARE(again.suspects("b").size(), std::size_t{2});
        QCOMPARE(again.suspects("other").size(), std::size_t{0});
        again.settle("b", "in/flight");
        again.settle("b", "in/pinned");
        QVERIFY(!again.anySuspect());
        QCOMPARE(records(), 0);
        QVERIFY(reopen());
        QVERIFY(!m_store->intents().anySuspect());
    }

    // A reconciliation (which may restamp the owner's state) and a change of
    // the same name exclude each other: a restamp between a write's stamp
    // and its commit made an older state newer than the write, which was
    // then acknowledged as superseded and not kept (soak_ec_short, STALE).
    void reconcileAndChangesExcludeEachOther()
    {
        QVERIFY(reopen());
        auto& in = m_store->intents();
        QVERIFY(in.begin(0, "b", "x/w").ok());
        QVERIFY(!in.beginReconcile("b", "x/w"));  // a change in flight: left to it
        in.end("b", "x/w", IntentStore::Ended::Pinned);
        QVERIFY(in.beginReconcile("b", "x/w"));
        QVERIFY(!in.beginReconcile("b", "x/w"));  // one at a time
        const auto refused = in.begin(0, "b", "x/w");
        QCOMPARE(refused.kind(), api::ErrorKind::Unavailable);
        QVERIFY(in.begin(0, "b", "x/other").ok());  // other names are not held up
        in.end("b", "x/other", IntentStore::Ended::Settled);
        in.endReconcile("b", "x/w");
        QVERIFY(in.suspect("b", "x/w"));  // the reconciliation itself settles it, not its end
        QVERIFY(in.begin(0, "b", "x/w").ok());
        in.end("b", "x/w", IntentStore::Ended::Settled);
        in.settle("b", "x/w");
        // A reader's reconciliation waits for the change in flight (or the
        // other reconciliation) to end instead of failing.
        QVERIFY(in.begin(0, "b", "x/w").ok());
        std::thread ender([&in] {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            in.end("b", "x/w", IntentStore::Ended::Settled);
        });
        bool waited = false;
        QVERIFY(in.beginReconcile("b", "x/w", std::chrono::milliseconds(5000), &waited));
        ender.join();
        QVERIFY(waited);
        QVERIFY(!in.beginReconcile("b", "x/w", std::chrono::milliseconds(20)));  // its own still runs
        in.endReconcile("b", "x/w");
        // A reconciliation of a name that was no suspect leaves nothing behind.
        QVERIFY(in.beginReconcile("b", "x/clean"));
        in.endReconcile("b", "x/clean");
        QVERIFY(!in.anySuspect());
        for (const auto& mp : mountpaths()) {
            QCOMPARE(QDir(QString::fromStdString(mp + "/.tessera/intent")).entryList(QDir::Files).size(), 0);
        }
    }
};

QTEST_GUILESS_MAIN(TestStoreVersions)
#include "test_store_versions.moc"
