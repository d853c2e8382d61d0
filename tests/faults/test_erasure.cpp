// Erasure coding against real processes: 4 targets, a bucket coded 2+1
// (objects from 256 KiB cut into 2 data and 1 parity slice on the next 3
// targets of their HRW order; smaller ones copied whole to the next one).
// The slices are where placement says; with a target killed -9 every GET
// returns the acknowledged bytes (rebuilt from slices when the owner died,
// also with Range); a damaged slice is passed over; an owner that lost its
// copy rebuilds it; a DELETE leaves no slice or copy anywhere; bad props
// are 400s naming what is wrong.
#include "erasure_fixture.h"

#include "api/checksum.h"

#include <QProcess>
#include <QTemporaryDir>

using namespace tessera;
using namespace tessera::tests::erasure;

class TestErasure : public QObject, private tests::erasure::ErasureFixture {
    Q_OBJECT

private:
    std::map<std::string, std::string> m_objects;  // name -> acknowledged bytes
    int m_killed = -1;

    // What an owner's deletion sends its holders (the internal slice API,
    // the cluster key, a stamp newer than anything written), sent to
    // `holders` only: a deletion interrupted before it reached the others.
    bool deletionReaches(std::initializer_list<int> holders, const std::string& name)
    {
        QFile keyFile(m_cluster.clusterKeyFile());
        if (!keyFile.open(QIODevice::ReadOnly)) return false;
        const auto key = keyFile.readAll().trimmed().toStdString();
        const auto stamp = std::to_string(
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
                .count() +
            1'000'000'000'000LL);
        for (int t : holders) {
            auto r = m_http.send(Method::Delete, m_cluster.targetUrl(t) + api::path::internalEcSlice(kBucket, name),
                                 Body::none(), {{"tessera-cluster-key", key}, {"tessera-version-stamp", stamp}});
            if (!r || r->status != 200) {
                qWarning("deleting %s at target %d: %s", name.c_str(), t, r ? r->body.c_str() : "no answer");
                return false;
            }
        }
        return true;
    }

    // The owner (killed, its record of the change left as a crash leaves
    // it) away, back (reconciled: the record goes), away again: `want`
    // reads every time. Then the name is deleted.
    void readsHoldAcrossTheOwnersReturn(int owner, const std::string& name, const std::string& want)
    {
        const auto intents = m_cluster.targetMountpaths(owner).front() + "/.tessera/intent";
        QVERIFY(QDir().mkpath(QString::fromStdString(intents)));
        QFile rec(QString::fromStdString(intents + "/rec-" + name));
        QVERIFY(rec.open(QIODevice::WriteOnly));
        rec.write(QByteArray::fromStdString(std::string(kBucket) + "\n" + name));
        rec.close();
        QVERIFY(m_cluster.waitForTargets(3, std::chrono::seconds(10)));
        const auto expectWant = [&](const char* when) {
            auto got = m_http.send(Method::Get, objUrl(name));
            QVERIFY(got);
            QVERIFY2(got->status == 200 && got->body == want,
                     (std::string(when) + ": " + std::to_string(got->status) + " " + got->body.substr(0, 200)).c_str());
        };
        expectWant("owner away");
        QVERIFY(m_cluster.restartTarget(owner));
        QVERIFY(m_cluster.waitForTargets(4, std::chrono::seconds(10)));
        QVERIFY(QTest::qWaitFor([&] { return QDir(QString::fromStdString(intents)).isEmpty(); }, 5000));
        expectWant("owner back");
        m_cluster.killTarget(owner);
        QVERIFY(m_cluster.waitForTargets(3, std::chrono::seconds(10)));
        expectWant("owner away after the reconcile");
        QVERIFY(m_cluster.restartTarget(owner));
        QVERIFY(m_cluster.waitForTargets(4, std::chrono::seconds(10)));
        auto del = m_http.send(Method::Delete, objUrl(name));
        QVERIFY(del);
        QVERIFY2(del->status == 200, del->body.c_str());
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        createBucket(kBucket);
        std::string body;
        QCOMPARE(patchProps(
                     kBucket,
                     {{"ec", {{"enabled", true}, {"data_slices", 2}, {"parity_slices", 1}, {"objsize_limit", kLimit}}}},
                     &body),
                 200);
        const auto props = json::parse(body);
        QCOMPARE(props["ec"]["enabled"].get<bool>(), true);
        QCOMPARE(props["ec"]["data_slices"].get<int>(), 2);
        QCOMPARE(props["ec"]["pending"].get<bool>(), true);
        // The reprotect that enabling starts ends (nothing to do) before a target is killed.
        QVERIFY(waitForProtected(kBucket));
    }

