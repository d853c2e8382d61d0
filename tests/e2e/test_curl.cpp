// curl, a third-party client, against a real cluster: redirects on PUT and
// GET, Expect: 100-continue, ranges, HEAD, listing, JSON errors.
#include "../integration/local_cluster.h"

#include "api/checksum.h"

#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>
#include <random>

using namespace tessera;

namespace {
struct CurlResult {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};
}  // namespace

class TestCurl : public QObject {
    Q_OBJECT

private:
    tests::LocalCluster m_cluster;
    QTemporaryDir m_dir;
    QString m_curl;

    CurlResult curl(QStringList args)
    {
        QProcess p;
        p.setWorkingDirectory(m_dir.path());
        args.prepend("--silent");
        args.prepend("--show-error");
        p.start(m_curl, args);
        CurlResult r;
        if (!p.waitForFinished(60000)) return r;
        r.exitCode = p.exitCode();
        r.out = p.readAllStandardOutput();
        r.err = p.readAllStandardError();
        return r;
    }
    QString url(const QString& path) const { return QString::fromStdString(m_cluster.proxyUrl()) + path; }
    QByteArray writeRandom(const QString& name, int size, int seed)
    {
        std::mt19937 rng(static_cast<unsigned>(seed));
        QByteArray data(size, '\0');
        for (auto& c : data) c = static_cast<char>(rng());
        QFile f(m_dir.path() + "/" + name);
        if (f.open(QIODevice::WriteOnly)) f.write(data);
        return data;
    }

private slots:
    void initTestCase()
    {
        m_curl = QStandardPaths::findExecutable("curl");
        if (m_curl.isEmpty()) QSKIP("curl is not installed");
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        auto r = curl({"-X", "POST", "-d", R"({"action":"create-bck"})", "-w", "%{http_code}", url("/v1/buckets/web")});
        QCOMPARE(r.out, QByteArray("200"));
    }

    void putAndGetFollowingRedirects()
    {
        // 5 MiB: curl sends Expect: 100-continue and must re-send on 307.
        const auto big = writeRandom("big.bin", 5 << 20, 1);
        auto r = curl({"-L", "-T", "big.bin", "-w", "%{http_code} %{num_redirects}", "-o", "/dev/null",
                       url("/v1/objects/web/dir/big.bin")});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, QByteArray("200 1"));
        const auto tiny = writeRandom("tiny.bin", 10, 2);
        r = curl({"-L", "-T", "tiny.bin", "-w", "%{http_code}", "-o", "/dev/null", url("/v1/objects/web/tiny.bin")});
        QCOMPARE(r.out, QByteArray("200"));

        r = curl({"-L", "-o", "got.bin", "-w", "%{http_code}", url("/v1/objects/web/dir/big.bin")});
        QCOMPARE(r.out, QByteArray("200"));
        QFile got(m_dir.path() + "/got.bin");
        QVERIFY(got.open(QIODevice::ReadOnly));
        QVERIFY(got.readAll() == big);
        r = curl({"-L", url("/v1/objects/web/tiny.bin")});
        QVERIFY(r.out == tiny);
    }

    void rangeAndHead()
    {
        const auto data = writeRandom("r.bin", 1000, 3);
        curl({"-L", "-T", "r.bin", url("/v1/objects/web/r.bin")});
        auto r = curl({"-L", "-r", "100-199", url("/v1/objects/web/r.bin")});
        QVERIFY(r.out == data.mid(100, 100));
        r = curl({"-L", "-r", "2000-", "-w", "%{http_code}", "-o", "/dev/null", url("/v1/objects/web/r.bin")});
        QCOMPARE(r.out, QByteArray("416"));
        r = curl({"-L", "-I", url("/v1/objects/web/r.bin")});
        const auto head = r.out.toLower();
        QVERIFY(head.contains("http/1.1 307"));
        QVERIFY(head.contains("content-length: 1000"));
        QVERIFY(head.contains("ais-checksum-value: " +
                              QByteArray::fromStdString(api::xxhash64Hex(data.toStdString()))));
        QVERIFY(head.contains("ais-version: 1"));
    }

    void listAndErrors()
    {
        auto r = curl({url("/v1/buckets/web?props=name,size,checksum")});
        auto j = nlohmann::json::parse(r.out.toStdString());
        std::vector<std::string> names;
        for (const auto& e : j["entries"]) names.push_back(e["name"].get<std::string>());
        QVERIFY(std::is_sorted(names.begin(), names.end()));
        QVERIFY(std::find(names.begin(), names.end(), "dir/big.bin") != names.end());
        QCOMPARE(j["continuation_token"].get<std::string>(), std::string());

        r = curl({"-L", "-w", "\n%{http_code}", url("/v1/objects/web/a/%2e%2e/b")});
        const auto lines = r.out.split('\n');
        QCOMPARE(lines.last(), QByteArray("400"));
        auto err = nlohmann::json::parse(lines.first().toStdString());
        QCOMPARE(err["status"].get<int>(), 400);

        r = curl({"-L", "-X", "DELETE", "-w", "%{http_code}", url("/v1/objects/web/tiny.bin")});
        QCOMPARE(r.out, QByteArray("200"));
        r = curl({"-L", "-w", "%{http_code}", "-o", "/dev/null", url("/v1/objects/web/tiny.bin")});
        QCOMPARE(r.out, QByteArray("404"));
    }
};

QTEST_GUILESS_MAIN(TestCurl)
#include "test_curl.moc"
