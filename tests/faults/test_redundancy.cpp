// Buckets mirrored across targets, against real processes: every copy is
// where placement says; a target killed -9 leaves every object readable and
// every listing complete; writes that need it wait (503 naming it); a
// failed mountpath's objects are served from their copies; a flipped byte
// is found and repaired by the scrub; raising and lowering `copies` makes
// and drops copies; a decommissioned target's copies are made again.
#include "local_cluster.h"

#include "api/bmd.h"
#include "api/checksum.h"
#include "api/headers.h"
#include "api/hrw.h"
#include "client/api_client.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTest>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

using namespace tessera;
using nlohmann::json;
using tessera::client::Body;
using tessera::client::HttpClient;
using tessera::client::Method;

namespace {

HttpClient::Options noRetry()
{
    HttpClient::Options o;
    o.retriesOn503 = 0;
    return o;
}

std::string randomBytes(std::size_t n, std::uint32_t seed)
{
    std::mt19937 rng(seed);
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(rng());
    return s;
}

json mirror(int copies)
{
    return json{{"mirror", {{"enabled", copies > 1}, {"copies", copies}, {"across_targets", true}}}};
}

}  // namespace

class TestRedundancy : public QObject {
    Q_OBJECT

private:
    // Rebuilt when the process-wide CA changes: each test function starts a
    // cluster of its own, and on a TLS run each has its own CA.
    std::unique_ptr<HttpClient> m_http;
    std::string m_httpCa;
    HttpClient& http()
    {
        const auto ca = HttpClient::Options::Tls::processDefault().caFile;
        if (!m_http || ca != m_httpCa) {
            m_http = std::make_unique<HttpClient>(noRetry());
            m_httpCa = ca;
        }
        return *m_http;
    }