    void badPropsAre400()
    {
        createBucket("plain");
        std::string body;
        // Mirror and ec together.
        QCOMPARE(patchProps("plain",
                            {{"mirror", {{"enabled", true}, {"copies", 2}, {"across_targets", true}}},
                             {"ec", {{"enabled", true}}}},
                            &body),
                 400);
        QVERIFY2(body.find("ec.enabled and mirror.enabled") != std::string::npos, body.c_str());
        // 3 + 1 + 1 targets needed, 4 present.
        QCOMPARE(patchProps("plain", {{"ec", {{"enabled", true}, {"data_slices", 3}, {"parity_slices", 1}}}}, &body),
                 400);
        QVERIFY2(body.find("is 5 (3 + 1 + 1) but the cluster has 4 target(s)") != std::string::npos, body.c_str());
        QCOMPARE(patchProps("plain", {{"ec", {{"data_slices", 17}}}}, &body), 400);
        QVERIFY2(body.find("ec.data_slices must be an integer from 1 to 16") != std::string::npos, body.c_str());
        QCOMPARE(patchProps("plain", {{"ec", {{"objsize_limit", (std::int64_t{1} << 30) + 1}}}}), 400);
        QCOMPARE(patchProps("plain", {{"ec", {{"pending", false}}}}), 400);
        QCOMPARE(patchProps("plain", {{"ec", {{"enabled", "yes"}}}}), 400);
        // D and P stay while enabled.
        QCOMPARE(patchProps(kBucket, {{"ec", {{"data_slices", 1}}}}, &body), 400);
        QVERIFY2(body.find("cannot change while ec is enabled") != std::string::npos, body.c_str());
        QCOMPARE(patchProps(kBucket, {{"mirror", {{"enabled", true}}}}), 400);
    }

    // The internal slice routes: 4xx naming what is wrong, never a 500.
    void sliceRoutesRefuseBadInput()
    {
        QFile keyFile(m_cluster.clusterKeyFile());
        QVERIFY(keyFile.open(QIODevice::ReadOnly));
        const auto key = keyFile.readAll().trimmed().toStdString();
        const auto url = m_cluster.targetUrl(0) + "/v1/internal/ec/" + kBucket + "/x";
        const std::pair<std::string, std::string> withKey{"tessera-cluster-key", key};
        const auto status = [&](Method m, const std::string& u, client::Headers h, const std::string& body = "") {
            auto r = m_http.send(m, u, body.empty() ? Body::none() : Body::string(body), h);
            return r ? r->status : -1;
        };
        QCOMPARE(status(Method::Put, url, {}, "abc"), 403);
        QCOMPARE(status(Method::Put, url, {withKey}, "abc"), 400);
        client::Headers slice{withKey,
                              {"ais-size", "5"},
                              {"ais-checksum-type", "xxhash"},
                              {"ais-checksum-value", api::xxhash64Hex("hello")},
                              {"ais-version", "1"},
                              {"tessera-version-stamp", "7"},
                              {"tessera-ec-index", "0"},
                              {"tessera-ec-data", "2"},
                              {"tessera-ec-parity", "1"},
                              {"tessera-ec-slice-size", "3"},
                              {"tessera-ec-slice-checksum", api::xxhash64Hex("hel")}};
        QCOMPARE(status(Method::Put, url, slice, "hello!"), 400);  // Content-Length is not the slice size
        auto badIndex = slice;
        badIndex[6].second = "3";
        QCOMPARE(status(Method::Put, url, badIndex, "hel"), 400);
        auto damaged = slice;
        damaged[10].second = api::xxhash64Hex("xyz");
        QCOMPARE(status(Method::Put, url, damaged, "hel"), 422);
        QCOMPARE(status(Method::Delete, url, {withKey}), 400);  // no stamp
        QCOMPARE(status(Method::Delete, url, {}), 403);
        QCOMPARE(status(Method::Get, url, {}), 404);
        QCOMPARE(status(Method::Head, m_cluster.targetUrl(0) + "/v1/internal/ec/nosuch/x", {}), 404);
        QCOMPARE(status(Method::Post, m_cluster.targetUrl(0) + "/v1/internal/ec/plain/x", {withKey}), 400);
        // A good one is stored, and the same again is superseded.
        auto r = m_http.send(Method::Put, url, Body::string("hel"), slice);
        QVERIFY(r);
        QCOMPARE(r->status, 200);
        QCOMPARE(r->header("tessera-ec-slice-checksum"), api::xxhash64Hex("hel"));
        r = m_http.send(Method::Put, url, Body::string("hel"), slice);
        QCOMPARE(r->header("tessera-transfer"), std::string("superseded"));
        QCOMPARE(status(Method::Delete, url, {withKey, {"tessera-version-stamp", "7"}}), 200);
        QCOMPARE(status(Method::Get, url, {}), 404);
    }

