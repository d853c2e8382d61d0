#include "local_cluster.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <nlohmann/json.hpp>
#include <sys/types.h>

namespace tessera::tests {

QString nodeBinary()
{
    const auto env = qEnvironmentVariable("TESSERA_NODE");
    return env.isEmpty() ? QStringLiteral(TESSERA_NODE_BINARY) : env;
}

namespace {

// The test process's CA (caFile()): made at the first TLS cluster's start,
// removed at exit with its directory.
struct TestCa {
    QTemporaryDir dir;
    bool made = false;
};
TestCa& testCa()
{
    static TestCa ca;
    return ca;
}

}  // namespace

QString LocalCluster::caFile() const { return testCa().dir.path() + "/ca.pem"; }
QString LocalCluster::caKeyFile() const { return testCa().dir.path() + "/ca.key"; }

LocalCluster::LocalCluster() : LocalCluster(Options{}) {}

LocalCluster::LocalCluster(Options options) : m_options(options)
{
    m_dir.setAutoRemove(qEnvironmentVariableIsEmpty("TESSERA_KEEP_TEST_DATA"));
    // A test that asks for TLS itself checks what happens without the CA:
    // the switch for the whole suite gives it none of the environment below.
    const bool suiteOverTls = qEnvironmentVariable("TESSERA_TEST_TLS") == "1" && !m_options.tls;
    if (suiteOverTls) m_options.tls = true;
    if (m_options.tls) {
        // Every HttpClient of this process (the tests' and this helper's)
        // trusts the cluster's CA, made at start(): clients made from now
        // on load it at their first https call.
        client::HttpClient::Options::Tls t;
        t.caFile = caFile().toStdString();
        client::HttpClient::Options::Tls::setProcessDefault(t);
        m_http = std::make_unique<client::HttpClient>();
    }
    if (suiteOverTls) {
        // A suite written for plain HTTP: the programs its tests start trust
        // the CA too (curl, the CLI, and OpenSSL's default store for Qt's
        // sockets).
        const auto ca = caFile().toLocal8Bit();
        qputenv("CURL_CA_BUNDLE", ca);
        qputenv("TESSERA_CA_FILE", ca);
        qputenv("SSL_CERT_FILE", ca);
        // Qt's sockets (the console's REST client and feed) start from the
        // default configuration; the CA file is made at start(), and the
        // same file serves every cluster of the process.
        m_trustCaInQt = true;
    }
}

LocalCluster::~LocalCluster()
{
    for (auto& t : m_targets) {
        if (t.process && t.process->state() != QProcess::NotRunning) {
            t.process->kill();
            t.process->waitForFinished(5000);
        }
    }
    if (m_proxy.process && m_proxy.process->state() != QProcess::NotRunning) {
        m_proxy.process->kill();
        m_proxy.process->waitForFinished(5000);
    }
}

bool LocalCluster::launch(Proc& p)
{
    QFile::remove(p.portFile);
    p.process = std::make_unique<QProcess>();
    p.process->setProcessChannelMode(QProcess::MergedChannels);
    p.process->setStandardOutputFile(p.logFile, QIODevice::Append);
    p.process->start(nodeBinary(), p.args);
    if (!p.process->waitForStarted(10000)) {
        m_error = "cannot start " + nodeBinary().toStdString();
        return false;
    }
    const bool ok = QTest::qWaitFor(
        [&] {
            QFile f(p.portFile);
            return p.process->state() == QProcess::NotRunning ||
                   (f.open(QIODevice::ReadOnly) && f.readAll().trimmed().toInt() > 0);
        },
        15000);
    QFile f(p.portFile);
    if (!ok || !f.open(QIODevice::ReadOnly)) {
        QFile log(p.logFile);
        log.open(QIODevice::ReadOnly);
        m_error = "node did not start: " + log.readAll().right(2000).toStdString();
        return false;
    }
    p.port = f.readAll().trimmed().toInt();
    return p.port > 0;
}

QStringList LocalCluster::targetArgs(int i, int port) const
{
    QStringList a{"--role",
                  "target",
                  "--port",
                  QString::number(port),
                  "--port-file",
                  targetDataDir(i) + "/port",
                  "--data-dir",
                  targetDataDir(i),
                  "--proxy-url",
                  QString::fromStdString(proxyUrl()),
                  "--keepalive-interval-ms",
                  QString::number(m_options.keepaliveMs),
                  "--fsync",
                  m_options.fsync ? "true" : "false",
                  "--peer-timeout-ms",
                  "3000",
                  "--cluster-key-file",
                  clusterKeyFile()};
    for (const auto& mp : targetMountpaths(i)) a << "--mountpath" << QString::fromStdString(mp);
    a << tlsArgs() << m_options.extraTargetArgs;
    return a;
}

QString LocalCluster::clusterKeyFile() const { return m_dir.path() + "/proxy/cluster.key"; }

QString LocalCluster::targetDataDir(int i) const { return m_dir.path() + "/target-" + QString::number(i); }

std::vector<std::string> LocalCluster::targetMountpaths(int i) const
{
    std::vector<std::string> out;
    for (int m = 0; m < m_options.mountpaths; ++m) {
        out.push_back((targetDataDir(i) + "/mp" + QString::number(m)).toStdString());
    }
    return out;
}

bool LocalCluster::start()
{
    if (!m_dir.isValid()) {
        m_error = "no temporary directory";
        return false;
    }
    QDir().mkpath(m_dir.path() + "/proxy");
    if (m_options.tls && !makeCertificates()) return false;
    if (m_trustCaInQt) {
        auto conf = QSslConfiguration::defaultConfiguration();
        const auto known = conf.caCertificates();
        for (const auto& cert : QSslCertificate::fromPath(caFile())) {
            if (!known.contains(cert)) conf.addCaCertificate(cert);
        }
        QSslConfiguration::setDefaultConfiguration(conf);
    }
    m_proxy.portFile = m_dir.path() + "/proxy/port";
    m_proxy.logFile = m_dir.path() + "/proxy.log";
    m_proxy.args = QStringList{"--role",
                               "proxy",
                               "--port",
                               "0",
                               "--port-file",
                               m_proxy.portFile,
                               "--data-dir",
                               m_dir.path() + "/proxy",
                               "--keepalive-interval-ms",
                               QString::number(m_options.keepaliveMs),
                               "--keepalive-max-missed",
                               QString::number(m_options.maxMissed),
                               "--peer-timeout-ms",
                               "3000"};
    m_proxy.args << tlsArgs() << m_options.extraProxyArgs;
    if (!launch(m_proxy)) return false;
    // From now on the proxy keeps its port across restarts.
    m_proxy.args[3] = QString::number(m_proxy.port);

    for (int i = 0; i < m_options.targets; ++i) {
        if (!launchTarget()) return false;
    }
    if (!waitForTargets(m_options.targets, std::chrono::seconds(20))) {
        m_error = "targets did not join";
        return false;
    }
    return true;
}

bool LocalCluster::launchTarget()
{
    const int i = static_cast<int>(m_targets.size());
    m_targets.emplace_back();
    auto& t = m_targets.back();
    QDir().mkpath(targetDataDir(i));
    t.portFile = targetDataDir(i) + "/port";
    t.logFile = m_dir.path() + "/target-" + QString::number(i) + ".log";
    t.args = targetArgs(i, 0);
    if (!launch(t)) return false;
    t.args = targetArgs(i, t.port);
    QFile f(targetDataDir(i) + "/node_id");  // written before the port file
    if (!f.open(QIODevice::ReadOnly)) {
        m_error = "no node_id for target " + std::to_string(i);
        return false;
    }
    t.id = f.readAll().trimmed().toStdString();
    return true;
}

bool LocalCluster::addTarget()
{
    if (!launchTarget()) return false;
    return waitForTargets(targetCount(), std::chrono::seconds(20));
}

std::string LocalCluster::proxyUrl() const
{
    return std::string(m_options.tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(m_proxy.port);
}

std::string LocalCluster::targetUrl(int i) const
{
    return std::string(m_options.tls ? "https" : "http") +
           "://127.0.0.1:" + std::to_string(m_targets[static_cast<std::size_t>(i)].port);
}

QStringList LocalCluster::tlsArgs() const
{
    if (!m_options.tls) return {};
    return {"--tls-cert-file", certFile(), "--tls-key-file", keyFile(), "--tls-ca-file", caFile()};
}

bool LocalCluster::makeCertificates()
{
    const auto dir = m_dir.path() + "/tls";
    QDir().mkpath(dir);
    const auto run = [&](const QStringList& args) {
        QProcess p;
        p.setWorkingDirectory(dir);
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start("openssl", args);
        if (!p.waitForFinished(30000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
            m_error = "openssl " + args.join(' ').toStdString() + " failed: " + p.readAll().toStdString();
            return false;
        }
        return true;
    };
    QFile ext(dir + "/node.ext");
    if (!ext.open(QIODevice::WriteOnly)) {
        m_error = "cannot write " + ext.fileName().toStdString();
        return false;
    }
    ext.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n");
    ext.close();
    const QStringList ec{"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"};
    auto& ca = testCa();
    if (!ca.made) {
        if (!ca.dir.isValid()) {
            m_error = "cannot make a directory for the test CA";
            return false;
        }
        if (!run(QStringList{"req", "-x509"} << ec
                                             << QStringList{"-days", "30", "-keyout", caKeyFile(), "-out", caFile(),
                                                            "-subj", "/CN=Tessera test CA"})) {
            return false;
        }
        ca.made = true;
    }
    // A serial of its own per cluster: a test that renews a certificate
    // (test_tls) tells them apart by it.
    const auto serial = QString::number(QRandomGenerator::global()->generate64() >> 2);
    return run(QStringList{"req"} << ec
                                  << QStringList{"-keyout", "node.key", "-out", "node.csr", "-subj",
                                                 "/CN=127.0.0.1"}) &&
           run({"x509", "-req", "-in", "node.csr", "-CA", caFile(), "-CAkey", caKeyFile(), "-set_serial", serial,
                "-days", "30", "-extfile", "node.ext", "-out", "node.pem"});
}

std::string LocalCluster::targetId(int i) const { return m_targets[static_cast<std::size_t>(i)].id; }

api::Smap LocalCluster::smap()
{
    // A fresh client: the fixture holds no idle connection to the proxy
    // (tests count connections).
    client::HttpClient http;
    // As another node asks: with the cluster key, which a proxy with auth
    // on accepts in place of a token.
    QFile keyFile(clusterKeyFile());
    client::Headers headers;
    if (keyFile.open(QIODevice::ReadOnly))
        headers.emplace_back("tessera-cluster-key", keyFile.readAll().trimmed().toStdString());
    auto r = http.send(client::Method::Get, proxyUrl() + "/v1/cluster?what=smap", {}, headers);
    if (!r || r->status != 200) return {};
    auto s = api::parseSmap(r->body);
    return s ? s.value() : api::Smap{};
}

bool LocalCluster::waitForTargets(int n, std::chrono::milliseconds timeout)
{
    return QTest::qWaitFor([&] { return static_cast<int>(smap().activeTargetCount()) == n; },
                           static_cast<int>(timeout.count()));
}

bool LocalCluster::waitForTargetGone(const std::string& id, std::chrono::milliseconds timeout)
{
    return QTest::qWaitFor(
        [&] {
            const auto s = smap();
            return s.version > 0 && s.findTarget(id) == nullptr;  // version 0: the proxy did not answer
        },
        static_cast<int>(timeout.count()));
}

qint64 LocalCluster::targetPid(int i) const { return m_targets[static_cast<std::size_t>(i)].process->processId(); }

bool LocalCluster::stopTarget(int i)
{
    const auto pid = static_cast<pid_t>(targetPid(i));
    if (pid <= 0 || ::kill(pid, SIGSTOP) != 0) return false;
    // /proc/<pid>/stat: "pid (comm) S ..."; 'T' once every thread stopped.
    const auto statFile = QStringLiteral("/proc/%1/stat").arg(pid);
    return QTest::qWaitFor(
        [&] {
            QFile f(statFile);
            if (!f.open(QIODevice::ReadOnly)) return false;
            const auto line = f.readAll();
            const auto paren = line.lastIndexOf(')');
            return paren >= 0 && paren + 2 < line.size() && line[paren + 2] == 'T';
        },
        10000);
}

void LocalCluster::killTarget(int i)
{
    auto& p = m_targets[static_cast<std::size_t>(i)].process;
    p->kill();
    p->waitForFinished(5000);
}

void LocalCluster::terminateTarget(int i) { m_targets[static_cast<std::size_t>(i)].process->terminate(); }

bool LocalCluster::waitForTargetExit(int i, std::chrono::milliseconds timeout, int* exitCode)
{
    auto& p = m_targets[static_cast<std::size_t>(i)].process;
    if (p->state() != QProcess::NotRunning && !p->waitForFinished(static_cast<int>(timeout.count()))) return false;
    if (exitCode != nullptr) *exitCode = p->exitCode();
    return p->exitStatus() == QProcess::NormalExit;
}

std::string LocalCluster::targetLogTail(int i) const
{
    QFile log(m_targets[static_cast<std::size_t>(i)].logFile);
    if (!log.open(QIODevice::ReadOnly)) return {};
    return log.readAll().right(3000).toStdString();
}

std::string LocalCluster::proxyLog() const
{
    QFile log(m_proxy.logFile);
    if (!log.open(QIODevice::ReadOnly)) return {};
    return log.readAll().toStdString();
}

std::string LocalCluster::proxyLogTail() const
{
    QFile log(m_proxy.logFile);
    if (!log.open(QIODevice::ReadOnly)) return {};
    return log.readAll().right(3000).toStdString();
}

bool LocalCluster::restartTarget(int i)
{
    if (!launch(m_targets[static_cast<std::size_t>(i)])) return false;
    // Serving once it has joined (its health is 503 until then).
    const auto url = targetUrl(i) + "/v1/health";
    return QTest::qWaitFor(
        [&] {
            client::HttpClient::Options o;
            o.retriesOn503 = 0;
            client::HttpClient http(o);
            auto r = http.send(client::Method::Get, url);
            return r && r->status == 200;
        },
        15000);
}

void LocalCluster::killProxy()
{
    m_proxy.process->kill();
    m_proxy.process->waitForFinished(5000);
}

bool LocalCluster::restartProxy()
{
    m_http = std::make_unique<client::HttpClient>();  // drop kept-alive connections to the old process
    return launch(m_proxy);
}

}  // namespace tessera::tests
