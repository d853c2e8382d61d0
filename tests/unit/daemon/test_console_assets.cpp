// The web console's static serving rules (proxy/console_assets.h): cache
// headers, the Content-Security-Policy, content types, gzip, deep links,
// traversal refused with 400, a symbolic link out of the bundle not
// served, and the "how to build" page when there is no bundle.
#include "proxy/console_assets.h"

#include <QTemporaryDir>
#include <QTest>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/fields.hpp>
#include <filesystem>
#include <fstream>

using namespace tessera::daemon;

namespace {

void writeFile(const std::filesystem::path& p, const std::string& bytes)
{
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
}

std::string header(const net::Response& r, std::string_view name)
{
    for (const auto& [k, v] : r.headers) {
        if (boost::beast::iequals(k, boost::beast::string_view(name.data(), name.size()))) return v;
    }
    return {};
}

struct Get {
    boost::beast::http::request_header<> fields;
    net::Request req;
    explicit Get(std::string path, std::string acceptEncoding = {})
    {
        if (!acceptEncoding.empty()) fields.set("Accept-Encoding", acceptEncoding);
        req.method = boost::beast::http::verb::get;
        req.path = std::move(path);
        req.target = req.path;
        req.headers = &fields;
    }
};

}  // namespace

class TestConsoleAssets : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    std::filesystem::path m_dist;