    void slicesAreWherePlacementSays()
    {
        int small = 0;
        for (int i = 0; i < kObjects; ++i) {
            // 10 KiB .. 3 MiB, about a third of them below the limit.
            const std::size_t size =
                i % 3 == 0 ? 10240 + static_cast<std::size_t>(i) * 9000 : static_cast<std::size_t>(i) * 157 * 1024 + 1;
            const auto name = "obj-" + std::to_string(i);
            m_objects[name] = randomBytes(size, static_cast<std::uint32_t>(i + 1));
            auto r = m_http.send(Method::Put, objUrl(name), Body::string(m_objects[name]));
            QVERIFY(r);
            QVERIFY2(r->status == 200, (name + ": " + std::to_string(r->status) + " " + r->body).c_str());
            if (static_cast<std::int64_t>(size) < kLimit) ++small;
        }
        QVERIFY(small >= 5 && small <= 15);
        // A shard, sliced too: its members are read from a rebuilt object below.
        m_objects["shard.tar"] = tarOf({{"m0.bin", randomBytes(300000, 99)}, {"m1.txt", "hello member"}});
        auto r = m_http.send(Method::Put, objUrl("shard.tar"), Body::string(m_objects["shard.tar"]));
        QVERIFY(r);
        QCOMPARE(r->status, 200);
        for (const auto& [name, bytes] : m_objects) {
            const auto p = placement(name);
            QCOMPARE(p.size(), std::size_t{4});
            QCOMPARE(filesOf(p[0], "buckets", name).size(), 1);
            QCOMPARE(filesOf(p[0], ".tessera/ec", name).size(), 0);
            if (static_cast<std::int64_t>(bytes.size()) < kLimit) {
                // Small: a whole copy on the next target, no slices.
                QCOMPARE(filesOf(p[1], "buckets", name).size(), 1);
                for (int k = 1; k < 4; ++k) QCOMPARE(filesOf(p[k], ".tessera/ec", name).size(), 0);
                continue;
            }
            for (int k = 1; k < 4; ++k) {
                const auto files = filesOf(p[k], ".tessera/ec", name);
                QCOMPARE(files.size(), 1);
                QCOMPARE(static_cast<std::uint64_t>(QFileInfo(files[0]).size()), sliceSize(bytes.size()));
                QCOMPARE(filesOf(p[k], "buckets", name).size(), 0);
            }
        }
    }

    // A change interrupted after its holders took it and before its owner
    // did (the owner killed between the two): a version whose slices the
    // holders keep, and a deletion they recorded. The owner, back with its
    // records of the changes in flight, reconciles both before serving.
    void interruptedChangesAreReconciled()
    {
        std::string newer, deleted;
        int owner = -1;
        for (int i = 0; deleted.empty(); ++i) {
            const auto name = "intr-" + std::to_string(i);
            const int o = placement(name)[0];
            if (owner < 0) {
                owner = o;
                newer = name;
            } else if (o == owner) {
                deleted = name;
            }
        }
        const auto v1 = randomBytes(static_cast<std::size_t>(kLimit) * 2, 71);
        const auto v2 = randomBytes(static_cast<std::size_t>(kLimit) * 2 + 5, 72);
        QTemporaryDir saved;
        QVERIFY(saved.isValid());
        // The owner's file of a version, with its metadata (extended attributes), kept aside.
        std::map<std::string, QString> ownerPaths;
        const auto keep = [&](const std::string& name) {
            const auto files = filesOf(owner, "buckets", name);
            QCOMPARE(files.size(), 1);
            ownerPaths[name] = files[0];
            QCOMPARE(QProcess::execute("cp", {"-a", files[0], saved.filePath(QString::fromStdString(name))}), 0);
        };
        QCOMPARE(m_http.send(Method::Put, objUrl(newer), Body::string(v1))->status, 200);
        keep(newer);
        QCOMPARE(m_http.send(Method::Put, objUrl(newer), Body::string(v2))->status, 200);
        QCOMPARE(m_http.send(Method::Put, objUrl(deleted), Body::string(v1))->status, 200);
        keep(deleted);
        QCOMPARE(m_http.send(Method::Delete, objUrl(deleted))->status, 200);

        // The owner as it would be had it died before committing either change.
        const auto ownerPath = ownerPaths[newer];
        m_cluster.killTarget(owner);
        QVERIFY(QFile::remove(ownerPath));
        const auto mps = m_cluster.targetMountpaths(owner);
        for (const auto& name : {newer, deleted}) {
            QCOMPARE(QProcess::execute("cp", {"-a", saved.filePath(QString::fromStdString(name)), ownerPaths[name]}),
                     0);
        }
        for (const auto& mp : mps) {
            QFile::remove(QString::fromStdString(mp + "/.tessera/tomb/" + kBucket + "/" + deleted));
        }
        const auto intents = mps.front() + "/.tessera/intent";
        QVERIFY(QDir().mkpath(QString::fromStdString(intents)));
        for (const auto& name : {newer, deleted}) {
            QFile rec(QString::fromStdString(intents + "/rec-" + name));
            QVERIFY(rec.open(QIODevice::WriteOnly));
            rec.write(QByteArray::fromStdString(std::string(kBucket) + "\n" + name));
        }

        QVERIFY(m_cluster.restartTarget(owner));
        QVERIFY(m_cluster.waitForTargets(4, std::chrono::seconds(10)));
        auto got = m_http.send(Method::Get, objUrl(newer));
        QVERIFY(got);
        QVERIFY2(got->status == 200 && got->body == v2,
                 (std::to_string(got->status) + " " + got->body.substr(0, 200)).c_str());
        auto gone = m_http.send(Method::Get, objUrl(deleted));
        QVERIFY(gone);
        QVERIFY2(gone->status == 404, gone->body.c_str());
        // Settled: the owner keeps v2 itself, no part of the deleted name is
        // left anywhere, and no record of a change in flight.
        QFile here(ownerPath);
        QVERIFY(here.open(QIODevice::ReadOnly));
        QVERIFY(here.readAll().toStdString() == v2);
        for (int t = 0; t < 4; ++t) {
            QVERIFY2(filesOf(t, "buckets", deleted).isEmpty(),
                     (std::to_string(t) + " owner " + std::to_string(owner)).c_str());
            QCOMPARE(filesOf(t, ".tessera/ec", deleted).size(), 0);
        }
        QVERIFY(QTest::qWaitFor([&] { return QDir(QString::fromStdString(intents)).isEmpty(); }, 5000));
        QCOMPARE(m_http.send(Method::Delete, objUrl(newer))->status, 200);
    }