    static std::string objUrl(tests::LocalCluster& c, const std::string& bucket, const std::string& name)
    {
        return c.proxyUrl() + "/v1/objects/" + bucket + "/" + name;
    }
    void createBucket(tests::LocalCluster& c, const std::string& bucket)
    {
        auto r = http().send(Method::Post, c.proxyUrl() + "/v1/buckets/" + bucket,
                             Body::string(json{{"action", "create-bck"}}.dump()));
        QVERIFY(r);
        QCOMPARE(r->status, 200);
    }
    client::Response setProps(tests::LocalCluster& c, const std::string& bucket, const json& value)
    {
        auto r = http().send(Method::Patch, c.proxyUrl() + "/v1/buckets/" + bucket,
                             Body::string(json{{"action", "set-bprops"}, {"value", value}}.dump()));
        return r ? *r : client::Response{};
    }
    api::BucketProps props(tests::LocalCluster& c, const std::string& bucket)
    {
        auto r = http().send(Method::Get, c.proxyUrl() + "/v1/daemon?what=bmd");
        return json::parse(r->body)["buckets"][bucket].get<api::BucketProps>();
    }
    // Waits for every job of `kind` to end; the last one's status.
    json waitForJobs(tests::LocalCluster& c, const std::string& kind)
    {
        json last;
        const bool done = QTest::qWaitFor(
            [&] {
                auto r = http().send(Method::Get, c.proxyUrl() + "/v1/jobs");
                if (!r || r->status != 200) return false;
                bool any = false;
                for (const auto& j : json::parse(r->body)) {
                    if (j["kind"] != kind) continue;
                    if (j["state"] == "running") return false;
                    last = j;
                    any = true;
                }
                return any;
            },
            30000);
        if (!done) last = json{{"state", "timeout"}};
        return last;
    }
    json runJob(tests::LocalCluster& c, const std::string& kind, const json& args)
    {
        auto r = http().send(Method::Post, c.proxyUrl() + "/v1/jobs",
                             Body::string(json{{"kind", kind}, {"args", args}}.dump()));
        if (!r || r->status != 200) return json{{"start", r ? r->body : r.error().message}};
        const auto id = json::parse(r->body)["id"].get<std::string>();
        json st;
        (void)QTest::qWaitFor(
            [&] {
                auto s = http().send(Method::Get, c.proxyUrl() + "/v1/jobs/" + id);
                if (!s || s->status != 200) return false;
                st = json::parse(s->body);
                return st["state"] != "running";
            },
            30000);
        return st;
    }
    // The indexes of the targets holding a file of bucket/name.
    static std::set<int> holders(tests::LocalCluster& c, const std::string& bucket, const std::string& name)
    {
        std::set<int> out;
        for (int t = 0; t < c.targetCount(); ++t) {
            for (const auto& mp : c.targetMountpaths(t)) {
                if (QFile::exists(QString::fromStdString(mp + "/buckets/" + bucket + "/" + name))) out.insert(t);
            }
        }
        return out;
    }
    static std::set<int> expectedHolders(tests::LocalCluster& c, const api::BucketProps& p, const std::string& bucket,
                                         const std::string& name)
    {
        const auto smap = c.smap();
        std::set<int> out;
        for (const auto* h : api::copyTargets(smap, &p, bucket, name)) {
            for (int t = 0; t < c.targetCount(); ++t) {
                if (c.targetId(t) == h->id) out.insert(t);
            }
        }
        return out;
    }
    static int ownerIndex(tests::LocalCluster& c, const std::string& bucket, const std::string& name)
    {
        const auto smap = c.smap();
        const auto* o = api::hrwTarget(smap, api::objectUname(bucket, name));
        for (int t = 0; o != nullptr && t < c.targetCount(); ++t) {
            if (c.targetId(t) == o->id) return t;
        }
        return -1;
    }
    static std::string filePath(tests::LocalCluster& c, int target, const std::string& bucket, const std::string& name)
    {
        for (const auto& mp : c.targetMountpaths(target)) {
            const auto p = mp + "/buckets/" + bucket + "/" + name;
            if (QFile::exists(QString::fromStdString(p))) return p;
        }
        return {};
    }
    std::set<std::string> listAll(tests::LocalCluster& c, const std::string& bucket, int* status)
    {
        std::set<std::string> names;
        std::string token;
        do {
            auto r = http().send(Method::Get, c.proxyUrl() + "/v1/buckets/" + bucket +
                                                  (token.empty() ? "" : "?continuation_token=" + token));
            *status = r ? r->status : 0;
            if (*status != 200) return names;
            const auto page = json::parse(r->body);
            for (const auto& e : page["entries"]) names.insert(e["name"].get<std::string>());
            token = page.value("continuation_token", "");
        } while (!token.empty());
        return names;
    }

private slots:
    // Copies where placement says; a dead target's objects all readable, the
    // listing complete; writes needing it wait; deletes are final after it returns.
    void mirroredObjectsSurviveADeadTarget()
    {
        tests::LocalCluster c{tests::LocalCluster::Options{3, 2, true, 200, 3, {"--rebalance-auto", "false"}, {}}};
        QVERIFY2(c.start(), c.error().c_str());
        createBucket(c, "mirrored");
        auto set = setProps(c, "mirrored", mirror(2));
        QVERIFY2(set.status == 200, set.body.c_str());
        QVERIFY(waitForJobs(c, "reprotect")["state"] == "finished");
        QVERIFY(!props(c, "mirrored").mirror.pending);

        std::map<std::string, std::string> data;
        for (int i = 0; i < 30; ++i) {
            const auto name = "d/o-" + std::to_string(i);
            data[name] = randomBytes(1000 + static_cast<std::size_t>(i) * 9000, static_cast<std::uint32_t>(i));
            auto r = http().send(Method::Put, objUrl(c, "mirrored", name), Body::string(data[name]));
            QVERIFY(r);
            QVERIFY2(r->status == 200, r->body.c_str());
        }
        const auto p = props(c, "mirrored");
        for (const auto& [name, bytes] : data) {
            QCOMPARE(holders(c, "mirrored", name), expectedHolders(c, p, "mirrored", name));
            QCOMPARE(holders(c, "mirrored", name).size(), std::size_t{2});
        }

        c.killTarget(1);
        QVERIFY(c.waitForTargets(2, std::chrono::seconds(10)));
        const auto smap = c.smap();
        QVERIFY(smap.tmap.at(c.targetId(1)).away());
        for (const auto& [name, bytes] : data) {
            auto r = http().send(Method::Get, objUrl(c, "mirrored", name));
            QVERIFY(r);
            QVERIFY2(r->status == 200, (name + ": " + r->body).c_str());
            QVERIFY2(r->body == bytes, name.c_str());
            QCOMPARE(http().send(Method::Head, objUrl(c, "mirrored", name))->status, 200);
        }
        int status = 0;
        const auto listed = listAll(c, "mirrored", &status);
        QCOMPARE(status, 200);
        QCOMPARE(listed.size(), data.size());

        // A write needs every holder: one whose set includes the dead target waits.
        int refused = 0, written = 0;
        std::string deleted;
        for (const auto& [name, bytes] : data) {
            const bool needsDead = expectedHolders(c, p, "mirrored", name).count(1) > 0;
            auto r = http().send(Method::Put, objUrl(c, "mirrored", name), Body::string("v2 " + name));
            if (needsDead) {
                QCOMPARE(r->status, 503);
                QVERIFY2(r->body.find(c.targetId(1)) != std::string::npos, r->body.c_str());
                ++refused;
            } else {
                QVERIFY2(r->status == 200, r->body.c_str());
                data[name] = "v2 " + name;
                ++written;
                if (deleted.empty()) {
                    QCOMPARE(http().send(Method::Delete, objUrl(c, "mirrored", name))->status, 200);
                    deleted = name;
                }
            }
        }
        QVERIFY(refused > 0 && written > 0 && !deleted.empty());
        data.erase(deleted);

        QVERIFY(c.restartTarget(1));
        QVERIFY(c.waitForTargets(3, std::chrono::seconds(10)));
        for (const auto& [name, bytes] : data) {
            auto r = http().send(Method::Get, objUrl(c, "mirrored", name));
            QVERIFY2(r->status == 200 && r->body == bytes, name.c_str());
        }
        QCOMPARE(http().send(Method::Get, objUrl(c, "mirrored", deleted))->status, 404);
        QCOMPARE(holders(c, "mirrored", deleted).size(), std::size_t{0});
        QCOMPARE(listAll(c, "mirrored", &status).size(), data.size());
        QCOMPARE(status, 200);
    }

