// Route table matching, captures and their decoding.
#include "net/router.h"

#include <QTest>

using namespace tessera;
using namespace tessera::daemon::net;
namespace http = boost::beast::http;

class TestRouter : public QObject {
    Q_OBJECT

private:
    Router m_router;

    Request req(http::verb v, const std::string& path)
    {
        Request r;
        r.method = v;
        r.path = path;
        return r;
    }
    std::string matched(http::verb v, const std::string& path, std::map<std::string, std::string, std::less<>>* params = nullptr)
    {
        auto r = req(v, path);
        auto m = m_router.match(r);
        if (!m || m->route == nullptr) return {};
        if (params) *params = r.params;
        return m->route->pattern;
    }

private slots:
    void initTestCase()
    {
        auto ok = [](const Request&) { return Response::ok(); };
        m_router.add(Route{http::verb::get, "/v1/buckets", Exec::Inline, ok, {}});
        m_router.add(Route{http::verb::get, "/v1/buckets/{bucket}", Exec::Inline, ok, {}});
        m_router.add(Route{http::verb::get, "/v1/objects/{bucket}/{name...}", Exec::Inline, ok, {}});
        m_router.add(Route{http::verb::delete_, "/v1/objects/{bucket}/{name...}", Exec::Inline, ok, {}});
    }

    void exactAndCaptures()
    {
        QCOMPARE(matched(http::verb::get, "/v1/buckets"), std::string("/v1/buckets"));
        QCOMPARE(matched(http::verb::get, "/v1/buckets/"), std::string("/v1/buckets"));
        std::map<std::string, std::string, std::less<>> p;
        QCOMPARE(matched(http::verb::get, "/v1/buckets/data", &p), std::string("/v1/buckets/{bucket}"));
        QCOMPARE(p["bucket"], std::string("data"));
        QCOMPARE(matched(http::verb::get, "/v1/objects/data/a/b/c.jpg", &p), std::string("/v1/objects/{bucket}/{name...}"));
        QCOMPARE(p["bucket"], std::string("data"));
        QCOMPARE(p["name"], std::string("a/b/c.jpg"));
    }

    void capturesAreDecoded()
    {
        std::map<std::string, std::string, std::less<>> p;
        QVERIFY(!matched(http::verb::get, "/v1/objects/data/sp%20ace/%2e%2e/x%2Fy", &p).empty());
        QCOMPARE(p["name"], std::string("sp ace/../x/y"));  // validation is the handler's job
        auto r = req(http::verb::get, "/v1/objects/data/bad%zz");
        auto m = m_router.match(r);
        QVERIFY(!m.ok());
        QCOMPARE(m.kind(), api::ErrorKind::BadRequest);
    }

    void misses()
    {
        auto r = req(http::verb::put, "/v1/buckets/data");
        auto m = m_router.match(r);
        QVERIFY(m.ok());
        QVERIFY(m->route == nullptr);
        QVERIFY(m->pathMatched);  // 405, not 404
        r = req(http::verb::get, "/v1/nothing");
        m = m_router.match(r);
        QVERIFY(m->route == nullptr);
        QVERIFY(!m->pathMatched);
        QVERIFY(matched(http::verb::get, "/v1/objects/data").empty());   // no name
        QVERIFY(matched(http::verb::get, "/v1/objects/data/").empty());  // empty name
        QVERIFY(matched(http::verb::get, "/v1/buckets/a/b").empty());
        QVERIFY(matched(http::verb::get, "/v1/bucketsX").empty());
    }
};

QTEST_APPLESS_MAIN(TestRouter)
#include "test_router.moc"