    // A deletion interrupted after two of the three slice holders dropped
    // their slices, the owner killed before its own copy went: with the
    // owner away, the one slice left is not a version to rebuild (nor a
    // 503): the name reads as deleted. The owner, back with its record of
    // the change, completes the deletion.
    void interruptedDeleteIsNotRebuilt()
    {
        const std::string name = "half-deleted";
        const auto p = placement(name);
        const auto bytes = randomBytes(static_cast<std::size_t>(kLimit) * 2, 81);
        QCOMPARE(m_http.send(Method::Put, objUrl(name), Body::string(bytes))->status, 200);
        QVERIFY(deletionReaches({p[1], p[2]}, name));
        const auto intents = m_cluster.targetMountpaths(p[0]).front() + "/.tessera/intent";
        m_cluster.killTarget(p[0]);
        QVERIFY(m_cluster.waitForTargets(3, std::chrono::seconds(10)));
        auto away = m_http.send(Method::Get, objUrl(name));
        QVERIFY(away);
        QVERIFY2(away->status == 404, (std::to_string(away->status) + " " + away->body).c_str());
        // A listing agrees with the read: the slice p[3] keeps is older than
        // the deletion p[1] and p[2] recorded (p[3] alone listed the name
        // from its slice before; found by soak_ec_short).
        auto list = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/buckets/" + kBucket + "?prefix=half-");
        QVERIFY(list);
        QVERIFY2(list->status == 200, list->body.c_str());
        const auto listed = nlohmann::json::parse(list->body);
        QVERIFY2(listed["entries"].empty(), list->body.c_str());
        QVERIFY(QDir().mkpath(QString::fromStdString(intents)));
        QFile rec(QString::fromStdString(intents + "/rec-" + name));
        QVERIFY(rec.open(QIODevice::WriteOnly));
        rec.write(QByteArray::fromStdString(std::string(kBucket) + "\n" + name));
        rec.close();
        QVERIFY(m_cluster.restartTarget(p[0]));
        QVERIFY(m_cluster.waitForTargets(4, std::chrono::seconds(10)));
        auto back = m_http.send(Method::Get, objUrl(name));
        QVERIFY(back);
        QVERIFY2(back->status == 404, (std::to_string(back->status) + " " + back->body.substr(0, 100)).c_str());
        for (int t = 0; t < 4; ++t) {
            QCOMPARE(filesOf(t, "buckets", name).size(), 0);
            QCOMPARE(filesOf(t, ".tessera/ec", name).size(), 0);
        }
    }

    // A large version (slices on the three holders), then a small one
    // (copied whole to the owner and the first holder only; the other two
    // drop the large version's slices), then a deletion that reached the
    // first holder and no other before the owner died. With the owner away
    // the first holder stands in: it honours its own record of the deletion,
    // and no stale slice is left to rebuild the large version from (a read
    // going back two versions, found by soak_ec_short before either fix).
    void deletionReachingTheStandInOnlyIsHonoured()
    {
        const std::string name = "deleted-at-stand-in";
        const auto p = placement(name);
        const auto large = randomBytes(static_cast<std::size_t>(kLimit) * 2, 82);
        const std::string small = "small version";
        QCOMPARE(m_http.send(Method::Put, objUrl(name), Body::string(large))->status, 200);
        QCOMPARE(m_http.send(Method::Put, objUrl(name), Body::string(small))->status, 200);
        // The small version dropped the large one's slices on the holders
        // past the first (they keep no copy of it).
        for (int k : {2, 3}) QCOMPARE(filesOf(p[k], ".tessera/ec", name).size(), 0);
        QVERIFY(deletionReaches({p[1]}, name));
        m_cluster.killTarget(p[0]);
        QVERIFY(m_cluster.waitForTargets(3, std::chrono::seconds(10)));
        auto away = m_http.send(Method::Get, objUrl(name));
        QVERIFY(away);
        QVERIFY2(away->status == 404, (std::to_string(away->status) + " " + away->body.substr(0, 100)).c_str());
        // The owner back (it never saw the deletion, which was not
        // acknowledged): the small version or nothing, never the large one.
        QVERIFY(m_cluster.restartTarget(p[0]));
        QVERIFY(m_cluster.waitForTargets(4, std::chrono::seconds(10)));
        auto back = m_http.send(Method::Get, objUrl(name));
        QVERIFY(back);
        QVERIFY2(back->status == 404 || (back->status == 200 && back->body == small),
                 (std::to_string(back->status) + " " + back->body.substr(0, 40)).c_str());
        // A deletion now leaves nothing of either version anywhere.
        auto del = m_http.send(Method::Delete, objUrl(name));
        QVERIFY(del);
        QVERIFY2(del->status == 200 || del->status == 404, del->body.c_str());
        for (int t = 0; t < 4; ++t) {
            QCOMPARE(filesOf(t, "buckets", name).size(), 0);
            QCOMPARE(filesOf(t, ".tessera/ec", name).size(), 0);
        }
    }