    // Raising copies makes them (reprotect starts by itself), lowering drops
    // them; bad props are 400s that change nothing.
    void copiesFollowTheBucketProps()
    {
        tests::LocalCluster c{tests::LocalCluster::Options{
            3, 2, false, 200, 3, {"--rebalance-auto", "false"}, {"--usage-scan-interval-ms", "1000"}}};
        QVERIFY2(c.start(), c.error().c_str());
        createBucket(c, "later");
        for (int i = 0; i < 20; ++i) {
            const auto n = "o-" + std::to_string(i);
            QCOMPARE(http().send(Method::Put, objUrl(c, "later", n), Body::string(n))->status, 200);
        }
        for (const json& bad :
             {json{{"mirror", {{"copies", 0}}}}, json{{"mirror", {{"copies", 9}}}}, json{{"mirror", {{"copies", "2"}}}},
              json{{"mirror", {{"pending", false}}}}, mirror(4)}) {  // 3 targets only
            auto r = setProps(c, "later", bad);
            QVERIFY2(r.status == 400, bad.dump().c_str());
            QVERIFY(json::parse(r.body).contains("message"));
            QVERIFY(props(c, "later").mirror == api::MirrorConf{});
        }

        // The CLI sets the props as a user does.
        QProcess cli;
        cli.start(TESSERA_CLI_BINARY,
                  {"--endpoint", QString::fromStdString(c.proxyUrl()), "bucket", "props", "later", "--set",
                   "mirror.enabled=true", "--set", "mirror.copies=3", "--set", "mirror.across_targets=true"});
        QVERIFY(cli.waitForFinished(20000));
        QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
        QVERIFY(cli.readAllStandardOutput().contains("\"copies\": 3"));
        const auto job = waitForJobs(c, "reprotect");
        QVERIFY2(job["state"] == "finished", job.dump().c_str());
        QCOMPARE(job["progress"]["counters"]["copies_sent"].get<int>(), 40);
        QVERIFY(!props(c, "later").mirror.pending);
        for (int i = 0; i < 20; ++i) QCOMPARE(holders(c, "later", "o-" + std::to_string(i)).size(), std::size_t{3});
        // Each object is counted once in the bucket's usage (by its owner), not once per copy.
        std::uint64_t objects = 0;
        std::uint64_t files = 0;
        const bool counted = QTest::qWaitFor(
            [&] {
                auto r = http().send(Method::Get, c.proxyUrl() + "/v1/cluster?what=node_stats");
                if (!r || r->status != 200) return false;
                objects = 0;
                files = 0;
                const auto stats = json::parse(r->body, nullptr, false);
                if (!stats.is_object() || !stats.contains("target")) return false;
                for (const auto& [id, t] : stats.at("target").items()) {
                    const auto later = t.value("buckets", json::object()).value("later", json::object());
                    objects += later.value("objects", std::uint64_t{0});
                    for (const auto& mp : t.value("mountpaths", json::array())) {
                        files += static_cast<std::uint64_t>(
                            std::max<std::int64_t>(0, mp.value("objects", std::int64_t{-1})));
                    }
                }
                return files >= 60;  // a scan after the copies were made
            },
            10000);
        QVERIFY(counted);
        QCOMPARE(objects, std::uint64_t{20});

        QCOMPARE(setProps(c, "later", mirror(1)).status, 200);
        (void)QTest::qWaitFor(
            [&] {
                for (int i = 0; i < 20; ++i) {
                    if (holders(c, "later", "o-" + std::to_string(i)).size() != 1) return false;
                }
                return true;
            },
            15000);
        const auto p = props(c, "later");
        for (int i = 0; i < 20; ++i) {
            const auto n = "o-" + std::to_string(i);
            QCOMPARE(holders(c, "later", n), expectedHolders(c, p, "later", n));
            QCOMPARE(http().send(Method::Get, objUrl(c, "later", n))->body, n);
        }
    }

