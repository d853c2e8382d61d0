// Planned restarts against real processes: a target stopped with SIGTERM
// goes into maintenance at once (not after its keepalives lapse), answers
// what it has read, exits 0, and comes back out of maintenance when it
// rejoins; a rolling restart of every target under load loses no
// acknowledged write and fails no request with anything but a 503 naming a
// target; start/stop-maintenance over REST and through the CLI.
#include "local_cluster.h"

#include "api/hrw.h"
#include "client/api_client.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QTest>
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <thread>

using namespace tessera;
using nlohmann::json;
using tessera::client::Body;
using tessera::client::HttpClient;
using tessera::client::Method;

namespace {

constexpr const char* kBucket = "drain";

HttpClient::Options noRetry()
{
    HttpClient::Options o;
    o.retriesOn503 = 0;  // every 503 is seen and checked
    return o;
}

std::string action(const char* name, const std::string& sid)
{
    return json{{"action", name}, {"value", {{"sid", sid}}}}.dump();
}

// What the load saw. Anything but a 200, an expected 404 or a 503 naming a
// target is a failure: a transport error (refused, reset), a 500, a 503
// naming no target, or bytes that differ from the last acknowledged write.
struct Tally {
    std::atomic<int> ops{0};
    std::atomic<int> acked{0};        // 200s to PUT and DELETE
    std::atomic<int> unavailable{0};  // 503s naming a target
    std::mutex mutex;
    std::vector<std::string> failures;

    void fail(std::string what)
    {
        std::lock_guard lock(mutex);
        if (failures.size() < 20) failures.push_back(std::move(what));
    }
    std::string report()
    {
        std::lock_guard lock(mutex);
        std::string out;
        for (const auto& f : failures) out += f + "\n";
        return out;
    }
};

// One client's objects, written by it alone, with what was acknowledged
// for each: the digest of the last acknowledged PUT, or nullopt after an
// acknowledged DELETE. Run on its own thread; read after it ended.
class Worker {
public:
    Worker(std::string proxy, int id, std::vector<std::string> targets, bool deletes, Tally& tally)
        : m_proxy(std::move(proxy)), m_id(id), m_targets(std::move(targets)), m_deletes(deletes), m_tally(tally),
          m_rng(static_cast<std::uint64_t>(id) * 7919 + 17)
    {
    }

    void run(const std::atomic<bool>& stop)
    {
        HttpClient http(noRetry());
        std::uniform_int_distribution<int> pick(0, kNames - 1);
        std::uniform_int_distribution<int> op(0, 99);
        std::uniform_int_distribution<std::size_t> size(64 * 1024, 1024 * 1024);
        while (!stop.load()) {
            const auto name = "w" + std::to_string(m_id) + "/o-" + std::to_string(pick(m_rng));
            const auto url = m_proxy + "/v1/objects/" + kBucket + "/" + name;
            const int roll = op(m_rng);
            if (roll < 40) {
                const auto body = bytes(size(m_rng));
                auto r = http.send(Method::Put, url, Body::string(body));
                if (check(r, "PUT " + name) && r->status == 200) {
                    m_model[name] = digest(body);
                    ++m_tally.acked;
                }
            } else if (m_deletes && roll < 55) {
                auto r = http.send(Method::Delete, url);
                if (!check(r, "DELETE " + name)) continue;
                if (r->status == 200) {
                    m_model[name] = std::nullopt;
                    ++m_tally.acked;
                } else if (r->status == 404 && acknowledged(name)) {
                    m_tally.fail("DELETE " + name + ": 404 for an acknowledged object");
                }
            } else {
                auto r = http.send(Method::Get, url);
                if (!check(r, "GET " + name)) continue;
                if (r->status == 200 && (!acknowledged(name) || digest(r->body) != *m_model[name])) {
                    // An unacknowledged name has no bytes to serve.
                    m_tally.fail("GET " + name + ": bytes differ from the last acknowledged PUT");
                } else if (r->status == 404 && acknowledged(name)) {
                    m_tally.fail("GET " + name + ": 404 for an acknowledged object");
                }
            }
        }
    }