private slots:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        m_dist = std::filesystem::path(m_tmp.path().toStdString()) / "dist";
        writeFile(m_dist / "index.html", "<!doctype html><title>t</title>");
        writeFile(m_dist / "index.html.gz", "GZ-INDEX");
        writeFile(m_dist / "assets" / "app-ABC123.js", "console.log(1)");
        writeFile(m_dist / "assets" / "app-ABC123.js.gz", "GZ-JS");
        writeFile(m_dist / "assets" / "app-ABC123.css", "body{}");
        writeFile(std::filesystem::path(m_tmp.path().toStdString()) / "secret.txt", "SECRET");
        std::filesystem::create_symlink(std::filesystem::path(m_tmp.path().toStdString()) / "secret.txt",
                                        m_dist / "assets" / "link.txt");
    }

    void indexIsNoCacheWithTheCsp()
    {
        proxy::ConsoleAssets assets(m_dist.string());
        Get g("/console/");
        auto r = assets.serve(g.req);
        QCOMPARE(r.status, 200);
        QCOMPARE(r.body, std::string("<!doctype html><title>t</title>"));
        QCOMPARE(header(r, "Content-Type"), std::string("text/html; charset=utf-8"));
        QCOMPARE(header(r, "Cache-Control"), std::string("no-cache"));
        const auto csp = header(r, "Content-Security-Policy");
        QCOMPARE(csp, std::string(proxy::ConsoleAssets::kContentSecurityPolicy));
        QVERIFY(csp.find("script-src 'self';") != std::string::npos);
        QVERIFY(csp.find("unsafe-inline") == std::string::npos);
        QVERIFY(csp.find("unsafe-eval") == std::string::npos);
        QVERIFY(csp.find("frame-ancestors 'none'") != std::string::npos);
        QCOMPARE(header(r, "X-Content-Type-Options"), std::string("nosniff"));
        QCOMPARE(header(r, "Content-Encoding"), std::string());
    }

    void hashedAssetsAreImmutableWithTheirType()
    {
        proxy::ConsoleAssets assets(m_dist.string());
        Get js("/console/assets/app-ABC123.js");
        auto r = assets.serve(js.req);
        QCOMPARE(r.status, 200);
        QCOMPARE(r.body, std::string("console.log(1)"));
        QCOMPARE(header(r, "Content-Type"), std::string("text/javascript; charset=utf-8"));
        QCOMPARE(header(r, "Cache-Control"), std::string("public, max-age=31536000, immutable"));
        Get css("/console/assets/app-ABC123.css");
        auto c = assets.serve(css.req);
        QCOMPARE(c.status, 200);
        QCOMPARE(header(c, "Content-Type"), std::string("text/css; charset=utf-8"));
        QCOMPARE(header(c, "Vary"), std::string("Accept-Encoding"));
    }

    void gzipOnlyWhenTaken()
    {
        proxy::ConsoleAssets assets(m_dist.string());
        Get gz("/console/assets/app-ABC123.js", "gzip, deflate, br");
        auto r = assets.serve(gz.req);
        QCOMPARE(r.body, std::string("GZ-JS"));
        QCOMPARE(header(r, "Content-Encoding"), std::string("gzip"));
        Get refused("/console/assets/app-ABC123.js", "gzip;q=0, br");
        auto p = assets.serve(refused.req);
        QCOMPARE(p.body, std::string("console.log(1)"));
        QCOMPARE(header(p, "Content-Encoding"), std::string());
        // No compressed copy: sent as is.
        Get css("/console/assets/app-ABC123.css", "gzip");
        QCOMPARE(header(assets.serve(css.req), "Content-Encoding"), std::string());
        Get index("/console/buckets/imgs", "gzip");
        QCOMPARE(assets.serve(index.req).body, std::string("GZ-INDEX"));
    }

    void deepLinksAnswerTheIndex()
    {
        proxy::ConsoleAssets assets(m_dist.string());
        for (const char* path :
             {"/console/buckets/imgs", "/console/buckets/imgs?prefix=train/", "/console/jobs/rebalance-abc",
              "/console/nodes/t1", "/console/buckets/b%20c/cat.jpg"}) {
            Get g(path);
            auto r = assets.serve(g.req);
            QCOMPARE(r.status, 200);
            QCOMPARE(header(r, "Cache-Control"), std::string("no-cache"));
            QCOMPARE(r.body, std::string("<!doctype html><title>t</title>"));
        }
        Get bare("/console");
        auto r = assets.serve(bare.req);
        QCOMPARE(r.status, 307);
        QCOMPARE(header(r, "Location"), std::string("/console/"));
    }

    void traversalIsRefused()
    {
        proxy::ConsoleAssets assets(m_dist.string());
        for (const char* path :
             {"/console/../secret.txt", "/console/assets/../../secret.txt", "/console/assets/%2e%2e/%2e%2e/secret.txt",
              "/console/assets/..%2F..%2Fsecret.txt", "/console/./index.html", "/console/assets/..",
              "/console/assets/%5c..%5csecret.txt", "/console/assets/a%00b.js", "/console/assets/%zz"}) {
            Get g(path);
            auto r = assets.serve(g.req);
            QVERIFY2(r.status == 400, path);
            QVERIFY2(r.body.find("SECRET") == std::string::npos, path);
        }
    }

    void unknownAssetsAndLinksAre404()
    {
        proxy::ConsoleAssets assets(m_dist.string());
        for (const char* path : {"/console/assets/app-OLD.js", "/console/assets/link.txt",
                                 "/console/assets/app-ABC123.js.gz", "/console/assets/"}) {
            Get g(path);
            auto r = assets.serve(g.req);
            QVERIFY2(r.status == 404, path);
            QVERIFY2(r.body.find("SECRET") == std::string::npos, path);
            QCOMPARE(header(r, "Content-Type"), std::string("application/json"));
        }
    }

    void missingBundleSaysHowToBuild()
    {
        const auto dir = std::filesystem::path(m_tmp.path().toStdString()) / "later";
        proxy::ConsoleAssets assets(dir.string());
        Get g("/console/");
        auto r = assets.serve(g.req);
        QCOMPARE(r.status, 503);
        QCOMPARE(header(r, "Content-Type"), std::string("text/html; charset=utf-8"));
        QVERIFY(r.body.find("npm ci") != std::string::npos);
        QVERIFY(r.body.find("--console-dir") != std::string::npos);
        QVERIFY(r.body.find(dir.string()) != std::string::npos);
        QVERIFY(!header(r, "Content-Security-Policy").empty());
        // Built after the proxy started: served from the next request on.
        writeFile(dir / "index.html", "built");
        auto later = assets.serve(g.req);
        QCOMPARE(later.status, 200);
        QCOMPARE(later.body, std::string("built"));
    }

    void contentTypes()
    {
        QCOMPARE(proxy::consoleContentType("a.svg"), std::string("image/svg+xml"));
        QCOMPARE(proxy::consoleContentType("a.woff2"), std::string("font/woff2"));
        QCOMPARE(proxy::consoleContentType("a.bin"), std::string("application/octet-stream"));
    }
};

QTEST_GUILESS_MAIN(TestConsoleAssets)
#include "test_console_assets.moc"