    // A mountpath that fails: its objects are read from their copies on
    // other targets, and the listing stays complete.
    void failedMountpathIsServedFromCopies()
    {
        tests::LocalCluster c{tests::LocalCluster::Options{3, 2, false, 200, 3, {"--rebalance-auto", "false"}, {}}};
        QVERIFY2(c.start(), c.error().c_str());
        createBucket(c, "disk");
        QCOMPARE(setProps(c, "disk", mirror(2)).status, 200);
        QVERIFY(waitForJobs(c, "reprotect")["state"] == "finished");
        std::vector<std::string> names;
        for (int i = 0; i < 40; ++i) {
            names.push_back("f-" + std::to_string(i));
            QCOMPARE(http().send(Method::Put, objUrl(c, "disk", names.back()), Body::string(names.back()))->status,
                     200);
        }
        const auto dead = QString::fromStdString(c.targetMountpaths(0)[1]);
        QVERIFY(QDir().rename(dead, dead + ".gone"));
        QFile blocker(dead);
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        int onDead = 0;
        for (const auto& n : names) {
            if (QFile::exists(dead + ".gone/buckets/disk/" + QString::fromStdString(n))) ++onDead;
            auto r = http().send(Method::Get, objUrl(c, "disk", n));
            QVERIFY2(r->status == 200, (n + ": " + r->body).c_str());
            QCOMPARE(r->body, n);
        }
        QVERIFY(onDead > 0);
        int status = 0;
        QCOMPARE(listAll(c, "disk", &status).size(), names.size());
        QCOMPARE(status, 200);
    }

    // Copies on the mountpaths of one target (across_targets false): each
    // object on `copies` disks, raised and lowered by the reprotect, read
    // from another disk when its own is gone, deleted from every disk.
    void copiesOnMountpathsOfOneTarget()
    {
        tests::LocalCluster c{tests::LocalCluster::Options{1, 3, false, 200, 3, {"--rebalance-auto", "false"}, {}}};
        QVERIFY2(c.start(), c.error().c_str());
        createBucket(c, "local");
        const auto local = [](int copies) {
            return json{{"mirror", {{"enabled", true}, {"copies", copies}, {"across_targets", false}}}};
        };
        auto set = setProps(c, "local", local(2));
        QVERIFY2(set.status == 200, set.body.c_str());
        QVERIFY(waitForJobs(c, "reprotect")["state"] == "finished");
        const auto mps = c.targetMountpaths(0);
        const auto disksHolding = [&](const std::string& name) {
            int n = 0;
            for (const auto& mp : mps) n += QFile::exists(QString::fromStdString(mp + "/buckets/local/" + name));
            return n;
        };
        std::map<std::string, std::string> data;
        for (int i = 0; i < 30; ++i) {
            const auto name = "l/o-" + std::to_string(i);
            data[name] = randomBytes(500 + static_cast<std::size_t>(i) * 700, 100u + static_cast<std::uint32_t>(i));
            QCOMPARE(http().send(Method::Put, objUrl(c, "local", name), Body::string(data[name]))->status, 200);
        }
        for (const auto& [name, bytes] : data) QCOMPARE(disksHolding(name), 2);

        QCOMPARE(setProps(c, "local", local(3)).status, 200);
        auto job = waitForJobs(c, "reprotect");
        QVERIFY2(job["state"] == "finished", job.dump().c_str());
        QVERIFY(props(c, "local").mirror.pending == false);
        for (const auto& [name, bytes] : data) QCOMPARE(disksHolding(name), 3);
        QCOMPARE(setProps(c, "local", local(2)).status, 200);
        QVERIFY(waitForJobs(c, "reprotect")["state"] == "finished");
        const auto st = runJob(c, "reprotect", json{{"bucket", "local"}});
        QVERIFY2(st["state"] == "finished", st.dump().c_str());
        for (const auto& [name, bytes] : data) QCOMPARE(disksHolding(name), 2);

        // Deleted: gone from every disk.
        const auto gone = data.begin()->first;
        QCOMPARE(http().send(Method::Delete, objUrl(c, "local", gone))->status, 200);
        QCOMPARE(disksHolding(gone), 0);
        QCOMPARE(http().send(Method::Get, objUrl(c, "local", gone))->status, 404);
        data.erase(gone);

        // A flipped byte in one disk's copy: the scrub finds it and puts back
        // the other disk's good copy.
        const auto& [flipped, flippedBytes] = *data.begin();
        QString damaged;
        for (const auto& mp : mps) {
            const auto p = QString::fromStdString(mp + "/buckets/local/" + flipped);
            if (QFile::exists(p)) damaged = p;
        }
        {
            QFile f(damaged);
            QVERIFY(f.open(QIODevice::ReadWrite));
            f.seek(10);
            const char c = static_cast<char>(flippedBytes[10] ^ 0x5a);
            f.write(&c, 1);
        }
        const auto scrub = runJob(c, "scrub", json{{"bucket", "local"}});
        QVERIFY2(scrub["state"] == "finished", scrub.dump().c_str());
        QCOMPARE(scrub["progress"]["counters"].value("repaired", 0), 1);
        {
            QFile f(damaged);
            QVERIFY(f.open(QIODevice::ReadOnly));
            QVERIFY(f.readAll().toStdString() == flippedBytes);
        }

        // A disk fails: every object still reads back, from its other disk.
        const auto dead = QString::fromStdString(mps[1]);
        int onDead = 0;
        for (const auto& [name, bytes] : data) {
            if (QFile::exists(dead + "/buckets/local/" + QString::fromStdString(name))) ++onDead;
        }
        QVERIFY(QDir().rename(dead, dead + ".gone"));
        QFile blocker(dead);
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        for (const auto& [name, bytes] : data) {
            auto r = http().send(Method::Get, objUrl(c, "local", name));
            QVERIFY2(r->status == 200, (name + ": " + r->body).c_str());
            QVERIFY2(r->body == bytes, name.c_str());
            QCOMPARE(http().send(Method::Head, objUrl(c, "local", name))->status, 200);
        }
        QVERIFY(onDead > 0);
    }

