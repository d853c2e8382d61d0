#pragma once
// A real local cluster for integration tests: one proxy and N targets as
// separate tessera-node processes on free loopback ports, data in a
// temporary directory, everything killed at the end.

#include "api/smap.h"
#include "client/http_client.h"

#include <QProcess>
#include <QString>
#include <QTemporaryDir>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace tessera::tests {

class LocalCluster {
public:
    struct Options {
        int targets = 3;
        int mountpaths = 2;
        bool fsync = false;
        int keepaliveMs = 300;
        int maxMissed = 3;
        QStringList extraProxyArgs;     // appended to the proxy's command line
        QStringList extraTargetArgs{};  // appended to every target's command line
        // Every node serves HTTPS only, with a certificate from a CA made
        // for the test process (caFile()); every HttpClient of the test process
        // trusts it. Also on when $TESSERA_TEST_TLS is 1.
        bool tls = false;
    };

    LocalCluster();
    explicit LocalCluster(Options options);
    ~LocalCluster();

    // Starts the proxy and the targets and waits until every target is in
    // the cluster map. Returns false (with `error()`) on failure.
    bool start();
    const std::string& error() const { return m_error; }

    std::string proxyUrl() const;
    bool tls() const { return m_options.tls; }
    // The CA of the nodes' certificates (TLS only). One CA per test process:
    // every cluster a test starts is signed by it, so the clients made for
    // one (the process default, the programs the tests run) trust the others.
    QString caFile() const;
    QString caKeyFile() const;  // its private key, for tests that sign certificates
    // The certificate and key every node serves (TLS only).
    QString certFile() const { return m_dir.path() + "/tls/node.pem"; }
    QString keyFile() const { return m_dir.path() + "/tls/node.key"; }
    std::string targetUrl(int i) const;
    std::string targetId(int i) const;
    int targetCount() const { return static_cast<int>(m_targets.size()); }
    QString dataDir() const { return m_dir.path(); }
    QString targetDataDir(int i) const;
    // The key the proxy created at its first start; targets are given it.
    QString clusterKeyFile() const;
    std::vector<std::string> targetMountpaths(int i) const;

    api::Smap smap();
    // Waits until the proxy's map lists exactly `n` targets that are not
    // away (a killed target stays in the map, marked away).
    bool waitForTargets(int n, std::chrono::milliseconds timeout);
    // Waits until the proxy's map no longer lists target `id` (a
    // decommissioned target, once its objects have moved).
    bool waitForTargetGone(const std::string& id, std::chrono::milliseconds timeout);

    qint64 targetPid(int i) const;
    // SIGSTOP to target i, then waits (up to 10 s) until the kernel shows
    // it stopped: kill() returns before the process's threads have stopped,
    // and on a busy machine one of them may still answer a request.
    bool stopTarget(int i);
    qint64 proxyPid() const { return m_proxy.process->processId(); }
    // The tail of the proxy's log.
    std::string proxyLogTail() const;
    // The whole log of the proxy's current process.
    std::string proxyLog() const;
    // Starts one more target (index targetCount() before the call) and waits
    // until the proxy's map lists it.
    bool addTarget();
    void killTarget(int i);  // SIGKILL
    // SIGTERM (a graceful drain); does not wait.
    void terminateTarget(int i);
    // Waits up to `timeout` for target i's process to end. True when it
    // ended by itself (not by a signal) with `exitCode` (may be null) set.
    bool waitForTargetExit(int i, std::chrono::milliseconds timeout, int* exitCode);
    // The tail of target i's log, for failure messages.
    std::string targetLogTail(int i) const;
    // Starts target i again and waits until it has joined (health 200).
    bool restartTarget(int i);
    void killProxy();
    bool restartProxy();

    client::HttpClient& http() { return *m_http; }

private:
    struct Proc {
        std::unique_ptr<QProcess> process;
        QStringList args;
        QString portFile;
        QString logFile;
        int port = 0;
        std::string id;
    };
    bool launch(Proc& p);
    QStringList tlsArgs() const;
    // The CA and the nodes' certificate (for 127.0.0.1) in <dir>/tls.
    bool makeCertificates();
    bool launchTarget();
    QStringList targetArgs(int i, int port) const;

    Options m_options;
    QTemporaryDir m_dir;
    bool m_trustCaInQt = false;  // the whole suite over TLS: Qt's default SSL configuration trusts the CA
    Proc m_proxy;
    std::vector<Proc> m_targets;
    std::string m_error;
    std::unique_ptr<client::HttpClient> m_http = std::make_unique<client::HttpClient>();
};

QString nodeBinary();

}  // namespace tessera::tests
