// Route table matching: exact paths, one-segment and rest-of-path captures,
// percent-decoding of captures, 404 vs 405, trailing slashes.
#include "net/router.h"

#include <QTest>

using namespace tessera;
using namespace tessera::daemon::net;
namespace http = boost::beast::http;

namespace {
using Params = std::map<std::string, std::string, std::less<>>;

// Each route answers with its own status so a test can tell which handler
// the router picked, not only which pattern.
Route route(http::verb v, std::string pattern, int marker)
{
    return Route{v,
                 std::move(pattern),
                 Exec::Inline,
                 [marker](const Request&) {
                     Response r;
                     r.status = marker;
                     return r;
                 },
                 {}};
}
}  // namespace

class TestRouter : public QObject {
    Q_OBJECT

private:
    Router m_router;

    // The marker of the matched handler; 0 when no route matched, -1 on a
    // match error. `params` receives the decoded captures.
    int dispatch(http::verb v, const std::string& path, Params* params = nullptr)
    {
        Request r;
        r.method = v;
        r.path = path;
        auto m = m_router.match(r);
        if (!m) return -1;
        if (m->route == nullptr) return 0;
        if (params) *params = r.params;
        return m->route->handler(r).status;
    }

private slots:
    void initTestCase()
    {
        m_router.add(route(http::verb::get, "/v1/health", 1));
        m_router.add(route(http::verb::get, "/v1/buckets", 2));
        m_router.add(route(http::verb::get, "/v1/buckets/{bucket}", 3));
        m_router.add(route(http::verb::post, "/v1/buckets/{bucket}", 4));
        m_router.add(route(http::verb::get, "/v1/objects/{bucket}/{name...}", 5));
        m_router.add(route(http::verb::delete_, "/v1/objects/{bucket}/{name...}", 6));
        m_router.add(route(http::verb::delete_, "/v1/internal/buckets/{bucket}", 7));
        m_router.add(route(http::verb::put, "/v1/metasync", 8));
    }

    void exactPaths()
    {
        QCOMPARE(dispatch(http::verb::get, "/v1/health"), 1);
        QCOMPARE(dispatch(http::verb::get, "/v1/buckets"), 2);
        QCOMPARE(dispatch(http::verb::put, "/v1/metasync"), 8);
        // Literal segments match whole segments only.
        QCOMPARE(dispatch(http::verb::get, "/v1/bucketsX"), 0);
        QCOMPARE(dispatch(http::verb::get, "/v1/bucket"), 0);
        QCOMPARE(dispatch(http::verb::get, "/v2/buckets"), 0);
        QCOMPARE(dispatch(http::verb::get, "/v1"), 0);
        QCOMPARE(dispatch(http::verb::get, "/"), 0);
        QCOMPARE(dispatch(http::verb::get, ""), 0);
        // Literal segments are not percent-decoded: "%62uckets" is not "buckets".
        QCOMPARE(dispatch(http::verb::get, "/v1/%62uckets"), 0);
    }

    void oneSegmentCapture()
    {
        Params p;
        QCOMPARE(dispatch(http::verb::get, "/v1/buckets/data", &p), 3);
        QCOMPARE(p.size(), std::size_t{1});
        QCOMPARE(p["bucket"], std::string("data"));
        QCOMPARE(dispatch(http::verb::post, "/v1/buckets/other", &p), 4);
        QCOMPARE(p["bucket"], std::string("other"));
        QCOMPARE(dispatch(http::verb::delete_, "/v1/internal/buckets/gone", &p), 7);
        QCOMPARE(p["bucket"], std::string("gone"));
        // One segment only; an empty segment is not a capture.
        QCOMPARE(dispatch(http::verb::get, "/v1/buckets/a/b"), 0);
        QCOMPARE(dispatch(http::verb::get, "/v1/buckets//"), 0);
    }

    void restCapture()
    {
        Params p;
        QCOMPARE(dispatch(http::verb::get, "/v1/objects/data/a/b/c.jpg", &p), 5);
        QCOMPARE(p.size(), std::size_t{2});
        QCOMPARE(p["bucket"], std::string("data"));
        QCOMPARE(p["name"], std::string("a/b/c.jpg"));
        QCOMPARE(dispatch(http::verb::get, "/v1/objects/data/x", &p), 5);
        QCOMPARE(p["name"], std::string("x"));
        // The rest is taken as is (a trailing or doubled '/' included):
        // name validation is the handler's job.
        QCOMPARE(dispatch(http::verb::get, "/v1/objects/data/a/b/", &p), 5);
        QCOMPARE(p["name"], std::string("a/b/"));
        QCOMPARE(dispatch(http::verb::get, "/v1/objects/data//x", &p), 5);
        QCOMPARE(p["name"], std::string("/x"));
        // A rest capture needs at least one character.
        QCOMPARE(dispatch(http::verb::get, "/v1/objects/data"), 0);
        QCOMPARE(dispatch(http::verb::get, "/v1/objects/data/"), 0);
        QCOMPARE(dispatch(http::verb::get, "/v1/objects"), 0);
    }

