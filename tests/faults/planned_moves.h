#pragma once
// What the planned-move tests share (test_drain: SIGTERM, rolling restarts,
// maintenance; test_decommission: a live target leaving for good): a load
// of readers and writers checked against what was acknowledged, draining a
// target, rebalance counts, placement and the CLI.
#include "local_cluster.h"
#include "raw_connection.h"

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
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <thread>

namespace tessera::tests::moves {

using nlohmann::json;
using tessera::client::Body;
using tessera::client::HttpClient;
using tessera::client::Method;

inline constexpr const char* kBucket = "drain";

inline HttpClient::Options noRetry()
{
    HttpClient::Options o;
    o.retriesOn503 = 0;  // every 503 is seen and checked
    return o;
}

inline std::string action(const char* name, const std::string& sid)
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

inline void createBucket(const std::string& proxy, const std::string& bucket)
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
inline qint64 drainTarget(tests::LocalCluster& c, int i, std::chrono::milliseconds markWithin,
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
// flight for as long as the test wants. nullptr when that could not be set up.
inline std::unique_ptr<QTcpSocket> startUpload(tests::LocalCluster& c, int i, const std::string& name, std::size_t size)
{
    auto s = tests::openRaw(c, c.targetUrl(i));
    if (!s) return nullptr;
    const std::string head = "PUT /v1/objects/" + std::string(kBucket) + "/" + name +
                             " HTTP/1.1\r\nHost: t\r\nContent-Length: " + std::to_string(size) +
                             "\r\nExpect: 100-continue\r\n\r\n";
    s->write(head.data(), static_cast<qint64>(head.size()));
    QByteArray got;
    const bool continued = QTest::qWaitFor(
        [&] {
            s->waitForReadyRead(10);
            got += s->readAll();
            return got.contains("\r\n\r\n");
        },
        5000);
    if (!continued || !got.startsWith("HTTP/1.1 100")) return nullptr;
    return s;
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

inline Rebalances rebalances(const std::string& proxy)
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
inline int formationRebalances(const std::string& proxy, std::size_t n)
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
inline std::string ownedBy(tests::LocalCluster& c, int i, const std::string& prefix)
{
    const auto smap = c.smap();
    for (int k = 0;; ++k) {
        const auto n = prefix + std::to_string(k);
        if (api::hrwTarget(smap, api::objectUname(kBucket, n))->id == c.targetId(i)) return n;
    }
}

// The indexes of the targets whose disks hold a file of bucket/name.
inline std::set<int> holders(tests::LocalCluster& c, const std::string& bucket, const std::string& name)
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
inline api::BucketProps bucketProps(const std::string& proxy, const std::string& bucket)
{
    HttpClient http(noRetry());
    auto r = http.send(Method::Get, proxy + "/v1/cluster?what=bmd");
    if (!r || r->status != 200) return {};
    return json::parse(r->body)["buckets"][bucket].get<api::BucketProps>();
}

inline json mirrorCopies(int copies)
{
    return json{{"mirror", {{"enabled", copies > 1}, {"copies", copies}, {"across_targets", true}}}};
}

// Runs the CLI against the cluster's proxy; its exit code (-1: it did not end).
inline int runCli(tests::LocalCluster& c, const QStringList& args, QByteArray* out, QByteArray* err,
                  int timeoutMs = 20000)
{
    QProcess p;
    p.start(TESSERA_CLI_BINARY, QStringList{"--endpoint", QString::fromStdString(c.proxyUrl())} + args);
    if (!p.waitForFinished(timeoutMs)) return -1;
    if (out != nullptr) *out = p.readAllStandardOutput();
    if (err != nullptr) *err = p.readAllStandardError();
    return p.exitCode();
}

}  // namespace tessera::tests::moves
