// Planned restarts against real processes: a target stopped with SIGTERM
// goes into maintenance at once (not after its keepalives lapse), answers
// what it has read, exits 0, and comes back out of maintenance when it
// rejoins; a rolling restart of every target under load loses no
// acknowledged write and fails no request with anything but a 503 naming a
// target; start/stop-maintenance over REST and through the CLI; a live
// target decommissioned (a planned move) while every object is read.
#include "local_cluster.h"

#include "api/bmd.h"
#include "api/hrw.h"
#include "client/api_client.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QScopeGuard>
#include <QTcpSocket>
#include <QTest>
#include <QUrl>
#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
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
                m_tally.fail("final GET " + name + ": HTTP " + std::to_string(r->status) +
                             ", not the acknowledged bytes");
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
qint64 drainTarget(tests::LocalCluster& c, int i, std::chrono::milliseconds markWithin, std::chrono::milliseconds bound)
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
        qWarning("target %s not in maintenance within %lld ms", id.c_str(), static_cast<long long>(markWithin.count()));
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

// A PUT of `size` bytes to target i whose head the target has read (it
// answered 100 Continue) and whose body is not sent yet: a request in
// flight for as long as the test wants.
bool startUpload(QTcpSocket& s, tests::LocalCluster& c, int i, const std::string& name, std::size_t size)
{
    const auto url = QUrl(QString::fromStdString(c.targetUrl(i)));
    s.connectToHost(url.host(), static_cast<quint16>(url.port()));
    if (!s.waitForConnected(5000)) return false;
    const std::string head = "PUT /v1/objects/" + std::string(kBucket) + "/" + name +
                             " HTTP/1.1\r\nHost: t\r\nContent-Length: " + std::to_string(size) +
                             "\r\nExpect: 100-continue\r\n\r\n";
    s.write(head.data(), static_cast<qint64>(head.size()));
    QByteArray got;
    const bool continued = QTest::qWaitFor(
        [&] {
            got += s.readAll();
            return got.contains("\r\n\r\n");
        },
        5000);
    return continued && got.startsWith("HTTP/1.1 100");
}

// The rebalance jobs the proxy knows: how many, whether one runs, and how
// many finished over `targets` targets.
struct Rebalances {
    int count = 0;
    bool running = false;
    std::map<std::size_t, int> finished;  // by the number of targets
    int finishedOver(std::size_t targets) const
    {
        auto it = finished.find(targets);
        return it == finished.end() ? 0 : it->second;
    }
};

Rebalances rebalances(const std::string& proxy)
{
    HttpClient http(noRetry());
    auto r = http.send(Method::Get, proxy + "/v1/jobs");
    Rebalances out;
    if (!r || r->status != 200) return out;
    for (const auto& j : json::parse(r->body)) {
        if (j.value("kind", "") != "rebalance") continue;
        ++out.count;
        const auto state = j.value("state", "");
        out.running = out.running || state == "running";
        const auto n = j.value("targets", json::object()).size();
        if (state == "finished") ++out.finished[n];
    }
    return out;
}

// Waits until the rebalance the cluster's formation started (over all `n`
// targets; earlier ones over fewer may have been aborted) has finished and
// none runs; their count, or -1.
int formationRebalances(const std::string& proxy, std::size_t n)
{
    int count = -1;
    (void)QTest::qWaitFor(
        [&] {
            const auto r = rebalances(proxy);
            if (r.running || r.finishedOver(n) == 0) return false;
            count = r.count;
            return true;
        },
        20000);
    return count;
}

// A name target i owns.
std::string ownedBy(tests::LocalCluster& c, int i, const std::string& prefix)
{
    const auto smap = c.smap();
    for (int k = 0;; ++k) {
        const auto n = prefix + std::to_string(k);
        if (api::hrwTarget(smap, api::objectUname(kBucket, n))->id == c.targetId(i)) return n;
    }
}

// The indexes of the targets whose disks hold a file of bucket/name.
std::set<int> holders(tests::LocalCluster& c, const std::string& bucket, const std::string& name)
{
    std::set<int> out;
    for (int t = 0; t < c.targetCount(); ++t) {
        for (const auto& mp : c.targetMountpaths(t)) {
            if (QFile::exists(QString::fromStdString(mp + "/buckets/" + bucket + "/" + name))) out.insert(t);
        }
    }
    return out;
}