    void capturesArePercentDecoded()
    {
        Params p;
        QCOMPARE(dispatch(http::verb::get, "/v1/objects/data/sp%20ace/%2e%2e/x%2Fy", &p), 5);
        QCOMPARE(p["name"], std::string("sp ace/../x/y"));
        QCOMPARE(dispatch(http::verb::get, "/v1/objects/data/%C3%A9t%C3%A9%3F%23%25", &p), 5);
        QCOMPARE(p["name"], std::string("\xc3\xa9t\xc3\xa9?#%"));
        // '+' is a literal plus in a path (only queries treat it as a space).
        QCOMPARE(dispatch(http::verb::get, "/v1/objects/data/a+b", &p), 5);
        QCOMPARE(p["name"], std::string("a+b"));
        // An encoded '/' inside a one-segment capture is decoded, not split.
        QCOMPARE(dispatch(http::verb::get, "/v1/buckets/a%2Fb", &p), 3);
        QCOMPARE(p["bucket"], std::string("a/b"));
        QCOMPARE(dispatch(http::verb::get, "/v1/objects/d%61ta/x", &p), 5);
        QCOMPARE(p["bucket"], std::string("data"));
    }

    void malformedEscapes_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("not hex") << "/v1/objects/data/bad%zz";
        QTest::newRow("one digit at end") << "/v1/objects/data/bad%4";
        QTest::newRow("bare percent at end") << "/v1/objects/data/bad%";
        QTest::newRow("in the middle") << "/v1/objects/data/a%g1/b";
        QTest::newRow("in the bucket") << "/v1/buckets/ab%2";
    }
    void malformedEscapes()
    {
        QFETCH(QString, path);
        Request r;
        r.method = http::verb::get;
        r.path = path.toStdString();
        auto m = m_router.match(r);
        QVERIFY(!m.ok());
        QCOMPARE(m.kind(), api::ErrorKind::BadRequest);
    }

    void methodMismatchIs405NotFound()
    {
        for (auto [v, path] : std::vector<std::pair<http::verb, std::string>>{
                 {http::verb::put, "/v1/buckets/data"},
                 {http::verb::post, "/v1/health"},
                 {http::verb::head, "/v1/objects/data/a/b"},
                 {http::verb::get, "/v1/metasync"},
             }) {
            Request r;
            r.method = v;
            r.path = path;
            auto m = m_router.match(r);
            QVERIFY2(m.ok(), path.c_str());
            QVERIFY2(m->route == nullptr, path.c_str());
            QVERIFY2(m->pathMatched, path.c_str());
        }
        // A path nothing knows: neither a route nor a path match (404).
        Request r;
        r.method = http::verb::get;
        r.path = "/v1/nothing";
        auto m = m_router.match(r);
        QVERIFY(m.ok());
        QVERIFY(m->route == nullptr);
        QVERIFY(!m->pathMatched);
        // The same pattern under another method is found past the first entry.
        QCOMPARE(dispatch(http::verb::delete_, "/v1/objects/data/x"), 6);
    }

    void trailingSlashTolerated()
    {
        Params p;
        QCOMPARE(dispatch(http::verb::get, "/v1/health/"), 1);
        QCOMPARE(dispatch(http::verb::get, "/v1/buckets/"), 2);
        QCOMPARE(dispatch(http::verb::get, "/v1/buckets/data/", &p), 3);
        QCOMPARE(p["bucket"], std::string("data"));
        // One slash, not two; and never a leading double slash.
        QCOMPARE(dispatch(http::verb::get, "/v1/health//"), 0);
        QCOMPARE(dispatch(http::verb::get, "//v1/health"), 0);
    }

    void missLeavesParamsUntouched()
    {
        Request r;
        r.method = http::verb::get;
        r.path = "/v1/nothing/here";
        r.params["keep"] = "me";
        auto m = m_router.match(r);
        QVERIFY(m.ok());
        QCOMPARE(r.params.size(), std::size_t{1});
        QCOMPARE(r.params["keep"], std::string("me"));
    }
};

QTEST_GUILESS_MAIN(TestRouter)
#include "test_router.moc"