    // An overwrite interrupted after the first slice holder took its slice
    // of the new version, the owner killed before it committed: the new
    // version cannot be rebuilt (one slice of two), was never acknowledged,
    // and the two holders that still keep the old version's slices prove
    // it. With the owner away the old version reads (not a 503); the owner,
    // back with its record of the change, keeps the old version and brings
    // every holder to it, so it still reads with the owner away again.
    void interruptedOverwriteKeepsTheOldVersion()
    {
        const std::string name = "half-overwritten";
        const auto p = placement(name);
        const auto v1 = randomBytes(static_cast<std::size_t>(kLimit) * 2, 91);
        const auto v2 = randomBytes(static_cast<std::size_t>(kLimit) * 2 + 7, 92);
        QCOMPARE(m_http.send(Method::Put, objUrl(name), Body::string(v1))->status, 200);
        QTemporaryDir saved;
        QVERIFY(saved.isValid());
        // The owner's file and the last two holders' slices of v1, kept aside.
        std::vector<std::pair<QString, QString>> v1Files;  // where it lives, the copy aside
        for (int k : {0, 2, 3}) {
            const auto files = filesOf(p[k], k == 0 ? "buckets" : ".tessera/ec", name);
            QCOMPARE(files.size(), 1);
            const auto aside = saved.filePath(QString::number(k));
            QCOMPARE(QProcess::execute("cp", {"-a", files[0], aside}), 0);
            v1Files.emplace_back(files[0], aside);
        }
        QCOMPARE(m_http.send(Method::Put, objUrl(name), Body::string(v2))->status, 200);
        // As if v2 had reached only the first holder when its owner died.
        m_cluster.killTarget(p[0]);
        for (const auto& [at, aside] : v1Files) {
            QVERIFY(QFile::remove(at));
            QCOMPARE(QProcess::execute("cp", {"-a", aside, at}), 0);
        }
        readsHoldAcrossTheOwnersReturn(p[0], name, v1);
    }

    // A small version (whole copies on the owner and the first holder),
    // then a large one interrupted after the first holder took its slice,
    // the owner killed before it committed: the first holder keeps the
    // small version's copy beside the new slice (the owner has older copies
    // dropped only once every slice is kept, before it acknowledges), which
    // proves the large version was never acknowledged. With the owner away
    // the small version reads from that copy (a 503 before; found by
    // soak_ec_short); the owner, back with its record of the change, keeps
    // it.
    void interruptedOverwriteOfASmallVersion()
    {
        const std::string name = "small-then-half-large";
        const auto p = placement(name);
        const std::string v1 = "the small version";
        const auto v2 = randomBytes(static_cast<std::size_t>(kLimit) * 2, 93);
        QCOMPARE(m_http.send(Method::Put, objUrl(name), Body::string(v1))->status, 200);
        QTemporaryDir saved;
        QVERIFY(saved.isValid());
        // The owner's file and the first holder's copy of v1, kept aside.
        std::vector<std::pair<QString, QString>> v1Files;
        for (int k : {0, 1}) {
            const auto files = filesOf(p[k], "buckets", name);
            QCOMPARE(files.size(), 1);
            const auto aside = saved.filePath(QString::number(k));
            QCOMPARE(QProcess::execute("cp", {"-a", files[0], aside}), 0);
            v1Files.emplace_back(files[0], aside);
        }
        QCOMPARE(m_http.send(Method::Put, objUrl(name), Body::string(v2))->status, 200);
        QCOMPARE(filesOf(p[1], "buckets", name).size(), 0);  // dropped once every slice was kept
        // As if v2 had reached only the first holder when its owner died.
        m_cluster.killTarget(p[0]);
        for (const auto& [at, aside] : v1Files) {
            QFile::remove(at);
            QCOMPARE(QProcess::execute("cp", {"-a", aside, at}), 0);
        }
        for (int k : {2, 3}) {
            const auto slices = filesOf(p[k], ".tessera/ec", name);
            QCOMPARE(slices.size(), 1);
            QVERIFY(QFile::remove(slices[0]));
        }
        readsHoldAcrossTheOwnersReturn(p[0], name, v1);
    }

