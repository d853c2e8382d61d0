// The batch read peers use to build shards, on a real object store without
// sockets: records in the order asked, exact bytes, not found, too large
// (size only), the answer cap, and bad bodies.
#include "jobs/batch_get_api.h"
#include "target/object_store.h"

#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

using namespace tessera;
using namespace tessera::daemon;

class TestBatchGet : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<target::ObjectStore> m_store;
    std::unique_ptr<jobs::BatchGetApi> m_api;
    net::Router m_router;

    void put(const std::string& name, const std::string& data)
    {
        auto w = m_store->beginPut("bkt", name, {});
        QVERIFY(w);
        QVERIFY((*w)->write(data.data(), data.size()));
        QVERIFY((*w)->commit());
    }

    net::Response call(const std::string& body)
    {
        net::Request req;
        req.method = boost::beast::http::verb::post;
        req.path = api::BatchGet::kPath;
        req.body = body;
        auto m = m_router.match(req);
        if (!m || m->route == nullptr) qFatal("no route");
        return m->route->handler(req);
    }

    std::vector<api::BatchGet::Record> records(std::string_view body)
    {
        std::vector<api::BatchGet::Record> out;
        api::BatchGet::Record r;
        while (auto used = api::BatchGet::parseRecord(body, r)) {
            out.push_back(r);
            body.remove_prefix(used);
        }
        if (!body.empty()) qFatal("trailing bytes in the answer");
        return out;
    }

private slots:
    void initTestCase()
    {
        target::ObjectStore::Options o;
        o.mountpaths = {(m_dir.path() + "/mp1").toStdString(), (m_dir.path() + "/mp2").toStdString()};
        o.fsync = false;
        auto s = target::ObjectStore::create(o);
        QVERIFY(s);
        m_store = std::move(s.value());
        m_api = std::make_unique<jobs::BatchGetApi>(*m_store);
        m_api->registerRoutes(m_router);
        put("a.png", "png bytes");
        put("dir/empty.cls", "");
        put("big.bin", std::string((std::size_t{4} << 20) + 1, 'x'));
    }

    void recordsInOrder()
    {
        auto r = call("{\"bucket\":\"bkt\",\"names\":[\"dir/empty.cls\",\"nope\",\"big.bin\",\"a.png\"]}");
        QCOMPARE(r.status, 200);
        const auto recs = records(r.body);
        QCOMPARE(recs.size(), std::size_t{4});
        QCOMPARE(recs[0].name, std::string("dir/empty.cls"));
        QCOMPARE(int(recs[0].status), int(api::BatchGet::kOk));
        QCOMPARE(recs[0].data, std::string());
        QCOMPARE(int(recs[1].status), int(api::BatchGet::kNotFound));
        QCOMPARE(int(recs[2].status), int(api::BatchGet::kTooLarge));
        QCOMPARE(recs[2].length, (std::uint64_t{4} << 20) + 1);
        QVERIFY(recs[2].data.empty());
        QCOMPARE(recs[3].data, std::string("png bytes"));
    }

    void partialRecordIsIncomplete()
    {
        auto r = call("{\"bucket\":\"bkt\",\"names\":[\"a.png\"]}");
        api::BatchGet::Record rec;
        for (std::size_t n = 0; n < r.body.size(); ++n)
            QCOMPARE(api::BatchGet::parseRecord(r.body.substr(0, n), rec), std::size_t{0});
        QCOMPARE(api::BatchGet::parseRecord(r.body, rec), r.body.size());
    }

    void badBodies_data()
    {
        QTest::addColumn<QString>("body");
        QTest::newRow("not json") << "{";
        QTest::newRow("no names") << "{\"bucket\":\"bkt\"}";
        QTest::newRow("bad bucket") << "{\"bucket\":\"../b\",\"names\":[]}";
        QTest::newRow("bad name") << "{\"bucket\":\"bkt\",\"names\":[\"../x\"]}";
        QTest::newRow("name type") << "{\"bucket\":\"bkt\",\"names\":[3]}";
    }

    void badBodies()
    {
        QFETCH(QString, body);
        QCOMPARE(call(body.toStdString()).status, 400);
    }

    void tooManyNames()
    {
        nlohmann::json names = nlohmann::json::array();
        for (std::size_t i = 0; i <= api::BatchGet::kMaxNames; ++i) names.push_back("a.png");
        QCOMPARE(call(nlohmann::json{{"bucket", "bkt"}, {"names", names}}.dump()).status, 400);
    }
};

QTEST_GUILESS_MAIN(TestBatchGet)
#include "test_batch_get.moc"
