// The target's job runner (start, conflicts, abort, failures, history) and
// the rebalance of copies left on the wrong mountpath after a mountpath was
// added: every copy moves once, bytes, checksum and custom metadata intact.
#include "api/checksum.h"
#include "api/hrw.h"
#include "jobs/job_runner.h"
#include "jobs/rebalance_job.h"
#include "target/meta_cache.h"
#include "target/object_store.h"

#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <chrono>
#include <filesystem>

using namespace tessera;
using namespace tessera::daemon;

namespace {

// Work that waits until aborted (or released), counting items.
class WaitingWork : public jobs::JobWork {
public:
    explicit WaitingWork(std::atomic<bool>& release) : m_release(release) {}
    api::Status run(jobs::JobContext& ctx) override
    {
        ctx.setPhase("waiting");
        ctx.setTotals(10, 100);
        while (!ctx.aborted() && !m_release.load()) {
            ctx.addDone(0, 0);
            std::this_thread::yield();
        }
        ctx.addDone(10, 100);
        return {};
    }

private:
    std::atomic<bool>& m_release;
};

// Work whose fetches fail once aborted, as a shard build's do.
class ErrorOnAbortWork : public jobs::JobWork {
public:
    api::Status run(jobs::JobContext& ctx) override
    {
        while (!ctx.aborted()) std::this_thread::yield();
        return api::Error::unavailable("dst/shard-000003.tgz: aborted");
    }
};

class FailingWork : public jobs::JobWork {
public:
    explicit FailingWork(bool hard) : m_hard(hard) {}
    api::Status run(jobs::JobContext& ctx) override
    {
        if (m_hard) return api::Error::ioError("disk on fire");
        ctx.addError("a/x: first");
        ctx.addError("a/y: second");
        return {};
    }

private:
    bool m_hard;
};

// Skips two items on purpose (an archive job's continue_on_err).
class SkippingWork : public jobs::JobWork {
public:
    api::Status run(jobs::JobContext& ctx) override
    {
        ctx.addSkipped("b/x: missing");
        ctx.addDone(1, 10);
        ctx.addSkipped("b/y: missing");
        return {};
    }
};

bool waitFinal(jobs::JobRunner& r, const std::string& id, api::TargetJobStatus& out)
{
    return QTest::qWaitFor(
        [&] {
            auto st = r.status(id);
            if (!st) return false;
            out = *st;
            return api::isFinal(out.state);
        },
        5000);
}

}  // namespace

class TestJobs : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::atomic<bool> m_release{false};

    jobs::JobFactory factory()
    {
        return [this](const std::string& kind, const jobs::JobArgs&) -> api::Result<std::unique_ptr<jobs::JobWork>> {
            if (kind == "wait") return std::unique_ptr<jobs::JobWork>(std::make_unique<WaitingWork>(m_release));
            if (kind == "fail-hard") return std::unique_ptr<jobs::JobWork>(std::make_unique<FailingWork>(true));
            if (kind == "fail-items") return std::unique_ptr<jobs::JobWork>(std::make_unique<FailingWork>(false));
            if (kind == "skip-items") return std::unique_ptr<jobs::JobWork>(std::make_unique<SkippingWork>());
            if (kind == "error-on-abort") return std::unique_ptr<jobs::JobWork>(std::make_unique<ErrorOnAbortWork>());
            return api::Error::badRequest("unknown kind " + kind);
        };
    }