    void readsSurviveAKilledTarget()
    {
        // The target that owns the most sliced objects dies.
        std::map<int, int> owned;
        for (const auto& [name, bytes] : m_objects) {
            if (static_cast<std::int64_t>(bytes.size()) >= kLimit) ++owned[placement(name)[0]];
        }
        m_killed =
            std::max_element(owned.begin(), owned.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
        QVERIFY(owned[m_killed] >= 2);
        // Two names it owns, written (small: copied whole; large: sliced) and deleted.
        std::vector<std::string> deleted;
        for (int i = 0; deleted.size() < 2; ++i) {
            const auto name = "gone-" + std::to_string(i);
            if (placement(name)[0] != m_killed) continue;
            const auto bytes = randomBytes(deleted.empty() ? 100 : static_cast<std::size_t>(kLimit) * 3,
                                           40u + static_cast<std::uint32_t>(i));
            QCOMPARE(m_http.send(Method::Put, objUrl(name), Body::string(bytes))->status, 200);
            QCOMPARE(m_http.send(Method::Delete, objUrl(name))->status, 200);
            deleted.push_back(name);
        }
        m_cluster.killTarget(m_killed);
        QVERIFY(m_cluster.waitForTargets(3, std::chrono::seconds(10)));
        QVERIFY(m_cluster.smap().findTarget(m_cluster.targetId(m_killed))->away());
        int rebuilt = 0;
        int fromCopy = 0;
        for (const auto& [name, bytes] : m_objects) {
            auto r = m_http.send(Method::Get, objUrl(name));
            QVERIFY(r);
            QVERIFY2(r->status == 200, (name + ": " + std::to_string(r->status) + " " + r->body).c_str());
            QVERIFY2(r->body == bytes, name.c_str());
            if (placement(name)[0] == m_killed) {
                ++(static_cast<std::int64_t>(bytes.size()) >= kLimit ? rebuilt : fromCopy);
            }
            auto h = m_http.send(Method::Head, objUrl(name));
            QVERIFY(h);
            QCOMPARE(h->status, 200);
            QCOMPARE(h->header("ais-size"), std::to_string(bytes.size()));
        }
        QCOMPARE(rebuilt, owned[m_killed]);
        // A deleted name is a 404 with its owner away: the targets that would
        // keep it whole answered and have nothing.
        for (const auto& name : deleted) {
            auto r = m_http.send(Method::Get, objUrl(name));
            QVERIFY(r);
            QVERIFY2(r->status == 404, (name + ": " + std::to_string(r->status) + " " + r->body).c_str());
        }
        qInfo("%d objects rebuilt from slices, %d served from a copy", rebuilt, fromCopy);
        // The listing stays complete: the dead owner's names come from the
        // slices and copies the others keep, with their sizes and versions,
        // page after page; the deleted names are not in it.
        for (const int pageSize : {7, 1000}) {
            std::map<std::string, json> listed;
            std::string token;
            int pages = 0;
            do {
                auto r = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/buckets/" + kBucket +
                                                      "?props=name,size,version&pagesize=" + std::to_string(pageSize) +
                                                      (token.empty() ? "" : "&continuation_token=" + token));
                QVERIFY(r);
                QVERIFY2(r->status == 200, r->body.c_str());
                const auto page = json::parse(r->body);
                for (const auto& e : page["entries"]) {
                    QVERIFY2(listed.emplace(e["name"].get<std::string>(), e).second, e.dump().c_str());
                }
                token = page.value("continuation_token", std::string());
                QVERIFY(++pages < 100);
            } while (!token.empty());
            QCOMPARE(listed.size(), m_objects.size());
            for (const auto& [name, bytes] : m_objects) {
                QVERIFY2(listed.contains(name), name.c_str());
                QCOMPARE(listed[name]["size"].get<std::string>(), std::to_string(bytes.size()));  // AIStore: a string
                QCOMPARE(listed[name]["version"].get<std::string>(), std::string("1"));
            }
            if (pageSize == 7) QVERIFY(pages >= static_cast<int>(m_objects.size() / 7));
        }
        // A range of a rebuilt object.
        for (const auto& [name, bytes] : m_objects) {
            if (placement(name)[0] != m_killed || static_cast<std::int64_t>(bytes.size()) < kLimit) continue;
            auto r = m_http.send(Method::Get, objUrl(name), Body::none(), {{"Range", "bytes=1000-300999"}});
            QVERIFY(r);
            QCOMPARE(r->status, 206);
            QCOMPARE(r->body.size(), std::size_t{300000});
            QVERIFY(r->body == bytes.substr(1000, 300000));
            break;
        }
        // Writes need every holder: 503 naming the away one.
        for (const auto& [name, bytes] : m_objects) {
            const auto p = placement(name);
            if (std::find(p.begin() + 1, p.end(), m_killed) == p.end()) continue;
            auto r = m_http.send(Method::Put, objUrl(name), Body::string("new"));
            QVERIFY(r);
            QCOMPARE(r->status, 503);
            QVERIFY2(r->body.find(m_cluster.targetId(m_killed)) != std::string::npos, r->body.c_str());
            break;
        }
    }

    void damagedSliceIsPassedOver()
    {
        // A sliced object of the dead owner: its three slices are on live targets.
        for (const auto& [name, bytes] : m_objects) {
            const auto p = placement(name);
            if (p[0] != m_killed || static_cast<std::int64_t>(bytes.size()) < kLimit) continue;
            const auto files = filesOf(p[1], ".tessera/ec", name);
            QCOMPARE(files.size(), 1);
            QFile f(files[0]);
            QVERIFY(f.open(QIODevice::ReadWrite));
            QVERIFY(f.seek(100));
            char c = 0;
            QVERIFY(f.getChar(&c));
            QVERIFY(f.seek(100));
            QVERIFY(f.putChar(static_cast<char>(c ^ 0x5a)));
            f.close();
            auto r = m_http.send(Method::Get, objUrl(name));
            QVERIFY(r);
            QCOMPARE(r->status, 200);
            QVERIFY(r->body == bytes);
            return;
        }
        QFAIL("no sliced object of the killed target");
    }

