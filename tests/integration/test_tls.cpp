// TLS end to end against a real 1 proxy + 2 target cluster whose nodes serve
// HTTPS only, with certificates from a CA made for the test (as
// `installers/local-cluster.sh --tls` does): curl with the CA reads and
// writes through the proxy's redirect, curl without it is refused, plain
// HTTP to a TLS port is a 400 in plain HTTP, targets copy a mirrored
// object to each other and pull a dSort's records over TLS, the CLI and the feed client take the CA
// (or --insecure), a SIGHUP makes a node serve a renewed certificate (and a
// broken one leaves the old in place), and bad TLS files stop a node at start.
#include "curl_run.h"
#include "dsort_test_util.h"
#include "local_cluster.h"

#include "client/feed_client.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <csignal>
#include <nlohmann/json.hpp>

using namespace tessera;
using nlohmann::json;

namespace {

constexpr const char* kBucket = "secure";

using tests::curl;

struct Run {
    int code = -1;
    std::string out;
    std::string err;
};

Run run(const QString& program, const QStringList& args, const QString& dir = {})
{
    QProcess p;
    if (!dir.isEmpty()) p.setWorkingDirectory(dir);
    p.start(program, args);
    Run r;
    if (!p.waitForFinished(60000)) return r;
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput().toStdString();
    r.err = p.readAllStandardError().toStdString();
    return r;
}

// The serial number of the certificate a TLS server at `port` presents.
std::string servedSerial(int port)
{
    QProcess sc;
    sc.start("openssl", {"s_client", "-connect", "127.0.0.1:" + QString::number(port)});
    sc.closeWriteChannel();
    if (!sc.waitForFinished(30000)) return {};
    QProcess x;
    x.start("openssl", {"x509", "-noout", "-serial"});
    x.write(sc.readAllStandardOutput());
    x.closeWriteChannel();
    if (!x.waitForFinished(30000)) return {};
    return x.readAllStandardOutput().trimmed().toStdString();
}

}  // namespace

class TestTls : public QObject {
    Q_OBJECT

private:
    tests::LocalCluster m_cluster{[] {
        tests::LocalCluster::Options o;
        o.targets = 2;
        o.tls = true;
        return o;
    }()};

    QString url(const std::string& path) const { return QString::fromStdString(m_cluster.proxyUrl() + path); }
    QString ca() const { return m_cluster.caFile(); }
    int proxyPort() const { return QUrl(QString::fromStdString(m_cluster.proxyUrl())).port(); }

