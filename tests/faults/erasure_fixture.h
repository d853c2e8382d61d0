#pragma once
// What the erasure-coding fault tests share: 4 targets, a bucket coded 2+1
// (objects from 256 KiB cut into 2 data and 1 parity slice on the next 3
// targets of their HRW order; smaller ones copied whole to the next one),
// and helpers to find an object's targets and files.
#include "local_cluster.h"

#include "api/hrw.h"
#include "api/paths.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTest>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

namespace tessera::tests::erasure {

using nlohmann::json;
using tessera::client::Body;
using tessera::client::HttpClient;
using tessera::client::Method;

inline constexpr const char* kBucket = "coded";
inline constexpr std::int64_t kLimit = 256 * 1024;  // ec.objsize_limit
inline constexpr int kObjects = 20;

inline HttpClient::Options noRetry()
{
    HttpClient::Options o;
    o.retriesOn503 = 0;
    return o;
}

inline std::string randomBytes(std::size_t n, std::uint32_t seed)
{
    std::mt19937 gen(seed);
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(gen() & 0xff);
    return s;
}

// A ustar archive of `members` (name -> bytes).
inline std::string tarOf(const std::vector<std::pair<std::string, std::string>>& members)
{
    std::string out;
    for (const auto& [name, bytes] : members) {
        std::string h(512, '\0');
        const auto put = [&h](std::size_t at, const std::string& v) { h.replace(at, v.size(), v); };
        const auto octal = [](std::uint64_t v, int width) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%0*llo", width - 1, static_cast<unsigned long long>(v));
            return std::string(buf);
        };
        put(0, name);
        put(100, octal(0644, 8));
        put(108, octal(0, 8));
        put(116, octal(0, 8));
        put(124, octal(bytes.size(), 12));
        put(136, octal(1700000000, 12));
        put(148, std::string(8, ' '));
        h[156] = '0';
        put(257, std::string("ustar\0", 6));
        put(263, "00");
        unsigned sum = 0;
        for (unsigned char c : h) sum += c;
        put(148, octal(sum, 7));
        out += h + bytes + std::string((512 - bytes.size() % 512) % 512, '\0');
    }
    return out + std::string(1024, '\0');
}

class ErasureFixture {
protected:
    // Keepalives every 250 ms, away after 6 missed (1.5 s): a killed target
    // is away soon, and a live one on a loaded machine (CI runs two tests
    // at a time on 2 cores) is not taken for dead.
    tests::LocalCluster m_cluster{tests::LocalCluster::Options{4, 2, true, 250, 6, {"--rebalance-auto", "false"}, {}}};
    HttpClient m_http{noRetry()};

    std::string objUrl(const std::string& name) const
    {
        return m_cluster.proxyUrl() + "/v1/objects/" + kBucket + "/" + name;
    }
    int indexOf(const std::string& id) const
    {
        for (int i = 0; i < m_cluster.targetCount(); ++i) {
            if (m_cluster.targetId(i) == id) return i;
        }
        return -1;
    }
    // The object's targets in placement order: owner, then slices 0, 1, 2.
    std::vector<int> placement(const std::string& name)
    {
        const auto smap = m_cluster.smap();
        std::vector<int> out;
        for (const auto* n : api::hrwTargets(smap, api::objectUname(kBucket, name), 4)) out.push_back(indexOf(n->id));
        return out;
    }
    // The files of `name` under `sub` ("buckets" or ".tessera/ec") on target i.
    QStringList filesOf(int target, const std::string& sub, const std::string& name) const
    {
        QStringList out;
        for (const auto& mp : m_cluster.targetMountpaths(target)) {
            const auto p = QString::fromStdString(mp + "/" + sub + "/" + kBucket + "/" + name);
            if (QFile::exists(p)) out << p;
        }
        return out;
    }
    int countFiles(int target, const std::string& sub) const
    {
        int n = 0;
        for (const auto& mp : m_cluster.targetMountpaths(target)) {
            QDirIterator it(QString::fromStdString(mp + "/" + sub + "/" + kBucket), QDir::Files,
                            QDirIterator::Subdirectories);
            while (it.hasNext()) {
                it.next();
                ++n;
            }
        }
        return n;
    }
    int patchProps(const std::string& bucket, const json& value, std::string* body = nullptr)
    {
        auto r = m_http.send(Method::Patch, m_cluster.proxyUrl() + "/v1/buckets/" + bucket,
                             Body::string(json{{"action", "set-bprops"}, {"value", value}}.dump()));
        if (!r) return -1;
        if (body != nullptr) *body = r->body;
        return r->status;
    }
    void createBucket(const std::string& bucket)
    {
        auto r = m_http.send(Method::Post, m_cluster.proxyUrl() + "/v1/buckets/" + bucket,
                             Body::string(json{{"action", "create-bck"}}.dump()));
        QVERIFY(r);
        QCOMPARE(r->status, 200);
    }
    static std::uint64_t sliceSize(std::size_t size) { return (size + 1) / 2; }
    json waitForJob(const std::string& id)
    {
        json st;
        (void)QTest::qWaitFor(
            [&] {
                auto g = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/jobs/" + id);
                if (!g || g->status != 200) return false;
                st = json::parse(g->body);
                return st["state"] != "running";
            },
            30000);
        return st;
    }
    // Until the bucket's ec.pending is false (a reprotect ended cleanly).
    bool waitForProtected(const std::string& bucket)
    {
        const bool done = QTest::qWaitFor(
            [&] {
                auto r = m_http.send(Method::Head, m_cluster.proxyUrl() + "/v1/buckets/" + bucket);
                if (!r || r->status != 200) return false;
                return !json::parse(r->header("tessera-bucket-props-ext"))["ec"]["pending"].get<bool>();
            },
            20000);
        if (done) return true;
        // The job that enabling started failed (on this loaded 2-core machine
        // a target can miss its keepalives for a moment and be away): say
        // why, and run it again as an operator would.
        auto jobs = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/jobs");
        qWarning("still pending; jobs: %s", jobs ? jobs->body.c_str() : "?");

        auto r = m_http.send(Method::Post, m_cluster.proxyUrl() + "/v1/jobs",
                             Body::string(json{{"kind", "reprotect"}, {"args", {{"bucket", bucket}}}}.dump()));
        if (!r || r->status != 200) return false;
        return QTest::qWaitFor(
            [&] {
                auto h = m_http.send(Method::Head, m_cluster.proxyUrl() + "/v1/buckets/" + bucket);
                if (!h || h->status != 200) return false;
                return !json::parse(h->header("tessera-bucket-props-ext"))["ec"]["pending"].get<bool>();
            },
            20000);
    }
};

}  // namespace tessera::tests::erasure
