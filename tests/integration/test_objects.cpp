// Objects and buckets over real HTTP against a real 1 proxy + 3 target cluster.
#include "local_cluster.h"

#include "api/checksum.h"
#include "api/hrw.h"
#include "api/object_list.h"
#include "api/uri.h"

#include <QDirIterator>
#include <QTest>
#include <atomic>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <thread>

using namespace tessera;
using tessera::client::Body;
using tessera::client::HttpClient;
using tessera::client::Method;

namespace {
std::string randomBytes(std::size_t n, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(rng());
    return s;
}

HttpClient::Options noRedirects()
{
    HttpClient::Options o;
    o.followRedirects = false;
    o.retriesOn503 = 0;  // the tests look at the 503 itself
    return o;
}
}  // namespace

class TestObjects : public QObject {
    Q_OBJECT

private:
    tests::LocalCluster m_cluster;
    HttpClient m_http;

    std::string objUrl(const std::string& bucket, const std::string& name)
    {
        return m_cluster.proxyUrl() + "/v1/objects/" + bucket + "/" + api::percentEncode(name, true);
    }
    int put(const std::string& bucket, const std::string& name, const std::string& data, const client::Headers& h = {})
    {
        auto r = m_http.send(Method::Put, objUrl(bucket, name), Body::string(data), h);
        return r ? r->status : -1;
    }
    client::Response get(const std::string& bucket, const std::string& name, const client::Headers& h = {})
    {
        auto r = m_http.send(Method::Get, objUrl(bucket, name), {}, h);
        return r ? r.value() : client::Response{};
    }
    std::vector<api::ObjEntry> listAll(const std::string& bucket, std::uint32_t pageSize, const std::string& prefix,
                                       int* pages)
    {
        std::vector<api::ObjEntry> out;
        api::ListRequest req;
        req.pageSize = pageSize;
        req.prefix = prefix;
        req.props = api::kPropName | api::kPropSize | api::kPropChecksum;
        *pages = 0;
        while (true) {
            auto r = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/buckets/" + bucket + "?" +
                                                  api::buildQuery(api::listRequestToQuery(req)));
            if (!r || r->status != 200) return {};
            auto page = api::parseObjectList(r->body);
            if (!page) return {};
            ++*pages;
            if (page->entries.size() > pageSize) return {};
            for (auto& e : page->entries) out.push_back(e);
            if (page->continuationToken.empty()) break;
            req.continuationToken = page->continuationToken;
        }
        return out;
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        auto r = m_http.send(Method::Post, m_cluster.proxyUrl() + "/v1/buckets/data",
                             Body::string(R"({"action":"create-bck"})"));
        QVERIFY(r);
        QCOMPARE(r->status, 200);
    }

    void bucketLifecycle()
    {
        const auto base = m_cluster.proxyUrl() + "/v1/buckets/";
        auto r = m_http.send(Method::Post, base + "life-1", Body::string(R"({"action":"create-bck"})"));
        QCOMPARE(r->status, 200);
        r = m_http.send(Method::Post, base + "life-1", Body::string(R"({"action":"create-bck"})"));
        QCOMPARE(r->status, 409);
        r = m_http.send(Method::Head, base + "life-1");
        QCOMPARE(r->status, 200);
        auto props = nlohmann::json::parse(r->header("ais-bucket-props"));
        QCOMPARE(props["checksum"]["type"].get<std::string>(), std::string("xxhash"));
        r = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/buckets");
        QVERIFY(r->body.find("\"life-1\"") != std::string::npos);
        QCOMPARE(put("life-1", "x", "payload"), 200);
        r = m_http.send(Method::Delete, base + "life-1");
        QCOMPARE(r->status, 200);
        r = m_http.send(Method::Head, base + "life-1");
        QCOMPARE(r->status, 404);
        // Re-created empty: the old object is gone.
        r = m_http.send(Method::Post, base + "life-1", Body::string(R"({"action":"create-bck"})"));
        QCOMPARE(r->status, 200);
        QCOMPARE(get("life-1", "x").status, 404);
        r = m_http.send(Method::Delete, base + "life-1");
        QCOMPARE(r->status, 200);
        r = m_http.send(Method::Delete, base + "life-1");
        QCOMPARE(r->status, 404);
    }

    void badBucketNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("short") << "ab";
        QTest::newRow("upper") << "Abc";
        QTest::newRow("underscore") << "a_bc";
        QTest::newRow("dash-start") << "-abc";
        QTest::newRow("dot-end") << "abc.";
        QTest::newRow("double-dot") << "a..b";
        QTest::newRow("ip") << "10.1.2.3";
        QTest::newRow("long") << QString(64, 'a');
        QTest::newRow("encoded-slash") << "ab%2Fcd";
        QTest::newRow("bad-escape") << "ab%zz";
    }
    void badBucketNames()
    {
        QFETCH(QString, name);
        auto r = m_http.send(Method::Post, m_cluster.proxyUrl() + "/v1/buckets/" + name.toStdString(),
                             Body::string(R"({"action":"create-bck"})"));
        QVERIFY(r);
        QCOMPARE(r->status, 400);
        auto j = nlohmann::json::parse(r->body);
        QCOMPARE(j["status"].get<int>(), 400);
        QVERIFY(!j["message"].get<std::string>().empty());
        r = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/buckets");
        auto list = nlohmann::json::parse(r->body);
        QCOMPARE(list.size(), std::size_t{1});  // only "data"
    }

    void badObjectNames_data()
    {
        QTest::addColumn<QString>("rawPath");  // already percent-encoded as sent
        QTest::newRow("dotdot") << "a/../b";
        QTest::newRow("dotdot-encoded") << "%2e%2e/etc/passwd";
        QTest::newRow("dotdot-mixed") << "x/.%2E/y";
        QTest::newRow("dot") << "a/./b";
        QTest::newRow("leading-slash-encoded") << "%2Fetc/passwd";
        QTest::newRow("empty-component") << "a//b";
        QTest::newRow("trailing-slash") << "a/b/";
        QTest::newRow("nul") << "a%00b";
        QTest::newRow("backslash") << "a%5C..%5Cb";
        QTest::newRow("control") << "a%01b";
        QTest::newRow("bad-utf8") << "a%C3%28";
        QTest::newRow("bad-escape") << "a%G1";
        QTest::newRow("too-long") << QString(1025, 'n');
        QTest::newRow("component-too-long") << QString(256, 'c');
    }
    void badObjectNames()
    {
        QFETCH(QString, rawPath);
        const auto url = m_cluster.proxyUrl() + "/v1/objects/data/" + rawPath.toStdString();
        auto r = m_http.send(Method::Put, url, Body::string("evil"));
        QVERIFY(r);
        QCOMPARE(r->status, 400);
        QCOMPARE(nlohmann::json::parse(r->body)["status"].get<int>(), 400);
        // Straight at a target too: rejected before touching the disk.
        for (int i = 0; i < m_cluster.targetCount(); ++i) {
            auto t = m_http.send(Method::Put, m_cluster.targetUrl(i) + "/v1/objects/data/" + rawPath.toStdString(),
                                 Body::string("evil"));
            QVERIFY(t);
            QCOMPARE(t->status, 400);
        }
        // Nothing named "evil" anywhere under the test's data directory.
        QDirIterator it(m_cluster.dataDir(), QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            QFile f(it.next());
            if (f.size() == 4 && f.open(QIODevice::ReadOnly)) QVERIFY(f.readAll() != "evil");
        }
    }

    void putGetListTenThousand()
    {
        constexpr int kCount = 10000;
        constexpr int kThreads = 4;
        std::vector<std::string> names(kCount);
        for (int i = 0; i < kCount; ++i) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "bulk/%02d/obj-%05d.bin", i % 17, i);
            names[static_cast<std::size_t>(i)] = buf;
        }
        std::atomic<int> failures{0};
        std::vector<std::thread> threads;
        const auto proxy = m_cluster.proxyUrl();
        for (int t = 0; t < kThreads; ++t) {
            threads.emplace_back([&, t] {
                HttpClient http;
                for (int i = t; i < kCount; i += kThreads) {
                    const auto data = randomBytes(static_cast<std::size_t>(i % 3000), static_cast<std::uint64_t>(i));
                    const auto& n = names[static_cast<std::size_t>(i)];
                    auto r =
                        http.send(Method::Put, proxy + "/v1/objects/data/" + n, Body::string(data),
                                  {{"ais-checksum-type", "xxhash"}, {"ais-checksum-value", api::xxhash64Hex(data)}});
                    if (!r || r->status != 200) ++failures;
                }
            });
        }
        for (auto& th : threads) th.join();
        QCOMPARE(failures.load(), 0);

        // Every byte back, with the stored checksum (a sample of 1000 + all via listing).
        for (int i = 0; i < kCount; i += 10) {
            auto r = get("data", names[static_cast<std::size_t>(i)]);
            const auto want = randomBytes(static_cast<std::size_t>(i % 3000), static_cast<std::uint64_t>(i));
            QCOMPARE(r.status, 200);
            QVERIFY(r.body == want);
            QCOMPARE(r.header("ais-checksum-value"), api::xxhash64Hex(want));
        }

        int pages = 0;
        auto all = listAll("data", 1000, "bulk/", &pages);
        QCOMPARE(static_cast<int>(all.size()), kCount);
        QCOMPARE(pages, 10);
        auto sorted = names;
        std::sort(sorted.begin(), sorted.end());
        for (int i = 0; i < kCount; ++i) {
            const auto& e = all[static_cast<std::size_t>(i)];
            QCOMPARE(e.name, sorted[static_cast<std::size_t>(i)]);
        }
        std::map<std::string, int> index;
        for (int i = 0; i < kCount; ++i) index[names[static_cast<std::size_t>(i)]] = i;
        for (const auto& e : all) {
            const int i = index[e.name];
            const auto want = randomBytes(static_cast<std::size_t>(i % 3000), static_cast<std::uint64_t>(i));
            QCOMPARE(e.size, static_cast<std::int64_t>(want.size()));
            QCOMPARE(e.checksum, api::xxhash64Hex(want));
        }
        // An odd page size and a narrower prefix: still each exactly once, in order.
        auto odd = listAll("data", 777, "bulk/", &pages);
        QCOMPARE(static_cast<int>(odd.size()), kCount);
        QCOMPARE(pages, (kCount + 776) / 777);
        std::set<std::string> seen;
        for (const auto& e : odd) QVERIFY(seen.insert(e.name).second);
        auto sub = listAll("data", 100, "bulk/03/", &pages);
        int expected = 0;
        for (const auto& n : names) expected += n.rfind("bulk/03/", 0) == 0 ? 1 : 0;
        QCOMPARE(static_cast<int>(sub.size()), expected);
        QVERIFY(std::is_sorted(sub.begin(), sub.end(), [](auto& a, auto& b) { return a.name < b.name; }));

        // Page size limits.
        auto r = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/buckets/data?pagesize=10001");
        QCOMPARE(r->status, 400);
        r = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/buckets/data?pagesize=abc");
        QCOMPARE(r->status, 400);
    }

    // The proxy copies the targets' entries into its JSON page when every
    // target page is in the writer's exact form (UTF-8 names included), and
    // decodes and writes them when one is not (a name with a quote, which
    // JSON escapes). Pages that mix both, walked with a small page size,
    // still list every name once and in order, in JSON and in msgpack alike.
    void listNamesThatNeedEscapes()
    {
        std::vector<std::string> names;
        for (int i = 0; i < 40; ++i) {
            const auto n = std::to_string(i);
            names.push_back("esc/plain-" + n);
            if (i % 4 == 0) names.push_back("esc/quote\"" + n + "\"");
            if (i % 5 == 0) names.push_back("esc/\xc3\xa9t\xc3\xa9 " + n + ".png");  // "été n.png"
        }
        for (const auto& n : names) QCOMPARE(put("data", n, "x" + n), 200);
        std::sort(names.begin(), names.end());
        int pages = 0;
        const auto json = listAll("data", 7, "esc/", &pages);
        QCOMPARE(pages, static_cast<int>((names.size() + 6) / 7));
        std::vector<std::string> got;
        for (const auto& e : json) {
            got.push_back(e.name);
            QCOMPARE(e.size, static_cast<std::int64_t>(e.name.size() + 1));
        }
        QCOMPARE(got, names);

        got.clear();
        api::ListRequest req;
        req.pageSize = 7;
        req.prefix = "esc/";
        while (true) {
            auto r = m_http.send(
                Method::Get, m_cluster.proxyUrl() + "/v1/buckets/data?" + api::buildQuery(api::listRequestToQuery(req)),
                {}, {{"Accept", "application/msgpack"}});
            QVERIFY(r);
            QCOMPARE(r->status, 200);
            auto page = api::parseObjectListMsgpack(r->body);
            QVERIFY2(page.ok(), page.ok() ? "" : page.error().message.c_str());
            for (const auto& e : page->entries) got.push_back(e.name);
            if (page->continuationToken.empty()) break;
            req.continuationToken = page->continuationToken;
        }
        QCOMPARE(got, names);
    }

    void redirectsAtProxy()
    {
        QCOMPARE(put("data", "redir/one", "abc"), 200);
        HttpClient raw(noRedirects());
        auto smap = m_cluster.smap();
        const auto* owner = api::hrwTarget(smap, api::objectUname("data", "redir/one"));
        QVERIFY(owner != nullptr);
        for (auto m : {Method::Get, Method::Head, Method::Delete, Method::Put}) {
            auto r = raw.send(m, objUrl("data", "redir/one"), m == Method::Put ? Body::string("abc") : Body{});
            QVERIFY(r);
            QCOMPARE(r->status, 307);
            const auto loc = r->header("location");
            QVERIFY2(loc.rfind(owner->publicNet.url + "/v1/objects/data/redir/one?", 0) == 0, loc.c_str());
            QVERIFY(loc.find("smap_version=" + std::to_string(smap.version)) != std::string::npos);
        }
    }

    void directToTarget()
    {
        QCOMPARE(put("data", "direct/obj", "direct-bytes"), 200);
        auto smap = m_cluster.smap();
        const auto* owner = api::hrwTarget(smap, api::objectUname("data", "direct/obj"));
        HttpClient raw(noRedirects());
        for (int i = 0; i < m_cluster.targetCount(); ++i) {
            const auto base = m_cluster.targetUrl(i) + "/v1/objects/data/direct/obj?smap_version=";
            const bool isOwner = m_cluster.targetId(i) == owner->id;
            // Current version: the owner serves it, the others redirect.
            auto r = raw.send(Method::Get, base + std::to_string(smap.version));
            QVERIFY(r);
            if (isOwner) {
                QCOMPARE(r->status, 200);
                QCOMPARE(r->body, std::string("direct-bytes"));
            } else {
                QCOMPARE(r->status, 307);
                QVERIFY(r->header("location").rfind(owner->publicNet.url, 0) == 0);
            }
            // A stale version is never served by a non-owner.
            r = raw.send(Method::Get, base + "1");
            QCOMPARE(r->status, isOwner ? 200 : 307);
            // A version from the future: the target says retry.
            r = raw.send(Method::Get, base + std::to_string(smap.version + 100));
            QCOMPARE(r->status, 503);
            r = raw.send(Method::Get, base + "banana");
            QCOMPARE(r->status, 400);
        }
    }

    void ranges_data()
    {
        QTest::addColumn<QString>("range");
        QTest::addColumn<int>("status");
        QTest::addColumn<int>("offset");
        QTest::addColumn<int>("length");
        QTest::newRow("first-byte") << "bytes=0-0" << 206 << 0 << 1;
        QTest::newRow("middle") << "bytes=10-19" << 206 << 10 << 10;
        QTest::newRow("open-end") << "bytes=90-" << 206 << 90 << 10;
        QTest::newRow("suffix") << "bytes=-7" << 206 << 93 << 7;
        QTest::newRow("clamped") << "bytes=95-1000" << 206 << 95 << 5;
        QTest::newRow("suffix-larger") << "bytes=-500" << 206 << 0 << 100;
        QTest::newRow("at-size") << "bytes=100-" << 416 << 0 << 0;
        QTest::newRow("beyond") << "bytes=1000-2000" << 416 << 0 << 0;
        QTest::newRow("zero-suffix") << "bytes=-0" << 416 << 0 << 0;
        QTest::newRow("reversed") << "bytes=20-10" << 400 << 0 << 0;
        QTest::newRow("multi") << "bytes=0-1,5-6" << 400 << 0 << 0;
        QTest::newRow("unit") << "items=0-1" << 400 << 0 << 0;
        QTest::newRow("garbage") << "bytes=a-b" << 400 << 0 << 0;
    }
    void ranges()
    {
        QFETCH(QString, range);
        QFETCH(int, status);
        QFETCH(int, offset);
        QFETCH(int, length);
        const auto data = randomBytes(100, 42);
        QCOMPARE(put("data", "ranged", data), 200);
        auto r = get("data", "ranged", {{"Range", range.toStdString()}});
        QCOMPARE(r.status, status);
        if (status == 206) {
            QVERIFY(r.body == data.substr(static_cast<std::size_t>(offset), static_cast<std::size_t>(length)));
            QCOMPARE(r.header("content-range"),
                     "bytes " + std::to_string(offset) + "-" + std::to_string(offset + length - 1) + "/100");
        } else if (status == 416) {
            QCOMPARE(r.header("content-range"), std::string("bytes */100"));
        }
    }

    void headAndDelete()
    {
        const auto data = randomBytes(1234, 7);
        QCOMPARE(put("data", "meta/obj", data, {{"ais-custom-md", "label=cat,split=train"}}), 200);
        QCOMPARE(put("data", "meta/obj", data), 200);
        auto r = m_http.send(Method::Head, objUrl("data", "meta/obj"));
        QCOMPARE(r->status, 200);
        QCOMPARE(r->header("content-length"), std::string("1234"));
        QCOMPARE(r->header("ais-size"), std::string("1234"));
        QCOMPARE(r->header("ais-checksum-type"), std::string("xxhash"));
        QCOMPARE(r->header("ais-checksum-value"), api::xxhash64Hex(data));
        QCOMPARE(r->header("ais-version"), std::string("2"));
        QVERIFY(std::stoll(r->header("ais-atime")) > 0);
        QVERIFY(r->body.empty());
        r = m_http.send(Method::Delete, objUrl("data", "meta/obj"));
        QCOMPARE(r->status, 200);
        r = m_http.send(Method::Head, objUrl("data", "meta/obj"));
        QCOMPARE(r->status, 404);
        r = m_http.send(Method::Delete, objUrl("data", "meta/obj"));
        QCOMPARE(r->status, 404);
        QCOMPARE(get("nosuchbucket", "x").status, 404);
    }

    void checksumMismatchStoresNothing()
    {
        auto r = m_http.send(Method::Put, objUrl("data", "cksum/bad"), Body::string("hello"),
                             {{"ais-checksum-type", "xxhash"}, {"ais-checksum-value", "0123456789abcdef"}});
        QCOMPARE(r->status, 400);
        QCOMPARE(get("data", "cksum/bad").status, 404);
        r = m_http.send(Method::Put, objUrl("data", "cksum/bad"), Body::string("hello"),
                        {{"ais-checksum-type", "md5"}, {"ais-checksum-value", "x"}});
        QCOMPARE(r->status, 400);
        r = m_http.send(Method::Put, objUrl("data", "cksum/bad"), Body::string("hello"),
                        {{"ais-checksum-value", "nothex"}});
        QCOMPARE(r->status, 400);
        QCOMPARE(get("data", "cksum/bad").status, 404);
    }

    void nameConflicts()
    {
        QCOMPARE(put("data", "conf/a", "file"), 200);
        // "conf/a" is a file, so "conf/a/b" cannot live beside it on the same
        // mountpath of the same target; elsewhere both are fine.
        const auto smap = m_cluster.smap();
        const auto* ownerA = api::hrwTarget(smap, api::objectUname("data", "conf/a"));
        const auto* ownerB = api::hrwTarget(smap, api::objectUname("data", "conf/a/b"));
        bool sameMountpath = false;
        for (int i = 0; i < m_cluster.targetCount(); ++i) {
            if (m_cluster.targetId(i) != ownerA->id || ownerA->id != ownerB->id) continue;
            const auto mps = m_cluster.targetMountpaths(i);
            sameMountpath = api::hrwIndex(mps, api::objectUname("data", "conf/a")) ==
                            api::hrwIndex(mps, api::objectUname("data", "conf/a/b"));
        }
        const int status = put("data", "conf/a/b", "nested");
        QCOMPARE(status, sameMountpath ? 409 : 200);
        QCOMPARE(get("data", "conf/a").body, std::string("file"));
        QCOMPARE(get("data", "conf/a/b").status, sameMountpath ? 404 : 200);
    }

    void concurrentSameNamePut()
    {
        constexpr int kWriters = 8;
        std::vector<std::string> bodies;
        for (int i = 0; i < kWriters; ++i) bodies.push_back(randomBytes(512 * 1024, 1000 + i));
        for (int round = 0; round < 3; ++round) {
            std::vector<std::thread> threads;
            std::atomic<int> ok{0};
            for (int i = 0; i < kWriters; ++i) {
                threads.emplace_back([&, i] {
                    HttpClient http;
                    auto r = http.send(Method::Put, objUrl("data", "race/same"), Body::string(bodies[i]));
                    if (r && r->status == 200) ++ok;
                });
            }
            for (auto& t : threads) t.join();
            QCOMPARE(ok.load(), kWriters);
            auto r = get("data", "race/same");
            QCOMPARE(r.status, 200);
            const bool isOne = std::find(bodies.begin(), bodies.end(), r.body) != bodies.end();
            QVERIFY2(isOne, "the object is not exactly one writer's bytes");
            QCOMPARE(r.header("ais-checksum-value"), api::xxhash64Hex(r.body));
        }
    }

    void checksumValidationOnGet()
    {
        QCOMPARE(put("data", "verify/obj", "good bytes"), 200);
        auto r =
            m_http.send(Method::Patch, m_cluster.proxyUrl() + "/v1/buckets/data",
                        Body::string(R"({"action":"set-bprops","value":{"checksum":{"validate_warm_get":true}}})"));
        QCOMPARE(r->status, 200);
        QCOMPARE(get("data", "verify/obj").body, std::string("good bytes"));
        // Flip bytes on disk behind the target's back.
        bool corrupted = false;
        for (int i = 0; i < m_cluster.targetCount(); ++i) {
            for (const auto& mp : m_cluster.targetMountpaths(i)) {
                QFile f(QString::fromStdString(mp + "/buckets/data/verify/obj"));
                if (f.exists() && f.open(QIODevice::ReadWrite)) {
                    f.write("BAD");
                    corrupted = true;
                }
            }
        }
        QVERIFY(corrupted);
        r = m_http.send(Method::Get, objUrl("data", "verify/obj"));
        QCOMPARE(r->status, 422);
        QVERIFY(r->body.find("checksum mismatch") != std::string::npos);
        r = m_http.send(Method::Patch, m_cluster.proxyUrl() + "/v1/buckets/data",
                        Body::string(R"({"action":"set-bprops","value":{"checksum":{"validate_warm_get":false}}})"));
        QCOMPARE(r->status, 200);
        r = m_http.send(Method::Patch, m_cluster.proxyUrl() + "/v1/buckets/data",
                        Body::string(R"({"action":"set-bprops","value":{"nonsense":1}})"));
        QCOMPARE(r->status, 400);
    }

    void clusterEndpoints()
    {
        auto r = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/health");
        QCOMPARE(r->status, 200);
        r = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/cluster?what=node_stats");
        QCOMPARE(r->status, 200);
        auto j = nlohmann::json::parse(r->body);
        QCOMPARE(j["target"].size(), std::size_t{3});
        for (auto& [id, t] : j["target"].items()) QCOMPARE(t["mountpaths"].size(), std::size_t{2});
        r = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/cluster?what=bmd");
        QVERIFY(nlohmann::json::parse(r->body)["buckets"].contains("data"));
        r = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/daemon?what=config&format=tessera");
        QCOMPARE(nlohmann::json::parse(r->body)["role"].get<std::string>(), std::string("proxy"));
        r = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/cluster?what=nonsense");
        QCOMPARE(r->status, 400);
        r = m_http.send(Method::Get, m_cluster.proxyUrl() + "/v1/nowhere");
        QCOMPARE(r->status, 404);
        r = m_http.send(Method::Patch, m_cluster.proxyUrl() + "/v1/health");
        QCOMPARE(r->status, 405);
    }
};

QTEST_GUILESS_MAIN(TestObjects)
#include "test_objects.moc"
