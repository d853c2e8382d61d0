// A live target decommissioned (a planned move) against real processes:
// it keeps serving while a rebalance moves what it holds to the others,
// then leaves the map and exits 0, every object read throughout; and the
// refusals (404, 409) and a failed move that stays flagged.
#include "local_cluster.h"
#include "planned_moves.h"

using namespace tessera;
using namespace tessera::tests::moves;

class TestDecommission : public QObject {
    Q_OBJECT

private slots:
    // A planned move: decommission-node on a live target flags it; it keeps
    // serving while the rebalance moves what it holds to the others, then
    // leaves the map and exits 0. A reader going through all 40 objects
    // the whole time gets 200 and the written bytes from the first read to
    // the last, during the move and after the target is gone; afterwards
    // nothing is left on its disk, each plain object is on its owner alone
    // and each mirrored one on its 2 holders among the other targets.
    void decommissionMovesALiveTarget()
    {
        // A rebalance delay long enough to see the flag before the move starts.
        tests::LocalCluster c{tests::LocalCluster::Options{3, 1, false, 200, 5, {"--rebalance-delay-ms", "2000"}, {}}};
        QVERIFY2(c.start(), c.error().c_str());
        const std::string plain = kBucket;
        const std::string mirrored = "drain-mirrored";
        createBucket(c.proxyUrl(), plain);
        createBucket(c.proxyUrl(), mirrored);
        QVERIFY(formationRebalances(c.proxyUrl(), 3) > 0);
        HttpClient http(noRetry());
        auto r = http.send(Method::Patch, c.proxyUrl() + "/v1/buckets/" + mirrored,
                           Body::string(json{{"action", "set-bprops"}, {"value", mirrorCopies(2)}}.dump()));
        QVERIFY2(r && r->status == 200, r ? r->body.c_str() : "");
        QVERIFY(QTest::qWaitFor([&] { return !bucketProps(c.proxyUrl(), mirrored).mirror.pending; }, 20000));

        // 25 plain and 15 mirrored objects, 64 KiB..~1 MiB: a move that lasts.
        std::map<std::pair<std::string, std::string>, std::string> data;
        for (int i = 0; i < 40; ++i) {
            const auto& bucket = i < 25 ? plain : mirrored;
            const auto name = "move/o-" + std::to_string(i);
            data[{bucket, name}] =
                std::string(64 * 1024 + static_cast<std::size_t>(i) * 24 * 1024, static_cast<char>('a' + i % 26));
        }
        const auto url = [&](const std::pair<std::string, std::string>& key) {
            return c.proxyUrl() + "/v1/objects/" + key.first + "/" + key.second;
        };
        for (const auto& [key, bytes] : data)
            QCOMPARE(http.send(Method::Put, url(key), Body::string(bytes))->status, 200);
        const int leaving = 1;
        const auto id = c.targetId(leaving);
        int held = 0;
        for (const auto& [key, bytes] : data) held += holders(c, key.first, key.second).count(leaving) ? 1 : 0;
        QVERIFY2(held > 0, "the leaving target holds nothing: the test would prove nothing");

        // Every object read in turn through the proxy until told to stop;
        // when each read ended (wall clock, as job times are).
        Tally tally;
        std::atomic<int> rounds{0};
        std::atomic<bool> stop{false};
        std::vector<std::int64_t> readEnds;  // the reader's until it is joined
        std::thread reader([&] {
            HttpClient rh(noRetry());
            while (!stop.load()) {
                for (const auto& [key, bytes] : data) {
                    const auto what = "GET " + key.first + "/" + key.second;
                    auto got = rh.send(Method::Get, url(key));
                    readEnds.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                           std::chrono::system_clock::now().time_since_epoch())
                                           .count());
                    ++tally.ops;
                    if (!got) tally.fail(what + ": " + got.error().message);
                    else if (got->status != 200)
                        tally.fail(what + ": HTTP " + std::to_string(got->status) + " " + got->body);
                    else if (got->body != bytes) tally.fail(what + ": bytes differ from the written ones");
                }
                ++rounds;
            }
        });
        // And a writer replacing 10 other names (5 plain, 5 mirrored) round
        // after round: every write acknowledged, the last one read back at
        // the end whatever the move did meanwhile.
        std::map<std::pair<std::string, std::string>, std::string> written;  // the writer's until it is joined
        Tally writes;
        std::thread writer([&] {
            HttpClient wh;  // retries a 503 with Retry-After (a map on its way), as clients do
            for (int round = 0; !stop.load(); ++round) {
                for (int k = 0; k < 10; ++k) {
                    const std::pair<std::string, std::string> key{k < 5 ? plain : mirrored,
                                                                  "write/o-" + std::to_string(k)};
                    const auto bytes = "round " + std::to_string(round) + " of " + key.second +
                                       std::string(static_cast<std::size_t>(k) * 3000, 'w');
                    auto put = wh.send(Method::Put, url(key), Body::string(bytes));
                    ++writes.ops;
                    if (!put) writes.fail("PUT " + key.second + ": " + put.error().message);
                    else if (put->status != 200)
                        writes.fail("PUT " + key.second + ": HTTP " + std::to_string(put->status) + " " + put->body);
                    else written[key] = bytes;
                }
            }
        });
        const auto joinReader = qScopeGuard([&] {
            stop = true;
            if (reader.joinable()) reader.join();
            if (writer.joinable()) writer.join();
        });
        QVERIFY(QTest::qWaitFor([&] { return rounds.load() >= 1; }, 20000));

        // The CLI starts the move: the target is flagged, present, serving.
        const auto before = c.smap();
        QByteArray out;
        QByteArray err;
        QCOMPARE(runCli(c, {"cluster", "decommission", QString::fromStdString(id)}, &out, &err), 0);
        QVERIFY2(out.contains("is being decommissioned"), out.constData());
        auto smap = c.smap();
        QCOMPARE(smap.version, before.version + 1);
        const auto* flagged = smap.findTarget(id);
        QVERIFY(flagged != nullptr);
        QVERIFY(flagged->decommissioning());
        QVERIFY(!flagged->away());
        QVERIFY(bucketProps(c.proxyUrl(), mirrored).mirror.pending);  // placement changed
        QCOMPARE(runCli(c, {"cluster", "show"}, &out, &err), 0);
        QVERIFY2(out.contains("target (decommissioning)"), out.constData());
        const int roundsAtFlag = rounds.load();

        // Asked again with --wait (JSON): the same move; it returns once the
        // target has left the map.
        const int waited =
            runCli(c, {"--json", "cluster", "decommission", QString::fromStdString(id), "--wait", "--timeout", "60"},
                   &out, &err, 90000);
        QVERIFY2(waited == 0, (err + "\n" + QByteArray::fromStdString(tally.report())).constData());
        const auto done = json::parse(out.toStdString(), nullptr, false);
        QVERIFY2(done.is_object() && done.value("decommissioned", "") == id, out.constData());
        smap = c.smap();
        QVERIFY(smap.findTarget(id) == nullptr);
        QCOMPARE(done["smap_version"].get<std::int64_t>(), smap.version);
        QCOMPARE(smap.tmap.size(), std::size_t{2});
        QVERIFY2(rounds.load() > roundsAtFlag, "no full round of reads during the move");
        int code = -1;
        QVERIFY2(c.waitForTargetExit(leaving, std::chrono::seconds(20), &code), c.targetLogTail(leaving).c_str());
        QCOMPARE(code, 0);
        QVERIFY2(c.targetLogTail(leaving).find("decommissioned: cluster map v") != std::string::npos,
                 c.targetLogTail(leaving).c_str());
        // Reads go on with the target gone: two more full rounds.
        const int roundsAtExit = rounds.load();
        QVERIFY(QTest::qWaitFor([&] { return rounds.load() >= roundsAtExit + 2; }, 30000));
        stop = true;
        reader.join();
        writer.join();
        QVERIFY2(tally.failures.empty(), tally.report().c_str());
        QVERIFY2(writes.failures.empty(), writes.report().c_str());
        QCOMPARE(written.size(), std::size_t{10});
        for (const auto& [key, bytes] : written) {
            auto got = http.send(Method::Get, url(key));
            QVERIFY(got);
            QVERIFY2(got->status == 200 && got->body == bytes,
                     (key.first + "/" + key.second + ": " + std::to_string(got->status) + " " +
                      got->body.substr(0, 40) + " expected " + bytes.substr(0, 40))
                         .c_str());
        }
        qInfo("%d writes acknowledged during the move", writes.ops.load());
        // Reads ended while the rebalance was moving the target's objects.
        auto jobs = http.send(Method::Get, c.proxyUrl() + "/v1/jobs");
        QVERIFY(jobs && jobs->status == 200);
        json move;
        for (const auto& j : json::parse(jobs->body)) {
            if (j.value("kind", "") == "rebalance" && j["targets"].contains(id)) move = j;  // the last one
        }
        QVERIFY2(move.value("state", "") == "finished", jobs->body.c_str());
        // The leaving target's own part, as it timed it.
        const auto began = move["targets"][id].value("started_ns", std::int64_t{0});
        const auto ended = move["targets"][id].value("ended_ns", std::int64_t{0});
        const auto during =
            std::count_if(readEnds.begin(), readEnds.end(), [&](std::int64_t t) { return t >= began && t <= ended; });
        QVERIFY2(during > 0, move.dump().c_str());
        qInfo(
            "%d reads, %d full rounds (%d before the move, %d after the exit), %d during the leaving target's "
            "rebalance (%lld ms)",
            tally.ops.load(), rounds.load(), roundsAtFlag, rounds.load() - roundsAtExit, static_cast<int>(during),
            static_cast<long long>((ended - began) / 1000000));

        // The move's rebalance ended clean: the copies are complete again.
        QVERIFY(QTest::qWaitFor([&] { return !bucketProps(c.proxyUrl(), mirrored).mirror.pending; }, 20000));
        const auto props = bucketProps(c.proxyUrl(), mirrored);
        for (const auto& [key, bytes] : data) {
            const auto& [bucket, name] = key;
            const auto h = holders(c, bucket, name);
            std::set<int> expected;
            for (const auto* n : api::copyTargets(smap, bucket == mirrored ? &props : nullptr, bucket, name)) {
                for (int t = 0; t < c.targetCount(); ++t) {
                    if (c.targetId(t) == n->id) expected.insert(t);
                }
            }
            QCOMPARE(expected.size(), std::size_t{bucket == mirrored ? 2u : 1u});
            QVERIFY2(h == expected, (bucket + "/" + name).c_str());
            QVERIFY(!h.count(leaving));
            r = http.send(Method::Get, url(key));
            QCOMPARE(r->status, 200);
            QVERIFY(r->body == bytes);
        }
    }

    // The proxy killed and started again just after decommission-node,
    // before the move's rebalance began: the flag is in the persisted map,
    // and the restarted proxy starts the move itself; the target leaves the
    // map and exits 0, every object read back.
    void proxyRestartDuringTheMove()
    {
        tests::LocalCluster c{tests::LocalCluster::Options{3, 1, false, 200, 5, {"--rebalance-delay-ms", "1500"}, {}}};
        QVERIFY2(c.start(), c.error().c_str());
        createBucket(c.proxyUrl(), kBucket);
        QVERIFY(formationRebalances(c.proxyUrl(), 3) > 0);
        HttpClient http(noRetry());
        std::map<std::string, std::string> data;
        for (int i = 0; i < 30; ++i) {
            const auto name = "restart/o-" + std::to_string(i);
            data[name] = std::string(20000 + static_cast<std::size_t>(i) * 1000, static_cast<char>('A' + i % 26));
            QCOMPARE(
                http.send(Method::Put, c.proxyUrl() + "/v1/objects/" + kBucket + "/" + name, Body::string(data[name]))
                    ->status,
                200);
        }
        const int leaving = 2;
        const auto id = c.targetId(leaving);
        int held = 0;
        for (const auto& [name, bytes] : data) held += holders(c, kBucket, name).count(leaving) ? 1 : 0;
        QVERIFY(held > 0);
        auto r = http.send(Method::Put, c.proxyUrl() + "/v1/cluster", Body::string(action("decommission-node", id)));
        QVERIFY2(r && r->status == 200, r ? r->body.c_str() : "");
        c.killProxy();  // before the move's rebalance is due
        QVERIFY(c.restartProxy());
        QVERIFY2(QTest::qWaitFor([&] { return c.smap().findTarget(id) == nullptr; }, 60000),
                 c.targetLogTail(leaving).c_str());
        int code = -1;
        QVERIFY2(c.waitForTargetExit(leaving, std::chrono::seconds(20), &code), c.targetLogTail(leaving).c_str());
        QCOMPARE(code, 0);
        for (const auto& [name, bytes] : data) {
            auto got = http.send(Method::Get, c.proxyUrl() + "/v1/objects/" + kBucket + "/" + name);
            QVERIFY(got);
            QVERIFY2(got->status == 200 && got->body == bytes, (name + ": " + std::to_string(got->status)).c_str());
            QVERIFY(!holders(c, kBucket, name).count(leaving));
        }
    }

    // What decommission-node refuses: an unknown id (404), a target in
    // maintenance, one whose leaving would leave a mirrored bucket's copies
    // without a target each, the last target that can own objects while
    // another is leaving, and the only target of the cluster (409s). And a
    // move whose rebalance fails: the target stays, flagged and serving,
    // the job's errors in /v1/jobs; the action again starts another
    // rebalance, which moves it out.
    void decommissionRefusals()
    {
        tests::LocalCluster c{tests::LocalCluster::Options{2, 1, false, 200, 5, {"--rebalance-delay-ms", "200"}, {}}};
        QVERIFY2(c.start(), c.error().c_str());
        createBucket(c.proxyUrl(), kBucket);
        QVERIFY(formationRebalances(c.proxyUrl(), 2) > 0);
        HttpClient http(noRetry());
        const auto cluster = c.proxyUrl() + "/v1/cluster";
        const auto put = [&](const std::string& sid, const char* act) {
            return http.send(Method::Put, cluster, Body::string(action(act, sid)));
        };
        const auto message = [](const api::Result<client::Response>& r) {
            return json::parse(r->body).value("message", std::string());
        };
        const auto t0 = c.targetId(0);
        const auto t1 = c.targetId(1);

        auto r = put("nosuch", "decommission-node");
        QCOMPARE(r->status, 404);
        QCOMPARE(message(r), std::string("target \"nosuch\" is not in the cluster map"));

        QCOMPARE(put(t0, "start-maintenance")->status, 200);
        r = put(t0, "decommission-node");
        QCOMPARE(r->status, 409);
        QVERIFY2(message(r).find("is in maintenance") != std::string::npos, r->body.c_str());
        QCOMPARE(put(t0, "stop-maintenance")->status, 200);

        r = http.send(Method::Patch, c.proxyUrl() + "/v1/buckets/" + kBucket,
                      Body::string(json{{"action", "set-bprops"}, {"value", mirrorCopies(2)}}.dump()));
        QCOMPARE(r->status, 200);
        const auto version = c.smap().version;
        r = put(t1, "decommission-node");
        QCOMPARE(r->status, 409);
        QVERIFY2(message(r).find("bucket \"" + std::string(kBucket) + "\" needs 2 targets") != std::string::npos,
                 r->body.c_str());
        QCOMPARE(c.smap().version, version);  // nothing changed
        r = http.send(Method::Patch, c.proxyUrl() + "/v1/buckets/" + kBucket,
                      Body::string(json{{"action", "set-bprops"}, {"value", mirrorCopies(1)}}.dump()));
        QCOMPARE(r->status, 200);
        std::map<std::string, std::string> data;
        for (int i = 0; i < 8; ++i) {
            const auto name = "refused/o-" + std::to_string(i);
            data[name] = "bytes of " + name;
            QCOMPARE(
                http.send(Method::Put, c.proxyUrl() + "/v1/objects/" + kBucket + "/" + name, Body::string(data[name]))
                    ->status,
                200);
        }
        int onT1 = 0;
        for (const auto& [name, bytes] : data) onT1 += holders(c, kBucket, name).count(1) ? 1 : 0;
        QVERIFY(onT1 > 0);

        // t0's disk fails: t1's move cannot deliver anything.
        const auto disk = QString::fromStdString(c.targetMountpaths(0)[0]);
        QVERIFY(QDir().rename(disk, disk + ".gone"));
        QFile blocker(disk);
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        const int jobsBefore = rebalances(c.proxyUrl()).count;
        auto moved = client::Client(c.proxyUrl()).decommissionNode(t1);
        QVERIFY2(moved.ok(), moved.ok() ? "" : moved.error().message.c_str());
        QCOMPARE(*moved, version + 1);
        // While t1 leaves, t0 is the last target that can own objects.
        r = put(t0, "decommission-node");
        QCOMPARE(r->status, 409);
        QVERIFY2(message(r).find("last target that can own objects") != std::string::npos, r->body.c_str());
        json failed;
        QVERIFY(QTest::qWaitFor(
            [&] {
                auto jobs = http.send(Method::Get, c.proxyUrl() + "/v1/jobs");
                if (!jobs || jobs->status != 200) return false;
                int n = 0;
                for (const auto& j : json::parse(jobs->body)) {
                    if (j.value("kind", "") != "rebalance" || ++n <= jobsBefore) continue;
                    if (j.value("state", "") == "running") return false;
                    failed = j;
                }
                return !failed.is_null();
            },
            20000));
        QCOMPARE(failed.value("state", ""), std::string("failed"));
        QVERIFY2(failed.value("error", "").find(t1 + ": ") != std::string::npos, failed.dump().c_str());
        QVERIFY(failed["progress"].value("errors", 0) > 0);
        QVERIFY(!QTest::qWaitFor([&] { return c.smap().findTarget(t1) == nullptr; }, 1500));
        QVERIFY(c.smap().findTarget(t1)->decommissioning());

        // t0 gets its disk back (a restart), and the action again moves t1 out.
        c.terminateTarget(0);
        int code = -1;
        QVERIFY2(c.waitForTargetExit(0, std::chrono::seconds(20), &code), c.targetLogTail(0).c_str());
        QVERIFY(QFile::remove(disk));
        QVERIFY(QDir().rename(disk + ".gone", disk));
        QVERIFY(c.restartTarget(0));
        QVERIFY(QTest::qWaitFor([&] { return c.smap().findTarget(t0)->flags == 0; }, 10000));
        QVERIFY(c.smap().findTarget(t1)->decommissioning());
        QVERIFY(client::Client(c.proxyUrl()).decommissionNode(t1).ok());
        QVERIFY(c.waitForTargetGone(t1, std::chrono::seconds(30)));
        QVERIFY2(c.waitForTargetExit(1, std::chrono::seconds(20), &code), c.targetLogTail(1).c_str());
        QCOMPARE(code, 0);
        for (const auto& [name, bytes] : data) {
            r = http.send(Method::Get, c.proxyUrl() + "/v1/objects/" + kBucket + "/" + name);
            QCOMPARE(r->status, 200);
            QCOMPARE(r->body, bytes);
        }

        // The only target now: nowhere for its objects to go.
        r = put(t0, "decommission-node");
        QCOMPARE(r->status, 409);
        QVERIFY2(message(r).find("is the only target") != std::string::npos, r->body.c_str());
        QCOMPARE(client::Client(c.proxyUrl()).decommissionNode(t0).kind(), api::ErrorKind::Conflict);
        QCOMPARE(client::Client(c.proxyUrl()).decommissionNode(t1).kind(), api::ErrorKind::NotFound);
    }
};

QTEST_GUILESS_MAIN(TestDecommission)
#include "test_decommission.moc"