private slots:
    void jobStatusJson()
    {
        api::JobStatus st;
        st.id = "rebalance-abc";
        st.kind = "rebalance";
        st.state = api::JobState::Failed;
        st.phase = "done";
        st.progress = {3, 4, 30, 40, 1, {}};
        st.startNs = 1;
        st.endNs = 2;
        st.error = "t2: gone";
        st.abortRequested = true;
        api::TargetJobStatus t;
        t.id = st.id;
        t.kind = st.kind;
        t.target = "t2";
        t.state = api::JobState::Failed;
        t.progress.objectsTotal = -1;
        st.targets["t2"] = t;
        const nlohmann::json j = st;
        QCOMPARE(j["state"].get<std::string>(), std::string("failed"));
        QCOMPARE(j["progress"]["objects_total"].get<int>(), 4);
        QCOMPARE(j["targets"]["t2"]["progress"]["objects_total"].get<int>(), -1);
        auto back = api::parseJobStatus(j.dump());
        QVERIFY(back);
        QVERIFY(nlohmann::json(*back) == j);
        auto bad = j;
        bad["state"] = "exploded";
        QCOMPARE(api::parseJobStatus(bad.dump()).kind(), api::ErrorKind::BadRequest);
        QCOMPARE(api::parseTargetJobStatus("{}").kind(), api::ErrorKind::BadRequest);
    }

    void startFinishConflict()
    {
        jobs::JobRunner runner("t1", factory());
        m_release = true;
        auto st = runner.start("j1", "wait", {});
        QVERIFY(st);
        QCOMPARE(st->target, std::string("t1"));
        QCOMPARE(runner.start("j1", "wait", {}).kind(), api::ErrorKind::Conflict);
        QCOMPARE(runner.start("j2", "nope", {}).kind(), api::ErrorKind::BadRequest);
        api::TargetJobStatus fin;
        QVERIFY(waitFinal(runner, "j1", fin));
        QCOMPARE(fin.state, api::JobState::Finished);
        QCOMPARE(fin.progress.objectsDone, std::uint64_t{10});
        QCOMPARE(fin.progress.objectsTotal, std::int64_t{10});
        QVERIFY(fin.endNs >= fin.startNs);
        QCOMPARE(runner.status("zzz").kind(), api::ErrorKind::NotFound);
        QCOMPARE(runner.abort("zzz").kind(), api::ErrorKind::NotFound);
    }

    void abortStopsTheWork()
    {
        m_release = false;
        jobs::JobRunner runner("t1", factory());
        QVERIFY(runner.start("j", "wait", {}));
        auto st = runner.status("j");
        QCOMPARE(st->state, api::JobState::Running);
        QVERIFY(runner.abort("j"));
        api::TargetJobStatus fin;
        QVERIFY(waitFinal(runner, "j", fin));
        QCOMPARE(fin.state, api::JobState::Aborted);
        // Work that fails because it was aborted ends aborted, not failed.
        QVERIFY(runner.start("e", "error-on-abort", {}));
        QVERIFY(runner.abort("e"));
        QVERIFY(waitFinal(runner, "e", fin));
        QCOMPARE(fin.state, api::JobState::Aborted);
        QCOMPARE(fin.error, std::string("aborted"));
        // Destroying the runner with a job running aborts and joins it.
        jobs::JobRunner other("t1", factory());
        QVERIFY(other.start("k", "wait", {}));
    }

    void failures()
    {
        jobs::JobRunner runner("t1", factory());
        QVERIFY(runner.start("h", "fail-hard", {}));
        QVERIFY(runner.start("i", "fail-items", {}));
        api::TargetJobStatus h, i;
        QVERIFY(waitFinal(runner, "h", h));
        QVERIFY(waitFinal(runner, "i", i));
        QCOMPARE(h.state, api::JobState::Failed);
        QCOMPARE(h.error, std::string("disk on fire"));
        QCOMPARE(i.state, api::JobState::Failed);
        QCOMPARE(i.progress.errors, std::uint64_t{2});
        QVERIFY(i.error.find("a/x: first") != std::string::npos);
    }

    void skippedItemsStillFinish()
    {
        jobs::JobRunner runner("t1", factory());
        QVERIFY(runner.start("s", "skip-items", {}));
        api::TargetJobStatus st;
        QVERIFY(waitFinal(runner, "s", st));
        QCOMPARE(st.state, api::JobState::Finished);
        QCOMPARE(st.progress.errors, std::uint64_t{2});
        QCOMPARE(st.progress.objectsDone, std::uint64_t{1});
        QCOMPARE(st.error, std::string("2 item(s) skipped; the first: b/x: missing"));
    }

    void historyIsBounded()
    {
        m_release = true;
        jobs::JobRunner runner("t1", factory(), 3);
        for (int n = 0; n < 5; ++n) {
            const auto id = "h" + std::to_string(n);
            QVERIFY(runner.start(id, "wait", {}));
            api::TargetJobStatus fin;
            QVERIFY(waitFinal(runner, id, fin));
        }
        const auto all = runner.list();
        QCOMPARE(all.size(), std::size_t{3});
        QCOMPARE(all.front().id, std::string("h2"));
        QCOMPARE(runner.status("h0").kind(), api::ErrorKind::NotFound);
    }

    void rebalanceMovesCopiesToTheirMountpath()
    {
        const std::string mp1 = (m_dir.path() + "/mp1").toStdString();
        const std::string mp2 = (m_dir.path() + "/mp2").toStdString();
        std::filesystem::create_directories(mp1);
        std::filesystem::create_directories(mp2);
        constexpr int kN = 60;
        auto data = [](int i) {
            return "payload-" + std::to_string(i) + std::string(static_cast<std::size_t>(i * 13), 'z');
        };
        {
            target::ObjectStore::Options o;
            o.mountpaths = {mp1};
            o.fsync = false;
            auto store = target::ObjectStore::create(o);
            QVERIFY(store);
            for (int i = 0; i < kN; ++i) {
                target::PutParams p;
                p.custom = {{"label", std::to_string(i % 10)}};
                auto w = (*store)->beginPut("bk", "d/o" + std::to_string(i), std::move(p));
                QVERIFY(w);
                const auto d = data(i);
                QVERIFY((*w)->write(d.data(), d.size()));
                QVERIFY((*w)->commit());
            }
        }
        // A second mountpath: about half the names now belong there.
        target::ObjectStore::Options o;
        o.mountpaths = {mp1, mp2};
        o.fsync = false;
        auto store = target::ObjectStore::create(o);
        QVERIFY(store);
        int belongElsewhere = 0;
        for (int i = 0; i < kN; ++i) belongElsewhere += (*store)->mountpathFor("bk", "d/o" + std::to_string(i)) == 1;
        QVERIFY(belongElsewhere > 5);

        target::MetaCache cache;
        api::Smap smap;
        smap.version = 1;
        api::Snode self;
        self.id = "t1";
        self.type = "target";
        self.publicNet.url = "http://127.0.0.1:1";
        smap.tmap["t1"] = self;
        cache.applySmap(smap);
        api::Bmd bmd;
        bmd.version = 1;
        bmd.uuid = "u";
        bmd.buckets["bk"] = api::BucketProps{};
        cache.applyBmd(bmd);

        ec::EcService ec(self, **store, cache, std::chrono::milliseconds(1000), "key");
        jobs::JobRunner runner(
            "t1", [&](const std::string&, const jobs::JobArgs&) -> api::Result<std::unique_ptr<jobs::JobWork>> {
                return std::unique_ptr<jobs::JobWork>(std::make_unique<jobs::RebalanceJob>(
                    **store, cache, ec, "t1", std::chrono::milliseconds(1000), "key"));
            });
        QVERIFY(runner.start("r", "rebalance", {}));
        api::TargetJobStatus fin;
        QVERIFY(waitFinal(runner, "r", fin));
        QCOMPARE(fin.state, api::JobState::Finished);
        QCOMPARE(fin.progress.objectsTotal, std::int64_t{belongElsewhere});
        QCOMPARE(fin.progress.objectsDone, static_cast<std::uint64_t>(belongElsewhere));

        for (int i = 0; i < kN; ++i) {
            const auto name = "d/o" + std::to_string(i);
            const auto home = (*store)->mountpathFor("bk", name);
            auto obj = (*store)->open("bk", name);
            QVERIFY2(obj, name.c_str());
            QCOMPARE(obj->meta.checksumValue, api::xxhash64Hex(data(i)));
            QCOMPARE(obj->meta.custom.at("label"), std::to_string(i % 10));
            QCOMPARE((*store)->openAt(1 - home, "bk", name).kind(), api::ErrorKind::NotFound);  // moved, not copied
            std::string back(static_cast<std::size_t>(obj->meta.size), '\0');
            QCOMPARE(::pread(obj->fd->get(), back.data(), back.size(), 0), static_cast<ssize_t>(back.size()));
            QCOMPARE(back, data(i));
        }
    }
};

QTEST_GUILESS_MAIN(TestJobs)
#include "test_jobs.moc"