// The bucket's props as the proxy has them.
api::BucketProps bucketProps(const std::string& proxy, const std::string& bucket)
{
    HttpClient http(noRetry());
    auto r = http.send(Method::Get, proxy + "/v1/cluster?what=bmd");
    if (!r || r->status != 200) return {};
    return json::parse(r->body)["buckets"][bucket].get<api::BucketProps>();
}

json mirrorCopies(int copies)
{
    return json{{"mirror", {{"enabled", copies > 1}, {"copies", copies}, {"across_targets", true}}}};
}

// Runs the CLI against the cluster's proxy; its exit code (-1: it did not end).
int runCli(tests::LocalCluster& c, const QStringList& args, QByteArray* out, QByteArray* err, int timeoutMs = 20000)
{
    QProcess p;
    p.start(TESSERA_CLI_BINARY, QStringList{"--endpoint", QString::fromStdString(c.proxyUrl())} + args);
    if (!p.waitForFinished(timeoutMs)) return -1;
    if (out != nullptr) *out = p.readAllStandardOutput();
    if (err != nullptr) *err = p.readAllStandardError();
    return p.exitCode();
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
        tests::LocalCluster c{tests::LocalCluster::Options{3, 1, false, 500, 10, {}, {"--drain-timeout-ms", "10000"}}};
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
        qInfo("%d operations, %d acknowledged writes, %d 503s naming a target", load.tally().ops.load(),
              load.tally().acked.load(), load.tally().unavailable.load());
        QVERIFY(load.tally().acked.load() > 0);
        QVERIFY2(load.tally().unavailable.load() > 0, "the drained target's objects were asked for while it was down");
    }

    // A request whose head was read is answered, with Connection: close,
    // while the drain waits for it; an idle kept-alive connection is closed;
    // the target exits 0 once the answer is out.
    void inFlightAnsweredIdleClosed()
    {
        tests::LocalCluster c{tests::LocalCluster::Options{1, 1, false, 200, 3, {}, {"--drain-timeout-ms", "20000"}}};
        QVERIFY2(c.start(), c.error().c_str());
        createBucket(c.proxyUrl(), kBucket);
        const auto name = ownedBy(c, 0, "slow-");
        const auto url = QUrl(QString::fromStdString(c.targetUrl(0)));
        QTcpSocket idle;
        idle.connectToHost(url.host(), static_cast<quint16>(url.port()));
        QVERIFY(idle.waitForConnected(5000));
        idle.write("GET /v1/health HTTP/1.1\r\nHost: t\r\n\r\n");
        QByteArray answer;
        QVERIFY(QTest::qWaitFor(
            [&] {
                answer += idle.readAll();
                return answer.contains("\"status\":\"ok\"");
            },
            5000));
        QTcpSocket busy;
        const std::size_t size = 1 << 20;
        QVERIFY(startUpload(busy, c, 0, name, size));

        c.terminateTarget(0);
        QVERIFY(QTest::qWaitFor([&] { return c.smap().findTarget(c.targetId(0))->inMaintenance(); }, 3000));
        // The idle connection goes (after the redirect grace); the busy one stays.
        QVERIFY(QTest::qWaitFor([&] { return idle.state() == QAbstractSocket::UnconnectedState; }, 5000));
        QVERIFY(busy.state() == QAbstractSocket::ConnectedState);
        int code = -1;
        QVERIFY2(!c.waitForTargetExit(0, std::chrono::milliseconds(200), &code), "exited with a request in flight");

        const std::string body(size, 'd');
        busy.write(body.data(), static_cast<qint64>(body.size()));
        answer.clear();
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         answer += busy.readAll();
                         return answer.contains("\r\n\r\n");
                     },
                     10000),
                 (std::to_string(busy.bytesToWrite()) + " unsent, state " + std::to_string(busy.state()) + " " +
                  busy.errorString().toStdString())
                     .c_str());
        QVERIFY2(answer.startsWith("HTTP/1.1 200"), answer.constData());
        QVERIFY2(answer.contains("Connection: close"), answer.constData());
        QVERIFY(c.waitForTargetExit(0, std::chrono::seconds(10), &code));
        QCOMPARE(code, 0);
        QVERIFY2(c.targetLogTail(0).find("every request in flight was answered") != std::string::npos,
                 c.targetLogTail(0).c_str());

        QVERIFY(c.restartTarget(0));
        HttpClient http(noRetry());
        auto r = http.send(Method::Get, c.proxyUrl() + "/v1/objects/" + kBucket + "/" + name);
        QCOMPARE(r->status, 200);
        QVERIFY(r->body == body);
    }

    // drain_timeout_ms bounds the wait: a request that never finishes is
    // cut off and the target still exits 0. A second SIGTERM during a drain
    // exits at once.
    void drainIsBoundedSecondSignalExits()
    {
        tests::LocalCluster c{tests::LocalCluster::Options{1, 1, false, 200, 3, {}, {"--drain-timeout-ms", "1000"}}};
        QVERIFY2(c.start(), c.error().c_str());
        createBucket(c.proxyUrl(), kBucket);
        QTcpSocket stuck;
        QVERIFY(startUpload(stuck, c, 0, ownedBy(c, 0, "stuck-"), 4096));
        QElapsedTimer clock;
        clock.start();
        c.terminateTarget(0);
        int code = -1;
        QVERIFY(c.waitForTargetExit(0, std::chrono::seconds(10), &code));
        QCOMPARE(code, 0);
        QVERIFY2(clock.elapsed() >= 1000, "waited for the request in flight");
        QVERIFY2(c.targetLogTail(0).find("1 request(s) still in flight after 1000 ms") != std::string::npos,
                 c.targetLogTail(0).c_str());
        stuck.abort();

        // Again with a long bound, and a second signal.
        QVERIFY(c.restartTarget(0));
        QTcpSocket stuck2;
        QVERIFY(startUpload(stuck2, c, 0, ownedBy(c, 0, "stuck-"), 4096));
        c.terminateTarget(0);
        QVERIFY(QTest::qWaitFor([&] { return c.smap().findTarget(c.targetId(0))->inMaintenance(); }, 3000));
        QVERIFY(QTest::qWaitFor([&] { return c.targetLogTail(0).find("draining") != std::string::npos; }, 3000));
        clock.restart();
        c.terminateTarget(0);
        QVERIFY(c.waitForTargetExit(0, std::chrono::seconds(5), &code));
        QCOMPARE(code, 0);
        QVERIFY2(clock.elapsed() < 900, "the second signal ends the drain at once");
        QVERIFY2(c.targetLogTail(0).find("during the drain: exiting now") != std::string::npos,
                 c.targetLogTail(0).c_str());
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
        // The cluster's formation starts a rebalance; the restarts must not start another.
        const int formed = formationRebalances(c.proxyUrl(), 3);
        QVERIFY(formed > 0);
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
        qInfo("%d operations, %d acknowledged writes and deletes, %d 503s naming a target", load.tally().ops.load(),
              load.tally().acked.load(), load.tally().unavailable.load());
        QVERIFY(load.tally().acked.load() > 0);
        QVERIFY(load.tally().unavailable.load() > 0);

        // A rebalance due would start within the coordinator's next rounds.
        QVERIFY(!QTest::qWaitFor([&] { return rebalances(c.proxyUrl()).count > formed; }, 1500));
    }

    // A bucket mirrored across targets (2 copies): while a target is drained
    // and down, every object reads back from the other holder and listings
    // are complete; writes of the names it holds answer 503 naming it; after
    // its return the reprotect runs and everything reads back as written.
    void mirroredBucketReadsThroughADrain()
    {
        tests::LocalCluster c{tests::LocalCluster::Options{3, 1, false, 300, 10, {"--rebalance-delay-ms", "0"}, {}}};
        QVERIFY2(c.start(), c.error().c_str());
        createBucket(c.proxyUrl(), kBucket);
        const int formed = formationRebalances(c.proxyUrl(), 3);
        QVERIFY(formed > 0);
        HttpClient http(noRetry());
        const json mirror{{"mirror", {{"enabled", true}, {"copies", 2}, {"across_targets", true}}}};
        auto r = http.send(Method::Patch, c.proxyUrl() + "/v1/buckets/" + kBucket,
                           Body::string(json{{"action", "set-bprops"}, {"value", mirror}}.dump()));
        QVERIFY2(r && r->status == 200, r ? r->body.c_str() : "");
        const auto pending = [&] {
            auto b = http.send(Method::Get, c.proxyUrl() + "/v1/cluster?what=bmd");
            return json::parse(b->body)["buckets"][kBucket]["mirror"].value("pending", true);
        };
        QVERIFY(QTest::qWaitFor([&] { return !pending(); }, 20000));

        std::map<std::string, std::string> data;
        for (int i = 0; i < 24; ++i) {
            const auto name = "m/o-" + std::to_string(i);
            data[name] = std::string(1024 + static_cast<std::size_t>(i) * 1000, static_cast<char>('a' + i % 26));
            const auto url = c.proxyUrl() + "/v1/objects/" + kBucket + "/" + name;
            QCOMPARE(http.send(Method::Put, url, Body::string(data[name]))->status, 200);
        }
        const auto id = c.targetId(1);
        QVERIFY(drainTarget(c, 1, std::chrono::milliseconds(1500), std::chrono::seconds(15)) >= 0);
        int refused = 0;
        for (auto& [name, bytes] : data) {
            const auto url = c.proxyUrl() + "/v1/objects/" + kBucket + "/" + name;
            r = http.send(Method::Get, url);
            QCOMPARE(r->status, 200);
            QVERIFY(r->body == bytes);
            r = http.send(Method::Put, url, Body::string("v2 " + name));
            if (r->status == 200) {
                bytes = "v2 " + name;
                continue;
            }
            QCOMPARE(r->status, 503);
            QVERIFY2(r->body.find("target " + id) != std::string::npos, r->body.c_str());
            QVERIFY2(r->body.find("in maintenance") != std::string::npos, r->body.c_str());
            ++refused;
        }
        QVERIFY2(refused > 0 && refused < static_cast<int>(data.size()), std::to_string(refused).c_str());
        r = http.send(Method::Get, c.proxyUrl() + "/v1/buckets/" + kBucket);
        QCOMPARE(r->status, 200);
        QCOMPARE(json::parse(r->body)["entries"].size(), data.size());

        QVERIFY(c.restartTarget(1));
        // The return starts a rebalance (with its reprotect) for the mirrored bucket.
        const int finishedBefore = rebalances(c.proxyUrl()).finishedOver(3);
        QVERIFY(QTest::qWaitFor(
            [&] {
                const auto r = rebalances(c.proxyUrl());
                return r.count == formed + 1 && !r.running;
            },
            20000));
        QCOMPARE(rebalances(c.proxyUrl()).finishedOver(3), finishedBefore + 1);
        for (const auto& [name, bytes] : data) {
            r = http.send(Method::Get, c.proxyUrl() + "/v1/objects/" + kBucket + "/" + name);
            QCOMPARE(r->status, 200);
            QVERIFY(r->body == bytes);
        }
    }

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
        const auto joinReader = qScopeGuard([&] {
            stop = true;
            if (reader.joinable()) reader.join();
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
        QVERIFY2(tally.failures.empty(), tally.report().c_str());
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
        QCOMPARE(r->body, (json{{"smap_version", before.version + 1}}.dump()));
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
        // Its keepalives go on: it stays in maintenance, not away, and its id
        // cannot be taken over from another address.
        QVERIFY(!QTest::qWaitFor([&] { return c.smap().findTarget(t0)->missedKeepalives(); }, 1000));
        QFile keyFile(c.clusterKeyFile());
        QVERIFY(keyFile.open(QIODevice::ReadOnly));
        const json impostor{
            {"daemon_id", t0},
            {"daemon_type", "target"},
            {"public_net", {{"node_ip_addr", "127.0.0.1"}, {"daemon_port", 9}, {"direct_url", "http://127.0.0.1:9"}}}};
        r = http.send(Method::Post, c.proxyUrl() + "/v1/cluster/join", Body::string(impostor.dump()),
                      {{"tessera-cluster-key", keyFile.readAll().trimmed().toStdString()}});
        QCOMPARE(r->status, 409);

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
