// The CLI's TLS options: --ca-file / $TESSERA_CA_FILE and --insecure /
// $TESSERA_INSECURE reach every client a command makes (HTTP and the feed),
// checked against an https:// endpoint where nothing listens: a CA file is
// read before connecting, so its error shows that it was applied.
#include "cli_app.h"
#include "cli_context.h"

#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <sstream>
#include <string>
#include <vector>

using namespace tessera;
using namespace tessera::cli;

namespace {

constexpr const char* kWarning = "warning: --insecure: the server's certificate is not checked\n";

struct Outcome {
    int code = -1;
    std::string out;
    std::string err;
};

std::size_t count(const std::string& text, const std::string& what)
{
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

}  // namespace

class TestCliTlsOptions : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_endpoint;  // https:// on a port where nothing listens

    std::string path(const char* name) const { return m_dir.filePath(QString::fromUtf8(name)).toStdString(); }

    Outcome run(std::vector<std::string> args) const
    {
        args.insert(args.begin(), {"tessera", "--token-file", path("token")});
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        std::ostringstream out;
        std::ostringstream err;
        Outcome o;
        o.code = CliApp().run(static_cast<int>(argv.size()), argv.data(), out, err);
        o.out = out.str();
        o.err = err.str();
        return o;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        m_endpoint = "https://127.0.0.1:" + std::to_string(probe.serverPort());
    }

    void init()
    {
        for (const char* name : {"TESSERA_CA_FILE", "TESSERA_INSECURE", "TESSERA_TOKEN", "TESSERA_ENDPOINT"}) {
            qunsetenv(name);
        }
    }

    void caFileReachesTheCommandsClient()
    {
        const auto ca = path("missing-ca.pem");
        const auto r = run({"--endpoint", m_endpoint, "--ca-file", ca, "bucket", "ls"});
        QCOMPARE(r.code, kExitFailed);
        QVERIFY2(
            r.err.find("error: cannot load the CA file \"" + ca + "\": No such file or directory") != std::string::npos,
            r.err.c_str());
        QCOMPARE(count(r.err, "warning:"), std::size_t{0});
    }

    void caFileReachesTheFeed()
    {
        const auto ca = path("missing-ca.pem");
        const auto r = run({"--endpoint=" + m_endpoint, "--ca-file=" + ca, "watch", "--count", "1"});
        QCOMPARE(r.code, kExitFailed);
        QVERIFY2(r.err.find("cannot load the CA file \"" + ca + "\"") != std::string::npos, r.err.c_str());
    }

    void caFileFromTheEnvironmentYieldsToTheOption()
    {
        const auto fromEnv = path("env-ca.pem");
        qputenv("TESSERA_CA_FILE", QByteArray::fromStdString(fromEnv));
        const auto byEnv = run({"--endpoint", m_endpoint, "bucket", "ls"});
        QCOMPARE(byEnv.code, kExitFailed);
        QVERIFY2(byEnv.err.find("cannot load the CA file \"" + fromEnv + "\"") != std::string::npos, byEnv.err.c_str());

        const auto fromFlag = path("flag-ca.pem");
        const auto byFlag = run({"--endpoint", m_endpoint, "--ca-file", fromFlag, "bucket", "ls"});
        QVERIFY2(byFlag.err.find("cannot load the CA file \"" + fromFlag + "\"") != std::string::npos,
                 byFlag.err.c_str());
        QCOMPARE(count(byFlag.err, fromEnv), std::size_t{0});
    }

    void insecureWarnsOnceAndSkipsTheCaFile()
    {
        // With --insecure no CA file is read: the failure is the connection's.
        const auto r =
            run({"--insecure", "--endpoint", m_endpoint, "--ca-file", path("missing-ca.pem"), "bucket", "ls"});
        QCOMPARE(r.code, kExitFailed);
        QVERIFY2(r.err.rfind(kWarning, 0) == 0, r.err.c_str());
        QCOMPARE(count(r.err, "warning:"), std::size_t{1});
        QCOMPARE(count(r.err, "cannot load the CA file"), std::size_t{0});
        QVERIFY2(r.err.find("connect to 127.0.0.1:") != std::string::npos, r.err.c_str());
    }

    void insecureFromTheEnvironment()
    {
        qputenv("TESSERA_INSECURE", "1");
        const auto on = run({"--endpoint", m_endpoint, "--ca-file", path("missing-ca.pem"), "bucket", "ls"});
        QVERIFY2(on.err.rfind(kWarning, 0) == 0, on.err.c_str());
        QCOMPARE(count(on.err, "cannot load the CA file"), std::size_t{0});

        qputenv("TESSERA_INSECURE", "0");
        const auto off = run({"--endpoint", m_endpoint, "--ca-file", path("missing-ca.pem"), "bucket", "ls"});
        QCOMPARE(count(off.err, "warning:"), std::size_t{0});
        QVERIFY2(off.err.find("cannot load the CA file") != std::string::npos, off.err.c_str());
    }

    void caFileNeedsAPath()
    {
        const auto r = run({"bucket", "ls", "--ca-file"});
        QCOMPARE(r.code, kExitUsage);
        QVERIFY2(r.err.rfind("error: --ca-file needs a path\n", 0) == 0, r.err.c_str());
    }

    void usageNamesBoth()
    {
        const auto r = run({"--help"});
        QCOMPARE(r.code, kExitOk);
        QVERIFY(r.out.find("[--ca-file F] [--insecure]") != std::string::npos);
        QVERIFY(r.out.find("  --ca-file F ") != std::string::npos);
        QVERIFY(r.out.find("  --insecure ") != std::string::npos);
        QVERIFY(r.err.empty());
    }

    void certificateRefusalGetsAHint()
    {
        std::ostringstream err;
        CliContext ctx;
        ctx.err = &err;
        QCOMPARE(ctx.fail(api::Error::unavailable("TLS handshake with 127.0.0.1:8443 failed: certificate verify "
                                                  "failed (unable to get local issuer certificate)")),
                 kExitFailed);
        QVERIFY2(err.str().find("\nhint: pass --ca-file with the cluster's CA") != std::string::npos,
                 err.str().c_str());

        std::ostringstream other;
        ctx.err = &other;
        ctx.fail(api::Error::unavailable("connect to 127.0.0.1:8443: Connection refused"));
        QCOMPARE(count(other.str(), "hint:"), std::size_t{0});
    }
};

QTEST_GUILESS_MAIN(TestCliTlsOptions)
#include "test_cli_tls_options.moc"