    void ownerThatLostItsCopyRebuildsIt()
    {
        QVERIFY(m_cluster.restartTarget(m_killed));
        QVERIFY(m_cluster.waitForTargets(4, std::chrono::seconds(10)));
        {
            // A member of a shard whose owner lost its copy: from the rebuilt object.
            const auto files = filesOf(placement("shard.tar")[0], "buckets", "shard.tar");
            QCOMPARE(files.size(), 1);
            QVERIFY(QFile::remove(files[0]));
            auto r = m_http.send(Method::Get, objUrl("shard.tar") + "?archpath=m1.txt");
            QVERIFY(r);
            QVERIFY2(r->status == 200, r->body.c_str());
            QCOMPARE(r->body, std::string("hello member"));
        }
        for (const auto& [name, bytes] : m_objects) {
            const auto p = placement(name);
            if (p[0] == m_killed || static_cast<std::int64_t>(bytes.size()) < kLimit) continue;
            const auto files = filesOf(p[0], "buckets", name);
            QCOMPARE(files.size(), 1);
            QVERIFY(QFile::remove(files[0]));
            auto r = m_http.send(Method::Get, objUrl(name));
            QVERIFY(r);
            QVERIFY2(r->status == 200, r->body.c_str());
            QVERIFY(r->body == bytes);
            return;
        }
        QFAIL("no sliced object of a live owner");
    }

    void deleteLeavesNothing()
    {
        for (const auto& [name, bytes] : m_objects) {
            auto r = m_http.send(Method::Delete, objUrl(name));
            QVERIFY(r);
            QVERIFY2(r->status == 200, (name + ": " + r->body).c_str());
        }
        for (int t = 0; t < m_cluster.targetCount(); ++t) {
            QCOMPARE(countFiles(t, ".tessera/ec"), 0);
            QCOMPARE(countFiles(t, "buckets"), 0);
        }
        for (const auto& [name, bytes] : m_objects) {
            auto r = m_http.send(Method::Get, objUrl(name));
            QVERIFY(r);
            QCOMPARE(r->status, 404);
        }
    }

    // Objects written before ec was enabled: the reprotect job that starts
    // with it slices them (or copies the small ones) and clears ec.pending.
    void enablingEcSlicesExistingObjects()
    {
        const std::string bucket = "later";
        createBucket(bucket);
        std::map<std::string, std::string> objects;
        for (int i = 0; i < 6; ++i) {
            const auto name = "old-" + std::to_string(i);
            objects[name] = randomBytes(i % 2 == 0 ? 300000 + static_cast<std::size_t>(i) : 5000, 100u + i);
            auto r = m_http.send(Method::Put, m_cluster.proxyUrl() + "/v1/objects/" + bucket + "/" + name,
                                 Body::string(objects[name]));
            QVERIFY(r);
            QCOMPARE(r->status, 200);
        }
        QCOMPARE(patchProps(bucket, {{"ec", {{"enabled", true}, {"objsize_limit", kLimit}}}}), 200);
        QVERIFY(waitForProtected(bucket));
        const auto smap = m_cluster.smap();
        for (const auto& [name, bytes] : objects) {
            std::vector<int> p;
            for (const auto* n : api::hrwTargets(smap, api::objectUname(bucket, name), 4)) p.push_back(indexOf(n->id));
            const auto sub = bytes.size() >= static_cast<std::size_t>(kLimit) ? ".tessera/ec" : "buckets";
            const int holders = bytes.size() >= static_cast<std::size_t>(kLimit) ? 3 : 1;
            for (int k = 1; k <= holders; ++k) {
                bool found = false;
                for (const auto& mp : m_cluster.targetMountpaths(p[k])) {
                    found = found || QFile::exists(QString::fromStdString(mp + "/" + sub + "/" + bucket + "/" + name));
                }
                QVERIFY2(found, (name + " on its holder " + std::to_string(k)).c_str());
            }
        }
    }

    // A scrub finds a flipped byte in an owner's copy and one in a slice,
    // and repairs both: the copy rebuilt from the slices, the slice sent again.
    void scrubRepairsACopyAndASlice()
    {
        const std::string bucket = "later";
        const std::string name = "old-0";  // sliced (300,000 bytes)
        const auto smap = m_cluster.smap();
        std::vector<int> p;
        for (const auto* n : api::hrwTargets(smap, api::objectUname(bucket, name), 4)) p.push_back(indexOf(n->id));
        const auto fileOn = [&](int t, const std::string& sub) {
            for (const auto& mp : m_cluster.targetMountpaths(t)) {
                const auto f = QString::fromStdString(mp + "/" + sub + "/" + bucket + "/" + name);
                if (QFile::exists(f)) return f;
            }
            return QString();
        };
        const auto readAll = [](const QString& f) {
            QFile file(f);
            return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
        };
        const auto flip = [](const QString& f, qint64 at) {
            QFile file(f);
            if (!file.open(QIODevice::ReadWrite) || !file.seek(at)) return false;
            char c = 0;
            if (!file.getChar(&c) || !file.seek(at)) return false;
            return file.putChar(static_cast<char>(c ^ 0x21));
        };
        const auto whole = fileOn(p[0], "buckets");
        const auto slice = fileOn(p[2], ".tessera/ec");
        QVERIFY(!whole.isEmpty() && !slice.isEmpty());
        const auto wholeBefore = readAll(whole);
        const auto sliceBefore = readAll(slice);
        QVERIFY(flip(whole, 4242));
        QVERIFY(flip(slice, 77));
        auto r = m_http.send(Method::Post, m_cluster.proxyUrl() + "/v1/jobs",
                             Body::string(json{{"kind", "scrub"}, {"args", {{"bucket", bucket}}}}.dump()));
        QVERIFY(r);
        QVERIFY2(r->status == 200, r->body.c_str());
        const auto st = waitForJob(json::parse(r->body)["id"].get<std::string>());
        QVERIFY2(st["state"] == "finished", st.dump().c_str());
        const auto counters = st["progress"]["counters"];
        QCOMPARE(counters["corrupt"].get<int>(), 2);
        QCOMPARE(counters["repaired"].get<int>(), 2);
        QVERIFY(counters["slices_checked"].get<int>() >= 9);
        QVERIFY(readAll(fileOn(p[0], "buckets")) == wholeBefore);
        QVERIFY(readAll(fileOn(p[2], ".tessera/ec")) == sliceBefore);
    }