    // Every acknowledged write reads back as acknowledged.
    void verify(const std::string& proxy)
    {
        HttpClient http(noRetry());
        for (const auto& [name, want] : m_model) {
            auto r = http.send(Method::Get, proxy + "/v1/objects/" + kBucket + "/" + name);
            if (!r) {
                m_tally.fail("final GET " + name + ": " + r.error().message);
            } else if (want && (r->status != 200 || digest(r->body) != *want)) {
                m_tally.fail("final GET " + name + ": HTTP " + std::to_string(r->status) + ", not the acknowledged bytes");
            } else if (!want && r->status != 404) {
                m_tally.fail("final GET " + name + ": HTTP " + std::to_string(r->status) + " after its DELETE");
            }
        }
    }

    std::size_t known() const { return m_model.size(); }

private:
    static constexpr int kNames = 24;

    static std::size_t digest(const std::string& s) { return std::hash<std::string>{}(s); }

    std::string bytes(std::size_t n)
    {
        std::string out(n, '\0');
        std::uint64_t x = m_rng();
        for (std::size_t i = 0; i < n; i += 8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            std::memcpy(out.data() + i, &x, std::min<std::size_t>(8, n - i));
        }
        return out;
    }

    bool acknowledged(const std::string& name) const
    {
        auto it = m_model.find(name);
        return it != m_model.end() && it->second.has_value();
    }

    // Counts the answer; false (a failure recorded) unless it is a 200, a
    // 404 or a 503 naming a target.
    bool check(const api::Result<client::Response>& r, const std::string& what)
    {
        ++m_tally.ops;
        if (!r) {
            m_tally.fail(what + ": " + r.error().message);
            return false;
        }
        if (r->status == 200 || r->status == 404) return true;
        if (r->status == 503) {
            for (const auto& t : m_targets) {
                if (r->body.find("target " + t) != std::string::npos) {
                    ++m_tally.unavailable;
                    return false;
                }
            }
        }
        m_tally.fail(what + ": HTTP " + std::to_string(r->status) + " " + r->body);
        return false;
    }

    std::string m_proxy;
    int m_id;
    std::vector<std::string> m_targets;
    bool m_deletes;
    Tally& m_tally;
    std::mt19937_64 m_rng;
    std::map<std::string, std::optional<std::size_t>> m_model;
};

// Client threads over a cluster until stop().
class Load {
public:
    Load(tests::LocalCluster& c, int clients, bool deletes)
    {
        std::vector<std::string> ids;
        for (int i = 0; i < c.targetCount(); ++i) ids.push_back(c.targetId(i));
        for (int i = 0; i < clients; ++i) {
            m_workers.push_back(std::make_unique<Worker>(c.proxyUrl(), i, ids, deletes, m_tally));
        }
        for (auto& w : m_workers) m_threads.emplace_back([&w, this] { w->run(m_stop); });
    }
    ~Load() { stop(); }
    // Waits until `n` more operations were answered.
    bool advance(int n)
    {
        const int until = m_tally.ops.load() + n;
        return QTest::qWaitFor([&] { return m_tally.ops.load() >= until; }, 20000);
    }
    void stop()
    {
        m_stop = true;
        for (auto& t : m_threads) {
            if (t.joinable()) t.join();
        }
    }
    void verify(const std::string& proxy)
    {
        for (auto& w : m_workers) w->verify(proxy);
    }
    Tally& tally() { return m_tally; }

private:
    Tally m_tally;
    std::atomic<bool> m_stop{false};
    std::vector<std::unique_ptr<Worker>> m_workers;
    std::vector<std::thread> m_threads;
};

void createBucket(const std::string& proxy, const std::string& bucket)
{
    HttpClient http(noRetry());
    auto r =
        http.send(Method::Post, proxy + "/v1/buckets/" + bucket, Body::string(json{{"action", "create-bck"}}.dump()));
    QVERIFY(r);
    QCOMPARE(r->status, 200);
}

// Drains target i with SIGTERM: it must be in maintenance in the proxy's map
// within `markWithin` (set by the target's own call, not by missed
// keepalives) and exit 0 within `bound`. Returns the time to exit in ms, or
// -1 (with a warning saying why).
qint64 drainTarget(tests::LocalCluster& c, int i, std::chrono::milliseconds markWithin,
                   std::chrono::milliseconds bound)
{
    const auto id = c.targetId(i);
    QElapsedTimer clock;
    clock.start();
    c.terminateTarget(i);
    const bool marked = QTest::qWaitFor(
        [&] {
            const auto smap = c.smap();
            const auto* t = smap.findTarget(id);
            return t != nullptr && t->inMaintenance() && !t->missedKeepalives();
        },
        static_cast<int>(markWithin.count()));
    if (!marked) {
        qWarning("target %s not in maintenance within %lld ms", id.c_str(),
                 static_cast<long long>(markWithin.count()));
        return -1;
    }
    qInfo("target %s in maintenance after %lld ms", id.c_str(), static_cast<long long>(clock.elapsed()));
    int code = -1;
    if (!c.waitForTargetExit(i, bound, &code) || code != 0) {
        qWarning("target %s did not exit 0 within %lld ms (code %d):\n%s", id.c_str(),
                 static_cast<long long>(bound.count()), code, c.targetLogTail(i).c_str());
        return -1;
    }
    return clock.elapsed();
}

}  // namespace