    // A flipped byte in one copy: a GET with validation reads a good copy,
    // the scrub finds and repairs it; without a copy it is reported unrepairable.
    void scrubRepairsAFlippedByte()
    {
        tests::LocalCluster c{tests::LocalCluster::Options{3, 2, false, 200, 3, {"--rebalance-auto", "false"}, {}}};
        QVERIFY2(c.start(), c.error().c_str());
        createBucket(c, "scrubbed");
        createBucket(c, "single");
        QCOMPARE(setProps(c, "scrubbed", mirror(2)).status, 200);
        QVERIFY(waitForJobs(c, "reprotect")["state"] == "finished");
        const auto bytes = randomBytes(300000, 11);
        QCOMPARE(http().send(Method::Put, objUrl(c, "scrubbed", "victim"), Body::string(bytes))->status, 200);
        QCOMPARE(http().send(Method::Put, objUrl(c, "single", "victim"), Body::string(bytes))->status, 200);
        const int owner = ownerIndex(c, "scrubbed", "victim");
        QVERIFY(owner >= 0);
        const auto flip = [](const std::string& path) {
            QFile f(QString::fromStdString(path));
            if (!f.open(QIODevice::ReadWrite)) return false;
            f.seek(1234);
            char ch = 0;
            f.getChar(&ch);
            f.seek(1234);
            f.putChar(static_cast<char>(ch ^ 0x5a));
            return true;
        };
        QVERIFY(flip(filePath(c, owner, "scrubbed", "victim")));
        QVERIFY(flip(filePath(c, *holders(c, "single", "victim").begin(), "single", "victim")));

        // With validation on, the damaged owner's copy is not served: the good one is.
        QCOMPARE(setProps(c, "scrubbed", json{{"checksum", {{"validate_warm_get", true}}}}).status, 200);
        auto r = http().send(Method::Get, objUrl(c, "scrubbed", "victim"));
        QVERIFY2(r->status == 200 && r->body == bytes, r->body.substr(0, 200).c_str());

        auto st = runJob(c, "scrub", json{{"bucket", "scrubbed"}});
        QVERIFY2(st["state"] == "finished", st.dump().c_str());
        QCOMPARE(st["progress"]["counters"]["corrupt"].get<int>(), 1);
        QCOMPARE(st["progress"]["counters"]["repaired"].get<int>(), 1);
        QCOMPARE(st["progress"]["counters"]["checked"].get<int>(), 2);
        QFile repaired(QString::fromStdString(filePath(c, owner, "scrubbed", "victim")));
        QVERIFY(repaired.open(QIODevice::ReadOnly));
        QVERIFY(repaired.readAll().toStdString() == bytes);

        // The CLI starts it and waits, as an operator does.
        QProcess cli;
        cli.start(TESSERA_CLI_BINARY,
                  {"--endpoint", QString::fromStdString(c.proxyUrl()), "job", "start", "scrub", "--bucket", "single"});
        QVERIFY(cli.waitForFinished(20000));
        QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
        const auto out = cli.readAllStandardOutput().toStdString();
        QVERIFY2(out.rfind("started scrub-", 0) == 0, out.c_str());
        const auto id = out.substr(8, out.find(' ', 8) - 8);
        st = json{};
        QVERIFY(QTest::qWaitFor(
            [&] {
                st = json::parse(http().send(Method::Get, c.proxyUrl() + "/v1/jobs/" + id)->body);
                return st["state"] != "running";
            },
            20000));
        QVERIFY2(st["state"] == "failed", st.dump().c_str());
        QCOMPARE(st["progress"]["counters"]["unrepairable"].get<int>(), 1);
        QVERIFY2(st["error"].get<std::string>().find("single/victim") != std::string::npos, st.dump().c_str());
        const auto missing = runJob(c, "scrub", json{{"bucket", "nope-bucket"}}).value("start", "");
        QVERIFY2(json::parse(missing).value("status", 0) == 404, missing.c_str());
    }