    Run cli(const QStringList& args)
    {
        return run(QStringLiteral(TESSERA_CLI_BINARY),
                   QStringList{"--endpoint", QString::fromStdString(m_cluster.proxyUrl())} + args);
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_cluster.start(), m_cluster.error().c_str());
        QVERIFY(m_cluster.proxyUrl().rfind("https://", 0) == 0);
        auto created = curl({"--cacert", ca(), "-X", "POST", url(std::string("/v1/buckets/") + kBucket),
                             "--data-binary", R"({"action":"create-bck"})"});
        QVERIFY2(created.status == 200, (created.body + created.log).c_str());
    }

    // A PUT and a GET through the proxy's 307 to a target, both over TLS,
    // and a listing the proxy gathers from the targets over TLS.
    void curlReadsAndWritesWithTheCa()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QFile f(dir.filePath("blob"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        QByteArray bytes;
        for (int i = 0; i < 300000; ++i) bytes.append(static_cast<char>(i * 7));
        f.write(bytes);
        f.close();
        const auto obj = url(std::string("/v1/objects/") + kBucket + "/a/blob");
        auto put = curl({"--cacert", ca(), "-L", "-T", f.fileName(), obj});
        QVERIFY2(put.status == 200, (put.body + put.log).c_str());
        auto got = curl({"--cacert", ca(), "-L", "-o", dir.filePath("back"), obj});
        QCOMPARE(got.status, 200);
        QFile back(dir.filePath("back"));
        QVERIFY(back.open(QIODevice::ReadOnly));
        QVERIFY(back.readAll() == bytes);
        auto listed = curl({"--cacert", ca(), url(std::string("/v1/buckets/") + kBucket)});
        QCOMPARE(listed.status, 200);
        QVERIFY2(listed.body.find("a/blob") != std::string::npos, listed.body.c_str());
    }

    // Answers bigger than a TLS record (16 KiB) held in memory, here a
    // listing page of 700 names from the proxy and from a target, arrive
    // whole (a page over 16 KiB once stalled after its head).
    void largeAnswersArriveWhole()
    {
        client::HttpClient http;  // trusts the cluster's CA (LocalCluster)
        for (int i = 0; i < 700; ++i) {
            auto r = http.send(client::Method::Put,
                               m_cluster.proxyUrl() + "/v1/objects/" + kBucket + "/page/o-" + std::to_string(i),
                               client::Body::string("x"));
            QVERIFY2(r && r->status == 200, r ? r->body.c_str() : r.error().message.c_str());
        }
        auto listed = curl({"--cacert", ca(), "--max-time", "20",
                            url(std::string("/v1/buckets/") + kBucket + "?prefix=page/&pagesize=1000")});
        QVERIFY2(listed.status == 200, (listed.body.substr(0, 300) + listed.log).c_str());
        const auto page = json::parse(listed.body, nullptr, false);
        QVERIFY(page.is_object() && page["entries"].size() == 700);
        std::size_t onTargets = 0;
        for (int t = 0; t < m_cluster.targetCount(); ++t) {
            auto direct = curl({"--cacert", ca(), "--max-time", "20",
                                QString::fromStdString(m_cluster.targetUrl(t) + "/v1/buckets/" + kBucket +
                                                       "?prefix=page/&pagesize=1000")});
            QVERIFY2(direct.status == 200, direct.log.c_str());
            onTargets += json::parse(direct.body)["entries"].size();
        }
        QCOMPARE(onTargets, std::size_t{700});
    }

    void anUnknownCertificateIsRefused()
    {
        auto r = curl({url("/v1/health")});
        QCOMPARE(r.exitCode, 60);  // curl: peer certificate cannot be authenticated
        QCOMPARE(r.status, 0);
    }

    void plainHttpToATlsPortIsA400()
    {
        auto plain = QString::fromStdString(m_cluster.proxyUrl()).replace("https://", "http://");
        auto r = curl({plain + "/v1/health"});
        QCOMPARE(r.status, 400);
        const auto j = json::parse(r.body, nullptr, false);
        QVERIFY2(j.is_object() && j.value("message", "").find("HTTPS only") != std::string::npos, r.body.c_str());
    }

    // The owner copies a mirrored object to the other target over TLS.
    void targetsCopyToEachOtherOverTls()
    {
        const json mirror{{"mirror", {{"enabled", true}, {"copies", 2}, {"across_targets", true}}}};
        auto set = curl({"--cacert", ca(), "-X", "PATCH", url(std::string("/v1/buckets/") + kBucket), "--data-binary",
                         QString::fromStdString(json{{"action", "set-bprops"}, {"value", mirror}}.dump())});
        QVERIFY2(set.status == 200, set.body.c_str());
        for (int i = 0; i < 6; ++i) {
            const auto name = "m/o-" + std::to_string(i);
            auto put = curl({"--cacert", ca(), "-L", "-X", "PUT", "--data-binary", "mirrored",
                             url(std::string("/v1/objects/") + kBucket + "/" + name)});
            QVERIFY2(put.status == 200, (put.body + put.log).c_str());
            int holders = 0;
            for (int t = 0; t < m_cluster.targetCount(); ++t) {
                for (const auto& mp : m_cluster.targetMountpaths(t)) {
                    if (QFile::exists(QString::fromStdString(mp + "/buckets/" + kBucket + "/" + name))) ++holders;
                }
            }
            QCOMPARE(holders, 2);
        }
    }

    // A dSort whose targets pull records from each other over TLS: the
    // files of 64 KiB and more, which go by sendfile in plain HTTP, are read
    // and encrypted in chunks here, and every record arrives whole.
    void dsortPullsOverTls()
    {
        client::Client c(m_cluster.proxyUrl());  // trusts the cluster's CA (LocalCluster)
        QVERIFY(c.createBucket("tls-dsort-out"));
        const auto all = tests::putBigFileShards(c, "tls-dsort-in", 2, 5, archive::ArchiveFormat::Tar, ".tar");
        const json spec{{"input_bck", "tls-dsort-in"},
                        {"input_format", {{"template", "big-{0..1}"}}},
                        {"input_extension", ".tar"},
                        {"output_bck", "tls-dsort-out"},
                        {"output_format", "out-{00..99}"},
                        {"output_shard_size", "2MiB"},
                        {"algorithm", {{"kind", "shuffle"}, {"seed", "5"}}}};
        auto id = c.startDsort(spec);
        QVERIFY2(id, id ? "" : id.error().message.c_str());
        const auto st = tests::waitDsort(c, *id);
        QVERIFY2(st.job.state == api::JobState::Finished, st.job.error.c_str());
        auto got = tests::allRecords(tests::readOutputs(c, "tls-dsort-out", "", archive::ArchiveFormat::Tar));
        std::sort(got.begin(), got.end());
        QVERIFY(got == all);
    }

    void cliNeedsTheCa()
    {
        auto refused = cli({"ls", kBucket});
        QVERIFY(refused.code != 0);
        QVERIFY2(refused.err.find("--ca-file") != std::string::npos, refused.err.c_str());
        auto ok = cli({"--ca-file", ca(), "ls", kBucket});
        QVERIFY2(ok.code == 0, ok.err.c_str());
        QVERIFY2(ok.out.find("a/blob") != std::string::npos, ok.out.c_str());
        auto insecure = cli({"--insecure", "ls", kBucket});
        QVERIFY2(insecure.code == 0, insecure.err.c_str());
        QVERIFY2(insecure.err.find("--insecure") != std::string::npos, insecure.err.c_str());
    }

    // tessera bench over TLS: through the proxy's redirects and straight to
    // the targets, each answer's checksum verified; without the CA the run
    // does not start.
    void benchNeedsTheCa()
    {
        auto refused = cli({"bench", "put", "--bucket", kBucket, "--prefix", "bench/", "--count", "10"});
        QVERIFY(refused.code != 0);
        QVERIFY2(
            refused.err.find("certificate") != std::string::npos || refused.err.find("--ca-file") != std::string::npos,
            refused.err.c_str());
        auto put = cli({"--ca-file", ca(), "--json", "bench", "put", "--bucket", kBucket, "--prefix", "bench/",
                        "--count", "40", "--workers", "4", "--size", "64KiB"});
        QVERIFY2(put.code == 0, put.err.c_str());
        auto putDoc = json::parse(put.out, nullptr, false);
        QCOMPARE(putDoc["summary"]["put"]["ops"].get<int>(), 40);
        QCOMPARE(putDoc["errors"].get<int>(), 0);
        auto get = cli({"--ca-file", ca(), "--json", "bench", "get", "--bucket", kBucket, "--prefix", "bench/",
                        "--count", "80", "--workers", "4", "--direct", "--verify"});
        QVERIFY2(get.code == 0, get.err.c_str());
        auto getDoc = json::parse(get.out, nullptr, false);
        QCOMPARE(getDoc["summary"]["get"]["ops"].get<int>(), 80);
        QCOMPARE(getDoc["summary"]["get"]["bytes"].get<std::int64_t>(), std::int64_t{80} * 64 * 1024);
        QCOMPARE(getDoc["errors"].get<int>(), 0);
    }

    void feedOverWss()
    {
        client::HttpClient::Options::Tls tls;
        tls.caFile = ca().toStdString();
        auto feed = client::FeedClient::connect(m_cluster.proxyUrl(), {}, tls);
        QVERIFY2(feed, feed ? "" : feed.error().message.c_str());
        auto first = (*feed)->next();
        QVERIFY2(first, first ? "" : first.error().message.c_str());
        QVERIFY2(json::parse(*first, nullptr, false).is_object(), first->c_str());
        auto untrusted = client::FeedClient::connect(m_cluster.proxyUrl(), {}, {});
        QVERIFY(!untrusted);
    }

    // A renewed certificate (same CA, new serial) is served after a SIGHUP;
    // a broken one is refused and the renewed one stays.
    void sighupReloadsTheCertificate()
    {
        const auto before = servedSerial(proxyPort());
        QVERIFY(!before.empty());
        const auto dir = m_cluster.dataDir() + "/tls";
        auto renewed = run("openssl",
                           {"x509", "-req", "-in", "node.csr", "-CA", ca(), "-CAkey", m_cluster.caKeyFile(),
                            "-set_serial", "4242", "-days", "30", "-extfile", "node.ext", "-out", "renewed.pem"},
                           dir);
        QVERIFY2(renewed.code == 0, renewed.err.c_str());
        // Replaced the way an operator (or certbot) does: a new file renamed over the old.
        QVERIFY(QFile::remove(dir + "/node.pem"));
        QVERIFY(QFile::rename(dir + "/renewed.pem", dir + "/node.pem"));
        QVERIFY(::kill(static_cast<pid_t>(m_cluster.proxyPid()), SIGHUP) == 0);
        std::string after;
        QVERIFY(QTest::qWaitFor(
            [&] {
                after = servedSerial(proxyPort());
                return !after.empty() && after != before;
            },
            10000));
        // Still a certificate the clients trust.
        QCOMPARE(curl({"--cacert", ca(), url("/v1/health")}).status, 200);

        QFile broken(dir + "/node.pem");
        QVERIFY(broken.open(QIODevice::WriteOnly | QIODevice::Truncate));
        broken.write("not a certificate\n");
        broken.close();
        QVERIFY(::kill(static_cast<pid_t>(m_cluster.proxyPid()), SIGHUP) == 0);
        QVERIFY(QTest::qWaitFor(
            [&] { return m_cluster.proxyLogTail().find("TLS reload at SIGHUP failed") != std::string::npos; }, 10000));
        QCOMPARE(servedSerial(proxyPort()), after);
        QCOMPARE(curl({"--cacert", ca(), url("/v1/health")}).status, 200);
    }

    void badTlsFilesStopTheStart()
    {
        QTemporaryDir data;
        QVERIFY(data.isValid());
        const auto dir = m_cluster.dataDir() + "/tls";
        // The CA's key is not the node certificate's key.
        auto mismatch = run(tests::nodeBinary(), {"--role", "proxy", "--port", "0", "--data-dir", data.path(),
                                                  "--tls-cert-file", ca(), "--tls-key-file", dir + "/node.key"});
        QCOMPARE(mismatch.code, 1);
        QVERIFY2(mismatch.err.find("mismatch") != std::string::npos, mismatch.err.c_str());
        auto onlyCert = run(tests::nodeBinary(),
                            {"--role", "proxy", "--port", "0", "--data-dir", data.path(), "--tls-cert-file", ca()});
        QCOMPARE(onlyCert.code, 2);
        QVERIFY2(onlyCert.err.find("--tls-key-file") != std::string::npos, onlyCert.err.c_str());
    }
};

QTEST_GUILESS_MAIN(TestTls)
#include "test_tls.moc"