class TestDrain : public QObject {
    Q_OBJECT

private slots:
    // SIGTERM under PUT/GET load of 64 KiB..1 MiB objects: maintenance at
    // once, exit 0 within the bound, no reset and no 500, every
    // acknowledged PUT intact after the restart, the flag gone.
    void sigtermDrainsUnderLoad()
    {
        // Keepalives lapse after 5 s: the maintenance flag comes long before.
        tests::LocalCluster c{
            tests::LocalCluster::Options{3, 1, false, 500, 10, {}, {"--drain-timeout-ms", "10000"}}};
        QVERIFY2(c.start(), c.error().c_str());
        createBucket(c.proxyUrl(), kBucket);
        const auto id = c.targetId(1);
        Load load(c, 4, false);
        QVERIFY(load.advance(40));

        const auto took = drainTarget(c, 1, std::chrono::milliseconds(2000), std::chrono::seconds(15));
        QVERIFY(took >= 0);
        qInfo("drained and exited in %lld ms", static_cast<long long>(took));
        QVERIFY2(c.targetLogTail(1).find("every request in flight was answered") != std::string::npos,
                 c.targetLogTail(1).c_str());
        QVERIFY(load.advance(30));  // with the target down: its objects answer 503 naming it

        QVERIFY(c.restartTarget(1));
        const auto back = c.smap().findTarget(id);
        QVERIFY(back != nullptr);
        QCOMPARE(back->flags, std::uint64_t{0});
        QVERIFY(load.advance(30));
        load.stop();
        load.verify(c.proxyUrl());
        QVERIFY2(load.tally().failures.empty(), load.tally().report().c_str());
        QVERIFY(load.tally().acked.load() > 0);
        QVERIFY2(load.tally().unavailable.load() > 0, "the drained target's objects were asked for while it was down");
    }