    // An owner whose copy vanished (its disk was replaced): the holder's
    // copy is sent back by the next reprotect; a copy the owner deleted is not.
    void holderRestoresAnOwnersLostCopy()
    {
        tests::LocalCluster c{tests::LocalCluster::Options{3, 1, false, 200, 3, {"--rebalance-auto", "false"}, {}}};
        QVERIFY2(c.start(), c.error().c_str());
        createBucket(c, "lost");
        QCOMPARE(setProps(c, "lost", mirror(2)).status, 200);
        QVERIFY(waitForJobs(c, "reprotect")["state"] == "finished");
        const auto bytes = randomBytes(70000, 5);
        QCOMPARE(http().send(Method::Put, objUrl(c, "lost", "gone-here"), Body::string(bytes))->status, 200);
        QCOMPARE(http().send(Method::Put, objUrl(c, "lost", "deleted"), Body::string(bytes))->status, 200);
        QCOMPARE(http().send(Method::Delete, objUrl(c, "lost", "deleted"))->status, 200);
        const int owner = ownerIndex(c, "lost", "gone-here");
        const auto path = filePath(c, owner, "lost", "gone-here");
        QVERIFY(!path.empty());
        QVERIFY(QFile::remove(QString::fromStdString(path)));  // no tombstone: lost, not deleted
        auto read = http().send(Method::Get, objUrl(c, "lost", "gone-here"));
        QVERIFY(read->status == 200 && read->body == bytes);

        const auto st = runJob(c, "reprotect", json{{"bucket", "lost"}});
        QVERIFY2(st["state"] == "finished", st.dump().c_str());
        QCOMPARE(st["progress"]["counters"].value("copies_restored", 0), 1);
        QFile back(QString::fromStdString(path));
        QVERIFY(back.open(QIODevice::ReadOnly));
        QVERIFY(back.readAll().toStdString() == bytes);
        QCOMPARE(holders(c, "lost", "gone-here").size(), std::size_t{2});
        QCOMPARE(holders(c, "lost", "deleted").size(), std::size_t{0});
        QCOMPARE(http().send(Method::Get, objUrl(c, "lost", "deleted"))->status, 404);

        // Lost on its owner again, then deleted: the holder's copy goes and
        // the DELETE says it removed something (200, not 404).
        QVERIFY(QFile::remove(QString::fromStdString(path)));
        auto del = http().send(Method::Delete, objUrl(c, "lost", "gone-here"));
        QVERIFY(del);
        QVERIFY2(del->status == 200, del->body.c_str());
        QCOMPARE(holders(c, "lost", "gone-here").size(), std::size_t{0});
        QCOMPARE(http().send(Method::Get, objUrl(c, "lost", "gone-here"))->status, 404);
        // Deleting it again: nothing anywhere, 404.
        QCOMPARE(http().send(Method::Delete, objUrl(c, "lost", "gone-here"))->status, 404);
    }

