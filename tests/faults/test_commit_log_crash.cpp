// The commit log of small PUTs (fsync on) against a real target killed -9:
// objects acknowledged through the log whose files a crash would have lost
// (the file gone, or in place without its bytes) are served again after the
// restart, byte for byte; a deletion and a newer large version made after
// them are kept. A kill -9 keeps the page cache, so the loss is made by hand
// between the kill and the restart: exactly what a power cut before the
// log's checkpoint leaves on disk.
#include "local_cluster.h"

#include "client/http_client.h"

#include <QFile>
#include <QTest>
#include <nlohmann/json.hpp>
#include <thread>
#include <unistd.h>

using namespace tessera;
using nlohmann::json;
using tessera::client::Body;
using tessera::client::HttpClient;
using tessera::client::Method;

namespace {

std::string bytesOf(int i) { return "object " + std::to_string(i) + " " + std::string(3000 + i, char('a' + i % 26)); }

}  // namespace

class TestCommitLogCrash : public QObject {
    Q_OBJECT

private slots:
    void acknowledgedSmallObjectsSurviveLostFiles()
    {
        tests::LocalCluster::Options o;
        o.targets = 1;
        o.mountpaths = 1;
        o.fsync = true;
        // No checkpoint before the kill: the records are what brings the files back.
        o.extraTargetArgs = {"--commit-log-checkpoint-ms", "3600000"};
        tests::LocalCluster cluster(o);
        QVERIFY2(cluster.start(), cluster.error().c_str());
        HttpClient http;
        const auto proxy = cluster.proxyUrl();
        auto r =
            http.send(Method::Post, proxy + "/v1/buckets/clog", Body::string(json{{"action", "create-bck"}}.dump()));
        QVERIFY(r);
        QCOMPARE(r->status, 200);
        const auto url = [&](int i) { return proxy + "/v1/objects/clog/o" + std::to_string(i); };

        // 64 objects from 8 clients at once: their PUTs share the log's syncs.
        constexpr int kObjects = 64;
        std::vector<std::thread> clients;
        std::atomic<int> acked{0};
        for (int c = 0; c < 8; ++c) {
            clients.emplace_back([&, c] {
                HttpClient h;
                for (int i = c; i < kObjects; i += 8) {
                    auto put = h.send(Method::Put, url(i), Body::string(bytesOf(i)));
                    if (put && put->status == 200) ++acked;
                }
            });
        }
        for (auto& t : clients) t.join();
        QCOMPARE(acked.load(), kObjects);
        // After them: o1 deleted, o2 replaced by a version too large for the log.
        QCOMPARE(http.send(Method::Delete, url(1))->status, 200);
        const std::string large(200 * 1024, 'L');
        QCOMPARE(http.send(Method::Put, url(2), Body::string(large))->status, 200);

        cluster.killTarget(0);
        const auto dir = cluster.targetMountpaths(0)[0] + "/buckets/clog/";
        int lost = 0;
        for (int i = 3; i < kObjects; ++i) {
            const auto path = dir + "o" + std::to_string(i);
            // Every other file gone; the rest in place without their bytes.
            const int rc = i % 2 == 0 ? ::unlink(path.c_str()) : ::truncate(path.c_str(), 0);
            QVERIFY2(rc == 0, path.c_str());
            ++lost;
        }
        QVERIFY2(cluster.restartTarget(0), cluster.targetLogTail(0).c_str());

        for (int i = 0; i < kObjects; ++i) {
            auto get = http.send(Method::Get, url(i));
            QVERIFY(get);
            if (i == 1) {
                QCOMPARE(get->status, 404);
            } else if (i == 2) {
                QCOMPARE(get->status, 200);
                QVERIFY(get->body == large);
            } else {
                QVERIFY2(get->status == 200, (std::to_string(i) + ": " + get->body).c_str());
                QVERIFY2(get->body == bytesOf(i), std::to_string(i).c_str());
            }
        }
        const auto wholeLog = [&] {
            QFile f(cluster.dataDir() + "/target-0.log");
            return f.open(QIODevice::ReadOnly) ? f.readAll().toStdString() : std::string();
        };
        const auto log = wholeLog();
        QVERIFY2(log.find(std::to_string(lost) + " written again") != std::string::npos, log.c_str());

        // A later start has nothing left to apply: the records were cleared.
        cluster.killTarget(0);
        QVERIFY(cluster.restartTarget(0));
        const auto after = wholeLog();
        QVERIFY2(after.find("written again", log.size()) == std::string::npos, after.c_str());
        auto again = http.send(Method::Get, url(5));
        QVERIFY(again);
        QCOMPARE(again->status, 200);
        QVERIFY(again->body == bytesOf(5));
    }
};

QTEST_GUILESS_MAIN(TestCommitLogCrash)
#include "test_commit_log_crash.moc"