    // Every target in turn: SIGTERM, exit 0, restart, under PUT/GET/DELETE.
    // Nothing acknowledged is lost, nothing fails but with a 503 naming a
    // target, and no rebalance runs (a restart changes no placement).
    void rollingRestartUnderMixedLoad()
    {
        tests::LocalCluster c{tests::LocalCluster::Options{
            3, 2, false, 300, 10, {"--rebalance-delay-ms", "0"}, {"--drain-timeout-ms", "10000"}}};
        QVERIFY2(c.start(), c.error().c_str());
        createBucket(c.proxyUrl(), kBucket);
        Load load(c, 4, true);
        QVERIFY(load.advance(30));
        for (int i = 0; i < c.targetCount(); ++i) {
            // Keepalives would lapse after 3 s.
            QVERIFY2(drainTarget(c, i, std::chrono::milliseconds(1500), std::chrono::seconds(15)) >= 0,
                     c.targetId(i).c_str());
            QVERIFY(load.advance(10));
            QVERIFY(c.restartTarget(i));
            QVERIFY(c.waitForTargets(3, std::chrono::seconds(10)));
            QVERIFY(load.advance(10));
        }
        load.stop();
        load.verify(c.proxyUrl());
        QVERIFY2(load.tally().failures.empty(), load.tally().report().c_str());
        QVERIFY(load.tally().acked.load() > 0);
        QVERIFY(load.tally().unavailable.load() > 0);

        HttpClient http(noRetry());
        auto jobs = http.send(Method::Get, c.proxyUrl() + "/v1/jobs");
        QVERIFY(jobs && jobs->status == 200);
        for (const auto& j : json::parse(jobs->body)) QVERIFY2(j.value("kind", "") != "rebalance", jobs->body.c_str());
    }