    // A holder killed and not yet known to be away: the owner cannot reach
    // it, so a PUT answers 503 "nothing changed" and changes nothing (the
    // old version is served; a new name stays absent, a 404 even while
    // the holder is away); a DELETE likewise.
    void failedCopyChangesNothing()
    {
        // Slow keepalives: the proxy takes seconds to mark the holder away.
        tests::LocalCluster c{tests::LocalCluster::Options{3, 1, false, 2000, 3, {"--rebalance-auto", "false"}, {}}};
        QVERIFY2(c.start(), c.error().c_str());
        createBucket(c, "fail");
        QCOMPARE(setProps(c, "fail", mirror(2)).status, 200);
        QVERIFY(waitForJobs(c, "reprotect")["state"] == "finished");
        const auto p = props(c, "fail");
        const auto v1 = randomBytes(40000, 21);
        QCOMPARE(http().send(Method::Put, objUrl(c, "fail", "kept"), Body::string(v1))->status, 200);
        const int owner = ownerIndex(c, "fail", "kept");
        int holder = -1;
        for (int t : expectedHolders(c, p, "fail", "kept")) {
            if (t != owner) holder = t;
        }
        // A new name with the same pair of holders.
        std::string fresh;
        for (int i = 0; fresh.empty(); ++i) {
            const auto name = "new-" + std::to_string(i);
            if (expectedHolders(c, p, "fail", name) == expectedHolders(c, p, "fail", "kept") &&
                ownerIndex(c, "fail", name) == owner) {
                fresh = name;
            }
        }
        c.killTarget(holder);
        auto put = http().send(Method::Put, objUrl(c, "fail", "kept"), Body::string(randomBytes(40000, 22)));
        QCOMPARE(put->status, 503);
        QVERIFY2(put->body.find("nothing changed") != std::string::npos, put->body.c_str());
        auto putNew = http().send(Method::Put, objUrl(c, "fail", fresh), Body::string(v1));
        QCOMPARE(putNew->status, 503);
        auto del = http().send(Method::Delete, objUrl(c, "fail", "kept"));
        QCOMPARE(del->status, 503);
        QVERIFY2(del->body.find("nothing changed") != std::string::npos, del->body.c_str());
        auto got = http().send(Method::Get, objUrl(c, "fail", "kept"));
        QVERIFY(got->status == 200 && got->body == v1);
        QCOMPARE(http().send(Method::Get, objUrl(c, "fail", fresh))->status, 404);
        // Once it is known to be away: the same answers.
        QVERIFY(QTest::qWaitFor([&] { return c.smap().tmap.at(c.targetId(holder)).away(); }, 15000));
        got = http().send(Method::Get, objUrl(c, "fail", "kept"));
        QVERIFY(got->status == 200 && got->body == v1);
        QCOMPARE(http().send(Method::Get, objUrl(c, "fail", fresh))->status, 404);
    }

    // A target killed and started again within its keepalive window never
    // shows as away: its join all the same starts a rebalance when buckets
    // keep copies, which brings its copies up to date.
    void fastRestartStartsARebalance()
    {
        tests::LocalCluster c{tests::LocalCluster::Options{3, 1, false, 2000, 3, {"--rebalance-delay-ms", "200"}, {}}};
        QVERIFY2(c.start(), c.error().c_str());
        createBucket(c, "fast");
        QCOMPARE(setProps(c, "fast", mirror(2)).status, 200);
        QVERIFY(waitForJobs(c, "reprotect")["state"] == "finished");
        const auto rebalances = [&] {
            int n = 0;
            auto r = http().send(Method::Get, c.proxyUrl() + "/v1/jobs");
            for (const auto& j : json::parse(r->body)) n += j["kind"] == "rebalance";
            return n;
        };
        (void)waitForJobs(c, "rebalance");  // the cluster's formation, if any
        const int before = rebalances();
        const auto version = c.smap().version;
        c.killTarget(2);
        QVERIFY(c.restartTarget(2));
        QVERIFY(!c.smap().tmap.at(c.targetId(2)).away());
        QCOMPARE(c.smap().version, version);  // nothing in the map says it was gone
        QVERIFY2(QTest::qWaitFor([&] { return rebalances() > before; }, 15000), "no rebalance after the restart");
        QVERIFY(waitForJobs(c, "rebalance")["state"] == "finished");
    }