    // An owner killed and decommissioned: its objects now belong to targets
    // that have no whole copy. A reprotect restores each new owner's copy
    // from the slices (or a copy), re-places the slices, drops those outside
    // the new sets; then another target may die and every read still works.
    void reprotectAfterADecommissionedOwner()
    {
        QVERIFY(m_cluster.addTarget());  // 5 targets: one may go for good
        const std::string bucket = "moved";
        createBucket(bucket);
        QCOMPARE(patchProps(bucket, {{"ec", {{"enabled", true}, {"objsize_limit", kLimit}}}}), 200);
        QVERIFY(waitForProtected(bucket));  // the reprotect enabling it started is done
        const auto url = [&](const std::string& n) { return m_cluster.proxyUrl() + "/v1/objects/" + bucket + "/" + n; };
        const auto holdersOf = [&](const std::string& name) {
            std::vector<int> p;
            for (const auto* n : api::hrwTargets(m_cluster.smap(), api::objectUname(bucket, name), 4)) {
                p.push_back(indexOf(n->id));
            }
            return p;
        };
        std::map<std::string, std::string> objects;
        for (int i = 0; i < 12; ++i) {
            const auto name = "m-" + std::to_string(i);
            objects[name] = randomBytes(i % 3 == 0 ? 20000 : 400000 + static_cast<std::size_t>(i) * 1000, 200u + i);
            auto r = m_http.send(Method::Put, url(name), Body::string(objects[name]));
            QVERIFY(r);
            QVERIFY2(r->status == 200, r->body.c_str());
        }
        std::map<int, int> owned;
        for (const auto& [name, bytes] : objects) ++owned[holdersOf(name)[0]];
        const int gone =
            std::max_element(owned.begin(), owned.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
        const auto goneId = m_cluster.targetId(gone);
        m_cluster.killTarget(gone);
        QVERIFY(m_cluster.waitForTargets(4, std::chrono::seconds(10)));
        auto r = m_http.send(Method::Put, m_cluster.proxyUrl() + "/v1/cluster",
                             Body::string(json{{"action", "decommission-node"}, {"value", {{"sid", goneId}}}}.dump()));
        QVERIFY(r);
        QCOMPARE(r->status, 200);
        QVERIFY(QTest::qWaitFor([&] { return m_cluster.smap().findTarget(goneId) == nullptr; }, 5000));
        r = m_http.send(Method::Post, m_cluster.proxyUrl() + "/v1/jobs",
                        Body::string(json{{"kind", "reprotect"}, {"args", {{"bucket", bucket}}}}.dump()));
        QVERIFY(r);
        QVERIFY2(r->status == 200, r->body.c_str());
        const auto st = waitForJob(json::parse(r->body)["id"].get<std::string>());
        QVERIFY2(st["state"] == "finished", st.dump().c_str());
        QCOMPARE(st["progress"]["errors"].get<int>(), 0);
        qInfo("reprotect counters: %s", st["progress"].value("counters", json::object()).dump().c_str());
        // Each object whole on its new owner, its slices (or copy) on its new set, and nowhere else.
        for (const auto& [name, bytes] : objects) {
            const auto p = holdersOf(name);
            const auto on = [&](int t, const char* sub) {
                for (const auto& mp : m_cluster.targetMountpaths(t)) {
                    if (QFile::exists(QString::fromStdString(mp + "/" + sub + "/" + bucket + "/" + name))) return true;
                }
                return false;
            };
            QVERIFY2(on(p[0], "buckets"), (name + " whole on its owner").c_str());
            if (static_cast<std::int64_t>(bytes.size()) < kLimit) {
                QVERIFY2(on(p[1], "buckets"), (name + " copied").c_str());
                continue;
            }
            int slices = 0;
            for (int t = 0; t < m_cluster.targetCount(); ++t) {
                if (t == gone) continue;
                if (on(t, ".tessera/ec")) {
                    QVERIFY2(std::find(p.begin() + 1, p.end(), t) != p.end(),
                             (name + ": a slice outside its set").c_str());
                    ++slices;
                }
            }
            QCOMPARE(slices, 3);
        }
        // Protected again: one more target may die.
        const int next = holdersOf(objects.begin()->first)[0];
        m_cluster.killTarget(next);
        QVERIFY(m_cluster.waitForTargets(3, std::chrono::seconds(10)));
        for (const auto& [name, bytes] : objects) {
            auto g = m_http.send(Method::Get, url(name));
            QVERIFY(g);
            QVERIFY2(g->status == 200, (name + ": " + g->body).c_str());
            QVERIFY2(g->body == bytes, name.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestErasure)
#include "test_erasure.moc"