    // start-maintenance and stop-maintenance over REST and through the CLI,
    // with their refusals: 404 for an unknown id, 400 for the proxy's or a
    // bad value, 409 to stop one that is not running.
    void maintenanceActions()
    {
        tests::LocalCluster c{tests::LocalCluster::Options{2, 1, false, 200, 3, {}, {}}};
        QVERIFY2(c.start(), c.error().c_str());
        createBucket(c.proxyUrl(), kBucket);
        HttpClient http(noRetry());
        const auto cluster = c.proxyUrl() + "/v1/cluster";
        const auto t0 = c.targetId(0);
        const auto put = [&](const std::string& sid, const char* act) {
            return http.send(Method::Put, cluster, Body::string(action(act, sid)));
        };
        const auto message = [](const api::Result<client::Response>& r) {
            return json::parse(r->body).value("message", std::string());
        };

        auto r = put("nosuch", "start-maintenance");
        QCOMPARE(r->status, 404);
        QCOMPARE(message(r), std::string("target \"nosuch\" is not in the cluster map"));
        r = put(c.smap().primary.id, "start-maintenance");
        QCOMPARE(r->status, 400);
        QVERIFY2(message(r).find("is a proxy") != std::string::npos, r->body.c_str());
        r = http.send(Method::Put, cluster, Body::string(json{{"action", "start-maintenance"}}.dump()));
        QCOMPARE(r->status, 400);
        QCOMPARE(message(r), std::string("/value: must be a JSON object"));
        r = http.send(Method::Put, cluster, Body::string(action("start-maintenance", t0)),
                      {{"tessera-cluster-key", std::string(64, 'a')}});
        QCOMPARE(r->status, 403);

        // An object of t0's and the listing answer 503 naming it.
        const auto before = c.smap();
        std::string owned;
        for (int i = 0; owned.empty(); ++i) {
            const auto n = "m-" + std::to_string(i);
            if (api::hrwTarget(before, api::objectUname(kBucket, n))->id == t0) owned = n;
        }
        const auto obj = c.proxyUrl() + "/v1/objects/" + kBucket + "/" + owned;
        QCOMPARE(http.send(Method::Put, obj, Body::string("kept"))->status, 200);

        r = put(t0, "start-maintenance");
        QCOMPARE(r->status, 200);
        QCOMPARE(json::parse(r->body), (json{{"smap_version", before.version + 1}}));
        auto smap = c.smap();
        QVERIFY(smap.findTarget(t0)->inMaintenance());
        QVERIFY(smap.findTarget(t0)->away());
        QVERIFY(!smap.findTarget(t0)->missedKeepalives());
        r = http.send(Method::Get, obj);
        QCOMPARE(r->status, 503);
        QVERIFY2(message(r).find("target " + t0) != std::string::npos, r->body.c_str());
        QVERIFY2(message(r).find("in maintenance") != std::string::npos, r->body.c_str());
        r = http.send(Method::Get, c.proxyUrl() + "/v1/buckets/" + kBucket);
        QCOMPARE(r->status, 503);
        QVERIFY2(message(r).find("listing incomplete: target " + t0) != std::string::npos, r->body.c_str());
        QVERIFY(message(r).find("in maintenance") != std::string::npos);
        // Twice is the same; a present target in maintenance cannot be decommissioned.
        r = put(t0, "start-maintenance");
        QCOMPARE(r->status, 200);
        QCOMPARE(json::parse(r->body)["smap_version"].get<std::int64_t>(), before.version + 1);
        QCOMPARE(put(t0, "decommission-node")->status, 409);
        // Its keepalives go on: it stays in maintenance, not away.
        QVERIFY(!QTest::qWaitFor([&] { return c.smap().findTarget(t0)->missedKeepalives(); }, 1000));

        r = put(t0, "stop-maintenance");
        QCOMPARE(r->status, 200);
        QCOMPARE(json::parse(r->body)["smap_version"].get<std::int64_t>(), before.version + 2);
        QCOMPARE(c.smap().findTarget(t0)->flags, std::uint64_t{0});
        r = http.send(Method::Get, obj);
        QCOMPARE(r->status, 200);
        QCOMPARE(r->body, std::string("kept"));
        QCOMPARE(put("nosuch", "stop-maintenance")->status, 404);

        // The CLI: start, shown by cluster show, stop; its refusals exit 1.
        const auto cli = [&](const QStringList& args, QByteArray* out, QByteArray* err) {
            QProcess p;
            p.start(TESSERA_CLI_BINARY, QStringList{"--endpoint", QString::fromStdString(c.proxyUrl())} + args);
            if (!p.waitForFinished(20000)) return -1;
            if (out != nullptr) *out = p.readAllStandardOutput();
            if (err != nullptr) *err = p.readAllStandardError();
            return p.exitCode();
        };
        const auto t1 = QString::fromStdString(c.targetId(1));
        QByteArray out;
        QByteArray err;
        QCOMPARE(cli({"node", "maintenance", "start", t1}, &out, &err), 0);
        QVERIFY2(out.contains("is in maintenance"), out.constData());
        QCOMPARE(cli({"cluster", "show"}, &out, &err), 0);
        QVERIFY2(out.contains("target (maintenance)"), out.constData());
        QCOMPARE(cli({"node", "maintenance", "stop", t1}, &out, &err), 0);
        QVERIFY2(out.contains("is out of maintenance"), out.constData());
        QCOMPARE(cli({"cluster", "show"}, &out, &err), 0);
        QVERIFY(!out.contains("(maintenance)"));
        QCOMPARE(cli({"node", "maintenance", "start", "nosuch"}, &out, &err), 1);
        QVERIFY2(err.contains("not in the cluster map"), err.constData());
        QCOMPARE(cli({"node", "maintenance", "start", QString::fromStdString(c.smap().primary.id)}, &out, &err), 1);
        QVERIFY2(err.contains("is a proxy"), err.constData());
        QCOMPARE(cli({"node", "maintenance", "stop"}, &out, &err), 2);

        // A drained target is in maintenance and stopped: stopping its
        // maintenance is a 409 until it restarts, which clears the flag.
        QVERIFY(drainTarget(c, 1, std::chrono::milliseconds(2000), std::chrono::seconds(15)) >= 0);
        r = put(c.targetId(1), "stop-maintenance");
        QCOMPARE(r->status, 409);
        QVERIFY2(message(r).find("not sending keepalives") != std::string::npos, r->body.c_str());
        QCOMPARE(cli({"node", "maintenance", "stop", t1}, &out, &err), 1);
        QVERIFY2(err.contains("not sending keepalives"), err.constData());
        QVERIFY(c.smap().findTarget(c.targetId(1))->inMaintenance());
        QVERIFY(c.restartTarget(1));
        QCOMPARE(c.smap().findTarget(c.targetId(1))->flags, std::uint64_t{0});
    }
};

QTEST_GUILESS_MAIN(TestDrain)
#include "test_drain.moc"