    // Changes interrupted after they reached the holder but not the owner
    // (the owner killed in between): the owner's record of the change makes
    // the name a suspect, compared with the holder before it is served or
    // listed again, and the newest state wins: a version, and a deletion.
    void interruptedChangesAreReconciled()
    {
        tests::LocalCluster c{tests::LocalCluster::Options{3, 1, false, 200, 3, {"--rebalance-auto", "false"}, {}}};
        QVERIFY2(c.start(), c.error().c_str());
        createBucket(c, "intr");
        QCOMPARE(setProps(c, "intr", mirror(2)).status, 200);
        QVERIFY(waitForJobs(c, "reprotect")["state"] == "finished");
        const auto p = props(c, "intr");
        const auto v1 = randomBytes(50000, 11);
        const auto v2 = randomBytes(60000, 12);
        // Two names with the same owner, so that one restart covers both.
        std::string newer, deleted;
        int owner = -1;
        for (int i = 0; deleted.empty(); ++i) {
            const auto name = "n-" + std::to_string(i);
            const int o = ownerIndex(c, "intr", name);
            if (owner < 0) {
                owner = o;
                newer = name;
            } else if (o == owner) {
                deleted = name;
            }
        }
        QCOMPARE(http().send(Method::Put, objUrl(c, "intr", newer), Body::string(v1))->status, 200);
        QCOMPARE(http().send(Method::Put, objUrl(c, "intr", deleted), Body::string(v1))->status, 200);
        const auto holderOf = [&](const std::string& name) {
            for (int t : expectedHolders(c, p, "intr", name)) {
                if (t != owner) return t;
            }
            return -1;
        };
        QFile keyFile(c.clusterKeyFile());
        QVERIFY(keyFile.open(QIODevice::ReadOnly));
        const auto key = keyFile.readAll().trimmed().toStdString();
        const auto stamp = std::to_string(
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
                .count() +
            1'000'000'000'000LL);

        c.killTarget(owner);
        // What the holders took before the owner died: v2, and the deletion.
        auto took = http().send(Method::Put, c.targetUrl(holderOf(newer)) + "/v1/objects/intr/" + newer + "?copy=true",
                                Body::string(v2),
                                {{std::string(api::kHdrClusterKey), key},
                                 {std::string(api::kHdrVersionStamp), stamp},
                                 {std::string(api::kHdrVersion), "2"},
                                 {std::string(api::kHdrChecksumType), "xxhash"},
                                 {std::string(api::kHdrChecksumValue), api::xxhash64Hex(v2)}});
        QVERIFY(took);
        QVERIFY2(took->status == 200, took->body.c_str());
        auto removed = http().send(
            Method::Delete, c.targetUrl(holderOf(deleted)) + "/v1/objects/intr/" + deleted + "?copy=true", Body::none(),
            {{std::string(api::kHdrClusterKey), key}, {std::string(api::kHdrVersionStamp), stamp}});
        QVERIFY(removed);
        QVERIFY2(removed->status == 200, removed->body.c_str());
        // ... and the owner's records of the two changes in flight.
        const auto intents = c.targetMountpaths(owner).front() + "/.tessera/intent";
        QVERIFY(QDir().mkpath(QString::fromStdString(intents)));
        for (const auto& name : {newer, deleted}) {
            QFile rec(QString::fromStdString(intents + "/rec-" + name));
            QVERIFY(rec.open(QIODevice::WriteOnly));
            rec.write(QByteArray::fromStdString("intr\n" + name));
        }

        QVERIFY(c.restartTarget(owner));
        QVERIFY(c.waitForTargets(3, std::chrono::seconds(10)));
        auto got = http().send(Method::Get, objUrl(c, "intr", newer));
        QVERIFY2(got->status == 200 && got->body == v2, got->body.substr(0, 200).c_str());
        QCOMPARE(http().send(Method::Get, objUrl(c, "intr", deleted))->status, 404);
        int status = 0;
        const auto listed = listAll(c, "intr", &status);
        QCOMPARE(status, 200);
        QVERIFY(listed.count(newer) == 1 && listed.count(deleted) == 0);
        // Settled: the owner keeps v2 itself, the deletion everywhere, no record left.
        QFile here(QString::fromStdString(filePath(c, owner, "intr", newer)));
        QVERIFY(here.open(QIODevice::ReadOnly));
        QVERIFY(here.readAll().toStdString() == v2);
        QCOMPARE(holders(c, "intr", deleted).size(), std::size_t{0});
        QVERIFY(QTest::qWaitFor([&] { return QDir(QString::fromStdString(intents)).isEmpty(); }, 5000));
    }

    // A dead target decommissioned: the rebalance makes the copies it held
    // again on the others; the bucket's copies are complete afterwards.
    void decommissionRestoresCopies()
    {
        tests::LocalCluster c{tests::LocalCluster::Options{4, 1, false, 200, 3, {"--rebalance-delay-ms", "200"}, {}}};
        QVERIFY2(c.start(), c.error().c_str());
        createBucket(c, "kept");
        QCOMPARE(setProps(c, "kept", mirror(2)).status, 200);
        QVERIFY(waitForJobs(c, "reprotect")["state"] == "finished");
        std::vector<std::string> names;
        for (int i = 0; i < 30; ++i) {
            names.push_back("k-" + std::to_string(i));
            QCOMPARE(http().send(Method::Put, objUrl(c, "kept", names.back()), Body::string(names.back()))->status,
                     200);
        }
        c.killTarget(2);
        QVERIFY(c.waitForTargets(3, std::chrono::seconds(10)));
        QVERIFY(client::Client(c.proxyUrl()).decommissionNode(c.targetId(2)).ok());
        QVERIFY(QTest::qWaitFor([&] { return !props(c, "kept").mirror.pending; }, 20000));
        const auto p = props(c, "kept");
        for (const auto& n : names) {
            auto h = holders(c, "kept", n);
            h.erase(2);  // the dead target's disk still holds what it had
            QCOMPARE(h, expectedHolders(c, p, "kept", n));
            QCOMPARE(h.size(), std::size_t{2});
            QCOMPARE(http().send(Method::Get, objUrl(c, "kept", n))->body, n);
        }
    }
};

QTEST_GUILESS_MAIN(TestRedundancy)
#include "test_redundancy.moc"
